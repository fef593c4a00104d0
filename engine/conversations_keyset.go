package engine

// Keyset paging of the conversation listings: pages in (started_at, id)
// order on the store's index, read by cursor or offset; the HTTP answer
// is written as the store lends the records (answerKeysetPage).

import (
	"errors"

	"github.com/agentplatform/mockplatform/store"
)

// keysetPage lists in (started_at, id) order on the store's index: a page
// costs the same at any depth when read by cursor. cursor wins over offset
// (docs/api.md#conversations-paging).
func (a *Engine) KeysetPage(p *Principal, q *ConvQuery, hash string) (*ConvPage, error) {
	sq, usedOffset, empty, err := a.KeysetQuery(p, q, hash)
	if err != nil || empty {
		return &ConvPage{}, err
	}
	list, next, err := a.store.ListConversations(sq)
	if err != nil {
		return nil, KeysetErr(err)
	}
	page := &ConvPage{List: list}
	KeysetEnd(page, q, hash, next, len(list), usedOffset)
	return page, nil
}

// keysetQuery is the store query of a keyset page: after the cursor's
// position, or after the records the offset skips (usedOffset; empty:
// the offset is past the last record).
func (a *Engine) KeysetQuery(p *Principal, q *ConvQuery, hash string) (sq store.ConversationQuery, usedOffset, empty bool, err error) {
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
		next, err := a.store.EachConversation(skip, nil) // skipped records are not read
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
func KeysetEnd(page *ConvPage, q *ConvQuery, hash, next string, n int, usedOffset bool) {
	if next == "" {
		return
	}
	if usedOffset {
		n += q.offset
	}
	page.setNext(convCursor(hash, "k", next), n, q.cursor == "")
}

func KeysetErr(err error) error {
	if errors.Is(err, store.ErrBadCursor) {
		return errConvBadCursor()
	}
	return err
}

// errUnwritable ends a streamed page whose record the one-pass writer
// cannot write as encoding/json would.
var ErrUnwritable = errors.New("record not writable in one pass")
