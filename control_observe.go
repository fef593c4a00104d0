package mockplatform

// Observing the control plane's exchanges, for this package's tests only:
// each is checked against docs/control.openapi.json so the document
// cannot drift from the code.

import (
	"bytes"
	"io"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/handlers"
)

// testObserveControl is set by this package's TestMain only, before any
// platform starts.
var testObserveControl func(tb TB, ex handlers.Exchange)

// observeControl hands fn each exchange of a route of the table.
func observeControl(fn func(handlers.Exchange)) gin.HandlerFunc {
	return func(c *gin.Context) {
		if controlOp(c.Request.Method, c.FullPath()) == nil {
			c.Next()
			return
		}
		var body []byte
		// A body over the route's limit is not read (boundControlBody).
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
