package handlers

import (
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/engine/testruns"
)

// testingScenario gives support three test cases (one passes, one fails,
// one ends early), one answered from a branch's topic, and a second
// account.
const testingScenario = `
accounts:
  - slug: acme
    id: "1001"
    projects:
      - slug: support
        id: "2001"
        dialogue:
          greeting: Hello.
          rules:
            - {name: opening_hours, when: {contains: hours}, then: {reply: We open at 9am.}}
            - {name: goodbye, when: {contains: bye}, then: {reply: Goodbye!, end: true}}
        agent:
          test_cases:
            - id: t-hours
              name: Hours
              turns: ["what are your hours?"]
              assertions: [{reply_contains: 9AM}, {function_call: opening_hours}]
            - id: t-fail
              name: Refunds
              turns: [hello, "can I get a refund?"]
              assertions: [{reply_contains: refund}, {function_call: refunds}]
            - id: t-bye
              name: Early end
              turns: [bye, "are you there?"]
            - id: t-park
              name: Parking
              turns: ["parking?"]
              assertions: [{reply_contains: level 2}]
  - slug: globex
    id: "3001"
    projects: [{slug: help, id: "4001"}]
credentials:
  - {kind: builder, key: test-builder-key, account: acme}
  - {kind: builder, key: globex-builder-key, account: globex}
  - {kind: conversations, key: test-conversations-key, account: acme}
`

const testingBase = agentsBase + "/support/testing"

// triggerTests starts a run and returns its id.
func triggerTests(h *harness, body any) string {
	h.t.Helper()
	r := h.do("POST", testingBase+"/test-runs/trigger", body, builderHeaders...)
	mustStatus(h.t, r, 200)
	return r.Map(h.t)["id"].(string)
}

func TestTestRunLifecycle(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testingScenario)
	stored, err := h.store.CountConversations("us")
	if err != nil {
		t.Fatal(err)
	}
	r := h.do("POST", testingBase+"/test-runs/trigger", map[string]any{"testCaseIds": []string{"t-hours", "t-fail", "t-bye", "t-hours"}, "branchId": "main"}, builderHeaders...)
	mustStatus(t, r, 200)
	id := r.Map(t)["id"].(string)
	mustBody(t, r, map[string]any{"id": id, "test_case_count": 3})
	summary := func(status string, passed, failed, errs int) map[string]any {
		return map[string]any{"id": id, "status": status, "branchId": "main", "testCaseCount": 3, "passedCount": passed,
			"failedCount": failed, "errorCount": errs, "startedAt": "2026-01-01T00:00:00.000Z", "startedBy": "api"}
	}
	run := func() map[string]any {
		t.Helper()
		r := h.do("GET", testingBase+"/test-runs/"+id, nil, builderHeaders...)
		mustStatus(t, r, 200)
		return r.Map(t)
	}
	got := run()
	if len(got["testHistory"].([]any)) != 0 {
		t.Fatalf("history before any case finished: %v", got["testHistory"])
	}
	delete(got, "testHistory")
	mustBody(t, response{Body: mustJSON(t, got)}, summary("running", 0, 0, 0))

	h.advance(time.Second) // t-hours is done; t-bye ended after its first message
	got = run()
	hist := got["testHistory"].([]any)
	if len(hist) != 2 {
		t.Fatalf("history after 1 s: %v", hist)
	}
	hours := hist[0].(map[string]any)
	conv := hours["rawConversation"].(map[string]any)["id"].(string)
	mustBody(t, response{Body: mustJSON(t, hours)}, map[string]any{"testCaseId": "t-hours", "testRunId": id, "branchId": "main",
		"status": "passed", "testCaseSnapshot": map[string]any{"name": "Hours", "turns": []any{"what are your hours?"}},
		"results": map[string]any{"prompt_assertion_results": []any{map[string]any{"prompt": "The agent says: 9AM", "is_pass": true,
			"reason": `Reply 2 contains "9AM".`}}, "function_call_failures": []any{}},
		"rawConversation": map[string]any{"id": conv, "turns": []any{
			map[string]any{"user_input": "", "agent_response": "Hello.", "function_calls": []any{}},
			map[string]any{"user_input": "what are your hours?", "agent_response": "We open at 9am.",
				"function_calls": []any{map[string]any{"name": "opening_hours", "arguments": map[string]any{}}}}}},
		"finishedAt": "2026-01-01T00:00:01.000Z"})
	if bye := hist[1].(map[string]any); bye["testCaseId"] != "t-bye" || bye["status"] != "error" {
		t.Fatalf("the early end: %v", bye)
	}
	h.advance(time.Second)
	got = run()
	hist = got["testHistory"].([]any)
	delete(got, "testHistory")
	mustBody(t, response{Body: mustJSON(t, got)}, summary("completed", 1, 1, 1))
	fail := hist[1].(map[string]any)
	mustBody(t, response{Body: mustJSON(t, fail["results"])}, map[string]any{
		"prompt_assertion_results": []any{map[string]any{"prompt": "The agent says: refund", "is_pass": false, "reason": `No reply contains "refund".`}},
		"function_call_failures":   []any{map[string]any{"name": "refunds", "failure_reason": "The function was not called.", "error": ""}}})
	// The cases' conversations are the agent's, not live traffic.
	mustStatus(t, h.do("GET", agentConvBase+"/"+conv, nil, builderHeaders...), 200)
	if n, err := h.store.CountConversations("us"); err != nil || n != stored {
		t.Fatalf("conversations %d, want %d (%v)", n, stored, err)
	}
	// The history, newest first, and filtered by case.
	r = h.do("GET", testingBase+"/test-history", nil, builderHeaders...)
	mustStatus(t, r, 200)
	var order []string
	for _, e := range r.Map(t)["testHistory"].([]any) {
		order = append(order, e.(map[string]any)["testCaseId"].(string))
	}
	if len(order) != 3 || order[0] != "t-fail" {
		t.Fatalf("history order %v", order)
	}
	r = h.do("GET", testingBase+"/test-history?testCaseId=t-bye&limit=5", nil, builderHeaders...)
	mustStatus(t, r, 200)
	if e := r.Map(t)["testHistory"].([]any); len(e) != 1 || e[0].(map[string]any)["testCaseId"] != "t-bye" {
		t.Fatalf("filtered history %v", e)
	}
}

