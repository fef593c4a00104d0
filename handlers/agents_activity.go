package handlers

// The agent's activity in the Agents API: outbound calls, conversations,
// recordings, debug chat, test runs (docs/api.md#agents-outbound onwards).
// Handlers of one engine call are declared inline (jsonOp, bodyOp).

import (
	"net/http"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/engine/convquery"
	"github.com/agentplatform/mockplatform/engine/testruns"

	"github.com/gin-gonic/gin"
)

// agentOutboundRoutes are the outbound calls' routes, in the agents family.
var agentOutboundRoutes = []Route{
	route("POST /v1/agents/:agent/telephony/outbound-calls", bodyOp(200, func(a *API, c *gin.Context, b *engine.AgentCallBody) (engine.AgentCallQueued, error) {
		if pr, ok := requestPreset(c); ok && pr.Name == engine.PresetOutboundOutcome {
			return a.PlaceAgentCall(principal(c), c.Param("agent"), *b, pr.Value)
		}
		return a.PlaceAgentCall(principal(c), c.Param("agent"), *b, "")
	}), &Op{ID: "agentOutboundCall", Summary: "Place an outbound call from an agent",
		Doc:  "Through the agent's connector of the environment; the legacy API's calls (docs/api.md#agents-outbound).",
		Body: engine.AgentCallBody{}, Responses: []Response{ok(200, engine.AgentCallQueued{})}, Errors: []int{400, 404, 429},
		Fidelity: &engine.Fidelity{ID: "G26", Note: "the legacy API's calls, state machine and retention"}}),
	route("GET /v1/agents/:agent/telephony/outbound-calls/:call_sid/status", jsonOp(200, func(a *API, c *gin.Context) (engine.AgentCallStatus, error) {
		return a.AgentCall(principal(c), c.Param("agent"), c.Param("call_sid"), c.Query("environment"))
	}), &Op{ID: "agentOutboundCallStatus", Summary: "Read an agent's call status",
		Doc:       "Readable until the retention ends after the call; environment must be the call's (docs/api.md#agents-outbound).",
		Path:      []Param{{Name: "call_sid", Pattern: engine.CallSIDRE, Doc: "The callSid of the placed call."}},
		Query:     []Param{{Name: "environment", Enum: engine.DeployEnvs, Required: true, Doc: "The environment the call was placed in."}},
		Responses: []Response{ok(200, engine.AgentCallStatus{})}, Errors: []int{400, 404}}),
}

// jsonOp is a handler that answers fn's value as JSON with status.
func jsonOp[T any](status int, fn func(a *API, c *gin.Context) (T, error)) handlerFunc {
	return func(a *API, c *gin.Context) error {
		v, err := fn(a, c)
		if err != nil {
			return err
		}
		c.JSON(status, v)
		return nil
	}
}

// bodyOp is jsonOp for a JSON body, read into a B (bindJSON's rules).
func bodyOp[B, T any](status int, fn func(a *API, c *gin.Context, b *B) (T, error)) handlerFunc {
	return jsonOp(status, func(a *API, c *gin.Context) (T, error) {
		var b B
		if err := bindJSON(c, &b, false, engine.CodeValidation); err != nil {
			var zero T
			return zero, err
		}
		return fn(a, c, &b)
	})
}

