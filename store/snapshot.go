package store

// Snapshots and Restore. A memory store shares what a snapshot derives
// from its records (indexes, aggregates, shadow bits, string table) copy
// on write, and rewrites only the keys that differ. A file-backed store
// rewrites every key, so that its append-only file records the reset.

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/tidwall/buntdb"
)

// Snapshot is an immutable capture of all data of a store, restorable any
// number of times into any store.
type Snapshot struct {
	kvs []kv // ascending key order
	// gen are the layers (shadow bits copied) and their key sequence.
	gen    []*layerState
	genSeq int
	// metrics are the data's aggregates, frozen (nil: rebuilt after Restore).
	metrics map[ProjectRef]*projMetrics
	// strs is the string table (shared: never appended to in place).
	strs []string

	// ids and strIdx index the records and strs, built by the first Restore.
	once   sync.Once
	ids    *convIDs
	strIdx map[string]uint32
}

type kv struct{ k, v string }

// index returns the snapshot's lookup index and string numbers, built once.
func (snap *Snapshot) index() (*convIDs, map[string]uint32) {
	snap.once.Do(func() {
		snap.ids = snapshotIndex(snap.kvs)
		snap.strIdx = strTabIndex(snap.strs)
	})
	return snap.ids, snap.strIdx
}

// Snapshot captures all data now; values are shared, not copied.
func (s *Store) Snapshot() (*Snapshot, error) {
	snap := &Snapshot{}
	err := s.view(func(tx *buntdb.Tx) error {
		n, err := tx.Len()
		if err != nil {
			return err
		}
		snap.kvs = make([]kv, 0, n)
		for _, ls := range s.gen {
			snap.gen = append(snap.gen, ls.clone())
		}
		snap.genSeq = s.genSeq
		snap.strs = slices.Clip(s.tab.load())
		s.metrics.mu.Lock()
		snap.metrics = s.metrics.snapshotLocked()
		s.metrics.mu.Unlock()
		return tx.Ascend("", func(k, v string) bool {
			snap.kvs = append(snap.kvs, kv{k, v})
			return true
		})
	})
	if err != nil {
		return nil, fmt.Errorf("store: snapshot: %w", err)
	}
	return snap, nil
}

// Restore replaces all data by the snapshot's in one transaction; nil
// empties the store. A data file records the reset, so reopening it
// yields the restored state.
func (s *Store) Restore(snap *Snapshot) error {
	err := s.updateGen(func(tx *buntdb.Tx, log *shadowLog) error {
		same := snap != nil && !s.file && s.restored == snap && s.writes == s.restoredAt+1
		s.restored = nil
		s.convs.clear() // for memory only: entries validate themselves
		gen, seq, strs, ids := s.gen, s.genSeq, s.tab.load(), s.ids
		log.fns = append(log.fns, func() { s.gen, s.genSeq, s.ids = gen, seq, ids; s.tab.reset(strs) })
		s.gen, s.genSeq, s.ids = nil, 0, convIDs{}
		s.tab.reset(nil)
		if !same {
			if err := s.restoreKeysLocked(tx, snap); err != nil {
				return err
			}
		}
		if snap == nil {
			s.metrics.mu.Lock()
			s.metrics.resetLocked(true)
			s.metrics.mu.Unlock()
			return nil
		}
		baseIDs, strIdx := snap.index()
		if !s.file {
			s.ids = convIDs{base: baseIDs}
		}
		s.tab.resetIndexed(snap.strs, strIdx)
		for _, ls := range snap.gen {
			s.gen = append(s.gen, ls.sharing())
		}
		s.genSeq = snap.genSeq
		s.metrics.mu.Lock()
		s.metrics.adoptLocked(snap.metrics)
		s.metrics.mu.Unlock()
		if !s.file {
			s.restored, s.restoredAt = snap, s.writes
		}
		return nil
	})
	if err != nil {
		s.metricsInvalid()
		return fmt.Errorf("store: restore: %w", err)
	}
	s.convChanged()
	return nil
}

