package oapicheck

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"slices"
	"strings"
	"testing"
)

// chatCreate is an exchange of chat create with the given request body
// and answer; status 200 unless changed.
func chatCreate(body, answer string) Exchange {
	req := httptest.NewRequest("POST", "/runtime/us-1/v1/acme/support/chat/create", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-API-KEY", "k")
	req.Header.Set("X-TOKEN", "t")
	h := http.Header{}
	h.Set("Content-Type", "application/json; charset=utf-8")
	h.Set("X-PolyAI-Correlation-Id", "c-1")
	return Exchange{Request: req, Body: []byte(body), Route: "/runtime/:region/:version/:account/:project/chat/create",
		Params: map[string]string{"region": "us-1", "version": "v1", "account": "acme", "project": "support"},
		Status: 200, Header: h, Response: []byte(answer)}
}

func newChecker(t *testing.T) *Checker {
	t.Helper()
	doc, err := os.ReadFile("../../docs/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	c, err := New(doc)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// TestBodies: JSON bodies are checked against their schemas (the
// request's and the answer's), and each schema is compiled once.
func TestBodies(t *testing.T) {
	c := newChecker(t)
	const ok = `{"conversation_id":"C-1","response":"Hi."}`
	for _, tc := range []struct {
		name, body, answer, err string
	}{
		{"conforms", `{"integration_attributes":{"customer_id":"42"}}`, ok, ""},
		{"conforms, other values", `{"channel":"sms","variant_id":null}`, `{"conversation_id":"C-2","response":"Hello."}`, ""},
		{"answer misses a required field", `{}`, `{"conversation_id":"C-1"}`, "response body"},
		{"answer has an extra field", `{}`, `{"conversation_id":"C-1","response":"Hi.","x":1}`, "response body"},
		{"answer field of the wrong type", `{}`, `{"conversation_id":1,"response":"Hi."}`, "response body"},
		{"answer is not JSON", `{}`, `{"conversation_id":`, "not JSON"},
		{"request the document refuses answered 200", `{"channel":"fax"}`, ok, "the document refuses the request"},
		{"request pattern refused, answered 200", `{"asr_lang_code":"english"}`, ok, "the document refuses the request"},
	} {
		err := c.Check(chatCreate(tc.body, tc.answer))
		switch {
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.err)
		}
	}
	c.bodies.mu.Lock()
	compiled := c.bodies.compiled
	c.bodies.mu.Unlock()
	if compiled != 2 {
		t.Errorf("%d validators compiled, want 2 (the request's schema and the answer's, once each)", compiled)
	}
}

// TestRefusedRequestAnsweredWithError: a request the document refuses
// (its body) that the mock refused with a documented error counts as
// refused; the error's body is checked against the response the status
// refers to (a component).
func TestRefusedRequestAnsweredWithError(t *testing.T) {
	c := newChecker(t)
	const envelope = `{"success":false,"error":"Bad Request","error_code":"INVALID","error_id":"c-1","error_message":"channel"}`
	ex := chatCreate(`{"channel":"fax"}`, envelope)
	ex.Status = 400
	if err := c.Check(ex); err != nil {
		t.Fatalf("check: %v", err)
	}
	if n := c.Counts(); n.Checked != 1 || n.Refused != 1 || n.Failed != 0 {
		t.Errorf("counts %+v: want one checked, refused", n)
	}
	ex = chatCreate(`{"channel":"fax"}`, `{"success":false}`)
	ex.Status = 400
	if err := c.Check(ex); err == nil || !strings.Contains(err.Error(), "response body") {
		t.Errorf("an envelope without its required fields: %v", err)
	}
}

// TestFailureCauses: a failure says what failed, and every place of the
// answer's body that does not conform, sorted.
func TestFailureCauses(t *testing.T) {
	c := newChecker(t)
	for _, tc := range []struct {
		name   string
		ex     Exchange
		kind   FailureKind
		causes []string
	}{
		{"two places", chatCreate(`{}`, `{"conversation_id":1,"response":2}`), KindAnswer,
			[]string{"at /conversation_id: got number, want string", "at /response: got number, want string"}},
		{"status", func() Exchange { ex := chatCreate(`{}`, `{}`); ex.Status = 418; return ex }(), KindStatus, nil},
		{"request", chatCreate(`{"channel":"fax"}`, `{"conversation_id":"C","response":"R"}`), KindRequest, nil},
	} {
		err := c.Check(tc.ex)
		var f *Failure
		if !errors.As(err, &f) {
			t.Errorf("%s: %v is not a *Failure", tc.name, err)
			continue
		}
		if f.Kind != tc.kind {
			t.Errorf("%s: kind %d, want %d", tc.name, f.Kind, tc.kind)
		}
		if tc.causes != nil && !slices.Equal(f.Causes, tc.causes) {
			t.Errorf("%s: causes %q, want %q", tc.name, f.Causes, tc.causes)
		}
	}
}
