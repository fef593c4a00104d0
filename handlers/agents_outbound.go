package handlers

// Agent-scoped outbound calls (docs/api.md#agents-outbound): the Agents
// API's form of outbound calling, over the same calls as
// POST /v1/outbound-calling (engine/outbound_agent.go). Also the two
// adapters of handlers that make one engine call and answer its value.

import (
	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"
)

// agentOutboundRoutes are its routes, in the agents family.
var agentOutboundRoutes = []Route{
	route("POST /v1/agents/:agent/telephony/outbound-calls", bodyOp(200, func(a *API, c *gin.Context, b *engine.AgentCallBody) (engine.AgentCallQueued, error) {
		outcome := ""
		if pr, ok := requestPreset(c); ok && pr.Name == engine.PresetOutboundOutcome {
			outcome = pr.Value
		}
		return a.PlaceAgentCall(principal(c), c.Param("agent"), *b, outcome)
	}), &Op{ID: "agentOutboundCall", Summary: "Place an outbound call from an agent",
		Doc: "Queues a call through the agent's connector of the environment; the same call, state machine and " +
			"retention as POST /v1/outbound-calling (docs/api.md#agents-outbound).",
		Body: engine.AgentCallBody{}, Responses: []Response{ok(200, engine.AgentCallQueued{})}, Errors: []int{400, 404, 429}}),
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
