package store

// Mending what a cut write leaves (recover.go). A cut write's records lie
// within the file's last records with distinct keys (a write sets a key
// at most once), and it can break records only by losing others: an
// index whose record was not written, a conversation whose new strings
// (s/N) were not, a retention cut whose generator was not. Such a
// record, when it or the record it needs is among those last records, is
// set right: the index or the retention cut dropped, the conversation
// back to its value before those last records, or dropped when it had
// none (the cut write created it). A conversation that lost its index
// gets it back with the indexes rebuilt after. Anything else wrong with
// a record is damage, whatever its place in the file; and a file with
// damaged bytes is not mended at all, since a record missing from it may
// be in those bytes rather than cut off.

import (
	"errors"
	"fmt"
	"slices"
	"strings"
)

// Mend is a record that a cut write left inconsistent, set right.
type Mend struct {
	Key string
	// Reason is what was wrong; Restored says the record went back to
	// its value before the cut write (otherwise it was dropped).
	Reason   string
	Restored bool
}

func (m Mend) String() string {
	done := "dropped"
	if m.Restored {
		done = "restored to its value before the cut write"
	}
	return fmt.Sprintf("key %q: %s, as a write cut by a crash leaves it: %s", m.Key, m.Reason, done)
}

// lastWrite is the file's last records with distinct keys, which hold
// its last write: their keys and the value each had before them.
type lastWrite struct {
	keys map[string]bool
	// before is a key's value before them (nil: not there) and beforeAt
	// the offset of that value's write.
	before   map[string]*string
	beforeAt map[string]int64
}

// replayLast is replay, with the file's last records with distinct keys
// (back to a flushdb, the first record of its write).
func replayLast(cmds []aofCmd) (map[string]string, map[string]int64, lastWrite) {
	last := lastWrite{keys: map[string]bool{}, before: map[string]*string{}, beforeAt: map[string]int64{}}
	start := len(cmds)
	for start > 0 {
		c := cmds[start-1]
		if len(c.parts) < 2 {
			start--
			break
		}
		if last.keys[c.parts[1]] {
			break
		}
		last.keys[c.parts[1]] = true
		start--
	}
	kv, at := replay(cmds[:start])
	flush := start < len(cmds) && len(cmds[start].parts) < 2
	for k := range last.keys {
		if v, ok := kv[k]; ok && !flush {
			last.before[k], last.beforeAt[k] = &v, at[k]
		}
	}
	for _, c := range cmds[start:] {
		switch strings.ToLower(c.parts[0]) {
		case "set":
			kv[c.parts[1]], at[c.parts[1]] = c.parts[2], c.off
		case "del":
			delete(kv, c.parts[1])
			delete(at, c.parts[1])
		case "flushdb":
			clear(kv)
			clear(at)
		}
	}
	return kv, at, last
}

// mend sets right the records of kv that a cut last write left
// inconsistent (see the file comment), and says what it did.
func (last lastWrite) mend(kv map[string]string, at map[string]int64) []Mend {
	if len(last.keys) == 0 {
		return nil
	}
	var mends []Mend
	tab := strTabOfMap(kv)
	for {
		// The records that may fail by a cut: the last records, and
		// every index and retention cut (a cheap look at each).
		var cands []string
		for k := range last.keys {
			if _, ok := kv[k]; ok {
				cands = append(cands, k)
			}
		}
		for k := range kv {
			if !last.keys[k] && (strings.HasPrefix(k, pfxConvID) || strings.HasPrefix(k, pfxHandoffSID) || strings.HasPrefix(k, pfxGenCut)) {
				cands = append(cands, k)
			}
		}
		slices.Sort(cands)
		changed := false
		for _, k := range cands {
			reason := last.cutFailure(kv, tab, k)
			if reason == "" {
				continue
			}
			m := Mend{Key: k, Reason: reason}
			if b := last.before[k]; b != nil && strings.HasPrefix(k, pfxConv) && *b != kv[k] {
				kv[k], at[k] = *b, last.beforeAt[k]
				m.Restored = true
			} else {
				delete(kv, k)
				delete(at, k)
			}
			mends = append(mends, m)
			changed = true
		}
		if !changed {
			return mends
		}
	}
}

// cutFailure says how record k of kv fails as a cut write makes a record
// fail, with it or the record it needs among the last records ("": it
// does not).
func (last lastWrite) cutFailure(kv map[string]string, tab []string, k string) string {
	v, ok := kv[k]
	if !ok {
		return ""
	}
	switch {
	case strings.HasPrefix(k, pfxConvID), strings.HasPrefix(k, pfxHandoffSID):
		if !last.keys[k] && !last.keys[v] {
			return ""
		}
		if _, there := kv[v]; !there {
			return fmt.Sprintf("index of a record that is not there (%q)", v)
		}
		if strings.HasPrefix(k, pfxConvID) && convIDKeyOf(v) != k {
			return fmt.Sprintf("index of another conversation (%q)", v)
		}
	case strings.HasPrefix(k, pfxConv):
		if !last.keys[k] {
			return ""
		}
		_, err := decodeConv(k, v, tab)
		if lack := strLackError(0); errors.As(err, &lack) {
			return err.Error()
		}
	case strings.HasPrefix(k, pfxGenCut):
		g := pfxGen + strings.TrimPrefix(k, pfxGenCut)
		if _, there := kv[g]; !there && (last.keys[k] || last.keys[g]) {
			return "retention cut of a generator that is not there"
		}
	}
	return ""
}

// strTabOfMap is strTabOf over a map of records.
func strTabOfMap(recs map[string]string) []string {
	var strs []kv
	for k, v := range recs {
		if strings.HasPrefix(k, pfxStr) {
			strs = append(strs, kv{k, v})
		}
	}
	return strTabOf(strs)
}

// strLackError is a compact record's reference to a string the table
// lacks: what a cut write leaves when it loses a new string's record.
type strLackError uint64

func strLacking(n uint64) error { return strLackError(n) }

func (e strLackError) Error() string {
	return fmt.Sprintf("a string (%d) that the string table lacks", uint64(e))
}
