package handlers

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/google/go-cmp/cmp"
)

// TestStrictBodies sends bodies that the strict reader refuses to a route
// of every family that reads a JSON body: each answers 400 in its
// family's error shape, saying what is wrong and where, is journaled, and
// changes nothing.
func TestStrictBodies(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	tok := msgToken(h)
	tooDeep := strings.Repeat("[", engine.MaxJSONDepth+1) + strings.Repeat("]", engine.MaxJSONDepth+1)
	bodies := []struct {
		name, body, problem string
	}{
		{"trailing braces", `{"id":"E1"}}}}`, "body has data after the JSON value (at byte 11)"},
		{"two values", `{} {}`, "body has data after the JSON value (at byte 3)"},
		{"key twice", `{"name":"a","name":"b"}`, `body has the key "name" twice in one object (at byte 12)`},
		{"key twice below", `{"x":{"b":1,"b":2}}`, `body has the key "b" twice in one object (at byte 12)`},
		{"too deep", tooDeep, "body nests arrays and objects deeper than 64 levels (at byte 64)"},
		{"cut short", `{"name":`, "body ends before its JSON value is complete (at byte 8)"},
	}
	msg := func(problem string) string { return "Request " + problem + "." }
	families := []struct {
		family, method, path string
		headers              []string
		want                 func(r response, problem string) any
	}{
		{"chat", "POST", chatBase + "/create", chatHeaders,
			func(r response, p string) any { return envelopeBody(r, engine.CodeChatInvalid, msg(p)) }},
		// Messaging answers the real service's fixed text; the reason is
		// a journal warning (checked below).
		{"messaging", "POST", msgBase + "/access-token", []string{"X-Token", "test-connector-token", "X-Host", "localhost"},
			func(response, string) any { return msgErr(MsgMessagingParse) }},
		{"messaging", "POST", msgBase + "/sessions", []string{"Authorization", "bearer " + tok},
			func(response, string) any { return msgErr(MsgMessagingParse) }},
		{"agents", "POST", "/builder/us/v1/agents", builderHeaders,
			func(_ response, p string) any { return builderError{Message: msg(p), Errors: []engine.FieldError{}} }},
		{"agents", "PATCH", "/builder/us/v1/agents/2001/telephony/connectors/CONNECTOR-00000001", builderHeaders,
			func(_ response, p string) any { return builderError{Message: msg(p), Errors: []engine.FieldError{}} }},
		{"alerts", "POST", "/builder/us/v1/alert-rules", builderHeaders,
			func(_ response, p string) any { return builderError{Message: msg(p), Errors: []engine.FieldError{}} }},
		{"webhooks", "POST", "/builder/us/v1/webhook-endpoints", builderHeaders,
			func(_ response, p string) any { return builderError{Message: msg(p), Errors: []engine.FieldError{}} }},
		{"outbound", "POST", "/runtime/us-1/v1/outbound-calling", outHeaders,
			func(_ response, p string) any {
				return map[string]any{"error": msg(p), "code": engine.CodeOutboundInvalid}
			}},
		{"dni", "POST", "/runtime/us-1/v1/conversations/dni-reservation", []string{"x-api-key", "test-dni-key"},
			func(_ response, p string) any { return dniError{Error: "Bad Request", Message: msg(p)} }},
		{"external_events", "POST", "/runtime/us-1/v1/external-events/webhook?event_id_location=payload&event_id_path=id&account_id=acme&project_id=support",
			[]string{"X-Api-Key", "test-external-events-key"},
			func(_ response, p string) any {
				return map[string]any{"error_message": "Payload is not valid JSON: " + p}
			}},
	}
	for _, f := range families {
		for _, b := range bodies {
			t.Run(f.family+" "+f.method+" "+b.name, func(t *testing.T) {
				headers := append([]string{"Content-Type", "application/json"}, f.headers...)
				var r response
				before := len(h.journal.List(Filter{}))
				h.unchanged(t, func() { r = h.do(f.method, f.path, b.body, headers...) })
				mustStatus(t, r, 400)
				mustBody(t, r, f.want(r, b.problem))
				list := h.journal.List(Filter{})
				last := list[len(list)-1]
				if len(list) != before+1 || last.Status != 400 || last.Family != f.family {
					t.Fatalf("journal: %d entries (want %d), last %+v", len(list), before+1, last)
				}
				if f.family == "messaging" {
					if diff := cmp.Diff([]string{msg(b.problem)}, last.Warnings); diff != "" {
						t.Errorf("journal warnings (-want +got):\n%s", diff)
					}
				}
			})
		}
	}
}

