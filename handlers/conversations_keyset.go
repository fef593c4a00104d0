package handlers

// Keyset paging of the conversation listings: pages in (started_at, id)
// order on the store's index, read by cursor or offset; the HTTP answer
// is written as the store lends the records (answerKeysetPage).

import (
	"errors"
	"net/http"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/store"
)

// answerKeysetPage answers a keyset page (as appendConvPage writes it),
// writing each record as the store lends it: no copy of the page's
// records is made, and generated records are made into one reused
// record. A record the one-pass writer refuses answers as listConversations
// does, from the page read again.
func (a *API) answerKeysetPage(c *gin.Context, p *engine.Principal, q *engine.ConvQuery, version int) error {
	hash := q.FilterHash(p)
	sq, usedOffset, empty, err := a.KeysetQuery(p, q, hash)
	if err != nil {
		return err
	}
	now, access := a.Clock().Now(), dataAccess(p.Project)
	buf := getJSONBuf()
	b := append((*buf)[:0], `{"conversations":[`...)
	n, next := 0, ""
	if !empty {
		next, err = a.Store().EachConversation(sq, func(conv *store.Conversation) error {
			if n > 0 {
				b = append(b, ',')
			}
			n++
			var ok bool
			if b, ok = appendConvOf(b, version, conv, now, access, q.IncludeLatency); !ok {
				return engine.ErrUnwritable
			}
			return nil
		})
	}
	if err != nil {
		*buf = b
		putJSONBuf(buf)
		if !errors.Is(err, engine.ErrUnwritable) {
			return engine.KeysetErr(err)
		}
		page, err := a.KeysetPage(p, q, hash)
		if err != nil {
			return err
		}
		c.JSON(http.StatusOK, renderConvPage(version, page, now, access, q.IncludeLatency))
		return nil
	}
	page := &engine.ConvPage{}
	engine.KeysetEnd(page, q, hash, next, n, usedOffset)
	*buf = appendConvPageEnd(b, version, page)
	answerBuf(c, http.StatusOK, buf)
	return nil
}
