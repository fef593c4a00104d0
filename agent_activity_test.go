package mockplatform

import (
	"net/http"
	"testing"

	"github.com/agentplatform/mockplatform/faults"
)

// TestAgentActivityWorlds: a debug chat lives in its world as every
// other record does: another world and the root do not see it, a fault
// rule of its world fails it there only, its world's journal records it,
// and its world's reset takes it away.
func TestAgentActivityWorlds(t *testing.T) {
	t.Parallel()
	host := Start(t)
	client := socketClient(t)
	a, b := worldCreate(t, host, nil), worldCreate(t, host, nil)
	builder := []string{"x-api-key", "test-builder-key", "Content-Type", "application/json"}
	agent := func(base string) string { return base + "/builder/us/v1/agents/support" }

	r := send(t, client, "POST", agent(a.URL)+"/debug-chat", map[string]any{"clientEnv": "sandbox"}, builder...)
	mustStatus(t, r, http.StatusCreated)
	id := r.object(t)["conversationId"].(string)
	mustStatus(t, send(t, client, "GET", agent(a.URL)+"/conversations/"+id, nil, builder...), http.StatusOK)
	for _, base := range []string{b.URL, host.URL()} {
		mustStatus(t, send(t, client, "GET", agent(base)+"/conversations/"+id, nil, builder...), http.StatusNotFound)
	}

	r = send(t, client, "POST", a.ControlURL+"/faults", faults.Rule{Match: faultMatch("agents", "/v1/agents/support/debug-chat"), Action: faultStatus(503)},
		"Content-Type", "application/json")
	mustStatus(t, r, http.StatusCreated)
	mustStatus(t, send(t, client, "POST", agent(a.URL)+"/debug-chat", map[string]any{"clientEnv": "sandbox"}, builder...), http.StatusServiceUnavailable)
	mustStatus(t, send(t, client, "POST", agent(b.URL)+"/debug-chat", map[string]any{"clientEnv": "sandbox"}, builder...), http.StatusCreated)

	aw, _ := host.WorldByID(a.ID)
	if n := len(aw.World.Requests(RequestFilter{Family: "agents", Path: "/debug-chat"})); n != 2 {
		t.Errorf("a's journal: %d debug chat requests, want 2", n)
	}
	mustStatus(t, send(t, client, "POST", a.ControlURL+"/reset", nil, "Content-Type", "application/json"), http.StatusOK)
	mustStatus(t, send(t, client, "GET", agent(a.URL)+"/conversations/"+id, nil, builder...), http.StatusNotFound)
}
