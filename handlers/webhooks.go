package handlers

// Webhook endpoints (docs/api.md#webhook-endpoints; docs/fidelity.md G2,
// G10, G22); the domain and deliveries are the engine's (engine/webhooks*.go).

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/scenario"
)

// famWebhooks is webhook endpoints, which receive signed alert
// notifications (docs/api.md#webhooks).
var famWebhooks = &Family{
	Name: "webhooks", Base: "builder", Shape: shapeBuilder,
	Credential: scenario.KindBuilder, Headers: []string{"X-Api-Key"},
	Marks:    []string{"/webhook-endpoints"},
	Doc:      "Addresses that receive signed alert notifications (docs/api.md#webhooks).",
	Schemes:  builderSchemes,
	Security: [][]string{{"builderKey"}},
	Routes:   webhooksRoutes,
	Counts:   []Counted{countDocs("webhook endpoints", engine.DocWebhook)},

	Codes: []ErrorCode{
		{Status: 400, Code: engine.CodeValidation},
		{Status: 404, Code: engine.CodeWebhookNotFound, In: "/:endpoint"},
		{Status: 409, Code: engine.CodeWebhookLimit},
		{Status: 422, Code: engine.CodeWebhookInvalidID},
	},
	Machines:    []*Machine{engine.MachineWebhookEndpoint, engine.MachineWebhookDelivery},
	ClockEvents: []ClockEvent{engine.ClockWebhooksAttempt, engine.ClockWebhooksRetry},
}

var webhooksRoutes = []Route{
	route("POST /v1/webhook-endpoints", (*API).handleWebhookCreate, opWebhookCreate),
	route("GET /v1/webhook-endpoints", (*API).handleWebhookList, opWebhookList),
	route("GET /v1/webhook-endpoints/:endpoint", (*API).handleWebhookGet, opWebhookGet),
	route("PATCH /v1/webhook-endpoints/:endpoint", (*API).handleWebhookUpdate, opWebhookUpdate),
	route("DELETE /v1/webhook-endpoints/:endpoint", (*API).handleWebhookDelete, opWebhookDelete),
	route("POST /v1/webhook-endpoints/:endpoint/rotate-secret", (*API).handleWebhookRotate, opWebhookRotate),
}

var (
	opWebhookCreate = &Op{ID: "webhookEndpointCreate", Summary: "Create a webhook endpoint",
		Doc: "An address that receives signed alert notifications; the answer carries the signing secret, " +
			"the only time it is shown (docs/api.md#webhook-endpoints).",
		Body: webhookBody{}, Responses: []Response{ok(201, webhookView{})}, Errors: []int{400, 409}}
	opWebhookList = &Op{ID: "webhookEndpointList", Summary: "List webhook endpoints",
		Query:     []Param{{Name: "enabled", Type: "boolean"}, {Name: "event_type", Enum: engine.WebhookEventTypes}},
		Responses: []Response{ok(200, webhookList{})}, Errors: []int{400}}
	opWebhookGet = &Op{ID: "webhookEndpointGet", Summary: "Read a webhook endpoint",
		Path: webhookPath, Responses: []Response{ok(200, webhookView{})}, Errors: []int{404, 422}}
	opWebhookUpdate = &Op{ID: "webhookEndpointUpdate", Summary: "Update a webhook endpoint",
		Path: webhookPath, Body: webhookBody{}, BodyPartial: true,
		Responses: []Response{ok(200, webhookView{})}, Errors: []int{400, 404, 422}}
	opWebhookDelete = &Op{ID: "webhookEndpointDelete", Summary: "Delete a webhook endpoint",
		Path: webhookPath, Responses: []Response{{Status: 204}}, Errors: []int{404, 422}}
	opWebhookRotate = &Op{ID: "webhookEndpointRotateSecret", Summary: "Rotate the signing secret",
		Doc:  "A new signing secret, shown once; deliveries sign with it from now on.",
		Path: webhookPath, Responses: []Response{ok(200, webhookSecret{})}, Errors: []int{404, 422}}

	webhookPath = []Param{{Name: "endpoint", Pattern: engine.WebhookIDRE, Doc: "The endpoint's id (whe_...); another form is 422."}}
)

// webhookBody is the body of an endpoint create or update.
type webhookBody struct {
	Name       string            `json:"name"`
	URL        string            `json:"url"`
	EventTypes []string          `json:"event_types"`
	Headers    map[string]string `json:"headers"`
	TimeoutMS  int64             `json:"timeout_ms"`
	Enabled    bool              `json:"enabled"`
}

func (webhookBody) FieldRules() map[string]engine.FieldRule { return engine.WebhookRules }

// webhookView is an endpoint as the API shows it (docs/fidelity.md G2);
// signing_secret only in the answers of create and rotate.
type webhookView struct {
	ID            string            `json:"id"`
	Name          string            `json:"name"`
	URL           string            `json:"url"`
	Enabled       bool              `json:"enabled"`
	EventTypes    []string          `json:"event_types"`
	Headers       map[string]string `json:"headers"`
	TimeoutMS     int64             `json:"timeout_ms"`
	CreatedAt     string            `json:"created_at"`
	UpdatedAt     string            `json:"updated_at"`
	SigningSecret string            `json:"signing_secret,omitempty"`
}

