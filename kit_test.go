package mockplatform

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"
)

// kitClient makes requests as the official agent development kit's
// platform client does (public repository polyai/adk,
// src/poly/handlers/platform_api.py, PlatformAPIHandler.make_request):
// the region's base address, the headers X-API-KEY,
// X-PolyAI-Correlation-Id (adk-<uuid4>), Content-Type and X-Poly-Source,
// the query parameters as given, a JSON body only when there is data,
// and raise_for_status on the answer.
type kitClient struct {
	t    *testing.T
	c    *http.Client
	base string
	n    int
}

// request is make_request: the decoded JSON answer (nil for 204).
func (k *kitClient) request(method, endpoint string, data map[string]any, params url.Values) any {
	k.t.Helper()
	body := k.raw(method, endpoint, data, params, "application/json")
	if body == nil {
		return nil
	}
	var v any
	if err := json.Unmarshal(body, &v); err != nil {
		k.t.Fatalf("%s %s: the kit cannot parse the answer: %v", method, endpoint, err)
	}
	return v
}

// raw sends a request and returns the body of a 2xx answer (nil for 204).
func (k *kitClient) raw(method, endpoint string, data map[string]any, params url.Values, ctype string) []byte {
	k.t.Helper()
	u := k.base + endpoint
	if len(params) > 0 {
		u += "?" + params.Encode()
	}
	var rd *bytes.Reader
	if len(data) > 0 { // data=json.dumps(data) if data else None
		b, err := json.Marshal(data)
		if err != nil {
			k.t.Fatal(err)
		}
		rd = bytes.NewReader(b)
	}
	var req *http.Request
	var err error
	if rd != nil {
		req, err = http.NewRequest(method, u, rd)
	} else {
		req, err = http.NewRequest(method, u, nil)
	}
	if err != nil {
		k.t.Fatal(err)
	}
	k.n++
	req.Header.Set("X-API-KEY", "test-builder-key")
	req.Header.Set("X-PolyAI-Correlation-Id", fmt.Sprintf("adk-00000000-0000-4000-8000-%012d", k.n))
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	req.Header.Set("X-Poly-Source", "adk")
	resp, err := k.c.Do(req)
	if err != nil {
		k.t.Fatalf("%s %s: %v", method, u, err)
	}
	defer resp.Body.Close()
	var b bytes.Buffer
	if _, err := b.ReadFrom(resp.Body); err != nil {
		k.t.Fatal(err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 { // raise_for_status
		k.t.Fatalf("%s %s: %d: %s", method, u, resp.StatusCode, b.Bytes())
	}
	if resp.StatusCode == http.StatusNoContent {
		return nil
	}
	return b.Bytes()
}

// field reads a path of keys in a decoded answer, as the kit's .get calls.
func field(t *testing.T, v any, keys ...string) any {
	t.Helper()
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			t.Fatalf("no object at %q in %v", k, v)
		}
		if v, ok = m[k]; !ok {
			t.Fatalf("no %q in %v", k, m)
		}
	}
	return v
}

