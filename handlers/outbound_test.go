package handlers

import (
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/store"
)

const outBase = "/runtime/us-1/v1/outbound-calling"

var outHeaders = []string{"X-Service-Auth-Token", "test-outbound-token", "Content-Type", "application/json"}

var callSIDPattern = regexp.MustCompile(`^OUT-[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func outErr(code, msg string) map[string]any { return map[string]any{"error": msg, "code": code} }

// outCall triggers a call and returns its sid.
func outCall(h *harness, body any, headers ...string) string {
	h.t.Helper()
	if headers == nil {
		headers = outHeaders
	}
	r := h.do("POST", outBase, body, headers...)
	mustStatus(h.t, r, 200)
	sid := r.Map(h.t)["call_sid"].(string)
	if !callSIDPattern.MatchString(sid) {
		h.t.Fatalf("call_sid %q", sid)
	}
	return sid
}

// outStatus expects a status body.
func outStatus(h *harness, sid, status, reason string) {
	h.t.Helper()
	r := h.do("GET", outBase+"/"+sid+"/status", nil, outHeaders...)
	mustStatus(h.t, r, 200)
	mustBody(h.t, r, map[string]any{"status": status, "reason": reason})
}

func outGone(h *harness, sid string) {
	h.t.Helper()
	r := h.do("GET", outBase+"/"+sid+"/status", nil, outHeaders...)
	mustStatus(h.t, r, 404)
	mustBody(h.t, r, outErr(engine.CodeOutboundNotFound, engine.MsgOutboundNotFound))
}

func TestOutboundLifecycle(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	sid := outCall(h, map[string]any{"to_number": "+14155552671", "metadata": map[string]any{"first_name": "Paul"}})
	outStatus(h, sid, "queued", "")
	h.advance(5*time.Second - time.Nanosecond)
	outStatus(h, sid, "queued", "")
	h.advance(time.Nanosecond)
	outStatus(h, sid, "calling", "")
	if _, err := h.store.GetConversation("us", sid); err == nil {
		t.Fatal("conversation before the answer")
	}
	h.advance(5 * time.Second)
	outStatus(h, sid, "calling", "")
	conv, err := h.store.GetConversation("us", sid)
	if err != nil {
		t.Fatalf("answered call has no conversation: %v", err)
	}
	if conv.Channel != "VOICE-SIP" || !conv.InProgress || conv.ToNumber != "+14155552671" ||
		conv.State["sip_headers"].(map[string]any)["first_name"] != "Paul" || conv.State["direction"] != "outbound" {
		t.Fatalf("conversation = %+v", conv)
	}
	if conv.StartedAt != h.clock.Now() {
		t.Fatalf("started at %v", conv.StartedAt)
	}
	h.advance(25 * time.Second)
	outStatus(h, sid, "success", "")
	conv, _ = h.store.GetConversation("us", sid)
	if conv.InProgress || conv.EndedAt != h.clock.Now() {
		t.Fatalf("conversation not ended: %+v", conv)
	}
	// Terminal states are final; the status is kept 2 hours, then 404.
	h.advance(2*time.Hour - time.Nanosecond)
	outStatus(h, sid, "success", "")
	h.advance(time.Nanosecond)
	outGone(h, sid)
	if n, _ := h.store.CountDocs(engine.DocOutboundCall, "us"); n != 0 {
		t.Fatalf("%d call records kept past retention", n)
	}
	// The conversation record stays.
	if _, err := h.store.GetConversation("us", sid); err != nil {
		t.Fatal(err)
	}
}

func TestOutboundOutcomes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `
accounts:
  - slug: acme
    id: "1001"
    projects:
      - slug: support
        id: "2001"
        outbound:
          enabled: true
          ring: 20s
          destinations:
            - {match: "*0000", outcome: no_answer}
            - {match: "+44*", outcome: queue_timeout, queue: 1m}
            - {match: "+1555*", outcome: busy, reason: "line busy", ring: 2s}
credentials:
  - {kind: outbound, key: tok, account: acme}
`)
	hdr := []string{"X-PolyAi-Auth-Token", "tok"}
	outHeaders := hdr
	noAnswer := outCall(h, map[string]any{"to_number": "+14155550000"}, hdr...)
	queue := outCall(h, map[string]any{"to_number": "+447700900123"}, hdr...)
	busy := outCall(h, map[string]any{"to_number": "+15551234567"}, hdr...)
	ok := outCall(h, map[string]any{"to_number": "+14155552671"}, hdr...)
	status := func(sid, st, reason string) {
		t.Helper()
		r := h.do("GET", outBase+"/"+sid+"/status", nil, outHeaders...)
		mustStatus(t, r, 200)
		mustBody(t, r, map[string]any{"status": st, "reason": reason})
	}
	h.advance(5 * time.Second)
	status(noAnswer, "calling", "")
	status(queue, "queued", "")
	status(busy, "calling", "")
	h.advance(2 * time.Second)
	status(busy, "failure", "line busy")
	h.advance(18 * time.Second)
	status(noAnswer, "failure", "no answer")
	status(ok, "calling", "")
	h.advance(35 * time.Second)
	status(queue, "failure", "call queueing: max timeout limit exceeded")
	for _, sid := range []string{noAnswer, queue, busy} {
		if _, err := h.store.GetConversation("us", sid); err == nil {
			t.Errorf("failed call %s has a conversation", sid)
		}
	}
	if _, err := h.store.GetConversation("us", ok); err != nil {
		t.Errorf("answered call: %v", err)
	}
}

func TestOutboundPresetOutcome(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if _, err := h.faults.Add(faultRule("outbound", "/v1/outbound-calling", engine.PresetOutboundOutcome+":rejected")); err != nil {
		t.Fatal(err)
	}
	sid := outCall(h, map[string]any{"to_number": "+14155552671"})
	h.advance(10 * time.Second)
	outStatus(h, sid, "failure", "call rejected")
}

func TestOutboundValidation(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	big := map[string]any{"k": strings.Repeat("x", 20*1024)}
	for _, tc := range []struct {
		name   string
		body   any
		status int
		code   string
		msg    string
	}{
		{"no body", nil, 400, engine.CodeOutboundInvalid, "Request body is required."},
		{"bad json", "{", 400, engine.CodeOutboundInvalid, "Request body ends before its JSON value is complete (at byte 1)."},
		{"no to_number", map[string]any{}, 400, engine.CodeOutboundInvalid, engine.MsgOutboundToNumber},
		{"to_number not string", map[string]any{"to_number": 14155552671}, 400, engine.CodeOutboundInvalid, `Field "to_number" must be a string.`},
		{"national without country", map[string]any{"to_number": "4155552671"}, 400, engine.CodeOutboundPhone, engine.MsgOutboundPhone},
		{"letters", map[string]any{"to_number": "+1415CALLNOW"}, 400, engine.CodeOutboundPhone, engine.MsgOutboundPhone},
		{"too short", map[string]any{"to_number": "+1234"}, 400, engine.CodeOutboundPhone, engine.MsgOutboundPhone},
		{"unknown country", map[string]any{"to_number": "0123", "country_code": "XX"}, 400, engine.CodeOutboundInvalid, engine.MsgOutboundCountry},
		{"metadata number", map[string]any{"to_number": "+14155552671", "metadata": map[string]any{"n": 1}}, 400, engine.CodeOutboundMetadata, `metadata value of "n" must be a string.`},
		{"metadata numbers: the first key in order", map[string]any{"to_number": "+14155552671", "metadata": map[string]any{"z": 1, "b": true, "k": 2, "a": "ok"}}, 400, engine.CodeOutboundMetadata, `metadata value of "b" must be a string.`},
		{"metadata too large", map[string]any{"to_number": "+14155552671", "metadata": big}, 400, engine.CodeOutboundMetadataSize, engine.MsgOutboundMetaSize},
		{"metadata not object", map[string]any{"to_number": "+14155552671", "metadata": "x"}, 400, engine.CodeOutboundInvalid, `Field "metadata" must be an object.`},
		{"bad encryption", map[string]any{"to_number": "+14155552671", "encryption": "TLS"}, 400, engine.CodeOutboundInvalid, engine.MsgOutboundEncryption},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := h.storeDump()
			r := h.do("POST", outBase, tc.body, outHeaders...)
			mustStatus(t, r, tc.status)
			mustBody(t, r, outErr(tc.code, tc.msg))
			if diff := cmpSnap(before, h.storeDump()); diff != "" {
				t.Fatalf("a refused call changed the store: %s", diff)
			}
		})
	}
	for _, tc := range []struct{ to, country, want string }{
		{"07700 900123", "GB", "+447700900123"},
		{"(415) 555-2671", "us", "+14155552671"},
		{"1-415-555-2671", "US", "+14155552671"},
		{"+33 1 23 45 67 89", "GB", "+33123456789"},
		{"0033123456789", "FR", "+33123456789"},
	} {
		sid := outCall(h, map[string]any{"to_number": tc.to, "country_code": tc.country,
			"encryption": "UDP/RTP", "metadata": map[string]any{"a": "b"}, "extra": 1})
		var call storedCall
		if err := h.store.GetDoc(engine.DocOutboundCall, "us", sid, &call); err != nil {
			t.Fatal(err)
		}
		if call.ToNumber != tc.want || call.Encryption != "UDP/RTP" {
			t.Errorf("%s %s: stored %s %s, want %s", tc.to, tc.country, call.ToNumber, call.Encryption, tc.want)
		}
	}
	var call storedCall
	sid := outCall(h, map[string]any{"to_number": "+14155552671"})
	_ = h.store.GetDoc(engine.DocOutboundCall, "us", sid, &call)
	if call.Encryption != "TLS/SRTP" {
		t.Errorf("default encryption %q", call.Encryption)
	}
}

// storedCall is what the tests read of a stored call document.
type storedCall struct {
	ToNumber   string `json:"to_number"`
	Encryption string `json:"encryption"`
}

// cmpSnap compares two store snapshots ("" when equal).
func cmpSnap(a, b *store.Snapshot) string {
	return cmp.Diff(a, b, cmp.Exporter(func(reflect.Type) bool { return true }))
}

func TestOutboundAuth(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `
accounts:
  - slug: acme
    id: "1001"
    projects:
      - {slug: support, id: "2001", outbound: {enabled: true}}
      - {slug: sales, id: "2002"}
  - slug: other
    id: "1002"
    projects: [{slug: p, id: "3001", outbound: {enabled: true}}]
credentials:
  - {kind: outbound, key: tok, account: acme}
  - {kind: outbound, key: sales, account: acme, project: sales}
  - {kind: outbound, key: other, account: other}
  - {kind: conversations, key: conv, account: acme}
`)
	body := map[string]any{"to_number": "+14155552671"}
	for _, tc := range []struct {
		name    string
		headers []string
		status  int
		code    string
		msg     string
	}{
		{"spec header", []string{"X-Service-Auth-Token", "tok"}, 200, "", ""},
		{"real header", []string{"X-PolyAi-Auth-Token", "tok"}, 200, "", ""},
		{"lowercase header", []string{"x-polyai-auth-token", "tok"}, 200, "", ""},
		{"missing", nil, 401, "UNAUTHORIZED", msgMissingKey},
		{"unknown", []string{"X-Service-Auth-Token", "nope"}, 401, "UNAUTHORIZED", msgInvalidKey},
		{"other family", []string{"X-Service-Auth-Token", "conv"}, 401, "UNAUTHORIZED", msgInvalidKey},
		{"project without outbound", []string{"X-Service-Auth-Token", "sales"}, 401, engine.CodeOutboundNotEnabled, engine.MsgOutboundNotEnabled},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := h.do("POST", outBase, body, tc.headers...)
			mustStatus(t, r, tc.status)
			if tc.status != 200 {
				mustBody(t, r, outErr(tc.code, tc.msg))
			}
		})
	}
	// Another account's call is not found; so is a bad version.
	r := h.do("POST", outBase, body, "X-Service-Auth-Token", "tok")
	sid := r.Map(t)["call_sid"].(string)
	r = h.do("GET", outBase+"/"+sid+"/status", nil, "X-Service-Auth-Token", "other")
	mustStatus(t, r, 404)
	mustBody(t, r, outErr(engine.CodeOutboundNotFound, engine.MsgOutboundNotFound))
	mustStatus(t, h.do("GET", outBase+"/"+sid+"/status", nil, "X-Service-Auth-Token", "tok"), 200)
	r = h.do("GET", "/runtime/us-1/v2/outbound-calling/"+sid+"/status", nil, "X-Service-Auth-Token", "tok")
	mustStatus(t, r, 404)
	// Another region holds none of it.
	mustStatus(t, h.do("GET", "/runtime/uk-1/v1/outbound-calling/"+sid+"/status", nil, "X-Service-Auth-Token", "tok"), 401)
}

func TestOutboundStatusErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	for _, sid := range []string{"CA123", "OUT-123", "out-550e8400-e29b-41d4-a716-446655440000x"} {
		r := h.do("GET", outBase+"/"+sid+"/status", nil, outHeaders...)
		mustStatus(t, r, 400)
		mustBody(t, r, outErr(engine.CodeOutboundCallSID, engine.MsgOutboundCallSID))
	}
	outGone(h, "OUT-550e8400-e29b-41d4-a716-446655440000")
}

func TestOutboundRateLimit(t *testing.T) {
	t.Parallel()
	h := newHarness(t, `
accounts:
  - slug: acme
    id: "1001"
    outbound: {rate_limit: {calls: 2, window: 1m}}
    projects: [{slug: support, id: "2001", outbound: {enabled: true}}]
credentials:
  - {kind: outbound, key: tok, account: acme}
`)
	hdr := []string{"X-Service-Auth-Token", "tok"}
	body := map[string]any{"to_number": "+14155552671"}
	outCall(h, body, hdr...)
	h.advance(20 * time.Second)
	outCall(h, body, hdr...)
	limited := func(retry string) {
		t.Helper()
		before := h.storeDump()
		r := h.do("POST", outBase, body, hdr...)
		mustStatus(t, r, 429)
		mustBody(t, r, outErr(engine.CodeOutboundRateLimited, engine.MsgOutboundRateLimited))
		if got := r.Header.Get("Retry-After"); got != retry {
			t.Fatalf("Retry-After = %q, want %q", got, retry)
		}
		if cmpSnap(before, h.storeDump()) != "" {
			t.Fatal("a limited call changed the store")
		}
	}
	limited("40")
	h.advance(39*time.Second + 500*time.Millisecond)
	limited("1")
	h.advance(500 * time.Millisecond)
	outCall(h, body, hdr...)
	limited("20")
	// Invalid requests are refused before the limit and do not count.
	h.advance(20 * time.Second)
	mustStatus(t, h.do("POST", outBase, map[string]any{}, hdr...), 400)
	outCall(h, body, hdr...)
}

// TestOutboundCallsList lists the calls with their planned timeline and
// where they stand, until retention ends.
func TestOutboundCallsList(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	start := h.clock.Now()
	sid := outCall(h, map[string]any{"to_number": "+14155552671", "metadata": map[string]any{"k": "v"}})
	h.advance(12 * time.Second) // queued 5s, ringing 5s: answered
	got, err := h.api.OutboundCalls()
	if err != nil {
		t.Fatal(err)
	}
	at := func(s int) time.Time { return start.Add(time.Duration(s) * time.Second) }
	want := []engine.OutboundCall{{SID: sid, Region: "us", AccountID: "1001", ProjectID: "2001", ToNumber: "+14155552671",
		Status: "calling", Outcome: "answered", Answered: true, CreatedAt: at(0), CallingAt: at(5), AnswerAt: at(10),
		EndAt: at(35), RetainUntil: at(35).Add(2 * time.Hour)}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Fatalf("calls (-want +got):\n%s", diff)
	}
	h.advance(3 * time.Hour)
	if got, _ := h.api.OutboundCalls(); len(got) != 0 {
		t.Fatalf("calls after retention: %+v", got)
	}
}
