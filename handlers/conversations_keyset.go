package handlers

// Keyset paging of the conversation listings: pages in (started_at, id)
// order on the store's index, read by cursor or offset; the HTTP answer
// is written as the store lends the records (answerKeysetPage).

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/store"
)

// keysetPage lists in (started_at, id) order on the store's index: a page
// costs the same at any depth when read by cursor. cursor wins over offset
// (docs/api.md#conversations-paging).
func (a *Engine) keysetPage(p *Principal, q *convQuery, hash string) (*convPage, error) {
	sq, usedOffset, empty, err := a.keysetQuery(p, q, hash)
	if err != nil || empty {
		return &convPage{}, err
	}
	list, next, err := a.store.ListConversations(sq)
	if err != nil {
		return nil, keysetErr(err)
	}
	page := &convPage{list: list}
	keysetEnd(page, q, hash, next, len(list), usedOffset)
	return page, nil
}

// keysetQuery is the store query of a keyset page: after the cursor's
// position, or after the records the offset skips (usedOffset; empty:
// the offset is past the last record).
func (a *Engine) keysetQuery(p *Principal, q *convQuery, hash string) (sq store.ConversationQuery, usedOffset, empty bool, err error) {
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
func keysetEnd(page *convPage, q *convQuery, hash, next string, n int, usedOffset bool) {
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

// errUnwritable ends a streamed page whose record the one-pass writer
// cannot write as encoding/json would.
var errUnwritable = errors.New("record not writable in one pass")

// answerKeysetPage answers a keyset page (as appendConvPage writes it),
// writing each record as the store lends it: no copy of the page's
// records is made, and generated records are made into one reused
// record. A record the one-pass writer refuses answers as listConversations
// does, from the page read again.
func (a *API) answerKeysetPage(c *gin.Context, p *Principal, q *convQuery, version int) error {
	hash := q.filterHash(p)
	sq, usedOffset, empty, err := a.keysetQuery(p, q, hash)
	if err != nil {
		return err
	}
	now, access := a.clock.Now(), dataAccess(p.Project)
	buf := getJSONBuf()
	b := append((*buf)[:0], `{"conversations":[`...)
	n, next := 0, ""
	if !empty {
		next, err = a.store.EachConversation(sq, func(conv *store.Conversation) error {
			if n > 0 {
				b = append(b, ',')
			}
			n++
			var ok bool
			if b, ok = appendConvOf(b, version, conv, now, access, q.includeLatency); !ok {
				return errUnwritable
			}
			return nil
		})
	}
	if err != nil {
		*buf = b
		putJSONBuf(buf)
		if !errors.Is(err, errUnwritable) {
			return keysetErr(err)
		}
		page, err := a.keysetPage(p, q, hash)
		if err != nil {
			return err
		}
		c.JSON(http.StatusOK, renderConvPage(version, page, now, access, q.includeLatency))
		return nil
	}
	page := &convPage{}
	keysetEnd(page, q, hash, next, n, usedOffset)
	*buf = appendConvPageEnd(b, version, page)
	answerBuf(c, http.StatusOK, buf)
	return nil
}
