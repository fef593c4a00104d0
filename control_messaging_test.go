package mockplatform

import (
	"net/http/httptest"
	"testing"
	"time"
)

func TestMessagingControlExpireSession(t *testing.T) {
	t.Parallel()
	p := Start(t)
	sid, tok, conn := openSession(t, p)
	list := p.MessagingSessions()
	if len(list) != 1 || list[0].ID != sid || !list[0].Streaming || list[0].Connections != 1 {
		t.Fatalf("sessions = %+v", list)
	}
	status, body := call(t, p, "GET", p.URL()+"/_mock/messaging/sessions", "")
	if status != 200 || len(body["sessions"].([]any)) != 1 {
		t.Fatalf("GET sessions: %d %v", status, body)
	}
	if status, _ := call(t, p, "POST", p.URL()+"/_mock/messaging/sessions/"+sid+"/expire", ""); status != 200 {
		t.Fatalf("expire: %d", status)
	}
	if code := readUntilClose(t, conn); code != 4001 {
		t.Fatalf("close code %d, want 4001", code)
	}
	if status, _ := call(t, p, "POST", p.URL()+"/_mock/messaging/sessions/"+sid+"/expire", ""); status != 404 {
		t.Fatalf("second expire: %d", status)
	}
	if err := p.ExpireMessagingSession(sid); err != ErrNoSession {
		t.Fatalf("ExpireMessagingSession = %v", err)
	}
	// Token revocation through the control plane.
	if status, _ := call(t, p, "POST", p.URL()+"/_mock/messaging/tokens/expire", ""); status != 200 {
		t.Fatal("tokens/expire")
	}
	if status, _ := call(t, p, "POST", p.URL()+"/messaging/api/v1/sessions", "{}", "Authorization", "Bearer "+tok); status != 401 {
		t.Fatalf("revoked token: %d", status)
	}
}

func TestMessagingExpiryByAdvance(t *testing.T) {
	t.Parallel()
	p := Start(t)
	_, _, conn := openSession(t, p)
	if status, _ := call(t, p, "POST", p.URL()+"/_mock/clock/advance", `{"duration":"10m"}`); status != 200 {
		t.Fatal("advance")
	}
	if code := readUntilClose(t, conn); code != 4001 {
		t.Fatalf("close code %d", code)
	}
	if n := len(p.MessagingSessions()); n != 0 {
		t.Fatalf("%d sessions", n)
	}
}

func TestMessagingCloseWithOpenSocket(t *testing.T) {
	t.Parallel()
	p, err := New()
	if err != nil {
		t.Fatal(err)
	}
	p.mu.Lock()
	p.srv = httptest.NewServer(p)
	p.mu.Unlock()
	_, _, conn := openSession(t, p)
	done := make(chan struct{})
	go func() { p.Close(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Platform.Close hangs with an open socket")
	}
	readUntilClose(t, conn)
}
