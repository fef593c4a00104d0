package handlers

// The one-pass answer of a plain conversation listing: each record is
// written as the store lends it (engine.EachConversation).

import (
	"errors"
	"net/http"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/engine/convquery"
	"github.com/agentplatform/mockplatform/internal/jsonw"

	"github.com/gin-gonic/gin"
)

// errUnwritable ends a streamed page whose record the one-pass writer
// cannot write as encoding/json would.
var errUnwritable = errors.New("record not writable in one pass")

// answerKeysetPage answers a keyset page, writing each record as the store
// lends it, uncopied; a record the one-pass writer refuses falls back to
// listConversations' way.
func (a *API) answerKeysetPage(c *gin.Context, p *engine.Principal, q *convquery.ConvQuery, version int) error {
	now, access := a.Clock().Now(), convquery.DataAccessOf(p.Project)
	buf := jsonw.GetBuf()
	b := append((*buf)[:0], `{"conversations":[`...)
	n := 0
	page, err := a.ConvQuery().EachConversation(p, q, func(conv *engine.Conversation) error {
		if n > 0 {
			b = append(b, ',')
		}
		n++
		var ok bool
		if b, ok = appendConvOf(b, version, conv, now, access, q.IncludeLatency); !ok {
			return errUnwritable
		}
		return nil
	})
	if err != nil {
		*buf = b
		jsonw.PutBuf(buf)
		if !errors.Is(err, errUnwritable) {
			return err
		}
		page, err := a.ConvQuery().ConversationPage(p, q)
		if err != nil {
			return err
		}
		c.JSON(http.StatusOK, renderConvPage(version, page, now, access, q.IncludeLatency))
		return nil
	}
	*buf = appendConvPageEnd(b, version, page)
	answerBuf(c, http.StatusOK, buf)
	return nil
}
