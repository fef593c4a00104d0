package handlers

import (
	"encoding/json"
	"regexp"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/google/go-cmp/cmp"
)

const agentsBase = builderBase + "/v1/agents"

var sandboxChatHeaders = []string{"X-API-KEY", "test-chat-key", "X-TOKEN", "test-connector-token-sandbox", "Content-Type", "application/json"}

func (h *harness) agentDo(method, path string, body any, status int) response {
	h.t.Helper()
	r := h.do(method, agentsBase+path, body, builderHeaders...)
	mustStatus(h.t, r, status)
	return r
}

// chatSay starts a conversation with headers and returns the reply to msg.
func (h *harness) chatSay(headers []string, msg string) string {
	h.t.Helper()
	r := h.do("POST", chatBase+"/create", nil, headers...)
	mustStatus(h.t, r, 200)
	id := r.Map(h.t)["conversation_id"].(string)
	r = h.do("POST", chatBase+"/respond", map[string]any{"conversation_id": id, "message": msg}, headers...)
	mustStatus(h.t, r, 200)
	return r.Map(h.t)["response"].(string)
}

func TestAgentsListAndCreate(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	now := engine.FmtAgentTime(h.clock.Now())
	seeded := map[string]any{"accountId": "1001", "agentId": "2001", "agentName": "Support Agent", "createdAt": now, "updatedAt": now, "branchCount": 1}
	mustBody(t, h.agentDo("GET", "", nil, 200), []any{seeded})
	for _, acct := range []string{"acme", "ACCOUNT-1001", "ws-1001"} {
		r := h.do("GET", builderBase+"/v1/accounts/"+acct+"/agents", nil, builderHeaders...)
		mustStatus(t, r, 200)
		mustBody(t, r, []any{seeded})
	}
	mustStatus(t, h.do("GET", builderBase+"/v1/accounts/nope/agents", nil, builderHeaders...), 404)

	r := h.agentDo("POST", "", map[string]any{"name": "Bot", "description": "d"}, 201)
	got := r.Map(t)
	id, _ := got["agentId"].(string)
	if !regexp.MustCompile(`^PROJECT-[0-9A-Z]{8}$`).MatchString(id) {
		t.Fatalf("agentId %q", id)
	}
	if b, _ := got["branch"].(map[string]any); b["branchId"] != "main" {
		t.Fatalf("default branch: %v", got)
	}
	mustBody(t, h.agentDo("GET", "/"+id, nil, 200), map[string]any{"accountId": "1001", "agentId": id, "agentName": "Bot",
		"description": "d", "createdAt": now, "updatedAt": now, "branchCount": 1})

	for _, tc := range []struct {
		body any
		want []engine.FieldError
	}{
		{map[string]any{}, []engine.FieldError{{Field: "name", Message: "is required"}}},
		{map[string]any{"name": ""}, []engine.FieldError{{Field: "name", Message: "must be 1 to 128 characters"}}},
		{map[string]any{"name": string(make([]byte, 129))}, []engine.FieldError{{Field: "name", Message: "must be 1 to 128 characters"}}},
		{map[string]any{"name": 5}, []engine.FieldError{{Field: "name", Message: "must be a string"}}},
	} {
		before := h.buildDocs()
		r := h.agentDo("POST", "", tc.body, 400)
		mustBody(t, r, builderError{Message: engine.MsgValidationFailed, Errors: tc.want})
		if diff := cmp.Diff(before, h.buildDocs()); diff != "" {
			t.Fatal(diff)
		}
	}
	h.agentDo("DELETE", "/"+id, nil, 204)
	h.agentDo("GET", "/"+id, nil, 404)
}

