package mockplatform

import (
	"bufio"
	"errors"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/agentplatform/mockplatform/clock"
	"github.com/agentplatform/mockplatform/handlers"
)

// serveLogged hands a request to the engine. At debug level it logs one
// line per request (method, path, family, status, latency) and nothing
// else of it, so no secret reaches the log.
func (p *Platform) serveLogged(w http.ResponseWriter, r *http.Request, h http.Handler) {
	if !p.cfg.logger.Enabled(r.Context(), slog.LevelDebug) {
		h.ServeHTTP(w, r)
		return
	}
	info := &handlers.RequestInfo{}
	sw := &statusWriter{ResponseWriter: w}
	elapsed := clock.Stopwatch()
	defer func() {
		v := recover()
		status := sw.status()
		if v != nil {
			status = http.StatusInternalServerError
			if err, ok := v.(error); ok && errors.Is(err, http.ErrAbortHandler) {
				status = 0
			}
		}
		family := info.Family
		if r.URL.Path == "/_mock" || strings.HasPrefix(r.URL.Path, "/_mock/") {
			family = "control"
		}
		p.cfg.logger.LogAttrs(r.Context(), slog.LevelDebug, "request",
			slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.String("family", family),
			slog.Int("status", status), slog.Duration("latency", elapsed()))
		if v != nil {
			panic(v)
		}
	}()
	h.ServeHTTP(sw, r.WithContext(handlers.WithRequestInfo(r.Context(), info)))
}

// statusWriter remembers a response's status, passing Flush and Hijack on.
type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) status() int {
	if w.code == 0 {
		return http.StatusOK
	}
	return w.code
}

func (w *statusWriter) WriteHeader(code int) {
	if w.code == 0 && code >= 200 || code == http.StatusSwitchingProtocols {
		w.code = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.code == 0 {
		w.code = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	h, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, errors.New("mockplatform: the response writer cannot be hijacked")
	}
	return h.Hijack()
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }
