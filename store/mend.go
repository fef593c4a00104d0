package store

// Mending what a cut write leaves (recover.go). A cut write lies within
// the file's last records with distinct keys (a write sets each key at
// most once; a Restore's write begins with its flushdb) and breaks
// records only by losing others (an index's record, a conversation's new
// strings, a retention cut's generator). Those among the last records are set back
// to their value before it, or dropped; anything else is damage. A file
// with damaged bytes is not mended: the missing record may be in them.

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

// lastWrite is the file's last records with distinct keys (holding its
// last write), with each key's value before them.
type lastWrite struct {
	keys map[string]bool
	// before is a key's value before them (nil: not there) and beforeAt
	// the offset of that value's write.
	before   map[string]*string
	beforeAt map[string]int64
}

// replayLast is replay also returning the lastWrite.
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

// mend sets right what a cut last write left inconsistent in kv.
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

// cutFailure says how record k of kv fails as a cut write would make it
// ("": it does not).
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

// strLackError is a reference to a string the table lacks.
type strLackError uint64

func strLacking(n uint64) error { return strLackError(n) }

func (e strLackError) Error() string {
	return fmt.Sprintf("a string (%d) that the string table lacks", uint64(e))
}
