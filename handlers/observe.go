package handlers

// Observing exchanges: the module's tests check every request and its
// whole answer against the OpenAPI document (Open's observe).

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
	// Route is the route template that served it, with its base ("" when
	// none matched); Params are the path parameters.
	Route  string
	Params map[string]string
	// Status, Header and Response are the answer (Status 0: dropped).
	Status   int
	Header   http.Header
	Response []byte
	// Fault is the id of the fault rule that fired; FaultBody reports that
	// it answered with its own verbatim body.
	Fault     string
	FaultBody bool
}

// observe puts a writer that keeps the whole answer in front of c's, and
// returns what hands the exchange to fn when deferred.
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
