package mockplatform

// Observing the control plane's exchanges, for this package's tests only
// (testObserveControl, set by their TestMain): each exchange of a route of
// the table is checked against the control plane's OpenAPI document
// (docs/control.openapi.json), so that the document cannot drift from the
// code. Nothing is observed when the hook is not set.

import (
	"bytes"
	"io"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/handlers"
)

// testObserveControl is set by this package's tests only, before any
// platform starts, and never changed after (as testObserve).
var testObserveControl func(tb TB, ex handlers.Exchange)

// observeControl is the middleware that hands fn each exchange of a route
// of the table (not the console's pages, nor unrouted requests).
func observeControl(fn func(handlers.Exchange)) gin.HandlerFunc {
	return func(c *gin.Context) {
		if controlOp(c.Request.Method, c.FullPath()) == nil {
			c.Next()
			return
		}
		var body []byte
		// A body declared over the route's limit is not read: the call is
		// answered 413 without it (boundControlBody).
		if c.Request.Body != nil && c.Request.ContentLength <= controlBodyLimit(c) {
			var err error
			if body, err = io.ReadAll(io.LimitReader(c.Request.Body, maxControlBody+1)); err != nil {
				controlError(c, http.StatusBadRequest, "the body could not be read: "+err.Error())
				return
			}
			c.Request.Body = io.NopCloser(bytes.NewReader(body))
		}
		w := &captureWriter{ResponseWriter: c.Writer}
		c.Writer = w
		c.Next()
		ex := handlers.Exchange{Request: c.Request, Body: body, Route: c.FullPath(), Params: map[string]string{},
			Status: w.Status(), Header: w.Header().Clone(), Response: w.buf.Bytes()}
		for _, p := range c.Params {
			ex.Params[p.Key] = p.Value
		}
		fn(ex)
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