func TestAgentsMergeMatrix(t *testing.T) {
	t.Parallel()
	type side func(h *harness, branch string, topic string)
	setTopic := func(content string) side {
		return func(h *harness, branch, topic string) {
			h.agentDo("PATCH", "/support/branches/"+branch+"/knowledge-base/topics/"+topic, map[string]any{"content": content}, 204)
		}
	}
	none := side(func(*harness, string, string) {})
	cases := []struct {
		name       string
		main, br   side
		wantStatus int
		wantMain   string
	}{
		{"neither changed", none, none, 200, "base"},
		{"only branch changed", none, setTopic("branch"), 200, "branch"},
		{"only main changed", setTopic("main"), none, 200, "main"},
		{"both changed the same way", setTopic("same"), setTopic("same"), 200, "same"},
		{"both changed differently", setTopic("main"), setTopic("branch"), 409, "main"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			topic := h.agentDo("POST", "/support/branches/main/knowledge-base/topics", map[string]any{"name": "refunds", "content": "base"}, 201).Map(t)["id"].(string)
			br := h.agentDo("POST", "/support/branches", map[string]any{"name": "feature"}, 201).Map(t)["branchId"].(string)
			if !regexp.MustCompile(`^BRANCH-[0-9A-Z]{8}$`).MatchString(br) {
				t.Fatalf("branch id %q", br)
			}
			// The branch starts as a copy of main.
			mustBody(t, h.agentDo("GET", "/support/branches/"+br+"/knowledge-base/topics/"+topic, nil, 200),
				map[string]any{"id": topic, "name": "refunds", "content": "base", "actions": "", "exampleQueries": map[string]any{"queries": []any{}}, "isActive": true})
			tc.main(h, "main", topic)
			tc.br(h, br, topic)
			r := h.do("POST", agentsBase+"/support/branches/"+br+"/merge", nil, builderHeaders...)
			mustStatus(t, r, tc.wantStatus)
			if tc.wantStatus == 409 {
				mustBody(t, r, builderError{Message: engine.MsgMergeConflict, Errors: []engine.FieldError{{Field: "knowledgeBase/topics/" + topic, Message: "changed on both main and the branch"}}})
			}
			got := h.agentDo("GET", "/support/branches/main/knowledge-base/topics/"+topic, nil, 200).Map(t)["content"]
			if got != tc.wantMain {
				t.Fatalf("main content %v, want %s", got, tc.wantMain)
			}
		})
	}
	t.Run("adds and deletes", func(t *testing.T) {
		h := newHarness(t)
		old := h.agentDo("POST", "/support/branches/main/knowledge-base/topics", map[string]any{"name": "old", "content": "x"}, 201).Map(t)["id"].(string)
		br := h.agentDo("POST", "/support/branches", map[string]any{"branchName": "f"}, 201).Map(t)["branchId"].(string)
		h.agentDo("DELETE", "/support/branches/"+br+"/knowledge-base/topics/"+old, nil, 204)
		h.agentDo("POST", "/support/branches/"+br+"/knowledge-base/topics", map[string]any{"name": "new", "content": "y"}, 201)
		h.agentDo("PATCH", "/support/branches/main/behavior", map[string]any{"behavior": "Be nice."}, 200)
		h.agentDo("POST", "/support/branches/"+br+"/merge", nil, 200)
		var topics []engine.TopicRec
		_ = json.Unmarshal(h.agentDo("GET", "/support/branches/main/knowledge-base/topics", nil, 200).Body, &topics)
		if len(topics) != 1 || topics[0].Name != "new" {
			t.Fatalf("main topics %+v", topics)
		}
		mustBody(t, h.agentDo("GET", "/support/branches/main/behavior", nil, 200), map[string]any{"behavior": "Be nice."})
	})
	t.Run("merge_conflict_status 400", func(t *testing.T) {
		h := newHarness(t, string(scenarioDefaultYAML())+"\nfidelity: {merge_conflict_status: \"400\"}\n")
		br := h.agentDo("POST", "/support/branches", map[string]any{"name": "f"}, 201).Map(t)["branchId"].(string)
		h.agentDo("PATCH", "/support/branches/main/behavior", map[string]any{"behavior": "a"}, 200)
		h.agentDo("PATCH", "/support/branches/"+br+"/behavior", map[string]any{"behavior": "b"}, 200)
		mustBody(t, h.agentDo("POST", "/support/branches/"+br+"/merge", nil, 400),
			builderError{Message: engine.MsgMergeConflict, Errors: []engine.FieldError{{Field: "behavior", Message: "changed on both main and the branch"}}})
	})
}

