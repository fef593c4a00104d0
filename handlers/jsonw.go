package handlers

// One-pass JSON answers (internal/jsonw), falling back to c.JSON for a
// value the writer cannot write as encoding/json would.

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/internal/jsonw"
)

// jsonContentType is the content type gin's c.JSON sets.
const jsonContentType = "application/json; charset=utf-8"

// jsonContentTypeHeader is shared: net/http and gin only read it.
var jsonContentTypeHeader = []string{jsonContentType}

// writeJSONBytes is c.Data(status, jsonContentType, b).
func writeJSONBytes(c *gin.Context, status int, b []byte) {
	r, ok := c.Writer.(*recorder)
	if !ok || len(b) == 0 || !bodyAllowed(status) {
		c.Data(status, jsonContentType, b)
		return
	}
	h := r.Header()
	if len(h["Content-Type"]) == 0 {
		h["Content-Type"] = jsonContentTypeHeader
	}
	st := r.st
	st.contentLength[0] = strconv.Itoa(len(b))
	h["Content-Length"] = st.contentLength[:]
	c.Status(status)
	if _, err := r.Write(b); err != nil {
		_ = c.Error(err) // as gin's c.Render
		c.Abort()
	}
}

// bodyAllowed reports whether an answer of the status has a body.
func bodyAllowed(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}

// answerJSON writes an answer with fn, or fallback() with c.JSON.
func answerJSON(c *gin.Context, status int, fn func(b []byte) ([]byte, bool), fallback func() any) {
	buf := jsonw.GetBuf()
	b, ok := fn(*buf)
	if !ok {
		*buf = b
		jsonw.PutBuf(buf)
		c.JSON(status, fallback())
		return
	}
	*buf = b
	answerBuf(c, status, buf)
}

// answerBuf writes buf and gives it to the journal or back to the pool.
func answerBuf(c *gin.Context, status int, buf *[]byte) {
	r, ok := c.Writer.(*recorder)
	adopted := ok && bodyAllowed(status) && r.adopt(buf)
	writeJSONBytes(c, status, *buf)
	if !adopted { // an adopted buffer is the journal's now
		jsonw.PutBuf(buf)
	}
}
