package handlers

import (
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/agentplatform/mockplatform/store"
)

const genScenario = `
seed: 11
clock: {start: 2026-03-08T00:00:00Z}
accounts:
  - slug: acme
    id: "1001"
    projects:
      - slug: support
        id: "2001"
        variants:
          - {id: VARIANT-A, name: Alpha, default: true}
          - {id: VARIANT-B, name: Beta}
        generate:
          - count: 2000
            from: 2026-03-01T00:00:00Z
            to: 2026-03-08T00:05:00Z
            channels: {VOICE-SIP: 3, WEBCHAT: 1}
            variants: {Beta: 1, VARIANT-A: 3}
            environments: {live: 9, sandbox: 1}
            duration: {min: 1m, max: 20m}
            turns: {min: 3, max: 6}
            handoff: 0.2
credentials:
  - {kind: conversations, key: conv-key, account: acme}
`

func allConversations(t testing.TB, st *store.Store) []*store.Conversation {
	t.Helper()
	list, _, err := st.ListConversations(store.ConversationQuery{Region: "us", AccountID: "1001", ProjectID: "2001"})
	if err != nil {
		t.Fatal(err)
	}
	return list
}

func TestGenerateMix(t *testing.T) {
	t.Parallel()
	h := newHarness(t, genScenario)
	list := allConversations(t, h.store)
	if len(list) != 2000 {
		t.Fatalf("generated %d, want 2000", len(list))
	}
	count := map[string]int{}
	now := h.clock.Now()
	from, to := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC), time.Date(2026, 3, 8, 0, 5, 0, 0, time.UTC)
	for _, c := range list {
		count["ch:"+c.Channel]++
		count["v:"+c.VariantName]++
		count["env:"+c.Environment]++
		if c.Handoff {
			count["handoff"]++
			hs, err := h.store.GetHandoffState("us", "1001", "2001", c.ID, "")
			if err != nil || hs.Data["topic"] == nil {
				t.Fatalf("handoff state of %s: %v %v", c.ID, hs, err)
			}
		}
		if c.InProgress {
			count["live"]++
			if c.StartedAt.After(now) || !c.EndedAt.IsZero() {
				t.Errorf("in-progress %s: started %s ended %s", c.ID, c.StartedAt, c.EndedAt)
			}
			for _, tu := range c.Turns {
				if tu.UserInputAt.After(now) {
					t.Errorf("in-progress %s has a turn in the future", c.ID)
				}
			}
		} else {
			d := c.EndedAt.Sub(c.StartedAt)
			if d < time.Minute || d > 20*time.Minute {
				t.Errorf("%s lasts %s", c.ID, d)
			}
			if len(c.Turns) < 3 || len(c.Turns) > 6 {
				t.Errorf("%s has %d turns", c.ID, len(c.Turns))
			}
		}
		if c.StartedAt.Before(from) || !c.StartedAt.Before(to) {
			t.Errorf("%s started %s, out of range", c.ID, c.StartedAt)
		}
		if c.Channel == "VOICE-SIP" && (!strings.HasPrefix(c.ID, "CA") || len(c.ID) != 34 || c.FromNumber == "") {
			t.Errorf("voice conversation %s: id or number", c.ID)
		}
	}
	near := func(key string, want float64) {
		got := float64(count[key]) / 2000
		if got < want-0.05 || got > want+0.05 {
			t.Errorf("%s: fraction %.3f, want about %.2f", key, got, want)
		}
	}
	near("ch:VOICE-SIP", 0.75)
	near("v:Alpha", 0.75)
	near("env:live", 0.9)
	if count["live"] == 0 {
		t.Error("no conversation in progress at the clock start, though the range runs past it")
	}
	if count["handoff"] == 0 {
		t.Error("no handoff")
	}
	// The generated data is visible through the API.
	r := h.do("GET", "/runtime/us-1/v3/acme/support/conversations?limit=3&client_env=sandbox", nil, "x-api-key", "conv-key")
	mustStatus(t, r, 200)
	if len(convIDs(t, r)) != 3 {
		t.Errorf("v3 listing of generated data: %s", r.Body)
	}
}

func TestGenerateDeterministic(t *testing.T) {
	t.Parallel()
	dump := func(yaml string) any {
		h := newHarness(t, yaml)
		return h.storeDump()
	}
	a, b := dump(genScenario), dump(genScenario)
	if !reflect.DeepEqual(a, b) {
		t.Error("the same scenario generated different data")
	}
	c := dump(strings.Replace(genScenario, "seed: 11", "seed: 12", 1))
	if reflect.DeepEqual(a, c) {
		t.Error("another seed generated the same data")
	}
}

// TestGenerateDefaults: one line of YAML is enough.
func TestGenerateDefaults(t *testing.T) {
	t.Parallel()
	sc, err := Vocabulary().Parse("g.yaml", []byte(`
accounts:
  - slug: acme
    id: "1001"
    projects:
      - slug: support
        id: "2001"
        generate: [{count: 50, from: 2025-12-01T00:00:00Z, to: 2025-12-02T00:00:00Z}]
`))
	if err != nil {
		t.Fatal(err)
	}
	st, err := store.Open("")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	if err := engine.Seed(st, sc, time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)); err != nil {
		t.Fatal(err)
	}
	list := allConversations(t, st)
	if len(list) != 50 {
		t.Fatalf("generated %d", len(list))
	}
	for _, c := range list {
		if c.Channel != "VOICE-SIP" || c.Environment != "live" || c.Language != "en-GB" || c.InProgress || c.VariantID != "" {
			t.Fatalf("defaults not applied: %+v", c)
		}
	}
}
