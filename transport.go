package mockplatform

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
)

// memTransport is an http.RoundTripper that calls the platform's handler
// directly, with no socket, so thousands of platforms leave no TIME_WAIT.
type memTransport struct{ h http.Handler }

// errDropped is what a client sees when a fault drops the connection.
var errDropped = errors.New("mockplatform: connection dropped by a fault rule")

func (t *memTransport) RoundTrip(req *http.Request) (resp *http.Response, err error) {
	r := req.Clone(withInMemory(req.Context()))
	if r.Body == nil {
		r.Body = http.NoBody
	}
	r.RequestURI = req.URL.RequestURI()
	if r.RemoteAddr == "" {
		r.RemoteAddr = "127.0.0.1:0"
	}
	rec := httptest.NewRecorder()
	defer func() {
		if req.Body != nil {
			_ = req.Body.Close()
		}
	}()
	defer func() {
		if v := recover(); v != nil {
			if e, ok := v.(error); ok && errors.Is(e, http.ErrAbortHandler) {
				resp, err = nil, errDropped
				return
			}
			panic(fmt.Sprint("mockplatform: handler panic: ", v))
		}
	}()
	t.h.ServeHTTP(rec, r)
	resp = rec.Result()
	resp.Request = req
	return resp, nil
}
