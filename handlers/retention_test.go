package handlers

import (
	"testing"
	"time"
)

const retentionScenario = `
seed: 3
clock: {start: 2026-03-01T12:00:00Z}
limits: {conversation_retention: 2h}
accounts:
  - slug: acme
    id: "1001"
    region: us
    projects:
      - slug: support
        id: "2001"
        conversations:
          - {id: CONV-OLD, channel: CHAT, started_at: 2026-03-01T09:00:00Z, duration: 1m}
          - {id: CONV-RUN, channel: CHAT, started_at: 2026-03-01T09:30:00Z, in_progress: true}
          - {id: CONV-NEW, channel: CHAT, started_at: 2026-03-01T11:30:00Z, duration: 1m}
        handoff_states:
          - {id: CONV-OLD, data: {a: b}}
        generate:
          - {count: 300, from: 2026-03-01T06:00:00Z, to: 2026-03-01T12:00:00Z, duration: {min: 10s, max: 5m}}
credentials:
  - {kind: conversations, key: conv-key, account: acme}
  - {kind: handoff, key: handoff-key, account: acme}
  - {kind: chat, key: chat-key, account: acme, project: support}
  - {kind: connector, key: conn-token, account: acme, project: support, client_env: live}
`

// TestConversationRetention: records that started more than the
// retention before now and have ended go (with their handoff states)
// inside the Advance that makes them due, within a minute of their
// horizon; running ones stay; without the setting nothing goes.
func TestConversationRetention(t *testing.T) {
	t.Parallel()
	h := newHarness(t, retentionScenario)
	count := func() int {
		n, err := h.store.CountConversations("us")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := count(); n != 303 {
		t.Fatalf("at start: %d records", n)
	}
	// The first pass runs at the start (records already past the horizon).
	h.advance(0)
	started := func(id string) (time.Time, bool) {
		c, err := h.store.GetConversation("us", id)
		if err != nil {
			return time.Time{}, false
		}
		return c.StartedAt, true
	}
	if _, ok := started("CONV-OLD"); ok {
		t.Fatal("CONV-OLD (started 3h before now) kept")
	}
	if r := h.do("GET", "/runtime/us-1/v1/acme/support/handoff_state?id=CONV-OLD", nil, "x-api-key", "handoff-key"); r.Status != 404 {
		t.Fatalf("handoff state of CONV-OLD: %d", r.Status)
	}
	if _, ok := started("CONV-RUN"); !ok {
		t.Fatal("CONV-RUN (in progress) dropped")
	}
	// Every record left started within the horizon, or runs.
	check := func() {
		t.Helper()
		now := h.clock.Now()
		r := h.convList("v3", "limit=1000&client_env=live")
		mustStatus(t, r, 200)
		for _, c := range r.Map(t)["conversations"].([]any) {
			m := c.(map[string]any)
			at, _ := time.Parse(time.RFC3339Nano, m["started_at"].(string))
			if now.Sub(at) > 2*time.Hour+time.Minute && m["in_progress"] != true {
				t.Fatalf("at %v: %s started %v kept", now, m["id"], at)
			}
		}
	}
	check()
	before := count()
	h.advance(90 * time.Minute)
	check()
	if after := count(); after >= before {
		t.Fatalf("records %d -> %d after 90m", before, after)
	}
	h.advance(3 * time.Hour)
	if _, ok := started("CONV-NEW"); ok {
		t.Fatal("CONV-NEW kept")
	}
	if _, ok := started("CONV-RUN"); !ok {
		t.Fatal("CONV-RUN dropped while in progress")
	}
	// A reset brings the seeds back.
	if err := h.api.Reset(); err != nil {
		t.Fatal(err)
	}
	if n := count(); n != 303 {
		t.Fatalf("after reset: %d records", n)
	}
	// Without the setting, nothing goes and no timer runs.
	h2 := newHarness(t, dataScenario)
	n0, _ := h2.store.CountConversations("us")
	h2.advance(24 * 365 * time.Hour)
	if n, _ := h2.store.CountConversations("us"); n != n0 {
		t.Fatalf("without retention: %d -> %d", n0, n)
	}
}
