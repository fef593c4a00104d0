package handlers

// Handoff state (docs/api.md#handoff; docs/fidelity.md G19): the data a
// dialogue's handoff action (or a scenario) stored for a conversation. A
// request names the conversation by id, by shared_id, or both: one of them
// is needed, and shared_id decides when both are given.

import (
	"net/http"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/agentplatform/mockplatform/scenario"

	"github.com/gin-gonic/gin"
)

// famHandoff is handoff state (docs/api.md#handoff).
var famHandoff = &Family{
	Name: "handoff", Base: "runtime", Shape: shapeErrorMessage,
	Credential: scenario.KindHandoff, Headers: []string{"X-Api-Key"}, Forbid: true,
	Marks: []string{"/handoff_state"},
	Doc:   "The data an agent stored when it handed a conversation off (docs/api.md#handoff).",
	Schemes: map[string]Scheme{
		"handoffKey": {Type: "apiKey", In: "header", Name: "x-api-key", Doc: "A handoff key of the account or project (credential kind handoff)."},
	},
	Security: [][]string{{"handoffKey"}},
	Routes:   handoffRoutes,
}

// handoffRoutes are its routes.
var handoffRoutes = []Route{
	route("GET /v1/:account/:project/handoff_state", (*API).handleHandoffGet, opHandoffGet),
}

var opHandoffGet = &Op{ID: "handoffStateGet", Summary: "Read a handoff state",
	Doc: "The data the agent stored when it handed the conversation off (docs/api.md#handoff). " +
		"At least one of id and shared_id; with both, shared_id decides.",
	Query: []Param{
		{Name: "id", Doc: "The conversation id."},
		{Name: "shared_id", Doc: "The integrator-defined id of the handoff."},
	},
	Responses: []Response{ok(200, engine.HandoffResponse{})}, Errors: []int{400}}

// handleHandoffGet handles "GET {runtime}/v1/{account}/{project}/handoff_state".
func (a *API) handleHandoffGet(c *gin.Context) error {
	hs, err := a.HandoffState(principal(c), c.Query("id"), c.Query("shared_id"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, engine.HandoffResponse{ID: hs.ID, SharedID: hs.SharedID, Data: nonNil(hs.Data)})
	return nil
}