// agentConversationsRoutes are the conversations' and debug chat's routes.
var agentConversationsRoutes = []Route{
	route("GET /v1/agents/:agent/conversations", jsonOp(200, func(a *API, c *gin.Context) (convquery.AgentConvPage, error) {
		return a.ConvQuery().AgentConversations(principal(c), c.Param("agent"), c.Request.URL.Query())
	}), &Op{ID: "agentConversationList", Summary: "List an agent's conversations",
		Doc: "Every conversation of the agent, debug chats included, newest first (docs/api.md#agents-conversations).",
		Query: []Param{{Name: "limit", Type: "integer", Min: engine.I64(1), Max: engine.I64(convquery.AgentConvMaxLimit), Doc: "Default 50."},
			{Name: "offset", Type: "integer", Min: engine.I64(0), Doc: "Default 0."}},
		Responses: []Response{ok(200, convquery.AgentConvPage{})}, Errors: []int{400, 404},
		Fidelity: &engine.Fidelity{ID: "G27", Note: "the kit's call: no real document lists it"}}),
	route("GET /v1/agents/:agent/conversations/:conversation", jsonOp(200, func(a *API, c *gin.Context) (convquery.AgentConvDetail, error) {
		return a.ConvQuery().AgentConversation(principal(c), c.Param("agent"), c.Param("conversation"))
	}), &Op{ID: "agentConversationGet", Summary: "Read a conversation of an agent",
		Doc:       "A conversation record or debug chat of the agent, with its turns (docs/api.md#agents-conversations).",
		Responses: []Response{ok(200, convquery.AgentConvDetail{})}, Errors: []int{404},
		Fidelity: &engine.Fidelity{ID: "G27", Note: "the records v1, v2 and v3 read, and the agent's debug chats"}}),
	route("GET /v1/agents/:agent/conversations/:conversation/audio", func(a *API, c *gin.Context) error {
		wav, err := a.ConvQuery().ConversationAudio(principal(c), c.Param("agent"), c.Param("conversation"), c.Query("direction"), c.Query("redacted"))
		if err == nil {
			c.Data(http.StatusOK, "audio/wav", wav)
		}
		return err
	}, &Op{ID: "agentConversationAudio", Summary: "Read a conversation's recording",
		Doc: "A WAV of an ended voice call's turns (docs/api.md#agents-conversations-audio).",
		Query: []Param{{Name: "direction", Enum: convquery.AudioDirections, Doc: "Default combined."},
			{Name: "redacted", Type: "boolean", Doc: "Default false; the same recording."}},
		Responses: []Response{{Status: 200, Media: "audio/wav", Doc: "The recording."}}, Errors: []int{400, 404},
		Fidelity: &engine.Fidelity{ID: "G27", Note: "a synthetic WAV of an ended voice call's turns"}}),
	route("POST /v1/agents/:agent/debug-chat", bodyOp(201, func(a *API, c *gin.Context, b *engine.DebugChatBody) (engine.DebugChatReply, error) {
		return a.CreateDebugChat(principal(c), c.Param("agent"), *b)
	}), &Op{ID: "debugChatCreate", Summary: "Start a debug chat",
		Doc:  "The agent's greeting, without a deployment; not live traffic (docs/api.md#agents-debug-chat).",
		Body: engine.DebugChatBody{}, Responses: []Response{ok(201, engine.DebugChatReply{})}, Errors: []int{400, 404},
		Fidelity: &engine.Fidelity{ID: "G28", Note: "not live traffic"}}),
	route("POST /v1/agents/:agent/debug-chat/:conversation", bodyOp(200, func(a *API, c *gin.Context, b *engine.DebugRespondBody) (engine.DebugChatReply, error) {
		out, env, err := a.RespondDebugChat(principal(c), c.Param("agent"), c.Param("conversation"), *b)
		if err == nil && *b.ClientEnv != env {
			addWarning(c, "clientEnv %q is not the debug chat's environment %q (ignored)", *b.ClientEnv, env)
		}
		return out, err
	}), &Op{ID: "debugChatRespond", Summary: "Send a message to a debug chat",
		Doc:  "The agent's reply to the message (docs/api.md#agents-debug-chat).",
		Body: engine.DebugRespondBody{}, Responses: []Response{ok(200, engine.DebugChatReply{})}, Errors: []int{400, 404},
		Fidelity: &engine.Fidelity{ID: "G28", Note: "not live traffic"}}),
}

// kitCall marks the kit's calls that no real document lists.
var kitCall = &engine.Fidelity{ID: "G30", Note: "the kit's call: no real document lists it"}

// pageParams are the paging parameters of the test lists.
var pageParams = []Param{{Name: "limit", Type: "integer", Min: engine.I64(1), Max: engine.I64(100), Doc: "Default 100."},
	{Name: "offset", Type: "integer", Min: engine.I64(0), Doc: "Default 0."}, {Name: "branchId", Doc: "Only this branch's."}}

// agentTestingRoutes are the test runs' routes.
var agentTestingRoutes = []Route{
	route("GET /v1/agents/:agent/testing/test-runs", jsonOp(200, func(a *API, c *gin.Context) (testruns.TestRunList, error) {
		return a.TestRuns().List(principal(c), c.Param("agent"), c.Request.URL.Query())
	}), &Op{ID: "testRunList", Summary: "List test runs", Doc: "Newest first (docs/api.md#agents-testing).",
		Query:     append(pageParams[:len(pageParams):len(pageParams)], Param{Name: "testSetId", Doc: "Runs of a test set: the mock's runs belong to none."}),
		Responses: []Response{ok(200, testruns.TestRunList{})}, Errors: []int{400, 404}, Fidelity: kitCall}),
	route("GET /v1/agents/:agent/testing/test-runs/:test_run", jsonOp(200, func(a *API, c *gin.Context) (testruns.TestRunDetail, error) {
		return a.TestRuns().Get(principal(c), c.Param("agent"), c.Param("test_run"))
	}), &Op{ID: "testRunGet", Summary: "Read a test run", Doc: "With its finished cases (docs/api.md#agents-testing).",
		Responses: []Response{ok(200, testruns.TestRunDetail{})}, Errors: []int{404}, Fidelity: kitCall}),
	route("POST /v1/agents/:agent/testing/test-runs/trigger", bodyOp(200, func(a *API, c *gin.Context, b *testruns.TestRunBody) (testruns.TestRunStarted, error) {
		return a.TestRuns().Trigger(principal(c), c.Param("agent"), *b)
	}), &Op{ID: "testRunTrigger", Summary: "Run test cases", Doc: "On a branch, on the virtual clock (docs/api.md#agents-testing).",
		Body: testruns.TestRunBody{}, Responses: []Response{ok(200, testruns.TestRunStarted{})}, Errors: []int{400, 404}, Fidelity: kitCall}),
	route("GET /v1/agents/:agent/testing/test-history", jsonOp(200, func(a *API, c *gin.Context) (testruns.TestHistoryPage, error) {
		return a.TestRuns().History(principal(c), c.Param("agent"), c.Request.URL.Query())
	}), &Op{ID: "testHistoryList", Summary: "List test results", Doc: "Finished cases, newest first (docs/api.md#agents-testing).",
		Query:     append(pageParams[:len(pageParams):len(pageParams)], Param{Name: "testCaseId", Doc: "Only this case's."}),
		Responses: []Response{ok(200, testruns.TestHistoryPage{})}, Errors: []int{400, 404}, Fidelity: kitCall}),
}
