package handlers

// Handoff state (docs/api.md#handoff; docs/fidelity.md G19): the data a
// dialogue's handoff action (or a scenario) stored for a conversation. A
// request names the conversation by id, by shared_id, or both: one of them
// is needed, and shared_id decides when both are given.

import (
	"errors"
	"net/http"

	"github.com/agentplatform/mockplatform/scenario"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/store"
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
	Responses: []Response{ok(200, handoffResponse{})}, Errors: []int{400}}

// Handoff messages (docs/fidelity.md G18 detail; the texts are [INF]).
const (
	MsgHandoffIDRequired = "Either id or shared_id is required."
	MsgHandoffNotFound   = "No handoff state found."
)

type handoffResponse struct {
	ID       string         `json:"id"`
	SharedID string         `json:"shared_id,omitempty"`
	Data     map[string]any `json:"data"`
}

// handleHandoffGet handles "GET {runtime}/v1/{account}/{project}/handoff_state".
func (a *API) handleHandoffGet(c *gin.Context) error {
	id, shared := c.Query("id"), c.Query("shared_id")
	if id == "" && shared == "" {
		return &Error{Kind: KindInvalid, Message: MsgHandoffIDRequired}
	}
	p := principal(c)
	hs, err := a.store.GetHandoffState(p.Region, p.Account.ID, p.Project.ID, id, shared)
	if errors.Is(err, store.ErrNotFound) {
		return &Error{Kind: KindNotFound, Message: MsgHandoffNotFound}
	}
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, handoffResponse{ID: hs.ID, SharedID: hs.SharedID, Data: nonNil(hs.Data)})
	return nil
}
