package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"
)

// The connection tests run mockd with short wall-clock timeouts and wait
// for the server to act (close a connection, answer), never for a time.

// dialRaw opens a TCP connection to the server; reads fail after 10 s, so
// that a server that never closes fails the test instead of hanging it.
func (s *server) dialRaw() net.Conn {
	s.t.Helper()
	c, err := net.Dial("tcp", s.addr)
	if err != nil {
		s.t.Fatal(err)
	}
	s.t.Cleanup(func() { c.Close() })
	if err := c.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		s.t.Fatal(err)
	}
	return c
}

// expectClosed reads until the server closes c and returns what it read.
func expectClosed(t *testing.T, c net.Conn) string {
	t.Helper()
	data, err := io.ReadAll(c)
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatalf("the server kept the connection open (read %q)", data)
		}
		if !errors.Is(err, net.ErrClosed) && !strings.Contains(err.Error(), "connection reset") {
			t.Fatalf("read: %v", err)
		}
	}
	return string(data)
}

func write(t *testing.T, c net.Conn, s string) {
	t.Helper()
	if _, err := io.WriteString(c, s); err != nil {
		t.Fatal(err)
	}
}

const short = "200ms"

func TestReadHeaderTimeout(t *testing.T) {
	t.Parallel()
	s := startServer(t, []string{"--addr", "127.0.0.1:0", "--read-header-timeout", short}, env())
	c := s.dialRaw()
	write(t, c, "GET /_mock/health HTTP/1.1\r\nHost: 127.0.0.1\r\n") // no end of headers
	if got := expectClosed(t, c); got != "" {
		t.Errorf("answered %q", got)
	}
}

// TestReadTimeout: a body that stalls is cut after the read timeout; the
// partial request is not served (no answer, nothing created).
func TestReadTimeout(t *testing.T) {
	t.Parallel()
	s := startServer(t, []string{"--addr", "127.0.0.1:0", "--clock", "manual", "--read-timeout", short}, env())
	c := s.dialRaw()
	write(t, c, "POST "+chatPath+"/create HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: test-chat-key\r\nX-TOKEN: test-connector-token\r\n"+
		"Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"integration_")
	if got := expectClosed(t, c); got != "" {
		t.Errorf("answered %q", got)
	}
	if status, body := s.do("GET", "/_mock/requests", ""); status != 200 || body != `{"requests":[]}` {
		t.Errorf("journal: %d %s", status, body)
	}
}

// TestWriteTimeout: an answer that takes longer than the write timeout (a
// fault's real delay here) is cut; a quick one is not.
func TestWriteTimeout(t *testing.T) {
	t.Parallel()
	s := startServer(t, []string{"--addr", "127.0.0.1:0", "--write-timeout", "300ms"}, env())
	if status, body := s.do("POST", "/_mock/faults", `{"match":{"family":"chat"},"action":{"delay":"1s"}}`, "Content-Type", "application/json"); status != 201 {
		t.Fatalf("fault: %d %s", status, body)
	}
	c := s.dialRaw()
	write(t, c, "POST "+chatPath+"/create HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: test-chat-key\r\nX-TOKEN: test-connector-token\r\nContent-Length: 0\r\n\r\n")
	if got := expectClosed(t, c); got != "" {
		t.Errorf("answered after the write timeout: %q", got)
	}
	if status, _ := s.do("GET", "/_mock/health", ""); status != 200 {
		t.Errorf("health: %d", status)
	}
}

func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	s := startServer(t, []string{"--addr", "127.0.0.1:0", "--idle-timeout", short}, env())
	c := s.dialRaw()
	write(t, c, "GET /_mock/health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(io.Discard, resp.Body); err != nil || resp.StatusCode != 200 || resp.Close {
		t.Fatalf("health: %d %v (close %v)", resp.StatusCode, err, resp.Close)
	}
	if rest, err := io.ReadAll(br); err != nil || len(rest) != 0 {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			t.Fatal("the server kept the idle connection open")
		}
		t.Fatalf("after the answer: %q, %v", rest, err)
	}
}

