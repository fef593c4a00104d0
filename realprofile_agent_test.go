package mockplatform

import (
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/scenario"
)

// withTestCases is the default scenario with a test case for the
// support agent, and more after it.
func withTestCases(more string) []byte {
	cases := "        agent:\n          test_cases:\n" +
		"            - {id: t-hours, name: Hours, turns: [\"what are your hours?\"], assertions: [{reply_contains: 9am}, {function_call: opening_hours}]}\n" +
		"            - {id: t-bye, name: Goodbye, turns: [bye], assertions: [{reply_contains: goodbye}]}\n"
	yml := strings.Replace(string(scenario.DefaultYAML()), "        name: Support Agent\n", "        name: Support Agent\n"+cases, 1)
	return []byte(yml + more)
}

// TestRealProfileTourAgent calls the agent-scoped calls, conversations,
// debug chat, bridge-ended and the kit's test runs in the real
// documents' forms under the real profile (as TestRealProfileTour does
// for the rest): the observer checks each exchange against the real
// document, and internal/realapi/known.go records what contradicts it.
func TestRealProfileTourAgent(t *testing.T) {
	t.Parallel()
	p := Start(t, WithoutListener(), WithScenarioYAML(withTestCases(realProfileLayer)))
	c := p.Client()
	bu, rt := p.BuilderURL("us")+"/v1/agents/support", p.RuntimeURL("us-1")
	builder := []string{"x-api-key", "test-builder-key", "X-PolyAI-Correlation-Id", "adk-tour"}
	call := func(want int, method, u string, body any, headers ...string) map[string]any {
		t.Helper()
		return sendObject(t, c, want, method, u, body, headers...)
	}
	b := func(want int, method, path string, body any) map[string]any {
		t.Helper()
		return call(want, method, bu+path, body, builder...)
	}

	// Outbound calls of the agent, answered, then bridged away.
	sid, _ := b(200, "POST", "/telephony/outbound-calls", map[string]any{"toNumber": "+14155552671", "environment": "live",
		"metadata": map[string]string{"customer_name": "Paul Smith"}})["callSid"].(string)
	b(200, "GET", "/telephony/outbound-calls/"+sid+"/status?environment=live", nil)
	b(400, "GET", "/telephony/outbound-calls/"+sid+"/status", nil)
	b(400, "POST", "/telephony/outbound-calls", map[string]any{"toNumber": "555", "environment": "live"})
	b(404, "POST", "/telephony/outbound-calls", map[string]any{"toNumber": "+14155552671", "environment": "sandbox"})
	b(404, "GET", "/telephony/outbound-calls/OUT-550e8400-e29b-41d4-a716-446655440000/status?environment=live", nil)
	p.Advance(10 * time.Second)
	if _, err := p.Say(sid, "what are your hours?"); err != nil {
		t.Fatal(err)
	}
	ee := []string{"X-Api-Key", "test-external-events-key"}
	call(200, "POST", rt+"/internal/v1/agentic-dial/bridge-ended",
		map[string]any{"conversation_id": sid, "bridge_duration_seconds": 180, "call_duration_seconds": 300}, ee...)
	call(400, "POST", rt+"/internal/v1/agentic-dial/bridge-ended", map[string]any{"conversation_id": sid}, ee...)

	// The call's record and recording; a chat has none.
	b(200, "GET", "/conversations/"+sid, nil)
	b(200, "GET", "/conversations/"+sid+"/audio?direction=agent&redacted=false", nil)
	b(404, "GET", "/conversations/CA00000000000000000000000000000000", nil)

	// Debug chat.
	dc, _ := b(201, "POST", "/debug-chat", map[string]any{"clientEnv": "sandbox", "asrLangCode": "en-US", "channel": "chat.polyai"})["conversationId"].(string)
	b(200, "POST", "/debug-chat/"+dc, map[string]any{"clientEnv": "sandbox", "message": "what are your hours?"})
	b(404, "POST", "/debug-chat/AS_CHAT_00000000", map[string]any{"clientEnv": "sandbox", "message": "hi"})
	b(400, "POST", "/debug-chat", map[string]any{"clientEnv": "sandbox", "branchId": "BRANCH-NOPE"})
	b(200, "GET", "/conversations/"+dc, nil)
	b(404, "GET", "/conversations/"+dc+"/audio", nil)

	// The kit's calls: the conversation list, test runs and history.
	b(200, "GET", "/conversations?limit=2&offset=0", nil)
	run, _ := b(200, "POST", "/testing/test-runs/trigger", map[string]any{"testCaseIds": []string{"t-hours", "t-bye"}, "branchId": "main"})["id"].(string)
	p.Advance(time.Second)
	b(200, "GET", "/testing/test-runs?limit=10&offset=0", nil)
	if got := b(200, "GET", "/testing/test-runs/"+run, nil); got["status"] != "completed" || got["passedCount"] != 2.0 {
		t.Fatalf("test run %v", got)
	}
	b(200, "GET", "/testing/test-history?limit=100&offset=0", nil)
}
