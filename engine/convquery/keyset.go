package convquery

// Keyset paging of the conversation listings in (started_at, id) order.

import (
	"errors"

	"github.com/agentplatform/mockplatform/engine/core"
	"github.com/agentplatform/mockplatform/store"
)

// keysetPage lists a page on the store's index; by cursor a page costs the
// same at any depth. cursor wins over offset.
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

// keysetQuery is a keyset page's store query: after the cursor, or after
// the records the offset skips.
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

// keysetEnd sets the page's cursor and next offset.
func keysetEnd(page *ConvPage, q *ConvQuery, hash, next string, n int, usedOffset bool) {
	if next == "" {
		return
	}
	if usedOffset {
		n += q.offset
	}
	page.setNext(convCursor(hash, "k", next), n, q.cursor == "")
}

func keysetErr(err error) error {
	if errors.Is(err, store.ErrBadCursor) {
		return errConvBadCursor()
	}
	return err
}

// EachConversation lends a listing's page record by record to fn, read
// only and uncopied (store.EachConversation); fn's error ends it. The page
// returned holds the cursor and next offset only.
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
