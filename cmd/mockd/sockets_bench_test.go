package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/coder/websocket"
)

// BenchmarkStalledSocketsRSS runs the mockd binary, opens 20 messaging
// WebSockets that never read, has the agent join on each and sends 3,000
// user messages on each (every one answered by an echo, a thinking event
// and the reply's chunks, none of them read), and reports the process's
// resident memory idle and after (rss-MB-idle, rss-MB-stalled), its
// growth (rss-MB-growth; the target is 50 MB at most), the messages each
// socket took (msgs-sent/socket: all of them, since a socket whose send
// queue overflowed reads and ignores its client's events until it
// closes) and the events each session's history holds (events/session:
// what was handled before the overflow). Linux only (it reads /proc).
func BenchmarkStalledSocketsRSS(b *testing.B) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		b.Skip("needs /proc")
	}
	bin := buildMockd(b)
	const sockets, messages = 20, 3000
	for b.Loop() {
		cmd, base := execMockd(b, bin, "--addr", "127.0.0.1:0", "--clock", "manual", "--log-level", "warn")
		tr := &http.Transport{}
		client := &http.Client{Transport: tr}
		before := rssKB(b, cmd.Process.Pid)
		conns := make([]*websocket.Conn, sockets)
		for i := range conns {
			conns[i] = stalledSocket(b, client, base)
		}
		var wg sync.WaitGroup
		var mu sync.Mutex
		sent := 0
		for _, conn := range conns {
			wg.Add(1)
			go func() {
				defer wg.Done()
				n := 0
				defer func() { mu.Lock(); sent += n; mu.Unlock() }()
				for range messages {
					msg := `{"type":"EVENT_TYPE_USER_MESSAGE","payload":{"text":"what are your opening hours on a public holiday?"}}`
					if conn.Write(context.Background(), websocket.MessageText, []byte(msg)) != nil {
						return // the mock closed the socket
					}
					n++
				}
			}()
		}
		wg.Wait()
		events := settled(b, client, base)
		after := rssKB(b, cmd.Process.Pid)
		for _, conn := range conns {
			_ = conn.CloseNow()
		}
		tr.CloseIdleConnections()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		b.ReportMetric(float64(before)/1024, "rss-MB-idle")
		b.ReportMetric(float64(after)/1024, "rss-MB-stalled")
		b.ReportMetric(float64(after-before)/1024, "rss-MB-growth")
		b.ReportMetric(float64(sent)/sockets, "msgs-sent/socket")
		b.ReportMetric(float64(events)/sockets, "events/session")
	}
}

// settled returns the sessions' events (their histories' length) once
// the mock has handled every message sent: when two readings in a row
// (GET /_mock/messaging/sessions) agree. The mock handles a socket's messages
// as they come, one at a time, in microseconds; a reading takes longer.
func settled(b *testing.B, client *http.Client, base string) int {
	b.Helper()
	last := -1
	for {
		resp, err := client.Get(base + "/_mock/messaging/sessions")
		if err != nil {
			b.Fatal(err)
		}
		var v struct {
			Sessions []struct {
				Events int `json:"events"`
			} `json:"sessions"`
		}
		err = json.NewDecoder(resp.Body).Decode(&v)
		resp.Body.Close()
		if err != nil {
			b.Fatal(err)
		}
		n := 0
		for _, s := range v.Sessions {
			n += s.Events
		}
		if n == last {
			return n
		}
		last = n
	}
}

// stalledSocket opens a messaging session's WebSocket on the default
// scenario, with streaming on, and has the agent join; it never reads.
func stalledSocket(b *testing.B, client *http.Client, base string) *websocket.Conn {
	b.Helper()
	post := func(path, body string, headers ...string) map[string]any {
		req, err := http.NewRequest("POST", base+path, strings.NewReader(body))
		if err != nil {
			b.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err := client.Do(req)
		if err != nil {
			b.Fatal(err)
		}
		defer resp.Body.Close()
		var m map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&m); err != nil || resp.StatusCode != http.StatusOK {
			b.Fatalf("POST %s: %d %v", path, resp.StatusCode, err)
		}
		return m
	}
	tok := post("/messaging/api/v1/access-token", "{}", "X-Token", "test-connector-token", "X-Host", "localhost")["access_token"].(string)
	sid := post("/messaging/api/v1/sessions", `{"streaming_enabled":true}`, "Authorization", "Bearer "+tok)["session_id"].(string)
	u := "ws" + strings.TrimPrefix(base, "http") + "/messaging/ws?" + url.Values{"session_id": {sid}, "access_token": {tok}}.Encode()
	conn, _, err := websocket.Dial(context.Background(), u, &websocket.DialOptions{HTTPClient: client})
	if err != nil {
		b.Fatal(err)
	}
	if err := conn.Write(context.Background(), websocket.MessageText, []byte(`{"type":"EVENT_TYPE_REQUEST_POLY_AGENT_JOIN","payload":{}}`)); err != nil {
		b.Fatal(err)
	}
	return conn
}
