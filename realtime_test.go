package mockplatform

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// rtPost sends a JSON POST to the platform and decodes the answer.
func rtPost(t *testing.T, p *Platform, path, body string, hdr ...string) (int, map[string]any) {
	t.Helper()
	req, _ := http.NewRequest("POST", p.URL()+path, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return rtDo(t, req)
}

func rtDo(t *testing.T, req *http.Request) (int, map[string]any) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	var m map[string]any
	_ = json.Unmarshal(data, &m)
	return resp.StatusCode, m
}

// rtOpen creates a session and opens its socket.
func rtOpen(t *testing.T, p *Platform) (string, string, *websocket.Conn) {
	t.Helper()
	_, tokBody := rtPost(t, p, "/messaging/api/v1/access-token", "{}", "X-Token", "test-connector-token", "X-Host", "localhost")
	tok := tokBody["access_token"].(string)
	_, s := rtPost(t, p, "/messaging/api/v1/sessions", `{"streaming_enabled":true}`, "Authorization", "Bearer "+tok)
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

// rtUntilClose reads until the socket closes and returns the close code.
func rtUntilClose(t *testing.T, conn *websocket.Conn) websocket.StatusCode {
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

func TestRealtimeControlExpireSession(t *testing.T) {
	p := Start(t)
	sid, tok, conn := rtOpen(t, p)
	list := p.MessagingSessions()
	if len(list) != 1 || list[0].ID != sid || !list[0].Streaming || list[0].Connections != 1 {
		t.Fatalf("sessions = %+v", list)
	}
	status, body := rtDo(t, mustReq(t, "GET", p.URL()+"/_mock/messaging/sessions"))
	if status != 200 || len(body["sessions"].([]any)) != 1 {
		t.Fatalf("GET sessions: %d %v", status, body)
	}
	if status, _ := rtPost(t, p, "/_mock/messaging/sessions/"+sid+"/expire", ""); status != 200 {
		t.Fatalf("expire: %d", status)
	}
	if code := rtUntilClose(t, conn); code != 4001 {
		t.Fatalf("close code %d, want 4001", code)
	}
	if status, _ := rtPost(t, p, "/_mock/messaging/sessions/"+sid+"/expire", ""); status != 404 {
		t.Fatalf("second expire: %d", status)
	}
	if err := p.ExpireMessagingSession(sid); err != ErrNoSession {
		t.Fatalf("ExpireMessagingSession = %v", err)
	}
	// Token revocation through the control plane.
	if status, _ := rtPost(t, p, "/_mock/messaging/tokens/expire", ""); status != 200 {
		t.Fatal("tokens/expire")
	}
	if status, _ := rtPost(t, p, "/messaging/api/v1/sessions", "{}", "Authorization", "Bearer "+tok); status != 401 {
		t.Fatalf("revoked token: %d", status)
	}
}

func TestRealtimeExpiryByAdvance(t *testing.T) {
	p := Start(t)
	_, _, conn := rtOpen(t, p)
	if status, _ := rtPost(t, p, "/_mock/clock/advance", `{"duration":"10m"}`); status != 200 {
		t.Fatal("advance")
	}
	if code := rtUntilClose(t, conn); code != 4001 {
		t.Fatalf("close code %d", code)
	}
	if n := len(p.MessagingSessions()); n != 0 {
		t.Fatalf("%d sessions", n)
	}
}

func TestRealtimeCloseWithOpenSocket(t *testing.T) {
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.srv = httptest.NewServer(p)
	p.mu.Unlock()
	_, _, conn := rtOpen(t, p)
	done := make(chan struct{})
	go func() { p.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Platform.Close hangs with an open socket")
	}
	rtUntilClose(t, conn)
}

func TestRealtimeOutboundLifecycle(t *testing.T) {
	p := Start(t)
	hdr := []string{"X-PolyAi-Auth-Token", "test-outbound-token"}
	status, body := rtPost(t, p, "/runtime/us-1/v1/outbound-calling", `{"to_number":"+14155552671"}`, hdr...)
	if status != 200 {
		t.Fatalf("trigger: %d %v", status, body)
	}
	sid := body["call_sid"].(string)
	get := func() (int, map[string]any) {
		req := mustReq(t, "GET", p.RuntimeURL("us-1")+"/v1/outbound-calling/"+sid+"/status")
		req.Header.Set(hdr[0], hdr[1])
		return rtDo(t, req)
	}
	for _, step := range []struct {
		advance time.Duration
		status  int
		want    string
	}{
		{0, 200, "queued"}, {5 * time.Second, 200, "calling"}, {30 * time.Second, 200, "success"},
		{2*time.Hour - time.Second, 200, "success"}, {time.Second, 404, ""},
	} {
		p.Advance(step.advance)
		status, body := get()
		if status != step.status || step.want != "" && body["status"] != step.want {
			t.Fatalf("after %v: %d %v, want %d %s", step.advance, status, body, step.status, step.want)
		}
	}
}

func mustReq(t *testing.T, method, u string) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	return req
}