// TestBindJSONExactNames: a field differing from the spec's name in case
// is an unknown field (warned about and ignored), not the spec's field,
// which encoding/json alone would have matched.
func TestBindJSONExactNames(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	r := h.do("POST", "/runtime/us-1/v1/conversations/dni-reservation", `{"ATTRIBUTES":{"a":1}}`,
		"x-api-key", "test-dni-key", "Content-Type", "application/json")
	e := h.journalOne()
	if diff := cmp.Diff([]string{`unknown field "ATTRIBUTES" in request body (ignored, as the real service does)`}, e.Warnings); diff != "" {
		t.Errorf("warnings (-want +got):\n%s\nanswer %d %s", diff, r.Status, r.Body)
	}
}

// TestBindJSONTypeErrorOrder: of two fields of the wrong type, the error
// names the first in key order, whatever their order in the body.
func TestBindJSONTypeErrorOrder(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, body := range []string{`{"message":1,"conversation_id":2}`, `{"conversation_id":2,"message":1}`} {
		r := h.do("POST", chatBase+"/respond", body, chatHeaders...)
		mustStatus(t, r, 400)
		if m := r.Map(t)["error"]; m != `Field "conversation_id" must be a string.` {
			t.Errorf("%s: error %q", body, m)
		}
	}
}

// TestReadBody: readBody reads what io.ReadAll of a LimitReader reads,
// whatever the announced length and however the body arrives, and a
// body of a known small length costs one allocation.
func TestReadBody(t *testing.T) {
	body := strings.Repeat("0123456789", 30)
	for _, tc := range []struct {
		name      string
		n         int   // bytes of the body
		size, max int64 // announced length, limit
	}{
		{"exact", 300, 300, 1001},
		{"empty", 0, 0, 1001},
		{"announced 0 (unknown in process)", 300, 0, 1001},
		{"unknown length", 300, -1, 1001},
		{"shorter than announced", 100, 300, 1001},
		{"longer than announced", 300, 10, 1001},
		{"at the limit", 300, 300, 300},
		{"over the limit", 300, 300, 101},
		{"announced over the limit", 300, 5000, 101},
	} {
		for _, chunked := range []bool{false, true} {
			src := func() io.Reader {
				var r io.Reader = strings.NewReader(body[:tc.n])
				if chunked {
					r = iotest.OneByteReader(r)
				}
				return r
			}
			want, _ := io.ReadAll(io.LimitReader(src(), tc.max))
			got, err := readBody(src(), tc.size, tc.max)
			if err != nil || string(got) != string(want) {
				t.Errorf("%s (chunked %v): %q, %v; want %q", tc.name, chunked, got, err, want)
			}
		}
	}
	// A large announced length and a short body: the buffer is bounded
	// by what arrives, not by the announcement.
	if b, err := readBody(strings.NewReader("x"), 16<<20, 16<<20+1); err != nil || string(b) != "x" || cap(b) > maxBodyPrealloc {
		t.Errorf("announced 16 MiB, sent 1 byte: %q, %v, capacity %d", b, err, cap(b))
	}
	boom := errors.New("boom")
	if _, err := readBody(iotest.ErrReader(boom), 10, 100); err != boom {
		t.Errorf("reader error: %v", err)
	}
	r := strings.NewReader(body[:48])
	allocs := testing.AllocsPerRun(100, func() {
		r.Reset(body[:48])
		if b, err := readBody(r, 48, 1<<20); err != nil || len(b) != 48 {
			t.Fatalf("%d bytes, %v", len(b), err)
		}
	})
	if allocs != 1 {
		t.Errorf("%v allocations for a 48-byte body", allocs)
	}
}
