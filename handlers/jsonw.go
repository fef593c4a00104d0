package handlers

// One-pass JSON answers (internal/jsonw writes the bytes): a value
// encoding/json refuses makes the caller fall back to c.JSON, so errors
// stay gin's.

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/internal/jsonw"
)

// jsonContentType is the content type gin's c.JSON sets.
const jsonContentType = "application/json; charset=utf-8"

// jsonContentTypeHeader is the Content-Type header value of every JSON
// answer, one slice for all: a header value is replaced, never written
// into (net/http and gin only read it; an Add appends to a full slice).
var jsonContentTypeHeader = []string{jsonContentType}

// writeJSONBytes answers with JSON bytes, as c.Data(status,
// jsonContentType, b) would have (the same headers and bytes), with the
// header values in the request's state rather than in slices of their own.
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

// bodyAllowed reports whether an answer with the status has a body (as
// gin's and net/http's rule: not 1xx, 204 or 304).
func bodyAllowed(status int) bool {
	return status >= 200 && status != http.StatusNoContent && status != http.StatusNotModified
}

// answerJSON writes an answer with the one-pass writer fn, or the value
// of fallback with c.JSON when fn reports a value it cannot write as
// encoding/json would.
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

// answerBuf writes the JSON answer in buf, a buffer of jsonw.GetBuf, and
// gives the buffer to the journal or back to the pool.
func answerBuf(c *gin.Context, status int, buf *[]byte) {
	r, ok := c.Writer.(*recorder)
	adopted := ok && bodyAllowed(status) && r.adopt(buf)
	writeJSONBytes(c, status, *buf)
	if !adopted { // an adopted buffer is the journal's now
		jsonw.PutBuf(buf)
	}
}
