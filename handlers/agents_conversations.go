package handlers

// Agent-scoped conversations and debug chat (docs/api.md#agents-conversations,
// docs/api.md#agents-debug-chat): the conversation records and debug
// chats of an agent, read and run with the Agents API's key
// (engine/agent_conversations.go, engine/debug_chat.go).

import (
	"net/http"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"
)

// agentConversationsRoutes are its routes, in the agents family.
var agentConversationsRoutes = []Route{
	route("GET /v1/agents/:agent/conversations", jsonOp(200, func(a *API, c *gin.Context) (engine.AgentConvPage, error) {
		return a.AgentConversations(principal(c), c.Param("agent"), c.Request.URL.Query())
	}), &Op{ID: "agentConversationList", Summary: "List an agent's conversations",
		Doc: "Every conversation of the agent, debug chats included, newest first (docs/api.md#agents-conversations).",
		Query: []Param{{Name: "limit", Type: "integer", Min: engine.I64(1), Max: engine.I64(engine.AgentConvMaxLimit), Doc: "Default 50."},
			{Name: "offset", Type: "integer", Min: engine.I64(0), Doc: "Default 0."}},
		Responses: []Response{ok(200, engine.AgentConvPage{})}, Errors: []int{400, 404},
		Fidelity: &engine.Fidelity{ID: "G25", Note: "the kit's call: no real document lists it"}}),
	route("GET /v1/agents/:agent/conversations/:conversation", jsonOp(200, func(a *API, c *gin.Context) (engine.AgentConvDetail, error) {
		return a.AgentConversation(principal(c), c.Param("agent"), c.Param("conversation"))
	}), &Op{ID: "agentConversationGet", Summary: "Read a conversation of an agent",
		Doc:       "A conversation record or debug chat of the agent, with its turns (docs/api.md#agents-conversations).",
		Responses: []Response{ok(200, engine.AgentConvDetail{})}, Errors: []int{404}}),
	route("GET /v1/agents/:agent/conversations/:conversation/audio", (*API).handleAgentConversationAudio, &Op{
		ID: "agentConversationAudio", Summary: "Read a conversation's recording",
		Doc: "A WAV of an ended voice call's turns (docs/api.md#agents-conversations-audio).",
		Query: []Param{{Name: "direction", Enum: engine.AudioDirections, Doc: "Default combined."},
			{Name: "redacted", Type: "boolean", Doc: "Default false; the same recording."}},
		Responses: []Response{{Status: 200, Media: "audio/wav", Doc: "The recording."}}, Errors: []int{400, 404}}),
	route("POST /v1/agents/:agent/debug-chat", bodyOp(201, func(a *API, c *gin.Context, b *engine.DebugChatBody) (engine.DebugChatReply, error) {
		return a.CreateDebugChat(principal(c), c.Param("agent"), *b)
	}), &Op{ID: "debugChatCreate", Summary: "Start a debug chat",
		Doc:  "The agent's greeting, without a deployment; not live traffic (docs/api.md#agents-debug-chat).",
		Body: engine.DebugChatBody{}, Responses: []Response{ok(201, engine.DebugChatReply{})}, Errors: []int{400, 404}}),
	route("POST /v1/agents/:agent/debug-chat/:conversation", bodyOp(200, func(a *API, c *gin.Context, b *engine.DebugRespondBody) (engine.DebugChatReply, error) {
		out, env, err := a.RespondDebugChat(principal(c), c.Param("agent"), c.Param("conversation"), *b)
		if err == nil && *b.ClientEnv != env {
			addWarning(c, "clientEnv %q is not the debug chat's environment %q (ignored)", *b.ClientEnv, env)
		}
		return out, err
	}), &Op{ID: "debugChatRespond", Summary: "Send a message to a debug chat",
		Doc:  "The agent's reply to the message (docs/api.md#agents-debug-chat).",
		Body: engine.DebugRespondBody{}, Responses: []Response{ok(200, engine.DebugChatReply{})}, Errors: []int{400, 404}}),
}

// handleAgentConversationAudio handles "GET {builder}/v1/agents/{agentId}/conversations/{conversationId}/audio".
func (a *API) handleAgentConversationAudio(c *gin.Context) error {
	wav, err := a.ConversationAudio(principal(c), c.Param("agent"), c.Param("conversation"), c.Query("direction"), c.Query("redacted"))
	if err != nil {
		return err
	}
	c.Data(http.StatusOK, "audio/wav", wav)
	return nil
}
