package store

import (
	"fmt"
	"time"

	"github.com/tidwall/buntdb"
)

// PutConversations inserts or replaces many conversations in one
// transaction (seeding); nothing is stored if any is invalid.
func (s *Store) PutConversations(cs []*Conversation) error {
	for _, c := range cs {
		if err := checkConv("put conversations", c); err != nil {
			return err
		}
	}
	wrote := false
	err := s.updateGen(func(tx *buntdb.Tx, log *shadowLog) error {
		olds := make([]*Conversation, len(cs)) // the records replaced, for the aggregates
		for i, c := range cs {
			oldPK, _, err := s.convPKLocked(tx, c.Region, c.ID)
			if err != nil {
				return err
			}
			var oldProj ProjectRef
			if olds[i], err = s.replacedLocked(tx, c.Region, c.ID, oldPK, &oldProj, log); err != nil {
				return err
			}
			pk := convKey(c)
			if oldPK != pk {
				if oldPK != "" {
					if err := del(tx, oldPK); err != nil {
						return err
					}
				}
				if _, _, err := s.indexConvLocked(tx, log, c.Region, c.ID, pk); err != nil {
					return err
				}
			}
			raw, err := encodeRecord(c, pk, &s.tab, 0)
			if err != nil {
				s.tab.discardLocked()
				return fmt.Errorf("encode %s/%s: %w", c.Region, c.ID, err)
			}
			if err := s.tab.flushLocked(tx, log); err != nil {
				return err
			}
			if err := set(tx, pk, raw); err != nil {
				return err
			}
		}
		for i, c := range cs {
			s.convReplaced(olds[i], c)
		}
		wrote = true
		return nil
	})
	if err != nil {
		if wrote {
			s.metricsInvalid() // the commit failed after the aggregates moved
		}
		return fmt.Errorf("store: put conversations: %w", err)
	}
	if len(cs) > 0 {
		s.convChanged() // a bulk load (seeding) may replace records of any project
	}
	return nil
}

// walkConversations calls fn with each record of a project that started
// in [from, to) (zero: unbounded), in (started_at, id) order, until fn
// returns false, in one read transaction: fn must be quick and must not
// call the Store. Unchanged records come back identical, so callers may
// memoise.
func (s *Store) walkConversations(region, account, project string, from, to time.Time, fn func(it *convItem) bool) error {
	if err := need("scan conversations", region, account, project); err != nil {
		return err
	}
	prefix := convPrefix(region, account, project)
	lo, hi := prefix, prefixEnd(prefix)
	if !from.IsZero() {
		lo = prefix + tsenc(from)
	}
	if !to.IsZero() {
		hi = prefix + tsenc(to)
	}
	if lo >= hi {
		return nil
	}
	ref := ProjectRef{region, account, project}
	err := s.view(func(tx *buntdb.Tx) error { return s.walkLocked(tx, ref, prefix, lo, hi, "", false, fn) })
	if err != nil {
		return fmt.Errorf("store: scan conversations %s/%s/%s: %w", region, account, project, err)
	}
	return nil
}

// scanConversations is walkConversations for stored records only, passing
// the primary key and raw value.
func (s *Store) scanConversations(region, account, project string, from, to time.Time, fn func(key, raw string) bool) error {
	return s.walkConversations(region, account, project, from, to, func(it *convItem) bool {
		if it.ls != nil {
			return true
		}
		return fn(it.key, it.raw)
	})
}
