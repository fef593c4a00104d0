package handlers

import (
	"strings"
	"testing"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/google/go-cmp/cmp"
)

const eeQuery = "account_id=acme&project_id=support"

func (h *harness) event(query, ctype, body string, headers ...string) response {
	h.t.Helper()
	hs := append([]string{"X-Api-Key", "ee-key"}, headers...)
	if ctype != "" {
		hs = append(hs, "Content-Type", ctype)
	}
	var b any
	if body != "" {
		b = body
	}
	return h.do("POST", "/runtime/us-1/v1/external-events/webhook?"+query, b, hs...)
}

// TestExternalEventAwaited: a dialogue action awaits an event id, the
// webhook binds the payload to that conversation, the state shows it and
// a rule matching the event continues and completes the conversation.
func TestExternalEventAwaited(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	id := h.dataCreate(nil)
	out := h.dataRespond(id, "pay X42")
	if out["response"] != "Waiting for payment X42." {
		t.Fatalf("respond = %v", out)
	}
	r := h.event("event_id_location=payload&event_id_path=data.ref&"+eeQuery, "application/json",
		`{"data":{"ref":"X42"},"status":"succeeded","amount":1999}`)
	mustStatus(t, r, 201)
	if len(r.Body) != 0 {
		t.Errorf("201 body = %q, want empty", r.Body)
	}
	c := h.conversation(id)
	if len(c.Events) != 1 || c.Events[0].ID != "X42" || c.Events[0].ContentType != "application/json" ||
		string(c.Events[0].Payload) != `{"data":{"ref":"X42"},"status":"succeeded","amount":1999}` {
		t.Fatalf("events = %+v", c.Events)
	}
	want := map[string]any{"X42": map[string]any{"content_type": "application/json", "received_at": "2026-03-01T12:00:00Z",
		"payload": map[string]any{"data": map[string]any{"ref": "X42"}, "status": "succeeded", "amount": 1999.0}}}
	if diff := cmp.Diff(want, c.State["external_events"]); diff != "" {
		t.Errorf("state external_events (-want +got):\n%s", diff)
	}
	out = h.dataRespond(id, "any news?")
	if out["response"] != "Payment received, thank you." || out["end_conversation"] != true {
		t.Errorf("respond after the event = %v", out)
	}
}

func TestExternalEventLocationsAndTypes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, query, ctype, body string
		headers                  []string
	}{
		{"json top-level", "event_id_location=payload&event_id_path=cid", "application/json", `{"cid":"EV1","status":"ok"}`, nil},
		{"json array path", "event_id_location=payload&event_id_path=items.1.id", "application/json", `{"items":[{"id":"no"},{"id":"EV1"}]}`, nil},
		{"json dotted key", "event_id_location=payload&event_id_path=a.b", "application/json", `{"a.b":"EV1"}`, nil},
		{"form", "event_id_location=payload&event_id_path=cid", "application/x-www-form-urlencoded", "cid=EV1&status=succeeded", nil},
		{"xml from root", "event_id_location=payload&event_id_path=root.cid", "application/xml", "<root><cid> EV1 </cid><status>ok</status></root>", nil},
		{"xml below root", "event_id_location=payload&event_id_path=meta.cid", "text/xml; charset=utf-8", "<root><meta><cid>EV1</cid></meta></root>", nil},
		{"text pairs", "event_id_location=payload&event_id_path=cid", "text/plain", "cid=EV1&status=succeeded", nil},
		{"text lines", "event_id_location=payload&event_id_path=cid", "text/plain; charset=utf-8", "status: ok\ncid: EV1\n", nil},
		{"header", "event_id_location=headers&event_id_path=x-event-id", "application/json", `{"status":"ok"}`, []string{"X-Event-Id", "EV1"}},
		{"querystring", "event_id_location=querystring&event_id_path=cid&cid=EV1", "", "", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t, dataScenario)
			// The event id equals the conversation id: bound to it.
			c := h.conversation("CONV-S4")
			_ = c
			q := strings.ReplaceAll(tc.query, "EV1", "CONV-S4")
			body := strings.ReplaceAll(tc.body, "EV1", "CONV-S4")
			hs := tc.headers
			if hs != nil {
				hs = []string{hs[0], "CONV-S4"}
			}
			r := h.event(q+"&"+eeQuery, tc.ctype, body, hs...)
			mustStatus(t, r, 201)
			got := h.conversation("CONV-S4")
			if len(got.Events) != 1 || got.Events[0].ID != "CONV-S4" || string(got.Events[0].Payload) != body {
				t.Errorf("events = %+v", got.Events)
			}
		})
	}
}

func TestExternalEventErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	ok := "event_id_location=payload&event_id_path=cid&" + eeQuery
	for _, tc := range []struct {
		name, query, ctype, body string
		key                      string
		status                   int
		msg                      string
	}{
		{"no location", "event_id_path=cid&" + eeQuery, "application/json", `{"cid":"A"}`, "ee-key", 400, "Missing required query parameter: event_id_location"},
		{"no path", "event_id_location=payload&" + eeQuery, "application/json", `{"cid":"A"}`, "ee-key", 400, "Missing required query parameter: event_id_path"},
		{"no account", "event_id_location=payload&event_id_path=cid&project_id=support", "application/json", `{"cid":"A"}`, "ee-key", 400, "Missing required query parameter: account_id"},
		{"no project", "event_id_location=payload&event_id_path=cid&account_id=acme", "application/json", `{"cid":"A"}`, "ee-key", 400, "Missing required query parameter: project_id"},
		{"bad location", "event_id_location=body&event_id_path=cid&" + eeQuery, "application/json", `{"cid":"A"}`, "ee-key", 400, engine.MsgEventLocation},
		{"id missing", ok, "application/json", `{"other":"A"}`, "ee-key", 400, engine.MsgEventIDNotFound},
		{"id missing empty body", ok, "application/json", "", "ee-key", 400, engine.MsgEventIDNotFound},
		{"id missing header", "event_id_location=headers&event_id_path=x-cid&" + eeQuery, "", "", "ee-key", 400, engine.MsgEventIDNotFound},
		{"id missing query", "event_id_location=querystring&event_id_path=cid&" + eeQuery, "", "", "ee-key", 400, engine.MsgEventIDNotFound},
		{"id object", ok, "application/json", `{"cid":{"a":1}}`, "ee-key", 400, engine.MsgEventIDInvalid},
		{"id float", ok, "application/json", `{"cid":1.5}`, "ee-key", 400, engine.MsgEventIDInvalid},
		{"id empty", ok, "application/json", `{"cid":""}`, "ee-key", 400, engine.MsgEventIDInvalid},
		{"id spaces", ok, "application/json", `{"cid":"a b"}`, "ee-key", 400, engine.MsgEventIDInvalid},
		{"id too long", ok, "application/json", `{"cid":"` + strings.Repeat("x", 257) + `"}`, "ee-key", 400, engine.MsgEventIDInvalid},
		{"bad json", ok, "application/json", `{"cid":`, "ee-key", 400, "Payload is not valid JSON: body ends before its JSON value is complete (at byte 7)"},
		{"trailing data", ok, "application/json", `{"cid":"E1"}}}}`, "ee-key", 400, "Payload is not valid JSON: body has data after the JSON value (at byte 12)"},
		{"two values", ok, "application/json", `{"cid":"E1"} {"cid":"E2"}`, "ee-key", 400, "Payload is not valid JSON: body has data after the JSON value (at byte 13)"},
		{"duplicate id", ok, "application/json", `{"cid":"E1","cid":"E2"}`, "ee-key", 400, `Payload is not valid JSON: body has the key "cid" twice in one object (at byte 12)`},
		{"bad xml", ok, "application/xml", `<a><b></a>`, "ee-key", 400, "Payload is not valid XML"},
		{"bad type", ok, "application/octet-stream", `x`, "ee-key", 415, `Unsupported content type "application/octet-stream": use application/json, application/x-www-form-urlencoded, application/xml or text/plain`},
		{"unknown account", "event_id_location=payload&event_id_path=cid&account_id=zzz&project_id=support", "application/json", `{"cid":"A"}`, "ee-key", 400, `Unknown account_id "zzz"`},
		{"unknown project", "event_id_location=payload&event_id_path=cid&account_id=acme&project_id=zzz", "application/json", `{"cid":"A"}`, "ee-key", 400, `Unknown project_id "zzz"`},
		{"no key", ok, "application/json", `{"cid":"A"}`, "", 401, msgMissingKey},
		{"wrong key", ok, "application/json", `{"cid":"A"}`, "conv-key", 401, msgInvalidKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := h.storeLen()
			hs := []string{"X-Api-Key", tc.key}
			if tc.ctype != "" {
				hs = append(hs, "Content-Type", tc.ctype)
			}
			var b any
			if tc.body != "" {
				b = tc.body
			}
			r := h.do("POST", "/runtime/us-1/v1/external-events/webhook?"+tc.query, b, hs...)
			mustStatus(t, r, tc.status)
			mustBody(t, r, map[string]any{"error_message": tc.msg})
			if h.storeLen() != before {
				t.Error("a refused event changed the store")
			}
		})
	}
}

