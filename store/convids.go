package store

import (
	"strings"

	"github.com/tidwall/buntdb"
)

// The conversations' lookup index: a stored conversation's primary key
// (convKey) by its region and id.
//
// A data file holds it as ci/ keys (ci/{region}/{id} → primary key): they
// are part of the file's format, which verify and repair check, and
// buntdb rolls them back with their transaction, also when its commit
// fails (a full disk), before any other transaction can see them. A
// memory store, whose commits cannot fail, keeps it only in a map beside
// the database, under the database's lock: read in a transaction, changed
// in a write transaction, every change undone with a transaction that
// fails (shadowLog). A conversation written there costs one key of the
// database instead of two (one tree insert and two heap objects fewer),
// and a lookup is a map read instead of a tree search.
type convIDs struct {
	pk     map[convRef]string
	counts map[string]int // stored conversations per region
}

// convRef names a conversation.
type convRef struct{ region, id string }

// idUndo is a change of the index to undo: ref's previous primary key
// (had: it had one).
type idUndo struct {
	ref convRef
	pk  string
	had bool
}

// getLocked returns the primary key of the stored conversation (region,
// id).
func (x *convIDs) getLocked(region, id string) (string, bool) {
	pk, ok := x.pk[convRef{region, id}]
	return pk, ok
}

// countLocked is the number of stored conversations of a region.
func (x *convIDs) countLocked(region string) int { return x.counts[region] }

// putLocked indexes (region, id) under pk, logging the change to undo, and
// returns the primary key it replaces, if any.
func (x *convIDs) putLocked(log *shadowLog, region, id, pk string) (prev string, had bool) {
	if x.pk == nil {
		x.pk, x.counts = map[convRef]string{}, map[string]int{}
	}
	if strings.HasSuffix(pk, "/"+id) {
		id = pk[len(pk)-len(id):] // the key's bytes: no string of its own
	}
	ref := convRef{region, id}
	prev, had = x.pk[ref]
	x.pk[ref] = pk
	if !had {
		x.counts[region]++
	}
	if log != nil {
		log.ids = append(log.ids, idUndo{ref, prev, had})
	}
	return prev, had
}

// deleteLocked removes (region, id) from the index, logging the change.
func (x *convIDs) deleteLocked(log *shadowLog, region, id string) {
	ref := convRef{region, id}
	prev, had := x.pk[ref]
	if !had {
		return
	}
	x.removeLocked(ref)
	if log != nil {
		log.ids = append(log.ids, idUndo{ref, prev, true})
	}
}

func (x *convIDs) removeLocked(ref convRef) {
	delete(x.pk, ref)
	if x.counts[ref.region]--; x.counts[ref.region] == 0 {
		delete(x.counts, ref.region)
	}
}

// undo takes back the logged changes, last first.
func (x *convIDs) undo(log []idUndo) {
	for i := len(log) - 1; i >= 0; i-- {
		u := log[i]
		_, has := x.pk[u.ref]
		switch {
		case u.had:
			if !has {
				x.counts[u.ref.region]++
			}
			x.pk[u.ref] = u.pk
		case has:
			x.removeLocked(u.ref)
		}
	}
}

// convPKLocked returns the primary key of the stored conversation
// (region, id).
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

// indexConvLocked indexes the conversation (region, id) under pk and
// reports whether it was indexed already (under prev).
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
