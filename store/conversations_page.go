package store

// Listing conversations by page: the walk under the read lock only notes
// each record; they are decoded or made after the lock is released.

import (
	"fmt"

	"github.com/tidwall/buntdb"
)

// pageEntry is a page's record: stored, generated, or read by a filter (c).
type pageEntry struct {
	key, raw string
	gen      *genLayer
	p        int
	c        *Conversation
}

// listedPage is what a walk found: the page's entries and where the next
// page starts.
type listedPage struct {
	entries []pageEntry
	tab     []string // the string table, as the walk read it
	prefix  string
	// more: a further matching record exists after the last entry.
	more bool
	// sum is the reused summary the query's Select reads.
	sum Summary
}

// next is the cursor of the page after this one; id is the last
// entry's conversation id when it is generated (its id is made with it).
func (pg *listedPage) next(id string) string {
	if !pg.more || len(pg.entries) == 0 {
		return ""
	}
	last := &pg.entries[len(pg.entries)-1]
	switch {
	case last.gen != nil:
		if id == "" {
			id = last.gen.id(last.p)
		}
		return encodeGenCursor(pg.prefix, last.gen.start(last.p), id)
	default:
		return encodeCursor(last.key)
	}
}

// ListConversations returns the conversations matching q in (started_at,
// id) order (reversed when q.Desc), and next, the q.After of the following
// page ("" at the end). A page costs O(log n + page).
func (s *Store) ListConversations(q ConversationQuery) (list []*Conversation, next string, err error) {
	pg, err := s.listPage(q)
	if err != nil {
		return nil, "", err
	}
	if len(pg.entries) > 0 {
		list = make([]*Conversation, len(pg.entries))
		for i := range pg.entries {
			if list[i], err = pg.entries[i].record(pg.tab); err != nil {
				return nil, "", listErr(q, err)
			}
		}
	}
	id := ""
	if n := len(list); n > 0 {
		id = list[n-1].ID
	}
	return list, pg.next(id), nil
}

// EachConversation lists as ListConversations does, calling fn with each
// record of the page in order after the store's lock is released, and
// returns the next page's position. The record is lent for the call (it
// may be reused): fn must neither keep nor change it. With fn nil it only
// finds the next position. fn's error ends the listing and is returned.
func (s *Store) EachConversation(q ConversationQuery, fn func(*Conversation) error) (next string, err error) {
	pg, err := s.listPage(q)
	if err != nil {
		return "", err
	}
	if fn == nil {
		return pg.next(""), nil
	}
	sc, _ := s.scratch.Get().(*genScratch)
	if sc == nil {
		sc = new(genScratch)
	}
	defer s.scratch.Put(sc) // fn keeps nothing of what it is lent
	id := ""
	for i := range pg.entries {
		e := &pg.entries[i]
		var c *Conversation
		if e.gen != nil && e.c == nil {
			c, err = e.gen.recordInto(e.p, sc)
		} else { // stored, or read by q.Filter already
			c, err = e.record(pg.tab)
		}
		if err != nil {
			return "", listErr(q, err)
		}
		id = c.ID
		if err := fn(c); err != nil {
			return "", err
		}
	}
	return pg.next(id), nil
}

func listErr(q ConversationQuery, err error) error {
	return fmt.Errorf("store: list conversations %s/%s/%s: %w", q.Region, q.AccountID, q.ProjectID, err)
}

// record decodes or makes the entry's record (a copy).
func (e *pageEntry) record(tab []string) (*Conversation, error) {
	switch {
	case e.c != nil:
		return e.c, nil
	case e.gen != nil:
		return e.gen.record(e.p)
	default:
		return decodeConv(e.key, e.raw, tab)
	}
}

// listPage walks the page q asks for under the read lock. Records that
// q.Filter reads are read there; the others only noted.
func (s *Store) listPage(q ConversationQuery) (*listedPage, error) {
	if err := need("list conversations", q.Region, q.AccountID, q.ProjectID); err != nil {
		return nil, err
	}
	if q.Limit < 0 {
		return nil, fmt.Errorf("store: list conversations: negative limit: %w", ErrInvalid)
	}
	pg := &listedPage{prefix: convPrefix(q.Region, q.AccountID, q.ProjectID)}
	var after string
	if q.After != "" {
		var err error
		if after, err = decodeCursor(q.After, pg.prefix); err != nil {
			return nil, err
		}
	}
	// Keys in [lo, hi). No key equals either bound exactly: every key has
	// "/{id}" after the timestamp.
	lo, hi := pg.prefix, prefixEnd(pg.prefix)
	if !q.From.IsZero() {
		lo = pg.prefix + tsenc(q.From)
	}
	if !q.To.IsZero() {
		hi = pg.prefix + tsenc(q.To)
	}
	if lo >= hi {
		return pg, nil
	}
	if q.Limit > 0 {
		pg.entries = make([]pageEntry, 0, min(q.Limit, 1000))
	}
	var scanErr error
	// selected reports whether a generated record passes q.Select (by
	// its summary: the record is not made).
	selected := func(it *convItem) bool {
		if q.Select == nil {
			return true
		}
		pg.sum = it.ls.summary(it.p)
		return q.Select(&pg.sum)
	}
	// read returns the item's record when it passes the query's Select
	// and Filter (nil when not).
	read := func(it *convItem) (*Conversation, bool) {
		if it.ls != nil && !selected(it) {
			return nil, true
		}
		c, err := it.decode()
		if err != nil {
			scanErr = err
			return nil, false
		}
		if q.Select != nil && it.ls == nil {
			pg.sum = summaryOf(c)
			if !q.Select(&pg.sum) {
				return nil, true
			}
		}
		if q.Filter != nil && !q.Filter(c) {
			return nil, true
		}
		return c, true
	}
	iter := func(it *convItem) bool {
		if q.Limit > 0 && len(pg.entries) == q.Limit {
			// Peek: is there any further matching record?
			switch {
			case q.Filter == nil && q.Select == nil:
				pg.more = true
			case q.Filter == nil && it.ls != nil:
				pg.more = selected(it)
			default:
				c, ok := read(it)
				if c == nil {
					return ok
				}
				pg.more = true
			}
			return !pg.more
		}
		switch {
		case q.Filter == nil && it.ls != nil:
			// Made when the page is read, outside the lock: a layer is
			// immutable.
			if selected(it) {
				pg.entries = append(pg.entries, pageEntry{gen: it.ls.genLayer, p: it.p})
			}
		case q.Filter == nil && q.Select == nil:
			pg.entries = append(pg.entries, pageEntry{key: it.key, raw: it.raw})
		default:
			c, ok := read(it)
			if c == nil {
				return ok
			}
			e := pageEntry{c: c, key: it.key}
			if it.ls != nil {
				e.gen, e.p = it.ls.genLayer, it.p
			}
			pg.entries = append(pg.entries, e)
		}
		return true
	}
	err := s.view(func(tx *buntdb.Tx) error {
		pg.tab = s.tab.load()
		return s.walkLocked(tx, ProjectRef{q.Region, q.AccountID, q.ProjectID}, pg.prefix, lo, hi, after, q.Desc, iter)
	})
	if err == nil {
		err = scanErr
	}
	if err != nil {
		return nil, listErr(q, err)
	}
	return pg, nil
}
