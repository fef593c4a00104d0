package handlers

// Observing exchanges: a Config.Observe function sees every request the
// API serves and its whole answer. The module's tests check each one
// against the OpenAPI document (docs/openapi.md), so that the document
// cannot drift from the code; nothing else sets it.

import (
	"bytes"
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"
)

// Exchange is one request the API served and its answer.
type Exchange struct {
	// Request is the request as received; its body has been read (Body).
	Request *http.Request
	Body    []byte
	// Route is the route template that served it, with its base
	// ("/runtime/:region/v3/:account/:project/conversations"); "" when no
	// route matched (a JSON 404 or 405). Params are the path parameters.
	Route  string
	Params map[string]string
	// Status, Header and Response are the answer; Status is 0 when the
	// connection was dropped without one.
	Status   int
	Header   http.Header
	Response []byte
	// Fault is the id of the fault rule that fired, if any; FaultBody
	// reports that it answered with a verbatim body of its own.
	Fault     string
	FaultBody bool
}

// observe puts a writer that keeps the whole answer in front of c's, and
// returns what hands the exchange to fn once the request is done: begin
// defers it, when the instance observes.
func observe(c *gin.Context, fn func(Exchange)) func() {
	w := &captureWriter{ResponseWriter: c.Writer}
	c.Writer = w
	ex := Exchange{Request: c.Request}
	return func() {
		v := recover()
		if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
			ex.Status = 0
		} else {
			ex.Status = w.Status()
		}
		st := stateOf(c)
		ex.Body = st.body
		ex.Route = c.FullPath()
		ex.Params = map[string]string{}
		for _, p := range c.Params {
			ex.Params[p.Key] = p.Value
		}
		ex.Header = w.Header().Clone()
		ex.Response = w.buf.Bytes()
		ex.Fault = st.fault
		ex.FaultBody = ex.Fault != "" && st.faultBody
		fn(ex)
		if v != nil {
			panic(v)
		}
	}
}

// captureWriter keeps a copy of the whole answer.
type captureWriter struct {
	gin.ResponseWriter
	buf bytes.Buffer
}

func (w *captureWriter) Write(b []byte) (int, error) {
	w.buf.Write(b)
	return w.ResponseWriter.Write(b)
}

func (w *captureWriter) WriteString(s string) (int, error) {
	w.buf.WriteString(s)
	return w.ResponseWriter.WriteString(s)
}