// restoreKeysLocked makes the keys the snapshot's (nil: none): a memory
// store writes only those that differ when they are few, else every key
// is rewritten (with a data file's lookup keys, convids.go).
func (s *Store) restoreKeysLocked(tx *buntdb.Tx, snap *Snapshot) error {
	if !s.file && snap != nil {
		if done, err := restoreDiffLocked(tx, snap.kvs); done || err != nil {
			return err
		}
	}
	if err := tx.DeleteAll(); err != nil {
		return err
	}
	if snap == nil {
		return nil
	}
	for _, p := range snap.kvs {
		if strings.HasPrefix(p.k, pfxConvID) {
			continue // a data file's index: this store indexes the records itself
		}
		if err := set(tx, p.k, p.v); err != nil {
			return err
		}
		if !s.file {
			continue // the snapshot's index is the store's (Restore)
		}
		if parts, ok := parseConvKey(p.k); ok {
			if _, _, err := s.indexConvLocked(tx, nil, parts.region, parts.id, p.k); err != nil {
				return err
			}
		}
	}
	return nil
}

// restoreDiffLocked makes a memory store's keys those of kvs by writing
// the ones that differ, if at most a quarter do (done; else nothing).
func restoreDiffLocked(tx *buntdb.Tx, kvs []kv) (done bool, err error) {
	var sets []kv
	var dels []string
	limit := len(kvs)/4 + 16
	i := 0
	// want adds the snapshot's keys before upTo that the store lacks.
	want := func(upTo string, all bool) {
		for ; i < len(kvs) && (all || kvs[i].k < upTo); i++ {
			if !strings.HasPrefix(kvs[i].k, pfxConvID) {
				sets = append(sets, kvs[i])
			}
		}
	}
	err = tx.Ascend("", func(k, v string) bool {
		want(k, false)
		if i < len(kvs) && kvs[i].k == k {
			if kvs[i].v != v {
				sets = append(sets, kvs[i])
			}
			i++
		} else {
			dels = append(dels, k)
		}
		return len(sets)+len(dels) <= limit
	})
	if err != nil || len(sets)+len(dels) > limit {
		return false, err
	}
	if want("", true); len(sets)+len(dels) > limit {
		return false, nil
	}
	for _, k := range dels {
		if err := del(tx, k); err != nil {
			return false, err
		}
	}
	for _, p := range sets {
		if err := set(tx, p.k, p.v); err != nil {
			return false, err
		}
	}
	return true, nil
}

// Equal reports whether two snapshots hold the same data.
func (s *Snapshot) Equal(o *Snapshot) bool {
	if s == nil || o == nil {
		return s == o
	}
	if len(s.kvs) != len(o.kvs) || len(s.gen) != len(o.gen) {
		return false
	}
	for i := range s.gen {
		if s.gen[i].genLayer != o.gen[i].genLayer || s.gen[i].cut != o.gen[i].cut || !slices.Equal(s.gen[i].shadow, o.gen[i].shadow) {
			return false
		}
	}
	for i := range s.kvs {
		if s.kvs[i] != o.kvs[i] {
			return false
		}
	}
	return true
}

// Keys lists the keys of a snapshot, for test failure messages.
func (s *Snapshot) Keys() []string {
	out := make([]string, len(s.kvs))
	for i, kv := range s.kvs {
		out[i] = kv.k
	}
	return out
}

// thawed is a changeable copy of a frozen pm, sharing buckets until changed.
func (pm *projMetrics) thawed() *projMetrics {
	cp := &projMetrics{odd: slices.Clone(pm.odd), conc: &concIndex{series: maps.Clone(pm.conc.series)}}
	for k, s := range pm.kinds {
		cp.kinds[k] = maps.Clone(s)
	}
	return cp
}

// snapshotLocked returns a frozen copy of valid aggregates (else nil),
// without API errors, sharing the buckets it freezes. metrics.mu must be
// held.
func (m *metrics) snapshotLocked() map[ProjectRef]*projMetrics {
	if !m.valid {
		return nil
	}
	out := make(map[ProjectRef]*projMetrics, len(m.projects))
	for ref, pm := range m.projects {
		if pm.frozen {
			out[ref] = pm
			continue
		}
		cp := &projMetrics{odd: slices.Clone(pm.odd), conc: pm.conc.frozenCopy(), frozen: true}
		for k, s := range pm.kinds {
			for _, b := range s {
				if b.frozen {
					continue
				}
				b.sort()
				if uint8(k) == evTurn {
					b.histogram()
				}
				b.frozen = true
			}
			cp.kinds[k] = maps.Clone(s)
		}
		out[ref] = cp
	}
	return out
}

// adoptLocked shares a snapshot's aggregates (nil: rebuild); metrics.mu held.
func (m *metrics) adoptLocked(projects map[ProjectRef]*projMetrics) {
	m.resetLocked(projects != nil)
	if projects != nil {
		m.projects = maps.Clone(projects)
	}
}
