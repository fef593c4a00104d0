package handlers

// External events (docs/api.md#external-events; docs/fidelity.md M11.10):
// the edge reads the event's id where the query says; the engine binds it
// (engine/external_events.go).

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/agentplatform/mockplatform/scenario"

	"github.com/gin-gonic/gin"
)

// famExternalEvents is external events (docs/api.md#external-events).
var famExternalEvents = &Family{
	Name: "external_events", Base: "runtime", Shape: shapeErrorMessage,
	Credential: scenario.KindExternalEvents, Headers: []string{"X-Api-Key"},
	Marks: []string{"/external-events", "/agentic-dial"},
	Doc:   "Third parties push results into a conversation (docs/api.md#external-events).",
	Schemes: map[string]Scheme{
		"externalEventsKey": {Type: "apiKey", In: "header", Name: "X-Api-Key", Doc: "An external events key of the account or project (credential kind external_events)."},
	},
	Security: [][]string{{"externalEventsKey"}},
	Routes:   externalEventsRoutes,
	Machines: []*Machine{engine.MachineExternalEvent},
}

// externalEventsRoutes are the webhook and the bridged-call end report
// (engine/bridge.go).
var externalEventsRoutes = []Route{
	route("POST /v1/external-events/webhook", (*API).handleExternalEventsWebhook, opExternalEvent),
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
		Body: engine.BridgeEndedBody{}, Responses: []Response{{Status: 200, Doc: "Processed; no body."}}, Errors: []int{400},
		Fidelity: &engine.Fidelity{ID: "G29", Note: "ends the call in the outbound state machine"}}),
}

var opExternalEvent = &Op{ID: "externalEventPost", Summary: "Push an external event into a conversation",
	Doc: "Binds the payload to the conversation that awaits the event id, or to the conversation (or handoff shared_id) " +
		"of that id; an event nothing awaits yet is kept and binds later (docs/api.md#external-events). " +
		"The body is JSON, a form, XML or plain text: the content type decides how the event id is found.",
	Query:        eventParams,
	Body:         new(any), // any JSON value, its id at event_id_path when event_id_location is payload
	BodyOptional: true,     // the id may be in a header or the query
	BodyTypes:    []string{"application/x-www-form-urlencoded", "application/xml", "text/xml", "text/plain"},
	Responses:    []Response{{Status: 201, Doc: "Received: bound, or queued until a conversation awaits the id."}},
	Errors:       []int{400, 415}}

// eventParams are the query parameters of an event, all required.
var eventParams = []Param{
	{Name: "event_id_location", Enum: engine.EventLocations, Required: true, Doc: "Where the event id is."},
	{Name: "event_id_path", Required: true, Doc: "The header name, query parameter or payload path of the event id."},
	{Name: "account_id", Required: true, Doc: "The account (id, ACCOUNT-<id> or slug)."},
	{Name: "project_id", Required: true, Doc: "The project (id, PROJECT-<id> or slug)."},
}

// handleExternalEventsWebhook handles "POST {runtime}/v1/external-events/webhook".
func (a *API) handleExternalEventsWebhook(c *gin.Context) error {
	t, err := a.readEventTarget(c)
	if err != nil {
		return err
	}
	body := stateOf(c).body
	ctype, err := engine.EventContentType(c.GetHeader("Content-Type"), body)
	if err != nil {
		return err
	}
	parsed, err := engine.ParseEventPayload(ctype, body)
	if err != nil {
		return err
	}
	id, err := eventID(c, t, ctype, body, parsed)
	if err != nil {
		return err
	}

	bound, err := a.PostEvent(principal(c).Region, t, id, ctype, body)
	if err != nil {
		return err
	}
	if !bound {
		addWarning(c, "no conversation awaits external event %q: kept pending until one does", id)
	}
	c.Status(http.StatusCreated)
	return nil
}

// readEventTarget reads the query parameters and checks the account and
// project against the key (a mismatch is 401, as an unknown key).
func (a *API) readEventTarget(c *gin.Context) (engine.EventTarget, error) {
	params := map[string]string{}
	for _, p := range eventParams {
		v := c.Query(p.Name)
		if v == "" {
			return engine.EventTarget{}, &engine.Error{Kind: engine.KindInvalid, Message: fmt.Sprintf(engine.MsgEventParamMissing, p.Name)}
		}
		params[p.Name] = v
	}
	loc := params["event_id_location"]
	if !slices.Contains(engine.EventLocations, loc) {
		return engine.EventTarget{}, &engine.Error{Kind: engine.KindInvalid, Message: engine.MsgEventLocation}
	}
	return a.ResolveEventTarget(principal(c), loc, params["event_id_path"], params["account_id"], params["project_id"])
}

// eventID extracts and checks the event id from where the target says.
func eventID(c *gin.Context, t engine.EventTarget, ctype string, body []byte, parsed any) (string, error) {
	var id string
	var found bool
	switch t.Location {
	case "headers":
		if vs := c.Request.Header.Values(t.Path); len(vs) > 0 {
			id, found = vs[0], true
		}
	case "querystring":
		if vs, ok := c.Request.URL.Query()[t.Path]; ok && len(vs) > 0 {
			id, found = vs[0], true
		}
	default:
		var err error
		if id, found, err = engine.EventIDFromPayload(ctype, body, parsed, t.Path); err != nil {
			return "", err
		}
	}
	if !found {
		return "", &engine.Error{Kind: engine.KindInvalid, Message: engine.MsgEventIDNotFound}
	}
	if !engine.ValidEventID(id) {
		return "", &engine.Error{Kind: engine.KindInvalid, Message: engine.MsgEventIDInvalid}
	}
	return id, nil
}
