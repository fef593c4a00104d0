package store

// Self-checking data files. Before serving a data file, Open checks that
// every record is well formed (aof.go), decodes by the store's own
// decoders and agrees with its key and indexes. When a check fails the
// file is read again record by record (recover.go), and damage stops Open
// with a DamageError naming each record, rather than 500s later.

import (
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	json "github.com/goccy/go-json"

	"github.com/tidwall/buntdb"
)

// Damage is one damaged record of a data file.
type Damage struct {
	// Offset is where the record's last write starts (-1: unknown).
	Offset int64
	// Key is the record's key ("" when it could not be read).
	Key string
	// Reason says what is wrong.
	Reason string
	// Raw is the record's value, or the damaged bytes of the file.
	Raw []byte
}

func (d Damage) String() string {
	var b strings.Builder
	if d.Offset >= 0 {
		fmt.Fprintf(&b, "byte %d", d.Offset)
	}
	if d.Key != "" {
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "key %q", d.Key)
	}
	b.WriteString(": ")
	b.WriteString(d.Reason)
	return b.String()
}

// DamageError is a data file with damaged records: Open refuses it.
type DamageError struct {
	File    string
	Damages []Damage
}

func (e *DamageError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "store: data file %s has %d damaged record", e.File, len(e.Damages))
	if len(e.Damages) != 1 {
		b.WriteByte('s')
	}
	for _, d := range e.Damages {
		b.WriteString("\n  ")
		b.WriteString(d.String())
	}
	return b.String()
}

// checkFile streams a data file before buntdb loads it: clean if well formed.
func checkFile(path string) (clean bool, err error) {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	r := newAOFReader(f, 0)
	for {
		_, err := r.next()
		if errors.Is(err, io.EOF) {
			return true, nil
		}
		var ae *aofError
		if errors.As(err, &ae) {
			return false, nil
		}
		if err != nil {
			return false, err
		}
	}
}

// checkRecord checks one record (checkValue, then checkLinks).
func checkRecord(k, v string, tab []string, get func(string) (string, bool)) error {
	if err := checkValue(k, v, tab); err != nil {
		return err
	}
	return checkLinks(k, v, get)
}

// checkValue checks that a record decodes (with the file's string table
// tab) and agrees with its key; it returns why not, or nil.
func checkValue(k, v string, tab []string) error {
	switch {
	case strings.HasPrefix(k, pfxConvID):
		if !strings.HasPrefix(v, pfxConv) {
			return fmt.Errorf("index whose value is not a conversation key (%.40q)", v)
		}
	case strings.HasPrefix(k, pfxConv):
		c, err := decodeConv(k, v, tab)
		if err != nil {
			return err
		}
		if convKey(c) != k {
			return fmt.Errorf("the record is conversation %s/%s, stored under another key", c.Region, c.ID)
		}
	case strings.HasPrefix(k, pfxHandoffSID):
		if !strings.HasPrefix(v, pfxHandoff) {
			return fmt.Errorf("index whose value is not a handoff state key (%.40q)", v)
		}
	case strings.HasPrefix(k, pfxHandoff):
		h, err := decodeHandoffState(v)
		if err != nil {
			return err
		}
		if handoffKey(h.Region, h.AccountID, h.ProjectID, h.ID) != k {
			return fmt.Errorf("the record is handoff state %s/%s, stored under another key", h.Region, h.ID)
		}
	case strings.HasPrefix(k, pfxGen):
		sp := new(GenSpec)
		if err := json.Unmarshal([]byte(v), sp); err != nil {
			return fmt.Errorf("decode generator: %w", err)
		}
		if err := checkSpec(sp); err != nil {
			return err
		}
	case strings.HasPrefix(k, pfxGenCut):
		if _, err := strconv.ParseInt(v, 10, 64); err != nil {
			return fmt.Errorf("retention cut that is not a number (%.40q)", v)
		}
	case strings.HasPrefix(k, pfxConvDel):
		if v != "" {
			return fmt.Errorf("deletion marker with a value (%.40q)", v)
		}
	case strings.HasPrefix(k, pfxStr):
		if _, ok := strIndexOf(k); !ok {
			return errors.New("string table key that is not a number")
		}
	case strings.HasPrefix(k, pfxDoc):
		if !json.Valid([]byte(v)) {
			return errors.New("decode document: not valid JSON")
		}
	default:
		return errors.New("not a key of this store")
	}
	return nil
}

// checkLinks checks that an index points at a record and that a
// conversation has its index (get reads a record).
func checkLinks(k, v string, get func(string) (string, bool)) error {
	switch {
	case strings.HasPrefix(k, pfxConvID), strings.HasPrefix(k, pfxHandoffSID):
		if _, ok := get(v); !ok {
			return fmt.Errorf("index of a record that is not there (%q)", v)
		}
		if strings.HasPrefix(k, pfxConvID) && convIDKeyOf(v) != k {
			return fmt.Errorf("index of another conversation (%q)", v)
		}
	case strings.HasPrefix(k, pfxConv):
		if idx, ok := get(convIDKeyOf(k)); !ok || idx != k {
			return errors.New("the conversation has no index")
		}
	case strings.HasPrefix(k, pfxGenCut):
		if _, ok := get(pfxGen + strings.TrimPrefix(k, pfxGenCut)); !ok {
			return errors.New("retention cut of a generator that is not there")
		}
	}
	return nil
}

// convIDKeyOf is the index key (ci/{region}/{id}) of a conversation key.
func convIDKeyOf(k string) string {
	parts := strings.SplitN(strings.TrimPrefix(k, pfxConv), "/", 5)
	if len(parts) != 5 {
		return ""
	}
	return pfxConvID + parts[0] + "/" + parts[4]
}

// strTabOf is the string table of a file's records (lacking: strMissing).
func strTabOf(recs []kv) []string {
	var strs []string
	for _, r := range recs {
		n, ok := strIndexOf(r.k)
		if !ok {
			continue
		}
		for len(strs) <= n {
			strs = append(strs, strMissing)
		}
		strs[n] = r.v
	}
	return strs
}

// verify checks every record of an open database; ok false if any fails.
func verify(db *buntdb.DB) (ok bool, err error) {
	var recs []kv
	err = db.View(func(tx *buntdb.Tx) error {
		return tx.Ascend("", func(k, v string) bool {
			recs = append(recs, kv{k, v})
			return true
		})
	})
	if err != nil {
		return false, err
	}
	tab := strTabOf(recs)
	var failed atomic.Bool
	var wg sync.WaitGroup
	workers := runtime.GOMAXPROCS(0)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(recs) && !failed.Load(); i += workers {
				if checkValue(recs[i].k, recs[i].v, tab) != nil {
					failed.Store(true)
				}
			}
		}()
	}
	wg.Wait()
	if failed.Load() {
		return false, nil
	}
	ok = true
	err = db.View(func(tx *buntdb.Tx) error {
		get := func(k string) (string, bool) {
			v, err := tx.Get(k)
			return v, err == nil
		}
		for _, r := range recs {
			if checkLinks(r.k, r.v, get) != nil {
				ok = false
				return nil
			}
		}
		return nil
	})
	return ok, err
}