type (
	webhookList struct {
		Data []webhookView `json:"data"`
	}
	webhookSecret struct {
		SigningSecret string `json:"signing_secret"`
	}
)

// viewWebhook is the view of a stored endpoint, without its secret.
func viewWebhook(e *engine.EndpointRecord) webhookView {
	h := e.Headers
	if h == nil {
		h = map[string]string{}
	}
	return webhookView{ID: e.ID, Name: e.Name, URL: e.URL, Enabled: e.Enabled, EventTypes: e.EventTypes,
		Headers: h, TimeoutMS: e.TimeoutMS, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
}

var webhookFields = engine.BodyFields(webhookBody{})

// readWebhook validates the fields of a create or PATCH into the engine's
// input; the url is checked here so its error comes with the others.
func (a *API) readWebhook(f *fieldBody, create bool) engine.WebhookInput {
	var in engine.WebhookInput
	if create {
		f.requireAll(webhookBody{})
	}
	if s, ok := f.text("name", engine.WebhookRules["name"]); ok {
		in.Name = &s
	}
	if s, ok := f.str("url"); ok {
		if err := a.CheckWebhookURL(s); err != nil {
			f.fail("url", "%v", err)
		} else {
			in.URL = &s
		}
	}
	if r, ok := f.raw["event_types"]; ok {
		var list []string
		unknown := func(t string) bool { return !slices.Contains(engine.WebhookEventTypes, t) }
		if err := json.Unmarshal(r, &list); err != nil || len(list) == 0 || slices.ContainsFunc(list, unknown) {
			f.fail("event_types", "must be a non-empty array of: %s", strings.Join(engine.WebhookEventTypes, ", "))
		} else {
			in.EventTypes = list
		}
	}
	if f.has("headers") {
		var h map[string]string
		if f.object("headers", &h, "must be an object of string values") {
			in.Headers = h
		}
	}
	if n, ok := f.whole("timeout_ms", engine.WebhookRules["timeout_ms"],
		fmt.Sprintf("must be an integer from %d to %d", engine.MinWebhookTimeoutMS, engine.MaxWebhookTimeoutMS)); ok {
		in.TimeoutMS = &n
	}
	if b, ok := f.boolean("enabled"); ok {
		in.Enabled = &b
	}
	return in
}

// handleWebhookCreate handles "POST {builder}/v1/webhook-endpoints".
func (a *API) handleWebhookCreate(c *gin.Context) error {
	p := principal(c)
	f, err := readFields(c, false, webhookFields...)
	if err != nil {
		return err
	}
	in := a.readWebhook(f, true)
	if err := f.err(); err != nil {
		return err
	}
	e, err := a.CreateWebhook(p, in)
	if err != nil {
		return err
	}
	v := viewWebhook(e)
	v.SigningSecret = e.Secret
	c.JSON(http.StatusCreated, v)
	return nil
}

func webhookID(c *gin.Context) (string, error) {
	id := c.Param("endpoint")
	if !engine.WebhookIDRE.MatchString(id) {
		return "", engine.Errf(engine.KindUnprocessable, engine.CodeWebhookInvalidID, engine.MsgWebhookInvalidID)
	}
	return id, nil
}

// handleWebhookGet handles "GET {builder}/v1/webhook-endpoints/{endpoint_id}".
func (a *API) handleWebhookGet(c *gin.Context) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	e, err := a.GetWebhook(principal(c), id)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, viewWebhook(e))
	return nil
}

// handleWebhookList handles "GET {builder}/v1/webhook-endpoints"
// (docs/fidelity.md G10).
func (a *API) handleWebhookList(c *gin.Context) error {
	var errs []engine.FieldError
	var q engine.WebhookQuery
	q.Enabled = boolQuery(c, "enabled", &errs)
	q.EventType, _ = enumQuery(c, "event_type", engine.WebhookEventTypes, &errs)
	if errs != nil {
		return engine.Invalid(engine.CodeValidation, engine.MsgValidationFailed, errs...)
	}
	list, err := a.ListWebhooks(principal(c), q)
	if err != nil {
		return err
	}
	data := []webhookView{}
	for _, e := range list {
		data = append(data, viewWebhook(e))
	}
	c.JSON(http.StatusOK, webhookList{Data: data})
	return nil
}

// handleWebhookUpdate handles "PATCH {builder}/v1/webhook-endpoints/{endpoint_id}".
func (a *API) handleWebhookUpdate(c *gin.Context) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	p := principal(c)
	f, err := readFields(c, false, webhookFields...)
	if err != nil {
		return err
	}
	in := a.readWebhook(f, false)
	if err := f.err(); err != nil {
		return err // nothing changes on a 400
	}
	e, err := a.UpdateWebhook(p, id, in)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, viewWebhook(e))
	return nil
}

// handleWebhookDelete handles "DELETE {builder}/v1/webhook-endpoints/{endpoint_id}" (204).
func (a *API) handleWebhookDelete(c *gin.Context) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	if err := a.DeleteWebhook(principal(c), id); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// handleWebhookRotate handles "POST {builder}/v1/webhook-endpoints/{endpoint_id}/rotate-secret"
// (docs/fidelity.md G16).
func (a *API) handleWebhookRotate(c *gin.Context) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	secret, err := a.RotateWebhookSecret(principal(c), id)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, webhookSecret{SigningSecret: secret})
	return nil
}
