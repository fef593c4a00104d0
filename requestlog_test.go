package mockplatform

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// logBuffer is a buffer the server's goroutines write logs into.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRequestLog: a logger at debug level gets one line per request with
// method, path, family, status (101 for a WebSocket, 0 for a dropped
// connection) and latency; at info level, none.
func TestRequestLog(t *testing.T) {
	t.Parallel()
	var debug, info logBuffer
	p := Start(t, WithLogger(slog.New(slog.NewJSONHandler(&debug, &slog.HandlerOptions{Level: slog.LevelDebug}))))
	quiet := Start(t, WithLogger(slog.New(slog.NewJSONHandler(&info, nil))))
	chat := []string{"X-API-KEY", "test-chat-key", "X-TOKEN", "test-connector-token", "Content-Type", "application/json"}
	for _, q := range []*Platform{p, quiet} {
		mustStatus(t, send(t, q.Client(), "POST", q.RuntimeURL("us-1")+"/v1/acme/support/chat/create", "{}", chat...), 200)
	}
	if _, err := p.AddFault(Fault{Match: FaultMatch{Family: "handoff"}, Action: FaultAction{Drop: true}}); err != nil {
		t.Fatal(err)
	}
	if resp, err := p.Client().Get(p.RuntimeURL("us-1") + "/v1/acme/support/handoff_state?id=x"); err == nil {
		resp.Body.Close()
		t.Fatal("the fault rule did not drop the request")
	}
	openSession(t, p)
	mustStatus(t, send(t, p.Client(), "GET", p.URL()+"/_mock/clock", nil), 200)
	p.Close() // waits for the requests in flight: every line is written
	quiet.Close()

	type line struct {
		Level, Msg, Method, Path, Family string
		Status                           int
	}
	var got []line
	for _, l := range strings.Split(strings.TrimSpace(debug.String()), "\n") {
		var v struct {
			line
			Latency *float64
		}
		if err := json.Unmarshal([]byte(l), &v); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if v.Msg != "request" {
			continue
		}
		if v.Latency == nil || *v.Latency <= 0 {
			t.Errorf("no latency: %s", l)
		}
		got = append(got, v.line)
	}
	want := []line{
		{"DEBUG", "request", "POST", "/runtime/us-1/v1/acme/support/chat/create", "chat", 200},
		{"DEBUG", "request", "GET", "/runtime/us-1/v1/acme/support/handoff_state", "handoff", 0},
		{"DEBUG", "request", "POST", "/messaging/api/v1/access-token", "messaging", 200},
		{"DEBUG", "request", "POST", "/messaging/api/v1/sessions", "messaging", 200},
		{"DEBUG", "request", "GET", "/messaging/ws", "messaging", 101},
		{"DEBUG", "request", "GET", "/_mock/clock", "control", 200},
	}
	// A WebSocket's line comes once its handler returns, which the client
	// does not wait for: the order is not compared.
	byPath := cmpopts.SortSlices(func(a, b line) bool { return a.Path+a.Method < b.Path+b.Method })
	if diff := cmp.Diff(want, got, byPath); diff != "" {
		t.Errorf("request log (-want +got):\n%s", diff)
	}
	if strings.Contains(info.String(), `"msg":"request"`) {
		t.Errorf("a logger at info level got request lines:\n%s", info.String())
	}
}
