package store

// The string table: strings that repeat between conversation records
// (variants, channels, languages, agent responses, object keys), held once
// and referred to by number from compact records (convbin.go). Each is a
// record s/{n} written with the first record using it. A string enters on
// its second write, if short and the table not full; entries stay. Writers
// hold the database's write lock; readers load the append-only list
// atomically inside their transaction.

import (
	"fmt"
	"hash/maphash"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/tidwall/buntdb"
)

// pfxStr holds the string table: s/{n} → string.
const pfxStr = "s/"

const (
	// strTabMax bounds the strings of a table.
	strTabMax = 1 << 16
	// strTabMaxLen bounds the length of a string in the table.
	strTabMaxLen = 256
	// strSeenMax bounds the strings remembered as written once.
	strSeenMax = 1 << 14
)

// strMissing stands for an entry a damaged file lacks (its users fail).
const strMissing = "\x00missing"

type strTab struct {
	strs atomic.Pointer[[]string]
	// The rest is the writers' (under the write lock). base numbers the
	// first baseN strings (a snapshot's, shared) and idx the others.
	base    map[string]uint32
	baseN   int
	idx     map[string]uint32
	seen    map[uint64]struct{}
	seed    maphash.Seed
	pending []uint32 // entered by the running write, not written yet
}

// load returns the table's strings (read them inside a transaction).
func (t *strTab) load() []string {
	if p := t.strs.Load(); p != nil {
		return *p
	}
	return nil
}

// intern returns s's number, entering s on its second write.
func (t *strTab) intern(s string) (uint32, bool) {
	if t.idx == nil {
		strs := t.load()
		t.idx = make(map[string]uint32, len(strs)-t.baseN)
		for i, x := range strs[t.baseN:] {
			if x != strMissing {
				t.idx[x] = uint32(t.baseN + i)
			}
		}
	}
	if n, ok := t.base[s]; ok {
		return n, true
	}
	if n, ok := t.idx[s]; ok {
		return n, true
	}
	strs := t.load()
	if len(s) > strTabMaxLen || len(strs) >= strTabMax || strings.HasPrefix(s, "\x00") {
		return 0, false
	}
	if t.seen == nil {
		t.seed = maphash.MakeSeed()
		t.seen = map[uint64]struct{}{}
	}
	h := maphash.String(t.seed, s)
	if _, ok := t.seen[h]; !ok {
		if len(t.seen) >= strSeenMax {
			clear(t.seen)
		}
		t.seen[h] = struct{}{}
		return 0, false
	}
	delete(t.seen, h)
	n := uint32(len(strs))
	s = strings.Clone(s) // not a view of a record or a request
	strs = append(strs, s)
	t.strs.Store(&strs)
	t.idx[s] = n
	t.pending = append(t.pending, n)
	return n, true
}

// flushLocked writes the strings entered since the last flush.
func (t *strTab) flushLocked(tx *buntdb.Tx, log *shadowLog) error {
	if len(t.pending) == 0 {
		return nil
	}
	strs := t.load()
	first := t.pending[0]
	t.pending = t.pending[:0]
	log.fns = append(log.fns, func() {
		cur := t.load()
		for _, s := range cur[first:] {
			delete(t.idx, s)
		}
		old := cur[:first:first]
		t.strs.Store(&old)
	})
	for n := int(first); n < len(strs); n++ {
		if err := set(tx, strKey(n), strs[n]); err != nil {
			return err
		}
	}
	return nil
}

// discardLocked forgets the strings entered by a write that failed.
func (t *strTab) discardLocked() {
	if len(t.pending) == 0 {
		return
	}
	first := t.pending[0]
	t.pending = t.pending[:0]
	cur := t.load()
	for _, s := range cur[first:] {
		delete(t.idx, s)
	}
	old := cur[:first:first]
	t.strs.Store(&old)
}

// reset replaces the table by strs (shared, never appended to in place).
func (t *strTab) reset(strs []string) { t.resetIndexed(strs, nil) }

// resetIndexed is reset with strs' shared numbers (nil: built on demand).
func (t *strTab) resetIndexed(strs []string, base map[string]uint32) {
	strs = strs[:len(strs):len(strs)]
	t.strs.Store(&strs)
	t.base, t.baseN, t.idx = base, 0, nil
	if base != nil {
		t.baseN = len(strs)
	}
	t.pending = t.pending[:0]
}

// strTabIndex numbers the strings of a table, missing entries aside.
func strTabIndex(strs []string) map[string]uint32 {
	idx := make(map[string]uint32, len(strs))
	for i, x := range strs {
		if x != strMissing {
			idx[x] = uint32(i)
		}
	}
	return idx
}

func strKey(n int) string { return pfxStr + strconv.Itoa(n) }

// strIndexOf reads the number of a table key.
func strIndexOf(k string) (int, bool) {
	n, err := strconv.Atoi(strings.TrimPrefix(k, pfxStr))
	if err != nil || n < 0 || n >= strTabMax || strKey(n) != k {
		return 0, false
	}
	return n, true
}

// loadStrTab reads a database's table (lacking entries: strMissing).
func loadStrTab(tx *buntdb.Tx) ([]string, error) {
	var strs []string
	var bad error
	err := scanPrefix(tx, pfxStr, func(k, v string) bool {
		n, ok := strIndexOf(k)
		if !ok {
			bad = fmt.Errorf("string table key %q", k)
			return false
		}
		for len(strs) <= n {
			strs = append(strs, strMissing)
		}
		strs[n] = v
		return true
	})
	if err == nil {
		err = bad
	}
	return strs, err
}