func TestAgentsMainReadOnly(t *testing.T) {
	t.Parallel()
	h := newHarness(t, string(scenarioDefaultYAML())+"\nfidelity: {main_branch: read_only}\n")
	mustBody(t, h.agentDo("PATCH", "/support/branches/main/behavior", map[string]any{"behavior": "a"}, 422),
		builderError{Message: engine.MsgMainReadOnly, Errors: []engine.FieldError{}})
	br := h.agentDo("POST", "/support/branches", map[string]any{"name": "f"}, 201).Map(t)["branchId"].(string)
	h.agentDo("PATCH", "/support/branches/"+br+"/behavior", map[string]any{"behavior": "a"}, 200)
}

// TestAgentsDeploymentPath publishes a topic to sandbox: the sandbox agent
// answers with it, live does not until promoted through pre-release.
func TestAgentsDeploymentPath(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.agentDo("POST", "/support/branches/main/knowledge-base/topics", map[string]any{"name": "parking", "content": "Parking is free after 6pm."}, 201)
	fallback := "Sorry, I didn't understand that. Could you rephrase?"
	if got := h.chatSay(sandboxChatHeaders, "where is parking?"); got != fallback {
		t.Fatalf("sandbox before publish: %q", got)
	}
	dep := h.agentDo("POST", "/support/deployments/publish", map[string]any{"environment": "sandbox", "deploymentMessage": "kb"}, 201).Map(t)
	if dep["environment"] != "sandbox" || !regexp.MustCompile(`^[0-9a-f]{32}$`).MatchString(dep["version"].(string)) ||
		!regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`).MatchString(dep["id"].(string)) {
		t.Fatalf("deployment %v", dep)
	}
	if got := h.chatSay(sandboxChatHeaders, "Where is PARKING?"); got != "Parking is free after 6pm." {
		t.Fatalf("sandbox after publish: %q", got)
	}
	if got := h.chatSay(chatHeaders, "where is parking?"); got != fallback {
		t.Fatalf("live before promote: %q", got)
	}
	h.advance(time.Second)
	pre := h.agentDo("POST", "/support/deployments/"+dep["id"].(string)+"/promote", nil, 200).Map(t)
	if pre["environment"] != "pre-release" || pre["version"] != dep["version"] || pre["id"] == dep["id"] {
		t.Fatalf("promote: %v", pre)
	}
	if got := h.chatSay(chatHeaders, "parking"); got != fallback {
		t.Fatalf("live after pre-release: %q", got)
	}
	live := h.agentDo("POST", "/support/deployments/"+pre["id"].(string)+"/promote", nil, 200).Map(t)
	if live["environment"] != "live" {
		t.Fatalf("promote: %v", live)
	}
	if got := h.chatSay(chatHeaders, "parking"); got != "Parking is free after 6pm." {
		t.Fatalf("live after promote: %q", got)
	}
	// Invalid transitions.
	mustBody(t, h.agentDo("POST", "/support/deployments/"+live["id"].(string)+"/promote", nil, 400),
		builderError{Message: "The deployment is already live.", Errors: []engine.FieldError{{Field: "targetEnvironment", Message: "must be later than live"}}})
	h.agentDo("POST", "/support/deployments/"+pre["id"].(string)+"/promote", map[string]any{"targetEnvironment": "pre-release"}, 400)
	mustBody(t, h.agentDo("POST", "/support/deployments/nope/promote", nil, 404), builderError{Message: engine.MsgDeploymentNotFound, Errors: []engine.FieldError{}})
	h.agentDo("POST", "/support/deployments/publish", map[string]any{"environment": "live"}, 400)

	// A second publish without the topic, then rollback to the first.
	var topics []engine.TopicRec
	_ = json.Unmarshal(h.agentDo("GET", "/support/branches/main/knowledge-base/topics", nil, 200).Body, &topics)
	h.agentDo("DELETE", "/support/branches/main/knowledge-base/topics/"+topics[0].ID, nil, 204)
	h.agentDo("POST", "/support/deployments/publish", nil, 201)
	if got := h.chatSay(sandboxChatHeaders, "parking"); got != fallback {
		t.Fatalf("sandbox after second publish: %q", got)
	}
	rb := h.agentDo("POST", "/support/deployments/"+dep["id"].(string)+"/rollback", nil, 200).Map(t)
	if rb["environment"] != "sandbox" || rb["version"] != dep["version"] || rb["metadata"] != nil {
		t.Fatalf("rollback: %v", rb)
	}
	if got := h.chatSay(sandboxChatHeaders, "parking"); got != "Parking is free after 6pm." {
		t.Fatalf("sandbox after rollback: %q", got)
	}
	// Listing: newest first, limit, environment required.
	var list struct{ Deployments []engine.Deployment }
	_ = json.Unmarshal(h.agentDo("GET", "/support/deployments?environment=sandbox", nil, 200).Body, &list)
	if len(list.Deployments) != 3 || list.Deployments[0].ID != rb["id"] || list.Deployments[2].ID != dep["id"] ||
		list.Deployments[0].Metadata["deployment_type"] != "rollback" {
		t.Fatalf("list %+v", list)
	}
	_ = json.Unmarshal(h.agentDo("GET", "/support/deployments?environment=sandbox&limit=1", nil, 200).Body, &list)
	if len(list.Deployments) != 1 {
		t.Fatalf("limit: %+v", list)
	}
	for _, q := range []string{"", "?environment=prod", "?environment=live&limit=0"} {
		h.agentDo("GET", "/support/deployments"+q, nil, 400)
	}
	act := h.agentDo("GET", "/support/deployments/active", nil, 200).Map(t)["activeDeployments"].(map[string]any)
	if act["sandbox"].(map[string]any)["id"] != rb["id"] || act["live"].(map[string]any)["id"] != live["id"] {
		t.Fatalf("active %v", act)
	}

	// The runtime index survives a rebuild from the store (reset path).
	h.api.RebuildRuntimeIndex()
	if got := h.chatSay(chatHeaders, "parking"); got != "Parking is free after 6pm." {
		t.Fatalf("live after rebuild: %q", got)
	}
}

func TestAgentsDeployResponseWrapped(t *testing.T) {
	t.Parallel()
	h := newHarness(t, string(scenarioDefaultYAML())+"\nfidelity: {deploy_response: wrapped, promote_skip_stage: reject}\n")
	got := h.agentDo("POST", "/support/deployments/publish", nil, 201).Map(t)
	dep, _ := got["deployment"].(map[string]any)
	if dep == nil || got["testRunIds"] == nil {
		t.Fatalf("wrapped: %v", got)
	}
	mustBody(t, h.agentDo("POST", "/support/deployments/"+dep["id"].(string)+"/promote", map[string]any{"targetEnvironment": "live"}, 412),
		builderError{Message: engine.MsgPreReleaseNotReady, Errors: []engine.FieldError{}})
}

const agentsConfigScenario = `
accounts:
  - slug: acme
    id: "1001"
    region: us
    projects:
      - slug: support
        id: "2001"
        dialogue:
          rules:
            - {name: promo, when: {contains: promo}, then: {reply: "Promo: {{.Variables.promo}}"}}
        agent:
          deployed: [live]
          knowledge_base:
            - {name: hours, content: "Open 24/7."}
          real_time_configs:
            live:
              schema:
                type: object
                properties:
                  promo: {type: string, maxLength: 10}
                  max_tokens: {type: integer, minimum: 1}
                additionalProperties: false
              variables: {promo: SPRING}
credentials:
  - {kind: chat, key: test-chat-key, account: acme, project: support}
  - {kind: connector, key: test-connector-token, account: acme, project: support, client_env: live}
  - {kind: builder, key: test-builder-key, account: acme}
`

func TestAgentsRealTimeConfigs(t *testing.T) {
	t.Parallel()
	h := newHarness(t, agentsConfigScenario)
	if got := h.chatSay(chatHeaders, "hours?"); got != "Open 24/7." {
		t.Fatalf("seeded live deployment: %q", got)
	}
	if got := h.chatSay(chatHeaders, "promo"); got != "Promo: SPRING" {
		t.Fatalf("seeded variables: %q", got)
	}
	before := h.buildDocs()
	r := h.agentDo("PATCH", "/support/real-time-configs/live/variables", map[string]any{"variables": map[string]any{"promo": "WAY TOO LONG VALUE", "max_tokens": 0, "extra": 1}}, 400)
	var body builderError
	_ = json.Unmarshal(r.Body, &body)
	fields := map[string]bool{}
	for _, e := range body.Errors {
		fields[e.Field] = true
	}
	if body.Message != engine.MsgConfigInvalid || !fields["variables/promo"] || !fields["variables/max_tokens"] || !fields["variables"] {
		t.Fatalf("errors: %s", r.Body)
	}
	if diff := cmp.Diff(before, h.buildDocs()); diff != "" {
		t.Fatal(diff)
	}
	r = h.agentDo("PATCH", "/support/real-time-configs/live/variables", map[string]any{"variables": map[string]any{"promo": "SUMMER", "max_tokens": 5}}, 200)
	page := r.Map(t)
	if diff := cmp.Diff(map[string]any{"promo": "SUMMER", "max_tokens": 5.0}, page["variables"]); diff != "" || page["clientEnv"] != "live" {
		t.Fatalf("page %v %s", page, diff)
	}
	// At once, without a publish.
	if got := h.chatSay(chatHeaders, "promo"); got != "Promo: SUMMER" {
		t.Fatalf("after patch: %q", got)
	}
	// A null removes a variable.
	h.agentDo("PATCH", "/support/real-time-configs/live/variables", map[string]any{"variables": map[string]any{"max_tokens": nil}}, 200)
	mustBody(t, h.agentDo("GET", "/support/real-time-configs/live", nil, 200), map[string]any{"clientEnv": "live",
		"variables": map[string]any{"promo": "SUMMER"}, "schema": page["schema"], "lastUpdated": engine.FmtAgentTime(h.clock.Now())})
	h.agentDo("PATCH", "/support/real-time-configs/staging/variables", map[string]any{"variables": map[string]any{}}, 400)
	// Schema endpoint: a bad schema is refused; sandbox without schema takes anything.
	h.agentDo("PUT", "/support/real-time-configs/sandbox/schema", map[string]any{"schema": map[string]any{"type": "nonsense"}}, 400)
	h.agentDo("PATCH", "/support/real-time-configs/sandbox/variables", map[string]any{"variables": map[string]any{"x": 1}}, 200)
	h.agentDo("PUT", "/support/real-time-configs/sandbox/schema", map[string]any{"schema": map[string]any{"type": "object", "required": []string{"y"}}}, 200)
	r = h.agentDo("PATCH", "/support/real-time-configs/sandbox/variables", map[string]any{"variables": map[string]any{"x": 2}}, 400)
	var list struct{ ConfigPages []engine.ConfigPage }
	_ = json.Unmarshal(h.agentDo("GET", "/support/real-time-configs", nil, 200).Body, &list)
	if len(list.ConfigPages) != 3 {
		t.Fatalf("pages %+v", list)
	}
}

func TestAgentsAttributesVariants(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	at := h.agentDo("POST", "/support/branches/main/attributes", map[string]any{"name": "tier"}, 201).Map(t)
	if !regexp.MustCompile(`^ATTRIBUTE-[0-9A-Z]{8}$`).MatchString(at["id"].(string)) {
		t.Fatalf("attribute %v", at)
	}
	h.agentDo("POST", "/support/branches/main/attributes", map[string]any{"name": "tier"}, 409)
	mustBody(t, h.agentDo("PATCH", "/support/branches/main/attributes/"+at["id"].(string), map[string]any{"name": "level"}, 200),
		map[string]any{"id": at["id"], "name": "level"})
	// A rename to a taken name is refused, and changes nothing.
	other := h.agentDo("POST", "/support/branches/main/attributes", map[string]any{"name": "region"}, 201).Map(t)
	before := h.agentDo("GET", "/support/branches/main/attributes", nil, 200).Body
	mustBody(t, h.agentDo("PATCH", "/support/branches/main/attributes/"+other["id"].(string), map[string]any{"name": "level"}, 409),
		builderError{Message: engine.MsgAttributeDuplicate, Errors: []engine.FieldError{}})
	if after := h.agentDo("GET", "/support/branches/main/attributes", nil, 200).Body; string(after) != string(before) {
		t.Fatalf("a refused rename changed the attributes:\n%s\n%s", before, after)
	}
	h.agentDo("PATCH", "/support/branches/main/attributes/"+other["id"].(string), map[string]any{"name": "region"}, 200) // its own name
	mustBody(t, h.agentDo("DELETE", "/support/branches/main/attributes/"+other["id"].(string), nil, 200), map[string]any{"id": other["id"]})
	var vs struct{ Variants []engine.Variant }
	_ = json.Unmarshal(h.agentDo("GET", "/support/branches/main/variants", nil, 200).Body, &vs)
	if len(vs.Variants) != 2 || vs.Variants[0].ID != "VARIANT-0000DEF0" || !vs.Variants[0].IsDefault {
		t.Fatalf("seeded variants %+v", vs)
	}
	mustBody(t, h.agentDo("DELETE", "/support/branches/main/variants/VARIANT-0000DEF0", nil, 400),
		builderError{Message: engine.MsgVariantDefault, Errors: []engine.FieldError{}})
	h.agentDo("POST", "/support/branches/main/variants", map[string]any{"name": "Default"}, 409)
	v := h.agentDo("POST", "/support/branches/main/variants", map[string]any{"name": "Gold", "attributeValues": map[string]any{"values": map[string]any{"level": "g"}}}, 201).Map(t)
	mustBody(t, h.agentDo("DELETE", "/support/branches/main/variants/"+v["id"].(string), nil, 200), map[string]any{"id": v["id"]})
	mustBody(t, h.agentDo("DELETE", "/support/branches/main/attributes/"+at["id"].(string), nil, 200), map[string]any{"id": at["id"]})
	h.agentDo("DELETE", "/support/branches/main/attributes/"+at["id"].(string), nil, 404)
	h.agentDo("POST", "/support/branches/main/knowledge-base/topics", map[string]any{"name": "a", "content": "b", "sampleQuestions": []string{}}, 400)
	h.agentDo("POST", "/support/branches/main/knowledge-base/topics", map[string]any{"name": "a", "content": "b"}, 201)
	h.agentDo("POST", "/support/branches/main/knowledge-base/topics", map[string]any{"name": "A", "content": "c"}, 409)
	h.agentDo("GET", "/support/branches/BRANCH-NOPE0000/behavior", nil, 404)
	h.agentDo("GET", "/nope/branches/main/behavior", nil, 404)
}
