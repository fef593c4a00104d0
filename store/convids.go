package store

import (
	"maps"
	"strings"

	"github.com/tidwall/buntdb"
)

// The conversations' lookup index: a stored conversation's primary key
// (convKey) by region and id. A data file holds it as ci/{region}/{id}
// keys, so a failed commit rolls it back. A memory store, whose commits
// cannot fail, keeps it in a map under the database's lock instead (one
// key per record, not two), undoing changes of a failed transaction
// (shadowLog) and sharing a restored snapshot's index copy-on-write.
type convIDs struct {
	// base is a snapshot's index (snapshotIndex), shared and never
	// changed; pk and counts hold the changes made since.
	base *convIDs
	// pk maps a conversation to its primary key; with a base, "" marks
	// one of the base's entries deleted.
	pk map[convRef]string
	// counts are the stored conversations per region (nil with a base:
	// the base's, until the first change).
	counts map[string]int
}

// convRef names a conversation.
type convRef struct{ region, id string }

// idUndo is a change to undo: ref's previous primary key, if had.
type idUndo struct {
	ref convRef
	pk  string
	had bool
}

// getLocked returns the primary key of the stored conversation.
func (x *convIDs) getLocked(region, id string) (string, bool) {
	return x.get(convRef{region, id})
}

func (x *convIDs) get(ref convRef) (string, bool) {
	if pk, ok := x.pk[ref]; ok || x.base == nil {
		return pk, pk != ""
	}
	pk, ok := x.base.pk[ref]
	return pk, ok
}

// countLocked is the number of stored conversations of a region.
func (x *convIDs) countLocked(region string) int {
	if x.counts == nil && x.base != nil {
		return x.base.counts[region]
	}
	return x.counts[region]
}

// own makes pk and counts this index's own, before a change.
func (x *convIDs) own() {
	if x.pk == nil {
		x.pk = map[convRef]string{}
	}
	if x.counts == nil {
		if x.base != nil {
			x.counts = maps.Clone(x.base.counts)
		} else {
			x.counts = map[string]int{}
		}
	}
}

// putLocked indexes (region, id) under pk, logging the undo, and returns
// the key it replaces.
func (x *convIDs) putLocked(log *shadowLog, region, id, pk string) (prev string, had bool) {
	if strings.HasSuffix(pk, "/"+id) {
		id = pk[len(pk)-len(id):] // the key's bytes: no string of its own
	}
	ref := convRef{region, id}
	prev, had = x.get(ref)
	x.setRef(ref, pk, had)
	if log != nil {
		log.ids = append(log.ids, idUndo{ref, prev, had})
	}
	return prev, had
}

// setRef maps ref to pk (not ""); had says whether ref was indexed.
func (x *convIDs) setRef(ref convRef, pk string, had bool) {
	x.own()
	x.pk[ref] = pk
	if !had {
		x.counts[ref.region]++
	}
}

// deleteLocked removes (region, id) from the index, logging the change.
func (x *convIDs) deleteLocked(log *shadowLog, region, id string) {
	ref := convRef{region, id}
	prev, had := x.get(ref)
	if !had {
		return
	}
	x.removeLocked(ref)
	if log != nil {
		log.ids = append(log.ids, idUndo{ref, prev, true})
	}
}

// removeLocked removes ref, which is indexed.
func (x *convIDs) removeLocked(ref convRef) {
	x.own()
	if _, inBase := x.base.basePK(ref); inBase {
		x.pk[ref] = ""
	} else {
		delete(x.pk, ref)
	}
	if x.counts[ref.region]--; x.counts[ref.region] == 0 {
		delete(x.counts, ref.region)
	}
}

// basePK reads a base index (nil: none).
func (x *convIDs) basePK(ref convRef) (string, bool) {
	if x == nil {
		return "", false
	}
	pk, ok := x.pk[ref]
	return pk, ok
}

// undo takes back the logged changes, last first.
func (x *convIDs) undo(log []idUndo) {
	for i := len(log) - 1; i >= 0; i-- {
		u := log[i]
		_, has := x.get(u.ref)
		switch {
		case u.had:
			x.setRef(u.ref, u.pk, has)
		case has:
			x.removeLocked(u.ref)
		}
	}
}

// all yields the index's entries (tests).
func (x *convIDs) all(yield func(convRef, string) bool) {
	if x.base != nil {
		for ref, pk := range x.base.pk {
			if _, changed := x.pk[ref]; !changed && !yield(ref, pk) {
				return
			}
		}
	}
	for ref, pk := range x.pk {
		if pk != "" && !yield(ref, pk) {
			return
		}
	}
}

// snapshotIndex builds a snapshot's lookup index, the base of restores.
func snapshotIndex(kvs []kv) *convIDs {
	x := &convIDs{pk: map[convRef]string{}, counts: map[string]int{}}
	for _, p := range kvs {
		if parts, ok := parseConvKey(p.k); ok {
			x.putLocked(nil, parts.region, parts.id, p.k)
		}
	}
	return x
}

// convPKLocked returns the primary key of a stored conversation.
func (s *Store) convPKLocked(tx *buntdb.Tx, region, id string) (string, bool, error) {
	if s.file {
		return get(tx, convIDKey(region, id))
	}
	pk, ok := s.ids.getLocked(region, id)
	return pk, ok, nil
}

// convCountLocked is the number of stored conversations of a region.
func (s *Store) convCountLocked(tx *buntdb.Tx, region string) (int, error) {
	if s.file {
		return countPrefix(tx, pfxConvID+esc(region)+"/")
	}
	return s.ids.countLocked(region), nil
}

// indexConvLocked indexes (region, id) under pk; replaced: it was already
// (under prev).
func (s *Store) indexConvLocked(tx *buntdb.Tx, log *shadowLog, region, id, pk string) (prev string, had bool, err error) {
	if s.file {
		return tx.Set(convIDKey(region, id), pk, nil)
	}
	prev, had = s.ids.putLocked(log, region, id, pk)
	return prev, had, nil
}

// unindexConvLocked removes the conversation (region, id) from the index.
func (s *Store) unindexConvLocked(tx *buntdb.Tx, log *shadowLog, region, id string) error {
	if s.file {
		return del(tx, convIDKey(region, id))
	}
	s.ids.deleteLocked(log, region, id)
	return nil
}
