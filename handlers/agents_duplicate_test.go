package handlers

import (
	"testing"

	"github.com/agentplatform/mockplatform/engine"
)

// Duplicate (docs/fidelity.md G13, OAS DuplicateAgentBody): the copy has the
// source's main branch content; errors are per field; the store is
// unchanged by a refused request.
func TestAgentsDuplicate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	now := engine.FmtAgentTime(h.clock.Now())
	h.agentDo("PATCH", "/2001/branches/main/behavior", map[string]any{"behavior": "Be brief."}, 200)

	r := h.agentDo("POST", "/2001/duplicate", map[string]any{"newAgentName": "Support copy", "newAgentId": "support-copy"}, 200)
	mustBody(t, r, map[string]any{"accountId": "1001", "agentId": "support-copy", "agentName": "Support copy",
		"createdAt": now, "updatedAt": now, "branchCount": 1})
	mustBody(t, h.agentDo("GET", "/support-copy/branches/main/behavior", nil, 200), map[string]any{"behavior": "Be brief."})

	for _, tc := range []struct {
		name   string
		path   string
		body   any
		status int
		want   any
	}{
		{"name missing", "/2001/duplicate", map[string]any{}, 400,
			builderError{Message: "Validation failed", Errors: []engine.FieldError{{Field: "newAgentName", Message: "is required"}}}},
		{"name too long", "/2001/duplicate", map[string]any{"newAgentName": string(make([]byte, 101))}, 400, nil},
		{"bad id", "/2001/duplicate", map[string]any{"newAgentName": "x", "newAgentId": "a b"}, 400,
			builderError{Message: "Validation failed", Errors: []engine.FieldError{{Field: "newAgentId", Message: "must match ^[a-zA-Z0-9-]+$"}}}},
		{"id taken", "/2001/duplicate", map[string]any{"newAgentName": "x", "newAgentId": "support-copy"}, 409, nil},
		{"unknown source", "/nope/duplicate", map[string]any{"newAgentName": "x"}, 404, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.unchanged(t, func() {
				r := h.do("POST", agentsBase+tc.path, tc.body, builderHeaders...)
				mustStatus(t, r, tc.status)
				if tc.want != nil {
					mustBody(t, r, tc.want)
				}
			})
		})
	}
}
