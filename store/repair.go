package store

import (
	"bufio"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	json "github.com/goccy/go-json"

	"github.com/tidwall/buntdb"
)

// RepairReport is what Repair did to a data file.
type RepairReport struct {
	File string
	// Sidecar is the file the damaged records were moved into ("" when
	// none was damaged).
	Sidecar string
	// Moved are the damaged records and damaged bytes, moved into Sidecar.
	Moved []Damage
	// Rebuilt are the index records written anew.
	Rebuilt []string
	// Kept is the number of records in the repaired file.
	Kept int
	// Mended are the records a cut write left inconsistent, set right
	// as Open does (recover.go).
	Mended []Mend
	// Tail is a record the file ends inside (torn by a crash), not kept
	// (nil: none); alone it changes nothing, as Open drops it.
	Tail *Tail
}

// Repair moves the damaged records of a data file aside, reading it as
// Open does (recover.go), so it handles what Open names. Damaged records
// and bytes go to a sidecar FILE.damaged[.N] (JSON lines: offset, key,
// reason, value or value_base64); then, if anything changed, the file is
// replaced atomically by the good records, mended, indexes rebuilt. The
// store must not be open while it runs.
func Repair(path string) (*RepairReport, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("store: repair: %w", err)
	}
	ins := inspect(data)
	rep := &RepairReport{File: path, Moved: ins.moved, Rebuilt: ins.rebuilt, Kept: len(ins.kv), Tail: ins.tail, Mended: ins.mended}
	if len(rep.Moved) == 0 && len(rep.Rebuilt) == 0 && len(rep.Mended) == 0 {
		return rep, nil
	}
	if len(rep.Moved) > 0 {
		if rep.Sidecar, err = writeSidecar(path, rep.Moved); err != nil {
			return nil, err
		}
	}
	if err := rewrite(path, ins.kv); err != nil {
		return nil, err
	}
	return rep, nil
}

// repairStrTab checks the string table first (others refer to it),
// dropping damaged entries.
func repairStrTab(recs map[string]string, drop func(k, reason string)) []string {
	var strs []kv
	for _, k := range sortedKeys(recs) {
		if !strings.HasPrefix(k, pfxStr) {
			continue
		}
		if err := checkValue(k, recs[k], nil); err != nil {
			drop(k, err.Error())
			continue
		}
		strs = append(strs, kv{k, recs[k]})
	}
	return strTabOf(strs)
}

// replay applies the commands: the records left, each with its last
// write's offset.
func replay(cmds []aofCmd) (map[string]string, map[string]int64) {
	kv, at := map[string]string{}, map[string]int64{}
	for _, c := range cmds {
		switch strings.ToLower(c.parts[0]) {
		case "set":
			kv[c.parts[1]], at[c.parts[1]] = c.parts[2], c.off
		case "del":
			delete(kv, c.parts[1])
		case "flushdb":
			clear(kv)
		}
	}
	return kv, at
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// sidecarLine is one line of a sidecar file.
type sidecarLine struct {
	Offset      int64  `json:"offset"`
	Key         string `json:"key,omitempty"`
	Reason      string `json:"reason"`
	Value       string `json:"value,omitempty"`
	ValueBase64 string `json:"value_base64,omitempty"`
}

// writeSidecar writes the damaged records into a new synced sidecar file
// and returns its name.
func writeSidecar(path string, damage []Damage) (string, error) {
	name := path + ".damaged"
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	for n := 1; errors.Is(err, os.ErrExist); n++ {
		name = fmt.Sprintf("%s.damaged.%d", path, n)
		f, err = os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	}
	if err != nil {
		return "", fmt.Errorf("store: repair: sidecar: %w", err)
	}
	w := bufio.NewWriter(f)
	enc := json.NewEncoder(w)
	for _, d := range damage {
		line := sidecarLine{Offset: d.Offset, Key: d.Key, Reason: d.Reason}
		if utf8.Valid(d.Raw) {
			line.Value = string(d.Raw)
		} else {
			line.ValueBase64 = base64.StdEncoding.EncodeToString(d.Raw)
		}
		if err = enc.Encode(line); err != nil {
			break
		}
	}
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("store: repair: sidecar %s: %w", name, err)
	}
	return name, nil
}

// rewrite atomically replaces the data file by one of kv, written by buntdb.
func rewrite(path string, kv map[string]string) error {
	mem, err := buntdb.Open(":memory:")
	if err != nil {
		return err
	}
	defer mem.Close()
	err = mem.Update(func(tx *buntdb.Tx) error {
		for k, v := range kv {
			if _, _, err := tx.Set(k, v, nil); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("store: repair: %w", err)
	}
	tmp := path + ".repair"
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return fmt.Errorf("store: repair: %w", err)
	}
	w := bufio.NewWriter(f)
	err = mem.Save(w)
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return fmt.Errorf("store: repair: write %s: %w", path, err)
	}
	if dir, err := os.Open(filepath.Dir(path)); err == nil {
		_ = dir.Sync() // the rename, durable (best effort: not every system syncs a directory)
		_ = dir.Close()
	}
	return nil
}
