package handlers

// Tests of the agent_create (D2) and merge_deploy (D22) switches and of
// merge conflictResolutions.

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/google/go-cmp/cmp"
)

func TestAgentsCreateOAS(t *testing.T) {
	t.Parallel()
	h := newHarness(t, string(scenarioDefaultYAML())+"\nfidelity: {agent_create: oas}\n")
	now := engine.FmtAgentTime(h.clock.Now())
	// OAS CreateAgentResponse: 200 and exactly six fields.
	r := h.agentDo("POST", "", map[string]any{"name": "Bot", "agentId": "bot-1",
		"responseSettings": map[string]any{"greeting": "Hi!", "languageCode": "en-US"},
		"voiceSettings":    map[string]any{"voiceId": "v1"}, "llmSettings": map[string]any{"modelId": "m"},
		"experimentalConfig": map[string]any{"configs": []any{}}}, 200)
	mustBody(t, r, map[string]any{"accountId": "1001", "agentId": "bot-1", "agentName": "Bot", "createdAt": now, "updatedAt": now, "branchCount": 1})
	r = h.do("POST", builderBase+"/v1/accounts/acme/agents", map[string]any{"name": strings.Repeat("n", 100), "responseSettings": map[string]any{"greeting": "Hi"}}, builderHeaders...)
	mustStatus(t, r, 200)

	long := strings.Repeat("n", 101)
	for _, tc := range []struct {
		name string
		body any
		want []engine.FieldError
	}{
		{"empty", map[string]any{}, []engine.FieldError{{Field: "name", Message: "is required"}, {Field: "responseSettings", Message: "is required"}}},
		{"description", map[string]any{"name": "Bot", "description": "d", "responseSettings": map[string]any{"greeting": "Hi"}},
			[]engine.FieldError{{Field: "description", Message: "is not allowed"}}},
		{"unknown fields", map[string]any{"name": "Bot", "zeta": 1, "alpha": 2, "responseSettings": map[string]any{"greeting": "Hi"}},
			[]engine.FieldError{{Field: "alpha", Message: "is not allowed"}, {Field: "zeta", Message: "is not allowed"}}},
		{"name too long", map[string]any{"name": long, "responseSettings": map[string]any{"greeting": "Hi"}},
			[]engine.FieldError{{Field: "name", Message: "must be 1 to 100 characters"}}},
		{"missing greeting", map[string]any{"name": "Bot", "responseSettings": map[string]any{}},
			[]engine.FieldError{{Field: "responseSettings/greeting", Message: "is required"}}},
		{"empty greeting, extra key", map[string]any{"name": "Bot", "responseSettings": map[string]any{"greeting": "", "tone": "x"}},
			[]engine.FieldError{{Field: "responseSettings/greeting", Message: "must not be empty"}, {Field: "responseSettings/tone", Message: "is not allowed"}}},
		{"settings not an object", map[string]any{"name": "Bot", "responseSettings": "Hi"},
			[]engine.FieldError{{Field: "responseSettings", Message: "must be an object"}}},
		{"voice without id", map[string]any{"name": "Bot", "responseSettings": map[string]any{"greeting": "Hi"}, "voiceSettings": map[string]any{}},
			[]engine.FieldError{{Field: "voiceSettings/voiceId", Message: "is required"}}},
		{"experimental without configs", map[string]any{"name": "Bot", "responseSettings": map[string]any{"greeting": "Hi"}, "experimentalConfig": map[string]any{}},
			[]engine.FieldError{{Field: "experimentalConfig/configs", Message: "is required"}}},
		{"bad agentId", map[string]any{"name": "Bot", "agentId": "a b", "responseSettings": map[string]any{"greeting": "Hi"}},
			[]engine.FieldError{{Field: "agentId", Message: "must match ^[a-zA-Z0-9-]+$"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h.unchanged(t, func() {
				mustBody(t, h.agentDo("POST", "", tc.body, 400), builderError{Message: engine.MsgValidationFailed, Errors: tc.want})
			})
		})
	}
	// Unknown fields are errors here, not journal warnings.
	for _, e := range h.journal.List(Filter{Family: "agents"}) {
		if len(e.Warnings) > 0 {
			t.Fatalf("warnings %v", e.Warnings)
		}
	}
}

// mergeConflictSetup creates a topic on main and a branch; main and the branch
// then both change the topic and the behavior.
func (h *harness) mergeConflictSetup() (topic, branch string) {
	h.t.Helper()
	topic = h.agentDo("POST", "/support/branches/main/knowledge-base/topics", map[string]any{"name": "refunds", "content": "base"}, 201).Map(h.t)["id"].(string)
	h.agentDo("PATCH", "/support/branches/main/behavior", map[string]any{"behavior": "base behavior"}, 200)
	branch = h.agentDo("POST", "/support/branches", map[string]any{"name": "f"}, 201).Map(h.t)["branchId"].(string)
	h.agentDo("PATCH", "/support/branches/main/knowledge-base/topics/"+topic, map[string]any{"content": "main"}, 204)
	h.agentDo("PATCH", "/support/branches/"+branch+"/knowledge-base/topics/"+topic, map[string]any{"content": "branch"}, 204)
	h.agentDo("PATCH", "/support/branches/main/behavior", map[string]any{"behavior": "main behavior"}, 200)
	h.agentDo("PATCH", "/support/branches/"+branch+"/behavior", map[string]any{"behavior": "branch behavior"}, 200)
	return topic, branch
}

func TestAgentsMergeResolutions(t *testing.T) {
	t.Parallel()
	behaviorTheirs := map[string]any{"path": []string{"behavior"}, "strategy": "theirs"}
	cases := []struct {
		name      string
		topicRes  func(topic string) map[string]any
		wantTopic any // content, or nil when deleted
	}{
		{"ours keeps main", func(id string) map[string]any {
			return map[string]any{"path": []string{"knowledgeBase", "topics", id}, "strategy": "ours"}
		}, "main"},
		{"theirs takes the branch", func(id string) map[string]any {
			return map[string]any{"path": []string{"knowledgeBase", "topics", id}, "strategy": "theirs"}
		}, "branch"},
		{"base restores the branch point", func(id string) map[string]any {
			return map[string]any{"path": []string{"knowledgeBase/topics/" + id}, "strategy": "base"}
		}, "base"},
		{"value replaces", func(id string) map[string]any {
			return map[string]any{"path": []string{"knowledgeBase", "topics", id}, "strategy": "ours",
				"value": map[string]any{"id": "ignored", "name": "refunds", "content": "merged by hand", "isActive": true}}
		}, "merged by hand"},
		{"null value deletes", func(id string) map[string]any {
			return map[string]any{"path": []string{"knowledgeBase", "topics", id}, "strategy": "theirs", "value": nil}
		}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHarness(t)
			topic, br := h.mergeConflictSetup()
			body := map[string]any{"conflictResolutions": []any{behaviorTheirs, tc.topicRes(topic)}}
			mustBody(t, h.agentDo("POST", "/support/branches/"+br+"/merge", body, 200),
				map[string]any{"sequence": "3", "message": "Branch merged to main", "testRunIds": []any{}})
			mustBody(t, h.agentDo("GET", "/support/branches/main/behavior", nil, 200), map[string]any{"behavior": "branch behavior"})
			var topics []engine.TopicRec
			_ = json.Unmarshal(h.agentDo("GET", "/support/branches/main/knowledge-base/topics", nil, 200).Body, &topics)
			if tc.wantTopic == nil {
				if len(topics) != 0 {
					t.Fatalf("topics %+v, want none", topics)
				}
				return
			}
			if len(topics) != 1 || topics[0].ID != topic || topics[0].Content != tc.wantTopic {
				t.Fatalf("topics %+v, want content %v", topics, tc.wantTopic)
			}
		})
	}

	t.Run("unresolved conflicts remain", func(t *testing.T) {
		h := newHarness(t)
		topic, br := h.mergeConflictSetup()
		h.unchanged(t, func() {
			mustBody(t, h.agentDo("POST", "/support/branches/"+br+"/merge", map[string]any{"conflictResolutions": []any{behaviorTheirs}}, 409),
				builderError{Message: engine.MsgMergeConflict, Errors: []engine.FieldError{{Field: "knowledgeBase/topics/" + topic, Message: "changed on both main and the branch"}}})
		})
	})

	t.Run("a resolution of no conflict is ignored with a warning", func(t *testing.T) {
		h := newHarness(t)
		br := h.agentDo("POST", "/support/branches", map[string]any{"name": "f"}, 201).Map(t)["branchId"].(string)
		h.agentDo("PATCH", "/support/branches/"+br+"/behavior", map[string]any{"behavior": "b"}, 200)
		h.agentDo("POST", "/support/branches/"+br+"/merge", map[string]any{"conflictResolutions": []any{
			map[string]any{"path": []string{"behavior"}, "strategy": "ours"}}}, 200)
		mustBody(t, h.agentDo("GET", "/support/branches/main/behavior", nil, 200), map[string]any{"behavior": "b"})
		e := h.journal.List(Filter{Family: "agents", Path: "/merge"})
		var warnings []string
		for _, x := range e {
			warnings = append(warnings, x.Warnings...)
		}
		if diff := cmp.Diff([]string{`conflictResolutions: "behavior" is not a conflicting path (ignored)`}, warnings); diff != "" {
			t.Fatal(diff)
		}
	})

	t.Run("validation", func(t *testing.T) {
		h := newHarness(t)
		topic, br := h.mergeConflictSetup()
		for _, tc := range []struct {
			res  any
			want []engine.FieldError
		}{
			{"x", []engine.FieldError{{Field: "conflictResolutions", Message: "must be an array of objects"}}},
			{[]any{map[string]any{"strategy": "ours"}}, []engine.FieldError{{Field: "conflictResolutions/0/path", Message: "must be a non-empty array of strings"}}},
			{[]any{map[string]any{"path": []string{}, "strategy": "ours"}}, []engine.FieldError{{Field: "conflictResolutions/0/path", Message: "must be a non-empty array of strings"}}},
			{[]any{map[string]any{"path": []string{"behavior"}}}, []engine.FieldError{{Field: "conflictResolutions/0/strategy", Message: "is required"}}},
			{[]any{map[string]any{"path": []string{"behavior"}, "strategy": "mine"}}, []engine.FieldError{{Field: "conflictResolutions/0/strategy", Message: "must be one of: ours, theirs, base"}}},
			{[]any{map[string]any{"path": []string{"behavior"}, "strategy": "ours", "why": 1}}, []engine.FieldError{{Field: "conflictResolutions/0/why", Message: "is not allowed"}}},
			{[]any{behaviorTheirs, map[string]any{"path": []string{"knowledgeBase", "topics", topic}, "strategy": "ours", "value": 5}},
				[]engine.FieldError{{Field: "conflictResolutions/1/value", Message: "must be a topic object with a name"}}},
			{[]any{map[string]any{"path": []string{"behavior"}, "strategy": "ours", "value": 5}},
				[]engine.FieldError{{Field: "conflictResolutions/0/value", Message: "must be a string"}}},
		} {
			h.unchanged(t, func() {
				mustBody(t, h.agentDo("POST", "/support/branches/"+br+"/merge", map[string]any{"conflictResolutions": tc.res}, 400),
					builderError{Message: engine.MsgValidationFailed, Errors: tc.want})
			})
		}
	})
}

