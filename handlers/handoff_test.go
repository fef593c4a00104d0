package handlers

import (
	"testing"

	"github.com/agentplatform/mockplatform/engine"
)

func (h *harness) handoff(query string, headers ...string) response {
	h.t.Helper()
	if headers == nil {
		headers = []string{"x-api-key", "handoff-key"}
	}
	return h.do("GET", "/runtime/us-1/v1/acme/support/handoff_state?"+query, nil, headers...)
}

func TestHandoffState(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	seeded := engine.HandoffResponse{ID: "CONV-S1", SharedID: "tk-88", Data: map[string]any{"customer_id": "C-1", "topic": "billing"}}
	for _, tc := range []struct {
		query  string
		status int
		want   any
	}{
		{"id=CONV-S1", 200, seeded},
		{"shared_id=tk-88", 200, seeded},
		{"id=CONV-NOPE&shared_id=tk-88", 200, seeded}, // shared_id wins
		{"id=CONV-S1&shared_id=nope", 404, map[string]any{"error_message": engine.MsgHandoffNotFound}},
		{"id=CONV-S2", 404, map[string]any{"error_message": engine.MsgHandoffNotFound}},
		{"", 400, map[string]any{"error_message": engine.MsgHandoffIDRequired}},
		{"id=&shared_id=", 400, map[string]any{"error_message": engine.MsgHandoffIDRequired}},
	} {
		r := h.handoff(tc.query)
		mustStatus(t, r, tc.status)
		mustBody(t, r, tc.want)
	}
	// Another project of the account does not see it.
	r := h.do("GET", "/runtime/us-1/v1/acme/other/handoff_state?id=CONV-S1", nil, "x-api-key", "handoff-key")
	mustStatus(t, r, 404)
	r = h.handoff("id=CONV-S1", "x-api-key", "conv-key")
	mustStatus(t, r, 401)
	mustBody(t, r, map[string]any{"error_message": msgInvalidKey})
	r = h.do("GET", "/runtime/us-1/v1/acme/nope/handoff_state?id=CONV-S1", nil, "x-api-key", "handoff-key")
	mustStatus(t, r, 404)
	mustBody(t, r, map[string]any{"error_message": "Project ID does not exist."})
}

func TestHandoffStateFromChat(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	id := h.dataCreate(map[string]any{"integration_attributes": map[string]any{"customer_id": "C-9"}})
	h.dataRespond(id, "agent please")
	want := engine.HandoffResponse{ID: id, SharedID: "ticket-1", Data: map[string]any{"customer_id": "C-9", "note": "agent please"}}
	for _, q := range []string{"id=" + id, "shared_id=ticket-1"} {
		r := h.handoff(q)
		mustStatus(t, r, 200)
		mustBody(t, r, want)
	}
}