func TestTestRunBranchAndList(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testingScenario)
	br := h.agentDo("POST", "/support/branches", map[string]any{"branchName": "draft"}, 201).Map(t)["branchId"].(string)
	h.agentDo("POST", "/support/branches/"+br+"/knowledge-base/topics", map[string]any{"name": "Parking", "content": "Park on level 2."}, 201)
	onMain := triggerTests(h, map[string]any{"testCaseIds": []string{"t-park"}})
	h.advance(time.Second)
	onBranch := triggerTests(h, map[string]any{"testCaseIds": []string{"t-park"}, "branchId": br})
	h.advance(time.Second)
	status := func(id string) any {
		r := h.do("GET", testingBase+"/test-runs/"+id, nil, builderHeaders...)
		mustStatus(t, r, 200)
		return r.Map(t)["testHistory"].([]any)[0].(map[string]any)["status"]
	}
	if status(onMain) != "failed" || status(onBranch) != "passed" {
		t.Fatalf("main %v, branch %v", status(onMain), status(onBranch))
	}
	ids := func(query string) []any {
		t.Helper()
		r := h.do("GET", testingBase+"/test-runs"+query, nil, builderHeaders...)
		mustStatus(t, r, 200)
		var out []any
		for _, x := range r.Map(t)["testRuns"].([]any) {
			out = append(out, x.(map[string]any)["id"])
		}
		return out
	}
	for _, tc := range []struct {
		query string
		want  []any
	}{
		{"", []any{onBranch, onMain}},
		{"?limit=1", []any{onBranch}},
		{"?limit=1&offset=1", []any{onMain}},
		{"?offset=2", nil},
		{"?branchId=" + br, []any{onBranch}},
		{"?branchId=main", []any{onMain}},
		{"?testSetId=set-1", nil},
	} {
		if got := ids(tc.query); len(got) != len(tc.want) || (len(got) > 0 && got[0] != tc.want[0]) {
			t.Errorf("%q: %v, want %v", tc.query, got, tc.want)
		}
	}
}

