package convquery

// Keyset paging of the conversation listings: pages in (started_at, id)
// order on the store's index, read by cursor or offset, copied
// (keysetPage) or lent record by record (EachConversation).

import (
	"errors"

	"github.com/agentplatform/mockplatform/engine/core"
	"github.com/agentplatform/mockplatform/store"
)

// keysetPage lists in (started_at, id) order on the store's index: a page
// costs the same at any depth when read by cursor. cursor wins over offset
// (docs/api.md#conversations-paging).
func (s *Service) keysetPage(p *core.Principal, q *ConvQuery, hash string) (*ConvPage, error) {
	sq, usedOffset, empty, err := s.keysetQuery(p, q, hash)
	if err != nil || empty {
		return &ConvPage{}, err
	}
	list, next, err := s.env.Store.ListConversations(sq)
	if err != nil {
		return nil, keysetErr(err)
	}
	page := &ConvPage{List: list}
	keysetEnd(page, q, hash, next, len(list), usedOffset)
	return page, nil
}

// keysetQuery is the store query of a keyset page: after the cursor's
// position, or after the records the offset skips (usedOffset; empty:
// the offset is past the last record).
func (s *Service) keysetQuery(p *core.Principal, q *ConvQuery, hash string) (sq store.ConversationQuery, usedOffset, empty bool, err error) {
	sq = store.ConversationQuery{Region: p.Region, AccountID: p.Account.ID, ProjectID: p.Project.ID,
		From: q.start, To: q.end, Select: q.selects}
	switch {
	case q.cursor != "":
		pos, err := decodeConvCursor(q.cursor, hash)
		if err != nil {
			return sq, false, false, err
		}
		if pos[0] != 'k' {
			return sq, false, false, errConvBadCursor()
		}
		sq.After = pos[1:]
	case q.offset > 0:
		skip := sq
		skip.Limit = q.offset
		next, err := s.env.Store.EachConversation(skip, nil) // skipped records are not read
		if err != nil {
			return sq, false, false, err
		}
		if next == "" {
			return sq, true, true, nil
		}
		sq.After = next
		usedOffset = true
	}
	sq.Limit = q.limit
	return sq, usedOffset, false, nil
}

// keysetEnd sets the page's cursor and next offset from the store's next
// position and the number of records listed.
func keysetEnd(page *ConvPage, q *ConvQuery, hash, next string, n int, usedOffset bool) {
	if next == "" {
		return
	}
	if usedOffset {
		n += q.offset
	}
	page.setNext(convCursor(hash, "k", next), n, q.cursor == "")
}

// keysetErr is the API's error for the store's refusal of a position.
func keysetErr(err error) error {
	if errors.Is(err, store.ErrBadCursor) {
		return errConvBadCursor()
	}
	return err
}

// EachConversation reads the page a listing without a retrieval mode asks
// for as the store lends its records: fn sees each in order, to read
// only (store.EachConversation: nothing of it is kept or changed, no copy
// is made). An error of fn ends the listing and is returned as it is. The
// page returned holds the cursor and next offset, no records.
func (s *Service) EachConversation(p *core.Principal, q *ConvQuery, fn func(*store.Conversation) error) (*ConvPage, error) {
	hash := q.filterHash(p)
	sq, usedOffset, empty, err := s.keysetQuery(p, q, hash)
	if err != nil {
		return nil, err
	}
	page := &ConvPage{}
	if empty {
		return page, nil
	}
	n := 0
	next, err := s.env.Store.EachConversation(sq, func(conv *store.Conversation) error {
		n++
		return fn(conv)
	})
	if err != nil {
		return nil, keysetErr(err)
	}
	keysetEnd(page, q, hash, next, n, usedOffset)
	return page, nil
}