func TestAgentsMergeDeploySandbox(t *testing.T) {
	t.Parallel()
	h := newHarness(t, string(scenarioDefaultYAML())+"\nfidelity: {merge_deploy: sandbox}\n")
	br := h.agentDo("POST", "/support/branches", map[string]any{"name": "f"}, 201).Map(t)["branchId"].(string)
	h.agentDo("POST", "/support/branches/"+br+"/knowledge-base/topics", map[string]any{"name": "parking", "content": "Parking is free."}, 201)
	mustBody(t, h.agentDo("POST", "/support/branches/"+br+"/merge", map[string]any{"deploymentMessage": "add parking"}, 200),
		map[string]any{"sequence": "3", "message": "Branch merged to main and deployed to sandbox", "testRunIds": []any{}})
	var list struct{ Deployments []engine.Deployment }
	_ = json.Unmarshal(h.agentDo("GET", "/support/deployments?environment=sandbox", nil, 200).Body, &list)
	if len(list.Deployments) != 1 || list.Deployments[0].AgentID != "2001" || list.Deployments[0].AccountID != "1001" ||
		!cmp.Equal(list.Deployments[0].Metadata, map[string]any{"deployment_message": "add parking", "deployment_type": "merge"}) {
		t.Fatalf("sandbox deployments %+v", list)
	}
	// The sandbox agent answers from the merge's deployment; live does not.
	if got := h.chatSay(sandboxChatHeaders, "parking?"); got != "Parking is free." {
		t.Fatalf("sandbox after merge: %q", got)
	}
	if got := h.chatSay(chatHeaders, "parking?"); got == "Parking is free." {
		t.Fatalf("live after merge: %q", got)
	}
	// Publishing the merged content again: 409 (docs/fidelity.md D22).
	h.unchanged(t, func() {
		mustBody(t, h.agentDo("POST", "/support/deployments/publish", nil, 409),
			builderError{Message: engine.MsgAlreadyPublished, Errors: []engine.FieldError{}})
	})
	// Once main changes, publish works; the deployment can be promoted.
	h.agentDo("PATCH", "/support/branches/main/behavior", map[string]any{"behavior": "Be brief."}, 200)
	dep := h.agentDo("POST", "/support/deployments/publish", nil, 201).Map(t)
	h.agentDo("POST", "/support/deployments/"+dep["id"].(string)+"/promote", nil, 200)
	// A merge after that deploys again.
	br = h.agentDo("POST", "/support/branches", map[string]any{"name": "g"}, 201).Map(t)["branchId"].(string)
	h.agentDo("POST", "/support/branches/"+br+"/merge", nil, 200)
	_ = json.Unmarshal(h.agentDo("GET", "/support/deployments?environment=sandbox", nil, 200).Body, &list)
	if len(list.Deployments) != 3 || list.Deployments[0].Metadata["deployment_type"] != "merge" {
		t.Fatalf("sandbox deployments %+v", list)
	}
}

func TestAgentsMergeNoDeployByDefault(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	br := h.agentDo("POST", "/support/branches", map[string]any{"name": "f"}, 201).Map(t)["branchId"].(string)
	h.agentDo("POST", "/support/branches/"+br+"/knowledge-base/topics", map[string]any{"name": "parking", "content": "Parking is free."}, 201)
	h.agentDo("POST", "/support/branches/"+br+"/merge", nil, 200)
	mustBody(t, h.agentDo("GET", "/support/deployments?environment=sandbox", nil, 200), map[string]any{"deployments": []any{}})
	// Publishing after a merge is allowed (and twice in a row, too).
	h.agentDo("POST", "/support/deployments/publish", nil, 201)
	h.agentDo("POST", "/support/deployments/publish", nil, 201)
}
