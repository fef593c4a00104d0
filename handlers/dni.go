package handlers

// Dynamic number reservation (docs/api.md#dni; docs/fidelity.md G19,
// M11.9). A DNI key belongs to one project; a reservation holds one of that
// project's numbers for a window, and a call to the number within the
// window reaches that project's agent in a conversation that has the
// reservation's attributes from its first turn.
//
// The numbers come from the project's pool in the scenario (dni.numbers);
// a reservation is a store document (kind "dni", keyed by the number) that
// holds until its expiry on the virtual clock (dni.window, default 15m).
// Expired reservations are reclaimed lazily, so no timer is needed and
// Reset (which restores the store) drops them all.

import (
	"errors"
	"net/http"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
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
	p := principal(c)
	if p.Project == nil || p.Project.DNI == nil {
		return &engine.Error{Kind: engine.KindNotFound, Message: engine.MsgDNINoRoute}
	}
	pool := p.Project.DNI
	now := a.Clock().Now()
	window := pool.Window.D()
	if window <= 0 {
		window = scenario.DefaultDNIWindow
	}
	res := engine.DniReservation{AccountID: p.Account.ID, ProjectID: p.Project.ID, Attributes: req.Attributes,
		ReservedAt: now, ExpiresAt: now.Add(window)}
	for _, number := range pool.Numbers {
		res.Number = number
		err := a.Store().InsertDoc(engine.DocDNI, p.Region, number, &res)
		if errors.Is(err, store.ErrExists) {
			var cur engine.DniReservation
			err = a.Store().UpdateDoc(engine.DocDNI, p.Region, number, &cur, func() error {
				if now.Before(cur.ExpiresAt) {
					return engine.ErrDNIBusy
				}
				cur = res
				return nil
			})
			if errors.Is(err, engine.ErrDNIBusy) || errors.Is(err, store.ErrNotFound) {
				continue
			}
		}
		if err != nil {
			return err
		}
		c.JSON(http.StatusOK, engine.DniResponse{DNI: number})
		return nil
	}
	return &engine.Error{Kind: engine.KindNotFound, Message: engine.MsgDNINoRoute}
}
