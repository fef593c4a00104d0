package handlers

import (
	"strings"
	"testing"

	"github.com/agentplatform/mockplatform/engine"
)

const debugBase = agentsBase + "/support/debug-chat"

// debugChat starts a debug chat of support and returns its id.
func debugChat(h *harness, body any) string {
	h.t.Helper()
	r := h.do("POST", debugBase, body, builderHeaders...)
	mustStatus(h.t, r, 201)
	return r.Map(h.t)["conversationId"].(string)
}

// debugSay sends a message to a debug chat and returns the answer.
func debugSay(h *harness, agent, id, env, msg string) map[string]any {
	h.t.Helper()
	r := h.do("POST", agentsBase+"/"+agent+"/debug-chat/"+id, map[string]any{"clientEnv": env, "message": msg}, builderHeaders...)
	mustStatus(h.t, r, 200)
	return r.Map(h.t)
}

func TestDebugChatDialogue(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	convs := func() int {
		t.Helper()
		n, err := h.store.CountConversations("us")
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	before := convs()
	r := h.do("POST", debugBase, map[string]any{"clientEnv": "sandbox", "asrLangCode": "en-GB", "channel": "chat.polyai"}, builderHeaders...)
	mustStatus(t, r, 201)
	id := r.Map(t)["conversationId"].(string)
	if !strings.HasPrefix(id, "AS_CHAT_") || !callSIDPattern.MatchString("OUT-"+strings.TrimPrefix(id, "AS_CHAT_")) {
		t.Fatalf("conversationId %q", id)
	}
	mustBody(t, r, map[string]any{"conversationId": id, "userInput": "", "response": "Hi, how can I help you today?",
		"metadata": map[string]any{"asrLangCode": "en-GB"}, "conversationEnded": false, "delayedResponse": false})
	mustBody(t, response{Body: mustJSON(t, debugSay(h, "support", id, "sandbox", "what are your hours?"))},
		map[string]any{"conversationId": id, "userInput": "what are your hours?", "response": "We are open 9am to 5pm, Monday to Friday.",
			"metadata": map[string]any{"asrLangCode": "en-GB"}, "conversationEnded": false, "delayedResponse": false})
	if got := debugSay(h, "support", id, "sandbox", "bye"); got["conversationEnded"] != true || got["response"] != "Goodbye!" {
		t.Fatalf("the goodbye rule: %v", got)
	}
	// Not live traffic: the conversation store (what v1, v2, v3,
	// concurrency and the alert metrics read) does not hold it; the
	// agent-scoped get does.
	if n := convs(); n != before {
		t.Fatalf("conversations %d, want %d", n, before)
	}
	r = h.do("GET", "/runtime/us-1/v3/acme/support/conversations?client_env=sandbox", nil, "x-api-key", "test-conversations-key")
	mustStatus(t, r, 200)
	if n := len(r.Map(t)["conversations"].([]any)); n != 0 {
		t.Fatalf("v3 lists %d conversations", n)
	}
	r = h.do("GET", agentConvBase+"/"+id, nil, builderHeaders...)
	mustStatus(t, r, 200)
	if got := r.Map(t); len(got["turns"].([]any)) != 3 || got["clientEnv"] != "sandbox" || got["inProgress"] != false || got["language"] != "en-GB" {
		t.Fatalf("the debug chat's record: %v", got)
	}
	// An ended chat takes no more messages.
	h.unchanged(t, func() {
		r := h.do("POST", debugBase+"/"+id, map[string]any{"clientEnv": "sandbox", "message": "hi"}, builderHeaders...)
		mustStatus(t, r, 400)
		mustBody(t, r, map[string]any{"message": engine.MsgChatEnded, "errors": []any{}})
	})
	// A reset brings the world back: the debug chat is gone.
	if err := h.api.Reset(); err != nil {
		t.Fatal(err)
	}
	mustStatus(t, h.do("GET", agentConvBase+"/"+id, nil, builderHeaders...), 404)
}

func TestDebugChatBranchAndDeployment(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	br := h.agentDo("POST", "/support/branches", map[string]any{"branchName": "draft"}, 201).Map(t)["branchId"].(string)
	h.agentDo("POST", "/support/branches/"+br+"/knowledge-base/topics", map[string]any{"name": "Parking", "content": "Park on level 2."}, 201)
	onBranch := debugChat(h, map[string]any{"clientEnv": "sandbox", "branchId": br})
	if got := debugSay(h, "support", onBranch, "sandbox", "where is parking?"); got["response"] != "Park on level 2." {
		t.Fatalf("branch topic: %v", got)
	}
	// Without a branch and without a deployment: main, which has no topic.
	onMain := debugChat(h, map[string]any{"clientEnv": "sandbox"})
	if got := debugSay(h, "support", onMain, "sandbox", "where is parking?"); got["response"] == "Park on level 2." {
		t.Fatalf("main answered with the branch's topic: %v", got)
	}
	// The branch's current content: a later change shows at once.
	topics := h.agentDo("GET", "/support/branches/"+br+"/knowledge-base/topics", nil, 200).JSON(t).([]any)
	tid := topics[0].(map[string]any)["id"].(string)
	h.agentDo("PATCH", "/support/branches/"+br+"/knowledge-base/topics/"+tid, map[string]any{"content": "Park on level 3."}, 204)
	if got := debugSay(h, "support", onBranch, "sandbox", "parking please"); got["response"] != "Park on level 3." {
		t.Fatalf("branch topic after the change: %v", got)
	}
	// Merged and published to sandbox: a sandbox debug chat answers from
	// the deployment.
	h.agentDo("POST", "/support/branches/"+br+"/merge", map[string]any{}, 200)
	h.agentDo("POST", "/support/deployments/publish", map[string]any{}, 201)
	deployed := debugChat(h, map[string]any{"clientEnv": "sandbox"})
	if got := debugSay(h, "support", deployed, "live", "parking?"); got["response"] != "Park on level 3." {
		t.Fatalf("deployed topic: %v", got)
	}
	// The respond's other clientEnv is ignored, with a journal warning.
	last := h.journal.List(Filter{Method: "POST", Path: "/debug-chat/" + deployed, Limit: 1})
	if len(last) != 1 || len(last[0].Warnings) != 1 || !strings.Contains(last[0].Warnings[0], `clientEnv "live"`) {
		t.Fatalf("journal: %+v", last)
	}
}

func TestDebugChatRefused(t *testing.T) {
	t.Parallel()
	h := newHarness(t, alertsTwoAccounts)
	taken := chatOnce(h, "hello")
	ended := debugChat(h, map[string]any{"clientEnv": "live"})
	debugSay(h, "support", ended, "live", "bye")
	invalid := func(fields ...string) map[string]any {
		var errs []any
		for i := 0; i+1 < len(fields); i += 2 {
			errs = append(errs, map[string]any{"field": fields[i], "message": fields[i+1]})
		}
		return map[string]any{"message": engine.MsgValidationFailed, "errors": errs}
	}
	msg := func(m string) map[string]any { return map[string]any{"message": m, "errors": []any{}} }
	for _, tc := range []struct {
		name, path string
		body       any
		headers    []string
		status     int
		want       any
	}{
		{"no body", debugBase, nil, nil, 400, msg(MsgBodyRequired)},
		{"no clientEnv", debugBase, map[string]any{}, nil, 400, invalid("clientEnv", "is required")},
		{"bad fields", debugBase, map[string]any{"clientEnv": "prod", "asrLangCode": "english", "conversationId": "has space"}, nil, 400,
			invalid("clientEnv", "must be one of: sandbox, pre-release, live", "asrLangCode", "must be a language plus region code such as en-GB",
				"conversationId", "must be 1 to 128 letters, digits or _.:-")},
		{"taken id", debugBase, map[string]any{"clientEnv": "live", "conversationId": taken}, nil, 400,
			map[string]any{"message": engine.MsgDebugChatIDTaken, "errors": []any{map[string]any{"field": "conversationId", "message": "is already in use"}}}},
		{"taken debug id", debugBase, map[string]any{"clientEnv": "live", "conversationId": ended}, nil, 400,
			map[string]any{"message": engine.MsgDebugChatIDTaken, "errors": []any{map[string]any{"field": "conversationId", "message": "is already in use"}}}},
		{"unknown branch", debugBase, map[string]any{"clientEnv": "live", "branchId": "BRANCH-NOPE"}, nil, 400, msg(engine.MsgChatDraftNotExist)},
		{"unknown variant", debugBase, map[string]any{"clientEnv": "live", "variantId": "VARIANT-NOPE"}, nil, 400,
			map[string]any{"message": engine.MsgChatVariantNotFound, "errors": []any{map[string]any{"field": "variantId", "message": "unknown variant"}}}},
		{"unknown agent", agentsBase + "/nope/debug-chat", map[string]any{"clientEnv": "live"}, nil, 404, msg(engine.MsgAgentNotFound)},
		{"another account", agentsBase + "/2001/debug-chat", map[string]any{"clientEnv": "live"}, []string{"x-api-key", "globex-builder-key"}, 403, msg(engine.MsgNoPermission)},
		{"respond: no clientEnv", debugBase + "/" + ended, map[string]any{"message": "hi"}, nil, 400, invalid("clientEnv", "is required")},
		{"respond: unknown chat", debugBase + "/AS_CHAT_nope", map[string]any{"clientEnv": "live"}, nil, 404, msg(engine.MsgConvNotExist)},
		{"respond: a chat, not a debug chat", debugBase + "/" + taken, map[string]any{"clientEnv": "live"}, nil, 404, msg(engine.MsgConvNotExist)},
		{"respond: another agent's", agentsBase + "/sales/debug-chat/" + ended, map[string]any{"clientEnv": "live"}, nil, 404, msg(engine.MsgConvNotExist)},
		{"respond: message not a string", debugBase + "/" + ended, map[string]any{"clientEnv": "live", "message": 1}, nil, 400,
			map[string]any{"message": `Field "message" must be a string.`, "errors": []any{map[string]any{"field": "message", "message": "must be a string"}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			headers := builderHeaders
			if tc.headers != nil {
				headers = tc.headers
			}
			h.unchanged(t, func() {
				r := h.do("POST", tc.path, tc.body, headers...)
				mustStatus(t, r, tc.status)
				mustBody(t, r, tc.want)
			})
		})
	}
}
