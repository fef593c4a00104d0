package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strconv"
)

// newHTTPServer is mockd's HTTP server: the options' timeouts (wall time,
// sized for a test server) and header bound, every request's context
// derived from base, net/http's own errors logged. WebSockets keep their
// own deadlines once hijacked (TestTimeoutsSpareWebSockets).
func newHTTPServer(o *options, h http.Handler, base context.Context, log *slog.Logger) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: o.readHeaderTimeout,
		ReadTimeout:       o.readTimeout,
		WriteTimeout:      o.writeTimeout,
		IdleTimeout:       o.idleTimeout,
		MaxHeaderBytes:    o.maxHeaderBytes,
		BaseContext:       func(net.Listener) context.Context { return base },
		ErrorLog:          slog.NewLogLogger(log.Handler(), slog.LevelWarn),
	}
}

// jsonErrorListener makes the answers net/http writes by itself before any
// handler runs (431, 400, 501) JSON like every other answer of mockd.
// net/http writes them straight to the connection in one Write, so the
// connection's writer recognises exactly that answer and rewrites it; a
// handler's answer cannot match (its headers are sorted), and a changed
// format passes unchanged (the tests then fail).
type jsonErrorListener struct {
	net.Listener
	maxHeaderBytes int
}

func (l jsonErrorListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &jsonErrorConn{Conn: c, maxHeaderBytes: l.maxHeaderBytes}, nil
}

// netHTTPErrorHeaders are the headers of net/http's own error answers.
const netHTTPErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

type jsonErrorConn struct {
	net.Conn
	maxHeaderBytes int
}

func (c *jsonErrorConn) Write(b []byte) (int, error) {
	if answer, ok := jsonError(b, c.maxHeaderBytes); ok {
		if _, err := c.Conn.Write(answer); err != nil {
			return 0, err
		}
		return len(b), nil
	}
	return c.Conn.Write(b)
}

// CloseWrite half-closes the connection, as net/http does after a 431.
func (c *jsonErrorConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// SetWriteBuffer sets the kernel send buffer, as a messaging WebSocket
// does (handlers/messaging_queue.go).
func (c *jsonErrorConn) SetWriteBuffer(bytes int) error {
	if sb, ok := c.Conn.(interface{ SetWriteBuffer(int) error }); ok {
		return sb.SetWriteBuffer(bytes)
	}
	return nil
}

// jsonError rewrites one of net/http's own error answers as JSON.
func jsonError(b []byte, maxHeaderBytes int) ([]byte, bool) {
	const proto = "HTTP/1.1 "
	if len(b) < len(proto)+4 || !bytes.HasPrefix(b, []byte(proto)) || b[len(proto)] < '4' {
		return nil, false
	}
	head, text, ok := bytes.Cut(b, []byte(netHTTPErrorHeaders))
	if !ok {
		return nil, false
	}
	code, err := strconv.Atoi(string(head[len(proto) : len(proto)+3]))
	if err != nil || http.StatusText(code) == "" {
		return nil, false
	}
	msg := string(bytes.TrimPrefix(text, []byte(strconv.Itoa(code)+" ")))
	if code == http.StatusRequestHeaderFieldsTooLarge {
		msg = fmt.Sprintf("Request header fields too large: the request line and headers may have %d bytes (mockd --max-header-bytes).", maxHeaderBytes)
	}
	body, _ := json.Marshal(map[string]string{"error": msg})
	return fmt.Appendf(nil, "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: %d\r\n\r\n%s",
		code, http.StatusText(code), len(body), body), true
}
