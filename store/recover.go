package store

// Reading a damaged data file, for Open (when its quick checks fail) and
// Repair alike (inspect), so Open names exactly what Repair moves aside.
// A crash can cut the last write anywhere, and buntdb writes a
// transaction's records in no set order: the torn record is dropped, as
// buntdb does, and the records the cut left inconsistent are mended
// (mend.go). That write was never acknowledged, so nothing is lost.

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/tidwall/buntdb"
)

// Tail is a record the file ends inside (torn by a crash), dropped.
type Tail struct {
	// Offset is where the record starts; Bytes how many of its bytes the
	// file holds.
	Offset, Bytes int64
	// Key is the record's key, when the file holds that much of it.
	Key string
}

func (t *Tail) String() string {
	s := fmt.Sprintf("the file ends inside a record (a write torn by a crash): its %d bytes from byte %d dropped", t.Bytes, t.Offset)
	if t.Key != "" {
		s += fmt.Sprintf(" (key %q)", t.Key)
	}
	return s
}

// Recovery is what Open did to a data file before serving it.
type Recovery struct {
	// Tail is the torn record, dropped (nil: the file ends with a whole
	// record).
	Tail *Tail
	// Mended are the records mended.
	Mended []Mend
	// Rebuilt are the index records written anew.
	Rebuilt []string
}

// Lines are the recovery's report, one line each.
func (r *Recovery) Lines() []string {
	var lines []string
	if r.Tail != nil {
		lines = append(lines, r.Tail.String())
	}
	for _, m := range r.Mended {
		lines = append(lines, m.String())
	}
	for _, k := range r.Rebuilt {
		lines = append(lines, fmt.Sprintf("key %q: the file had lost this index: written anew", k))
	}
	return lines
}

// Recovery is what Open did to the data file (nil: nothing).
func (s *Store) Recovery() *Recovery { return s.recovery }

// inspection is a data file read record by record.
type inspection struct {
	// kv are the records kept and at the offset of each one's last write.
	kv map[string]string
	at map[string]int64
	// tail is the torn record at the end (not in kv).
	tail *Tail
	// mended are the records a cut write left inconsistent, set right in kv.
	mended []Mend
	// moved are the damaged records and bytes (what Repair moves aside);
	// rebuilt the index records written anew (in kv).
	moved   []Damage
	rebuilt []string
}

// inspect reads a data file's well-formed records, skipping damaged bytes
// and a torn last record, mends what a cut write left inconsistent, moves
// records that fail Open's checks out of kv and rebuilds missing indexes.
func inspect(data []byte) *inspection {
	cmds, structural, torn := aofScan(data)
	ins := &inspection{}
	if torn != nil {
		ins.tail = &Tail{Offset: torn.Offset, Bytes: int64(len(torn.Raw)), Key: torn.Key}
	}
	var last lastWrite
	ins.kv, ins.at, last = replayLast(cmds)
	if len(structural) == 0 {
		ins.mended = last.mend(ins.kv, ins.at)
	}
	kv := ins.kv
	get := func(k string) (string, bool) { v, ok := kv[k]; return v, ok }
	drop := func(k, reason string) {
		ins.moved = append(ins.moved, Damage{Offset: ins.at[k], Key: k, Reason: reason, Raw: []byte(kv[k])})
		delete(kv, k)
	}
	// Records on their own first, then those pointing at others
	// (indexes, retention cuts), then the missing indexes.
	tab := repairStrTab(kv, drop)
	for _, k := range sortedKeys(kv) {
		if err := checkValue(k, kv[k], tab); err != nil {
			drop(k, err.Error())
		}
	}
	for _, k := range sortedKeys(kv) {
		if strings.HasPrefix(k, pfxConvID) || strings.HasPrefix(k, pfxHandoffSID) || strings.HasPrefix(k, pfxGenCut) {
			if err := checkLinks(k, kv[k], get); err != nil {
				drop(k, err.Error())
			}
		}
	}
	for _, k := range sortedKeys(kv) {
		idx := ""
		switch {
		case strings.HasPrefix(k, pfxConv):
			if idx = convIDKeyOf(k); kv[idx] == k {
				idx = ""
			}
		case strings.HasPrefix(k, pfxHandoff):
			// A state whose shared id no other state claims gets it back.
			if h, err := decodeHandoffState(kv[k]); err == nil && h.SharedID != "" {
				if idx = handoffSharedKey(h.Region, h.AccountID, h.ProjectID, h.SharedID); kv[idx] != "" {
					idx = ""
				}
			}
		}
		if idx != "" {
			kv[idx] = k
			ins.rebuilt = append(ins.rebuilt, idx)
		}
	}
	ins.moved = append(structural, ins.moved...)
	return ins
}

// recoverFile inspects a data file that failed the quick checks: damage
// is a *DamageError; else a torn tail is cut off and writes are what to
// set (nil: delete) once open.
func recoverFile(path string) (rec *Recovery, writes map[string]*string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	ins := inspect(data)
	if len(ins.moved) > 0 {
		for i := range ins.moved {
			ins.moved[i].Raw = nil
		}
		return nil, nil, &DamageError{File: path, Damages: ins.moved}
	}
	rec = &Recovery{Tail: ins.tail, Mended: ins.mended, Rebuilt: ins.rebuilt}
	writes = map[string]*string{}
	for _, m := range ins.mended {
		writes[m.Key] = nil
		if v, ok := ins.kv[m.Key]; ok {
			writes[m.Key] = &v
		}
	}
	for _, k := range ins.rebuilt {
		v := ins.kv[k]
		writes[k] = &v
	}
	if ins.tail != nil {
		if err := truncateFile(path, ins.tail.Offset); err != nil {
			return nil, nil, err
		}
	}
	return rec, writes, nil
}

// truncateFile cuts a file at size and syncs it.
func truncateFile(path string, size int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("store: drop a torn last record from %s: %w", filepath.Base(path), err)
	}
	return nil
}

// openChecked opens a data file with buntdb after its checks (verify.go);
// a file failing them goes through recoverFile first.
func openChecked(path string) (*buntdb.DB, *Recovery, error) {
	clean, err := checkFile(path)
	if err != nil {
		return nil, nil, err
	}
	if clean {
		db, err := openDB(path)
		if err != nil {
			return nil, nil, err
		}
		ok, err := verify(db)
		if err == nil && ok {
			return db, nil, nil
		}
		_ = db.Close()
		if err != nil {
			return nil, nil, err
		}
	}
	rec, writes, err := recoverFile(path)
	if err != nil {
		return nil, nil, err
	}
	db, err := openDB(path)
	if err != nil {
		return nil, nil, err
	}
	if len(writes) > 0 {
		err = db.Update(func(tx *buntdb.Tx) error {
			for k, v := range writes {
				var err error
				if v == nil {
					err = del(tx, k)
				} else {
					err = set(tx, k, *v)
				}
				if err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			_ = db.Close()
			return nil, nil, fmt.Errorf("store: open %q: mend records: %w", path, err)
		}
	}
	return db, rec, nil
}

// openDB opens a buntdb database, synced every second.
func openDB(path string) (*buntdb.DB, error) {
	db, err := buntdb.Open(path)
	if err != nil {
		return nil, fmt.Errorf("store: open %q: %w", path, err)
	}
	if err := db.SetConfig(buntdb.Config{
		SyncPolicy:           buntdb.EverySecond,
		AutoShrinkPercentage: 100,
		AutoShrinkMinSize:    32 * 1024 * 1024,
	}); err != nil {
		_ = db.Close()
		return nil, fmt.Errorf("store: configure %q: %w", path, err)
	}
	return db, nil
}
