package handlers

// Agent-scoped outbound calls (docs/api.md#agents-outbound): the Agents
// API's form of outbound calling, over the same calls as
// POST /v1/outbound-calling (engine/outbound_agent.go).

import (
	"net/http"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"
)

// agentOutboundRoutes are its routes, in the agents family.
var agentOutboundRoutes = []Route{
	route("POST /v1/agents/:agent/telephony/outbound-calls", (*API).handleAgentCall, opAgentCall),
	route("GET /v1/agents/:agent/telephony/outbound-calls/:call_sid/status", (*API).handleAgentCallStatus, opAgentCallStatus),
}

var (
	opAgentCall = &Op{ID: "agentOutboundCall", Summary: "Place an outbound call from an agent",
		Doc: "Queues a call through the agent's connector of the environment; the same call, state machine and " +
			"retention as POST /v1/outbound-calling (docs/api.md#agents-outbound).",
		Body: engine.AgentCallBody{}, Responses: []Response{ok(200, engine.AgentCallQueued{})}, Errors: []int{400, 404, 429}}
	opAgentCallStatus = &Op{ID: "agentOutboundCallStatus", Summary: "Read an agent's call status",
		Doc:       "Readable until the retention ends after the call; environment must be the call's (docs/api.md#agents-outbound).",
		Path:      []Param{{Name: "call_sid", Pattern: engine.CallSIDRE, Doc: "The callSid of the placed call."}},
		Query:     []Param{{Name: "environment", Enum: engine.DeployEnvs, Required: true, Doc: "The environment the call was placed in."}},
		Responses: []Response{ok(200, engine.AgentCallStatus{})}, Errors: []int{400, 404}}
)

// handleAgentCall handles "POST {builder}/v1/agents/{agentId}/telephony/outbound-calls".
func (a *API) handleAgentCall(c *gin.Context) error {
	var b engine.AgentCallBody
	if err := bindJSON(c, &b, false, engine.CodeValidation); err != nil {
		return err
	}
	outcome := ""
	if pr, ok := requestPreset(c); ok && pr.Name == engine.PresetOutboundOutcome {
		outcome = pr.Value
	}
	out, err := a.PlaceAgentCall(principal(c), c.Param("agent"), b, outcome)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, out)
	return nil
}

// handleAgentCallStatus handles "GET {builder}/v1/agents/{agentId}/telephony/outbound-calls/{callSid}/status".
func (a *API) handleAgentCallStatus(c *gin.Context) error {
	out, err := a.AgentCall(principal(c), c.Param("agent"), c.Param("call_sid"), c.Query("environment"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, out)
	return nil
}
