package console_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/agentplatform/mockplatform"
)

// The test helpers of this package, in one place.

// page is an answer read in full.
type page struct {
	Status int
	Header http.Header
	Body   string
}

// noRedirects is a client that shows redirects as they come.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// get fetches a console address (below {base}/_mock/ui) over the
// platform's listener.
func get(t testing.TB, p *mockplatform.Platform, path string, headers ...string) page {
	t.Helper()
	return do(t, "GET", p.URL()+"/_mock/ui"+path, nil, headers...)
}

// do sends a request over a socket; body is nil, a string or a value sent
// as JSON; headers are name, value pairs.
func do(t testing.TB, method, url string, body any, headers ...string) page {
	t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
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
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return page{Status: resp.StatusCode, Header: resp.Header, Body: string(data)}
}

// mustContain fails unless the page has every text.
func (pg page) mustContain(t testing.TB, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if !strings.Contains(pg.Body, s) {
			t.Errorf("the page lacks %q:\n%s", s, pg.Body)
		}
	}
}

// mustNotContain fails if the page has any of the texts.
func (pg page) mustNotContain(t testing.TB, texts ...string) {
	t.Helper()
	for _, s := range texts {
		if strings.Contains(pg.Body, s) {
			t.Errorf("the page has %q", s)
		}
	}
}

var chatHeaders = []string{"X-API-KEY", "test-chat-key", "X-TOKEN", "test-connector-token", "Content-Type", "application/json"}

// chat starts a chat conversation and sends messages; it returns its id.
func chat(t testing.TB, p *mockplatform.Platform, messages ...string) string {
	t.Helper()
	r := do(t, "POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/create", "{}", chatHeaders...)
	if r.Status != 200 {
		t.Fatalf("chat create: %d %s", r.Status, r.Body)
	}
	var out struct {
		ID string `json:"conversation_id"`
	}
	if err := json.Unmarshal([]byte(r.Body), &out); err != nil {
		t.Fatal(err)
	}
	for _, m := range messages {
		r := do(t, "POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/respond",
			map[string]string{"conversation_id": out.ID, "message": m}, chatHeaders...)
		if r.Status != 200 {
			t.Fatalf("chat respond: %d %s", r.Status, r.Body)
		}
	}
	return out.ID
}

// control calls the control plane with a JSON body.
func control(t testing.TB, p *mockplatform.Platform, method, path string, body any) page {
	t.Helper()
	return do(t, method, p.URL()+"/_mock"+path, body, "Content-Type", "application/json")
}