// TestExternalEventPending: an event for no known conversation is accepted
// and kept; when a conversation later awaits its id, it is bound.
func TestExternalEventPending(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	r := h.event("event_id_location=payload&event_id_path=ref&"+eeQuery, "application/x-www-form-urlencoded", "ref=X42&status=ok")
	mustStatus(t, r, 201)
	entries := h.journal.List(Filter{Family: "external_events"})
	if len(entries) != 1 || len(entries[0].Warnings) != 1 || !strings.Contains(entries[0].Warnings[0], "kept pending") {
		t.Errorf("journal warnings = %+v", entries)
	}
	id := h.dataCreate(nil)
	h.dataRespond(id, "pay X42")
	c := h.conversation(id)
	if len(c.Events) != 1 || c.Events[0].ID != "X42" {
		t.Fatalf("pending event not bound on await: %+v", c.Events)
	}
	want := map[string]any{"content_type": "application/x-www-form-urlencoded", "received_at": "2026-03-01T12:00:00Z",
		"payload": map[string]any{"ref": "X42", "status": "ok"}}
	if diff := cmp.Diff(want, c.State["external_events"].(map[string]any)["X42"]); diff != "" {
		t.Errorf("state (-want +got):\n%s", diff)
	}
	if out := h.dataRespond(id, "and?"); out["response"] != "Payment received, thank you." {
		t.Errorf("respond = %v", out)
	}
	// Events of another project are not bound to this one's conversations.
	r = h.event("event_id_location=payload&event_id_path=ref&account_id=acme&project_id=other", "application/json", `{"ref":"`+id+`"}`)
	mustStatus(t, r, 201)
	if n := len(h.conversation(id).Events); n != 1 {
		t.Errorf("an event of another project was bound: %d events", n)
	}
}

// TestExternalEventBySharedID binds through a handoff state's shared_id,
// and a rule matching any event sees it.
func TestExternalEventBySharedID(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	r := h.event("event_id_location=headers&event_id_path=X-Ref&"+eeQuery, "text/plain", "status=done", "X-Ref", "tk-88")
	mustStatus(t, r, 201)
	c := h.conversation("CONV-S1")
	if len(c.Events) != 1 || c.Events[0].ID != "tk-88" || c.State["last_external_event_id"] != "tk-88" {
		t.Errorf("events = %+v state = %v", c.Events, c.State)
	}
}
