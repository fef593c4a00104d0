package mockplatform

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/clock"
	"github.com/agentplatform/mockplatform/faults"
)

// The test helpers of this package, in one place: requests and their
// answers, platforms, fault rules, sockets.

// reply is a response read in full.
type reply struct {
	Status int
	Header http.Header
	Body   []byte
}

// object decodes a JSON object body.
func (r reply) object(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, r.Body)
	}
	return m
}

// send sends a request with a client (nil: the platform's in-memory
// client). body is nil, a string, []byte or a value encoded as JSON;
// headers are name, value pairs.
func send(t testing.TB, client *http.Client, method, url string, body any, headers ...string) reply {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, url, rd)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", method, url, err)
	}
	return reply{Status: resp.StatusCode, Header: resp.Header, Body: data}
}

// sendObject is send that fails t unless the status is want, returning
// the body's JSON object (nil when the body is not an object).
func sendObject(t testing.TB, c *http.Client, want int, method, url string, body any, headers ...string) map[string]any {
	t.Helper()
	r := send(t, c, method, url, body, headers...)
	if r.Status != want {
		t.Fatalf("%s %s: %d, want %d: %s", method, url, r.Status, want, r.Body)
	}
	var m map[string]any
	if len(r.Body) > 0 && r.Body[0] == '{' {
		if err := json.Unmarshal(r.Body, &m); err != nil {
			t.Fatalf("%s %s: %v", method, url, err)
		}
	}
	return m
}

// mustStatus fails unless r has the status.
func mustStatus(t testing.TB, r reply, status int) {
	t.Helper()
	if r.Status != status {
		t.Fatalf("status = %d, want %d; body: %s", r.Status, status, r.Body)
	}
}

// mustJSON compares a JSON body with want (marshalled to JSON first).
func mustJSON(t testing.TB, r reply, want any, opts ...cmp.Option) {
	t.Helper()
	data, err := json.Marshal(want)
	if err != nil {
		t.Fatal(err)
	}
	var w, got any
	if err := json.Unmarshal(data, &w); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(r.Body, &got); err != nil {
		t.Fatalf("body is not JSON: %v: %s", err, r.Body)
	}
	if diff := cmp.Diff(w, got, opts...); diff != "" {
		t.Fatalf("body mismatch (-want +got):\n%s", diff)
	}
}

// chatHeaders are the default scenario's chat credentials.
var chatHeaders = []string{"X-API-KEY", "test-chat-key", "X-TOKEN", "test-connector-token", "Content-Type", "application/json"}

// chatCreate starts a chat conversation in us-1 (acme/support) and
// returns its id.
func chatCreate(t testing.TB, p *Platform, client *http.Client) string {
	t.Helper()
	if client == nil {
		client = p.Client()
	}
	r := send(t, client, "POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/create", nil, chatHeaders...)
	mustStatus(t, r, http.StatusOK)
	id, _ := r.object(t)["conversation_id"].(string)
	if id == "" {
		t.Fatalf("no conversation_id in %s", r.Body)
	}
	return id
}

// socketClient is a client with its own transport that goes over the
// platform's real listener; its idle connections close with the test.
func socketClient(t testing.TB) *http.Client {
	tr := &http.Transport{}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr, Timeout: 30 * time.Second}
}

// newPlatform is Start with the test's own failure reporting.
func newPlatform(t testing.TB, opts ...Option) *Platform {
	t.Helper()
	p, err := New(opts...)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	t.Cleanup(p.Close)
	return p
}

// faultMatch matches a family and a path pattern.
func faultMatch(family, path string) faults.Match { return faults.Match{Family: family, Path: path} }

// faultStatus answers with a status.
func faultStatus(status int) faults.Action { return faults.Action{Status: status} }

// faultDelay holds the request d of wall time.
func faultDelay(d time.Duration) faults.Action {
	return faults.Action{Delay: clock.Duration(d), DelayClock: "real"}
}

var defaultStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// fakeTB records Fatalf instead of stopping the test.
type fakeTB struct {
	mu       sync.Mutex
	fatal    string
	cleanups []func()
}

// benchTB is the fakeTB of a benchmark's platform: its exchanges are not
// checked against the OpenAPI document (the check would be what the
// benchmark measures; conformance_test.go).
type benchTB struct{ fakeTB }

func (f *fakeTB) Helper() {}

func (f *fakeTB) Fatalf(format string, args ...any) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.fatal = fmt.Sprintf(format, args...)
}

func (f *fakeTB) Cleanup(fn func()) { f.cleanups = append(f.cleanups, fn) }

// controlClient starts a platform without a listener and returns a function
// calling its control plane.
func controlClient(t *testing.T, opts ...Option) (*Platform, func(method, path string, body any) reply) {
	t.Helper()
	p := Start(t, append([]Option{WithoutListener()}, opts...)...)
	return p, func(method, path string, body any) reply {
		t.Helper()
		return send(t, p.Client(), method, p.URL()+"/_mock"+path, body, "Content-Type", "application/json")
	}
}

// call sends a request through the platform's in-memory client (a JSON
// body when body is not empty) and decodes a JSON object answer.
func call(t testing.TB, p *Platform, method, url, body string, headers ...string) (int, map[string]any) {
	t.Helper()
	if body != "" || method == "POST" && strings.Contains(url, "/_mock/") {
		headers = append([]string{"Content-Type", "application/json"}, headers...) // the control plane requires it (guard.go)
	}
	r := send(t, p.Client(), method, url, body, headers...)
	return r.Status, r.object(t)
}

// openSession creates a session and opens its socket.
func openSession(t *testing.T, p *Platform) (string, string, *websocket.Conn) {
	t.Helper()
	_, tokBody := call(t, p, "POST", p.URL()+"/messaging/api/v1/access-token", "{}", "X-Token", "test-connector-token", "X-Host", "localhost")
	tok := tokBody["access_token"].(string)
	_, s := call(t, p, "POST", p.URL()+"/messaging/api/v1/sessions", `{"streaming_enabled":true}`, "Authorization", "Bearer "+tok)
	sid := s["session_id"].(string)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	u := "ws" + strings.TrimPrefix(p.MessagingURL(), "http") + "/ws?" + url.Values{"session_id": {sid}, "access_token": {tok}}.Encode()
	conn, _, err := websocket.Dial(ctx, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.CloseNow() })
	return sid, tok, conn
}

// readUntilClose reads until the socket closes and returns the close code.
func readUntilClose(t *testing.T, conn *websocket.Conn) websocket.StatusCode {
	t.Helper()
	for range 50 {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		_, _, err := conn.Read(ctx)
		cancel()
		if err != nil {
			return websocket.CloseStatus(err)
		}
	}
	t.Fatal("socket did not close")
	return 0
}

// advanceClock advances a clock the test drives, failing the test if the
// advance stops early.
func advanceClock(t testing.TB, c *clock.Clock, d time.Duration) time.Time {
	t.Helper()
	now, err := c.Advance(context.Background(), d)
	if err != nil {
		t.Fatalf("advance %v: %v", d, err)
	}
	return now
}