// TestNetHTTPErrorsAnswerJSON: the answers net/http writes before any
// handler runs are JSON like every other answer.
func TestNetHTTPErrorsAnswerJSON(t *testing.T) {
	t.Parallel()
	s := startServer(t, []string{"--addr", "127.0.0.1:0", "--max-header-bytes", "1024"}, env())
	def := startServer(t, []string{"--addr", "127.0.0.1:0"}, env())
	// net/http allows 4096 bytes above MaxHeaderBytes.
	big := "X-Big: " + strings.Repeat("a", 1024+4096) + "\r\n"
	for _, tc := range []struct {
		name    string
		s       *server
		request string
		status  int
		body    map[string]string
	}{
		{"header too large", s, "GET /_mock/health HTTP/1.1\r\nHost: 127.0.0.1\r\n" + big + "\r\n", 431,
			map[string]string{"error": "Request header fields too large: the request line and headers may have 1024 bytes (mockd --max-header-bytes)."}},
		{"header over the default 64 KiB", def, "GET /_mock/health HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + strings.Repeat("a", 70<<10) + "\r\n\r\n", 431,
			map[string]string{"error": "Request header fields too large: the request line and headers may have 65536 bytes (mockd --max-header-bytes)."}},
		{"malformed host", s, "GET /_mock/health HTTP/1.1\r\nHost: a b\r\n\r\n", 400,
			map[string]string{"error": "Bad Request: malformed Host header"}},
		{"no host", s, "GET /_mock/health HTTP/1.1\r\n\r\n", 400,
			map[string]string{"error": "Bad Request: missing required Host header"}},
		{"malformed request", s, "HELLO\r\n\r\n", 400, map[string]string{"error": "Bad Request"}},
		{"unknown transfer coding", s, "POST /_mock/reset HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: gzip\r\n\r\n", 501,
			map[string]string{"error": "Unsupported transfer encoding"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			c := tc.s.dialRaw()
			write(t, c, tc.request)
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var body map[string]string
			if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
				t.Fatalf("body: %v", err)
			}
			if resp.StatusCode != tc.status || resp.Header.Get("Content-Type") != "application/json" {
				t.Errorf("status %d, Content-Type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			if diff := cmp.Diff(tc.body, body); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}
	// A handler's own answers pass unchanged, and the server still serves.
	if status, body := s.do("GET", "/_mock/nope", ""); status != 404 || !strings.HasPrefix(body, "{") {
		t.Errorf("404: %d %s", status, body)
	}
}

// TestTimeoutsSpareWebSockets: a messaging WebSocket outlives the server's
// read, write and idle timeouts (net/http clears a connection's deadlines
// when it is hijacked). A second connection, opened once the socket is up,
// is closed by the same timeouts: when it is, the socket's deadlines would
// have passed too, and the socket still works.
func TestTimeoutsSpareWebSockets(t *testing.T) {
	t.Parallel()
	s := startServer(t, []string{"--addr", "127.0.0.1:0", "--read-header-timeout", short, "--read-timeout", short,
		"--write-timeout", short, "--idle-timeout", short}, env())
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	ws := s.openSocket(ctx)
	c := s.dialRaw()
	write(t, c, "GET /_mock/health HTTP/1.1\r\n")
	expectClosed(t, c)
	if err := ws.Write(ctx, websocket.MessageText, []byte(`{"type":"EVENT_TYPE_HEARTBEAT","payload":{}}`)); err != nil {
		t.Fatalf("write after the timeouts: %v", err)
	}
	for {
		_, data, err := ws.Read(ctx)
		if err != nil {
			t.Fatalf("read after the timeouts: %v", err)
		}
		if strings.Contains(string(data), "EVENT_TYPE_HEARTBEAT") {
			break
		}
	}
}

// openSocket opens a messaging WebSocket of the default scenario and reads
// its history batch.
func (s *server) openSocket(ctx context.Context) *websocket.Conn {
	t := s.t
	t.Helper()
	// Each request on a connection of its own: with a short idle timeout,
	// a kept-alive connection may be closed by mockd just as the next
	// request goes out on it (a slow machine leaves such gaps).
	status, body := s.do("POST", "/messaging/api/v1/access-token", "{}", "X-Token", "test-connector-token", "X-Host", "localhost",
		"Content-Type", "application/json", "Connection", "close")
	var tok struct {
		AccessToken string `json:"access_token"`
	}
	if err := json.Unmarshal([]byte(body), &tok); status != 200 || err != nil {
		t.Fatalf("access token: %d %s", status, body)
	}
	status, body = s.do("POST", "/messaging/api/v1/sessions", "{}", "Authorization", "Bearer "+tok.AccessToken, "Content-Type", "application/json",
		"Connection", "close")
	var sess struct {
		SessionID string `json:"session_id"`
	}
	if err := json.Unmarshal([]byte(body), &sess); status != 200 || err != nil {
		t.Fatalf("session: %d %s", status, body)
	}
	u := "ws://" + s.addr + "/messaging/ws?" + url.Values{"session_id": {sess.SessionID}, "access_token": {tok.AccessToken}}.Encode()
	ws, _, err := websocket.Dial(ctx, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ws.CloseNow() })
	if _, _, err := ws.Read(ctx); err != nil { // the history batch
		t.Fatal(err)
	}
	return ws
}

// TestShutdownClosesWebSockets: at shutdown an open messaging WebSocket
// gets a close frame, 1001 going away with a reason, not a dropped
// connection; mockd still exits 0.
func TestShutdownClosesWebSockets(t *testing.T) {
	t.Parallel()
	s := startServer(t, []string{"--addr", "127.0.0.1:0"}, env())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	ws := s.openSocket(ctx)
	read := make(chan error, 1)
	go func() {
		for {
			if _, _, err := ws.Read(ctx); err != nil {
				read <- err
				return
			}
		}
	}()
	if code := s.stop(); code != 0 {
		t.Fatalf("exit %d:\n%s", code, s.stderr)
	}
	err := <-read
	var ce websocket.CloseError
	if !errors.As(err, &ce) || ce.Code != websocket.StatusGoingAway || ce.Reason != "server shutting down" {
		t.Fatalf("the socket ended with %v, want close frame 1001 \"server shutting down\"", err)
	}
}
