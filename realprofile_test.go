package mockplatform

import (
	"net/url"
	"strings"
	"testing"
	"time"
)

// realProfile is a layer that selects the real service's behaviour.
const realProfileLayer = "fidelity: {profile: real}\n"

// TestRealProfileTour calls every operation of the real documents that the
// mock serves, in the real documents' forms, under the real profile: the
// observer checks each exchange against the real document
// (parity_test.go), so an answer the real document does not describe
// fails here unless internal/realapi/known.go records it. Each step's
// status is the mock's answer under the real profile.
func TestRealProfileTour(t *testing.T) {
	t.Parallel()
	p := Start(t, WithoutListener(), WithScenarioYAML([]byte(realProfileLayer)))
	c := p.Client()
	bu, rt := p.BuilderURL("us")+"/v1", p.RuntimeURL("us-1")
	builder := []string{"x-api-key", "test-builder-key", "X-PolyAI-Correlation-Id", "adk-tour"}
	call := func(want int, method, u string, body any, headers ...string) map[string]any {
		t.Helper()
		return sendObject(t, c, want, method, u, body, headers...)
	}
	b := func(want int, method, path string, body any) map[string]any {
		t.Helper()
		return call(want, method, bu+path, body, builder...)
	}
	str := func(m map[string]any, path ...string) string {
		t.Helper()
		var v any = m
		for _, k := range path {
			mm, _ := v.(map[string]any)
			v = mm[k]
		}
		s, ok := v.(string)
		if !ok {
			t.Fatalf("no string at %v in %v", path, m)
		}
		return s
	}

	// Agents: create (the real body), duplicate, delete.
	b(200, "GET", "/accounts/acme/agents", nil)
	made := b(200, "POST", "/accounts/acme/agents", map[string]any{"name": "Tour", "responseSettings": map[string]any{"greeting": "Hello."}})
	dup := b(200, "POST", "/agents/"+str(made, "agentId")+"/duplicate", map[string]any{"newAgentName": "Tour copy"})
	b(204, "DELETE", "/agents/"+str(dup, "agentId"), nil)

	// A branch and its content.
	a := "/agents/support"
	b(200, "GET", a+"/branches", nil)
	br := a + "/branches/" + str(b(201, "POST", a+"/branches", map[string]any{"branchName": "tour"}), "branchId")
	b(200, "PATCH", br+"/behavior", map[string]any{"behavior": "Be brief."})
	b(200, "GET", br+"/behavior", nil)
	topic := br + "/knowledge-base/topics/" + str(b(201, "POST", br+"/knowledge-base/topics",
		map[string]any{"name": "Parking", "content": "There is parking.", "exampleQueries": map[string]any{"queries": []string{"where to park"}}}), "id")
	b(200, "GET", br+"/knowledge-base/topics", nil)
	b(200, "GET", topic, nil)
	b(204, "PATCH", topic, map[string]any{"content": "There is free parking."})
	attr := br + "/attributes/" + str(b(201, "POST", br+"/attributes", map[string]any{"name": "Region"}), "id")
	b(200, "GET", br+"/attributes", nil)
	b(200, "PATCH", attr, map[string]any{"name": "Area"})
	variant := br + "/variants/" + str(b(201, "POST", br+"/variants", map[string]any{"name": "Tour variant"}), "id")
	b(200, "GET", br+"/variants", nil)
	b(200, "PATCH", variant, map[string]any{"name": "Tour variant 2"})
	b(200, "DELETE", variant, nil)
	b(200, "DELETE", attr, nil)
	b(204, "DELETE", topic, nil)

	// Deployments: publish, then merge (which deploys to sandbox under
	// the real profile), promote and roll back.
	pub := b(201, "POST", a+"/deployments/publish", map[string]any{"deploymentMessage": "tour"})
	first := str(pub, "deployment", "id")
	b(200, "POST", br+"/merge", map[string]any{"deploymentMessage": "tour merge"})
	b(409, "POST", a+"/deployments/publish", map[string]any{}) // main unchanged since the merge deployed it
	b(200, "GET", a+"/deployments?environment=sandbox", nil)
	b(400, "GET", a+"/deployments", nil)
	b(200, "GET", a+"/deployments/active", nil)
	b(200, "POST", a+"/deployments/"+first+"/promote", map[string]any{"targetEnvironment": "pre-release"})
	b(200, "POST", a+"/deployments/"+first+"/rollback", map[string]any{"deploymentMessage": "back"})
	b(404, "POST", a+"/deployments/019e191e-c41d-7403-a015-4e835fa48dd5/rollback", map[string]any{})
	tmp := a + "/branches/" + str(b(201, "POST", a+"/branches", map[string]any{"branchName": "scratch"}), "branchId")
	b(200, "DELETE", tmp, nil)

	// Real-time configs.
	b(200, "GET", a+"/real-time-configs", nil)
	b(200, "PUT", a+"/real-time-configs/sandbox/schema", map[string]any{"schema": map[string]any{"type": "object",
		"properties": map[string]any{"greeting": map[string]any{"type": "string"}}}})
	b(200, "PATCH", a+"/real-time-configs/sandbox/variables", map[string]any{"variables": map[string]any{"greeting": "Hi"}})
	b(400, "PATCH", a+"/real-time-configs/sandbox/variables", map[string]any{"variables": map[string]any{"greeting": 7}})
	b(200, "GET", a+"/real-time-configs/sandbox", nil)

	// Telephony: connectors and phone numbers.
	tel := a + "/telephony"
	b(200, "GET", tel+"/connectors", nil)
	b(200, "GET", tel+"/connectors/CONNECTOR-00000001", nil)
	b(404, "GET", tel+"/connectors/CONNECTOR-99999999", nil)
	b(200, "POST", tel+"/connectors/batch", map[string]any{"connectorIds": []string{"CONNECTOR-00000001", "CONNECTOR-X"}})
	b(200, "PATCH", tel+"/connectors/batch", map[string]any{"updates": []any{map[string]any{"connectorId": "CONNECTOR-00000001", "asrLangCode": "en-GB"}}})
	b(200, "POST", tel+"/connectors/lookup", map[string]any{"phoneNumber": "+14155550150"})
	b(200, "PATCH", tel+"/connectors/CONNECTOR-00000001", map[string]any{"asrLangCode": "en-US"})
	b(200, "GET", tel+"/phone-numbers", nil)
	b(201, "POST", tel+"/phone-numbers", map[string]any{"phoneNumbers": []string{"+14155550160", "+14155550161"}})
	b(400, "POST", tel+"/phone-numbers", map[string]any{"phoneNumbers": []string{"555"}})
	b(200, "POST", tel+"/phone-numbers/batch", map[string]any{"phoneNumbers": []string{"+14155550160", "+14155550199"}})
	num := tel + "/phone-numbers/" + url.PathEscape("+14155550162")
	b(201, "POST", num, map[string]any{"clientEnv": "live"})
	b(200, "GET", num, nil)
	b(200, "PATCH", num, map[string]any{"connectorId": "CONNECTOR-00000001"})
	b(200, "DELETE", num, nil)
	b(200, "DELETE", tel+"/phone-numbers", map[string]any{"phoneNumbers": []string{"+14155550160", "+14155550161"}})
	b(200, "DELETE", tel+"/connectors/CONNECTOR-00000001", nil)

	// Alerts and webhook endpoints.
	rule := "/alert-rules/" + str(b(201, "POST", "/alert-rules", map[string]any{"name": "Latency", "metric": "turn_latency_p95",
		"operator": ">=", "threshold_value": 1500, "window_duration": "5m"}), "id")
	b(200, "GET", "/alert-rules?enabled=true", nil)
	b(200, "GET", rule, nil)
	b(200, "PATCH", rule, map[string]any{"threshold_value": 2000})
	b(200, "GET", "/alerts", nil)
	b(204, "DELETE", rule, nil)
	b(404, "GET", "/alert-rules/ar_0Kx4mNpQ8rWvYb2dFgHjLs", nil)
	b(422, "GET", "/alert-rules/nope", nil)
	hook := "/webhook-endpoints/" + str(b(201, "POST", "/webhook-endpoints", map[string]any{"name": "Ops",
		"url": "https://hooks.example.com/poly", "event_types": []string{"alerts.triggered"}}), "id")
	b(400, "POST", "/webhook-endpoints", map[string]any{"name": "Plain", "url": "http://hooks.example.com/poly", "event_types": []string{"alerts.triggered"}})
	b(200, "GET", "/webhook-endpoints", nil)
	b(200, "GET", hook, nil)
	b(200, "PATCH", hook, map[string]any{"enabled": false})
	b(200, "POST", hook+"/rotate-secret", nil)
	b(204, "DELETE", hook, nil)
	b(404, "GET", hook, nil)

	// Chat, and what it leaves: conversations, a handoff state.
	chat := []string{"X-API-KEY", "test-chat-key", "X-TOKEN", "test-connector-token"}
	cb := rt + "/v1/acme/support/chat"
	conv := str(call(200, "POST", cb+"/create", map[string]any{"channel": "webchat"}, chat...), "conversation_id")
	call(200, "POST", cb+"/respond", map[string]any{"conversation_id": conv, "message": "what are your hours?"}, chat...)
	call(200, "PUT", cb+"/close", map[string]any{"conversation_id": conv}, chat...)
	call(404, "POST", cb+"/respond", map[string]any{"conversation_id": "CONV-0000000000", "message": "hi"}, chat...)
	handed := str(call(200, "POST", cb+"/create", nil, chat...), "conversation_id")
	call(200, "POST", cb+"/respond", map[string]any{"conversation_id": handed, "message": "a human please"}, chat...)
	p.Advance(time.Minute)

	conv3 := []string{"x-api-key", "test-conversations-key"}
	call(200, "GET", rt+"/v3/acme/support/conversations?limit=10", nil, conv3...)
	call(400, "GET", rt+"/v3/acme/support/conversations?limit=0", nil, conv3...)
	call(200, "GET", rt+"/v1/acme/support/conversations?limit=10", nil, conv3...)
	day := "start_time=2026-01-01T00:00:00Z&end_time=2026-01-01T01:00:00Z"
	call(200, "GET", rt+"/v1/acme/support/conversations/concurrency?"+day, nil, conv3...)
	call(501, "GET", rt+"/v1/acme/support/conversations/concurrency?"+day+"&slice_by=language", nil, conv3...)
	handoff := []string{"x-api-key", "test-handoff-key"}
	call(200, "GET", rt+"/v1/acme/support/handoff_state?id="+handed, nil, handoff...)
	call(400, "GET", rt+"/v1/acme/support/handoff_state", nil, handoff...)

	// Number reservation, external events, outbound calling.
	call(200, "POST", rt+"/v1/conversations/dni-reservation", map[string]any{"attributes": map[string]any{"shared_id": "1234"}}, "x-api-key", "test-dni-key")
	call(400, "POST", rt+"/v1/conversations/dni-reservation", map[string]any{}, "x-api-key", "test-dni-key")
	call(201, "POST", rt+"/v1/external-events/webhook?event_id_location=payload&event_id_path=id&account_id=acme&project_id=support",
		map[string]any{"id": "evt_01HF2MNW2ZQ1Z8E2S3J"}, "X-Api-Key", "test-external-events-key", "Content-Type", "application/json")
	out := []string{"X-PolyAi-Auth-Token", "test-outbound-token"}
	sid := str(call(200, "POST", rt+"/v1/outbound-calling", map[string]any{"to_number": "+14155552671", "metadata": map[string]string{"k": "v"}}, out...), "call_sid")
	call(200, "GET", rt+"/v1/outbound-calling/"+sid+"/status", nil, out...)
	call(400, "GET", rt+"/v1/outbound-calling/not-a-sid/status", nil, out...)
	call(400, "POST", rt+"/v1/outbound-calling", map[string]any{"to_number": "555"}, out...)
	if !strings.HasPrefix(sid, "OUT-") {
		t.Errorf("call sid %q", sid)
	}
}