// TestKitPublicCalls runs the kit's public-API calls (its /v1 calls,
// not its /adk ones) unchanged against the mock, in the kit's order of
// use: agents, deployments, real-time configs, conversations and their
// recordings, test runs and test history. Every one must succeed, and
// what the kit reads from each answer must be there.
func TestKitPublicCalls(t *testing.T) {
	t.Parallel()
	p := Start(t, WithoutListener(), WithScenarioYAML(withTestCases("")))
	k := &kitClient{t: t, c: p.Client(), base: p.BuilderURL("us")}
	const account = "1001"

	// list_agents, get_agents, create_project, duplicate_project, delete_project.
	agents := k.request("GET", "/v1/accounts/"+account+"/agents", nil, nil).([]any)
	project := field(t, agents[0], "agentId").(string)
	if field(t, agents[0], "agentName") == "" {
		t.Fatal("no agentName")
	}
	made := k.request("POST", "/v1/accounts/"+account+"/agents", map[string]any{"name": "Kit agent",
		"responseSettings": map[string]any{"greeting": "Hello, how can I help you?"}, "voiceSettings": map[string]any{"voiceId": "VOICE-6fad73f6"},
		"agentId": "kit-agent"}, nil)
	dup := k.request("POST", "/v1/agents/"+field(t, made, "agentId").(string)+"/duplicate", map[string]any{"newAgentName": "Kit copy"}, nil)
	field(t, dup, "agentName")
	k.request("DELETE", "/v1/agents/"+field(t, dup, "agentId").(string), nil, nil)

	// promote_deployment, rollback_deployment (a publish makes one).
	pub := k.request("POST", "/v1/agents/"+project+"/deployments/publish", map[string]any{"deploymentMessage": "kit"}, nil)
	dep, _ := pub.(map[string]any)["id"].(string)
	if dep == "" {
		dep = field(t, pub, "deployment", "id").(string)
	}
	k.request("POST", "/v1/agents/"+project+"/deployments/"+dep+"/promote", map[string]any{"targetEnvironment": "pre-release", "deploymentMessage": "kit"}, nil)
	k.request("POST", "/v1/agents/"+project+"/deployments/"+dep+"/rollback", map[string]any{"deploymentMessage": "kit"}, nil)

	// list_rtc_configs, get_rtc_config, put_rtc_schema, patch_rtc_variables.
	field(t, k.request("GET", "/v1/agents/"+project+"/real-time-configs", nil, nil), "configPages")
	k.request("PUT", "/v1/agents/"+project+"/real-time-configs/sandbox/schema", map[string]any{"schema": map[string]any{"type": "object"}}, nil)
	k.request("PATCH", "/v1/agents/"+project+"/real-time-configs/sandbox/variables", map[string]any{"variables": map[string]any{"hours": "9-5"}}, nil)
	field(t, k.request("GET", "/v1/agents/"+project+"/real-time-configs/sandbox", nil, nil), "variables")

	// A call with a recording, then list_conversations, get_conversation
	// and get_conversation_audio.
	sid := send(t, p.Client(), "POST", p.RuntimeURL("us-1")+"/v1/outbound-calling", map[string]any{"to_number": "+14155552671"},
		"X-Service-Auth-Token", "test-outbound-token").object(t)["call_sid"].(string)
	p.Advance(10 * time.Second)
	if _, err := p.Say(sid, "what are your hours?"); err != nil {
		t.Fatal(err)
	}
	p.Advance(time.Minute)
	list := k.request("GET", "/v1/agents/"+project+"/conversations", nil, url.Values{"limit": {"50"}, "offset": {"0"}})
	for _, f := range []string{"count", "limit", "offset"} {
		field(t, list, f)
	}
	convs := field(t, list, "conversations").([]any)
	if len(convs) == 0 || field(t, convs[0], "conversationId") != sid {
		t.Fatalf("conversations %v", convs)
	}
	conv := k.request("GET", "/v1/agents/"+project+"/conversations/"+sid, nil, nil)
	if field(t, conv, "audioUrl") != "conversations/"+sid+"/audio" || len(field(t, conv, "turns").([]any)) != 2 {
		t.Fatalf("conversation %v", conv)
	}
	wav := k.raw("GET", "/v1/agents/"+project+"/conversations/"+sid+"/audio", nil,
		url.Values{"direction": {"combined"}, "redacted": {"false"}}, "") // the audio call sends no Content-Type
	if !bytes.HasPrefix(wav, []byte("RIFF")) {
		t.Fatalf("audio %q", wav[:min(len(wav), 12)])
	}

	// trigger_test_run, then get_test_run polled as poll_test_run_live
	// polls it (every 5 s, here on the virtual clock) until the status is
	// not pending, running or in_progress; list_test_runs and
	// list_test_history.
	started := k.request("POST", "/v1/agents/"+project+"/testing/test-runs/trigger",
		map[string]any{"testCaseIds": []string{"t-hours", "t-bye"}, "branchId": "main"}, nil)
	run := field(t, started, "id").(string)
	if field(t, started, "test_case_count") != 2.0 {
		t.Fatalf("trigger %v", started)
	}
	var result any
	for range 5 {
		p.Advance(5 * time.Second)
		result = k.request("GET", "/v1/agents/"+project+"/testing/test-runs/"+run, nil, nil)
		if !slices.Contains([]string{"pending", "running", "in_progress"}, field(t, result, "status").(string)) {
			break
		}
	}
	if field(t, result, "status") != "completed" || field(t, result, "passedCount") != 2.0 || field(t, result, "testCaseCount") != 2.0 {
		t.Fatalf("test run %v", result)
	}
	for _, e := range field(t, result, "testHistory").([]any) {
		field(t, e, "testCaseSnapshot", "name")
		field(t, e, "results", "prompt_assertion_results")
		field(t, e, "rawConversation", "turns")
	}
	runs := field(t, k.request("GET", "/v1/agents/"+project+"/testing/test-runs", nil,
		url.Values{"limit": {"10"}, "offset": {"0"}, "branchId": {"main"}}), "testRuns").([]any)
	for _, f := range []string{"id", "status", "testCaseCount", "passedCount", "failedCount", "errorCount", "startedAt", "startedBy"} {
		field(t, runs[0], f)
	}
	k.request("GET", "/v1/agents/"+project+"/testing/test-history", nil,
		url.Values{"limit": {"100"}, "offset": {"0"}, "testCaseId": {"t-hours"}, "branchId": {"main"}})
}
