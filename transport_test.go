package mockplatform

import (
	"errors"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/agentplatform/mockplatform/faults"
)

// trackedBody is a request body that records whether it was closed.
type trackedBody struct {
	io.Reader
	closed atomic.Bool
}

func (b *trackedBody) Close() error { b.closed.Store(true); return nil }

func chatRequest(t *testing.T, url string, body io.ReadCloser) *http.Request {
	t.Helper()
	req, err := http.NewRequest("POST", url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if body != nil {
		req.Body = body
	}
	for i := 0; i+1 < len(chatHeaders); i += 2 {
		req.Header.Set(chatHeaders[i], chatHeaders[i+1])
	}
	return req
}

func TestMemTransportServesWithoutSocket(t *testing.T) {
	t.Parallel()
	p := Start(t, WithoutListener())
	// Any host reaches the platform: only the path counts.
	for _, base := range []string{PlaceholderURL, "http://example.invalid", "https://api.us-1.example.com:8443"} {
		body := &trackedBody{Reader: strings.NewReader(`{"channel":"webchat","asr_lang_code":"en-GB"}`)}
		req := chatRequest(t, base+"/runtime/us-1/v1/acme/support/chat/create", body)
		req.RemoteAddr = ""
		resp, err := p.Client().Do(req)
		if err != nil {
			t.Fatalf("%s: %v", base, err)
		}
		data, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || !strings.Contains(string(data), `"conversation_id":"CONV-`) {
			t.Fatalf("%s: %d %s", base, resp.StatusCode, data)
		}
		if resp.Request != req {
			t.Error("resp.Request is not the caller's request")
		}
		if resp.Header.Get("Content-Type") != "application/json; charset=utf-8" || resp.Header.Get("X-PolyAI-Correlation-Id") == "" {
			t.Errorf("headers = %v", resp.Header)
		}
		if !body.closed.Load() {
			t.Error("the request body was not closed")
		}
		// The caller's request is not modified (RoundTripper contract).
		if req.RemoteAddr != "" || req.RequestURI != "" {
			t.Errorf("request modified: RemoteAddr %q RequestURI %q", req.RemoteAddr, req.RequestURI)
		}
	}
	// The body reached the handler: the stored conversation has the channel.
	got := p.Requests(RequestFilter{Family: "chat"})
	if len(got) != 3 || got[0].RequestBody != `{"channel":"webchat","asr_lang_code":"en-GB"}` {
		t.Fatalf("journal = %+v", got)
	}
	c, err := p.Conversation(strings.Split(strings.Split(got[0].ResponseBody, `"conversation_id":"`)[1], `"`)[0])
	if err != nil || c.ChatChannel != "webchat" || c.Language != "en-GB" {
		t.Fatalf("conversation = %+v, %v", c, err)
	}
	// The query string reaches the handler too.
	r := send(t, p.Client(), "GET", p.URL()+"/_mock/requests?family=chat&limit=1", nil)
	mustStatus(t, r, http.StatusOK)
	if n := len(r.object(t)["requests"].([]any)); n != 1 {
		t.Fatalf("limit=1 gave %d entries", n)
	}
}

func TestMemTransportDrop(t *testing.T) {
	t.Parallel()
	p := Start(t, WithoutListener())
	if _, err := p.AddFault(Fault{ID: "drop", Match: faults.Match{Family: "chat"}, Action: faults.Action{Drop: true}, Times: 1}); err != nil {
		t.Fatal(err)
	}
	body := &trackedBody{Reader: strings.NewReader(`{}`)}
	resp, err := p.Client().Do(chatRequest(t, p.RuntimeURL("us-1")+"/v1/acme/support/chat/create", body))
	if err == nil {
		resp.Body.Close()
		t.Fatalf("a dropped request answered %d", resp.StatusCode)
	}
	if !errors.Is(err, errDropped) {
		t.Fatalf("error = %v, want errDropped", err)
	}
	if !body.closed.Load() {
		t.Error("the request body of a dropped request was not closed")
	}
	// The drop is in the journal, with no status (no answer was sent).
	got := p.Requests(RequestFilter{})
	if len(got) != 1 || got[0].Fault != "drop" || got[0].Status != 0 {
		t.Fatalf("journal = %+v, want one entry with fault drop and status 0", got)
	}
	// The rule was used up: the next request is answered.
	chatCreate(t, p, nil)
}

func TestMemTransportConcurrent(t *testing.T) {
	t.Parallel()
	p := Start(t, WithoutListener())
	const n = 40
	var wg sync.WaitGroup
	ids := make([]string, n)
	for i := range n {
		wg.Go(func() { ids[i] = chatCreate(t, p, nil) })
	}
	wg.Wait()
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			t.Fatalf("id %s made twice", id)
		}
		seen[id] = true
	}
	if got := len(p.Requests(RequestFilter{})); got != n {
		t.Fatalf("journal = %d entries, want %d", got, n)
	}
}
