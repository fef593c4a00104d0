package handlers

// Agentic-dial bridge ended (docs/api.md#external-events-bridge): the
// telephony system reports a bridged call's end (engine/bridge.go).

import (
	"net/http"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"
)

// bridgeRoutes are its routes, in the external events family.
var bridgeRoutes = []Route{
	route("POST /internal/v1/agentic-dial/bridge-ended", func(a *API, c *gin.Context) error {
		var b engine.BridgeEndedBody
		if err := bindJSON(c, &b, false, ""); err != nil {
			return err
		}
		if err := a.BridgeEnded(principal(c), b); err != nil {
			return err
		}
		c.Status(http.StatusOK)
		return nil
	}, &Op{ID: "agenticDialBridgeEnded", Summary: "Report that a bridged call ended",
		Doc:  "Ends the call's conversation and records the durations as metrics (docs/api.md#external-events-bridge).",
		Body: engine.BridgeEndedBody{}, Responses: []Response{{Status: 200, Doc: "Processed; no body."}}, Errors: []int{400}}),
}