func TestTestRunReset(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testingScenario)
	id := triggerTests(h, map[string]any{"testCaseIds": []string{"t-fail"}})
	if err := h.api.Reset(); err != nil {
		t.Fatal(err)
	}
	h.advance(time.Minute) // nothing of the run is left to fire
	r := h.do("GET", testingBase+"/test-runs/"+id, nil, builderHeaders...)
	mustStatus(t, r, 404)
	mustBody(t, r, map[string]any{"message": testruns.MsgTestRunNotFound, "errors": []any{}})
}

func TestTestRunPublish(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testingScenario+"fidelity: {deploy_response: wrapped}\n")
	r := h.agentDo("POST", "/support/deployments/publish", map[string]any{}, 201)
	ids := r.Map(t)["testRunIds"].([]any)
	if len(ids) != 1 {
		t.Fatalf("testRunIds %v", ids)
	}
	h.advance(2 * time.Second)
	r = h.do("GET", testingBase+"/test-runs/"+ids[0].(string), nil, builderHeaders...)
	mustStatus(t, r, 200)
	if got := r.Map(t); got["testCaseCount"] != 4.0 || got["status"] != "completed" || got["startedBy"] != "deployment" {
		t.Fatalf("the publish's run: %v", got)
	}
	// An agent without test cases starts none.
	h2 := newHarness(t, string(scenarioDefaultYAML())+"fidelity: {deploy_response: wrapped}\n")
	r = h2.agentDo("POST", "/support/deployments/publish", map[string]any{}, 201)
	mustBody(t, response{Body: mustJSON(t, r.Map(t)["testRunIds"])}, []any{})
}

func TestTestRunRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, testingScenario)
	invalid := func(field, msg string) map[string]any {
		return map[string]any{"message": engine.MsgValidationFailed, "errors": []any{map[string]any{"field": field, "message": msg}}}
	}
	msg := func(m string) map[string]any { return map[string]any{"message": m, "errors": []any{}} }
	for _, tc := range []struct {
		name, method, path string
		body               any
		headers            []string
		status             int
		want               any
	}{
		{"no ids", "POST", "/test-runs/trigger", map[string]any{}, nil, 400, invalid("testCaseIds", "is required")},
		{"empty ids", "POST", "/test-runs/trigger", map[string]any{"testCaseIds": []string{}}, nil, 400, invalid("testCaseIds", "must hold at least 1 id")},
		{"ids not strings", "POST", "/test-runs/trigger", map[string]any{"testCaseIds": []int{1}}, nil, 400,
			map[string]any{"message": `Field "testCaseIds" must be a string.`, "errors": []any{map[string]any{"field": "testCaseIds", "message": "must be a string"}}}},
		{"unknown cases", "POST", "/test-runs/trigger", map[string]any{"testCaseIds": []string{"t-hours", "nope", "gone"}}, nil, 400,
			map[string]any{"message": "Test cases not found: nope, gone.", "errors": []any{
				map[string]any{"field": "testCaseIds/1", "message": "unknown test case"}, map[string]any{"field": "testCaseIds/2", "message": "unknown test case"}}}},
		{"unknown branch", "POST", "/test-runs/trigger", map[string]any{"testCaseIds": []string{"t-hours"}, "branchId": "BRANCH-NOPE"}, nil, 404, msg(engine.MsgBranchNotFound)},
		{"unknown run", "GET", "/test-runs/019e191e-c41d-7403-a015-4e835fa48dd5", nil, nil, 404, msg(testruns.MsgTestRunNotFound)},
		{"bad limit", "GET", "/test-runs?limit=0", nil, nil, 400, invalid("limit", "must be an integer from 1 to 100")},
		{"bad offset", "GET", "/test-history?offset=x", nil, nil, 400, invalid("offset", "must be an integer of at least 0")},
		{"another account", "GET", "/test-runs", nil, []string{"x-api-key", "globex-builder-key"}, 403, msg(engine.MsgNoPermission)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := testingBase + tc.path
			headers := builderHeaders
			if tc.headers != nil {
				path, headers = agentsBase+"/2001/testing"+tc.path, tc.headers
			}
			h.unchanged(t, func() {
				r := h.do(tc.method, path, tc.body, headers...)
				mustStatus(t, r, tc.status)
				mustBody(t, r, tc.want)
			})
		})
	}
}
