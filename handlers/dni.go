package handlers

// Dynamic number reservation (docs/api.md#dni; docs/fidelity.md G19,
// M11.9): a DNI key reserves one of its project's numbers for a window
// (the reservations: engine/dni.go).

import (
	"errors"
	"net/http"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/scenario"
)

// famDNI is dynamic number reservation (docs/api.md#dni).
var famDNI = &Family{
	Name: "dni", Base: "runtime", Shape: shapeDNI,
	Credential: scenario.KindDNI, Headers: []string{"X-Api-Key"}, ProjectKeys: true,
	Marks: []string{"/dni-reservation"},
	Doc:   "Reserve a temporary number that routes to an agent (docs/api.md#dni).",
	Schemes: map[string]Scheme{
		"dniKey": {Type: "apiKey", In: "header", Name: "x-api-key", Doc: "A number reservation key of one project (credential kind dni)."},
	},
	Security: [][]string{{"dniKey"}},
	Routes:   dniRoutes,
	Counts:   []Counted{countDocs("number reservations", engine.DocDNI)},
	Machines: []*Machine{engine.MachineDNIReservation},
}

// dniRoutes are its routes.
var dniRoutes = []Route{
	route("POST /v1/conversations/dni-reservation", (*API).handleDNIReserve, opDNIReserve),
}

var opDNIReserve = &Op{ID: "dniReserve", Summary: "Reserve a number",
	Doc:  "Reserves the first free number of the key's project pool for the reservation window (docs/api.md#dni).",
	Body: dniRequest{}, Responses: []Response{ok(200, engine.DniResponse{})}, Errors: []int{400, 404}}

type dniRequest struct {
	Attributes map[string]any `json:"attributes"`
}

func (dniRequest) FieldRules() map[string]engine.FieldRule {
	return map[string]engine.FieldRule{"attributes": {Required: true, Doc: "Any JSON object; nesting is allowed."}}
}

// handleDNIReserve handles "POST {runtime}/v1/conversations/dni-reservation".
func (a *API) handleDNIReserve(c *gin.Context) error {
	var req dniRequest
	if err := bindJSON(c, &req, false, ""); err != nil {
		var e *engine.Error
		if errors.As(err, &e) && len(e.Fields) > 0 && e.Fields[0].Field == "attributes" {
			return &engine.Error{Kind: engine.KindInvalid, Message: engine.MsgDNIAttributes}
		}
		return err
	}
	if req.Attributes == nil {
		return &engine.Error{Kind: engine.KindInvalid, Message: engine.MsgDNIAttributes}
	}
	number, err := a.ReserveNumber(principal(c), req.Attributes)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, engine.DniResponse{DNI: number})
	return nil
}
