package handlers

// Webhook endpoints (docs/api.md#webhook-endpoints; docs/fidelity.md G2,
// G10, G22). Endpoints are account-scoped and live in the account's region
// partition as "webhook_endpoint" documents. Signed deliveries are in
// engine_webhooks.go.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
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
}

// webhooksRoutes are its routes.
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
		Body: webhookBody{}, Responses: []Response{ok(201, engine.WebhookView{})}, Errors: []int{400, 409}}
	opWebhookList = &Op{ID: "webhookEndpointList", Summary: "List webhook endpoints",
		Query:     []Param{{Name: "enabled", Type: "boolean"}, {Name: "event_type", Enum: engine.WebhookEventTypes}},
		Responses: []Response{ok(200, engine.WebhookList{})}, Errors: []int{400}}
	opWebhookGet = &Op{ID: "webhookEndpointGet", Summary: "Read a webhook endpoint",
		Path: webhookPath, Responses: []Response{ok(200, engine.WebhookView{})}, Errors: []int{404, 422}}
	opWebhookUpdate = &Op{ID: "webhookEndpointUpdate", Summary: "Update a webhook endpoint",
		Path: webhookPath, Body: webhookBody{}, BodyPartial: true,
		Responses: []Response{ok(200, engine.WebhookView{})}, Errors: []int{400, 404, 422}}
	opWebhookDelete = &Op{ID: "webhookEndpointDelete", Summary: "Delete a webhook endpoint",
		Path: webhookPath, Responses: []Response{{Status: 204}}, Errors: []int{404, 422}}
	opWebhookRotate = &Op{ID: "webhookEndpointRotateSecret", Summary: "Rotate the signing secret",
		Doc:  "A new signing secret, shown once; deliveries sign with it from now on.",
		Path: webhookPath, Responses: []Response{ok(200, engine.WebhookSecret{})}, Errors: []int{404, 422}}

	webhookPath = []Param{{Name: "endpoint", Pattern: engine.WebhookIDRE, Doc: "The endpoint's id (whe_...); another form is 422."}}
)

// webhookBody is the body of a webhook endpoint create (the required
// fields) or update (any of them); readWebhook reads it field by field.
type webhookBody struct {
	Name       string            `json:"name"`
	URL        string            `json:"url"`
	EventTypes []string          `json:"event_types"`
	Headers    map[string]string `json:"headers"`
	TimeoutMS  int64             `json:"timeout_ms"`
	Enabled    bool              `json:"enabled"`
}

func (webhookBody) FieldRules() map[string]engine.FieldRule { return engine.WebhookRules }

var webhookFields = engine.BodyFields(webhookBody{})

// readWebhook validates the fields of a create (all required ones) or PATCH
// (those given) into e.
func (a *API) readWebhook(f *fieldBody, e *engine.EndpointRecord, create bool) {
	if create {
		f.requireAll(webhookBody{})
	}
	if s, ok := f.text("name", engine.WebhookRules["name"]); ok {
		e.Name = s
	}
	if s, ok := f.str("url"); ok {
		u, err := url.Parse(s)
		httpsOnly := a.World().Fidelity(engine.SwitchWebhookURL) == "https"
		switch {
		case err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
			f.fail("url", "must be an absolute http or https URL")
		case httpsOnly && u.Scheme != "https":
			f.fail("url", "must start with https://")
		default:
			if err := a.CheckTargetURL(u); err != nil {
				f.fail("url", "%v", err)
				break
			}
			e.URL = s
		}
	}
	if r, ok := f.raw["event_types"]; ok {
		var list []string
		unknown := func(t string) bool { return !engine.ContainsStr(engine.WebhookEventTypes, t) }
		if err := json.Unmarshal(r, &list); err != nil || len(list) == 0 || slices.ContainsFunc(list, unknown) {
			f.fail("event_types", "must be a non-empty array of: %s", strings.Join(engine.WebhookEventTypes, ", "))
		} else {
			e.EventTypes = engine.Dedupe(list)
		}
	}
	if f.has("headers") {
		var h map[string]string
		if f.object("headers", &h, "must be an object of string values") {
			e.Headers = h
		}
	}
	if n, ok := f.whole("timeout_ms", engine.WebhookRules["timeout_ms"],
		fmt.Sprintf("must be an integer from %d to %d", engine.MinWebhookTimeoutMS, engine.MaxWebhookTimeoutMS)); ok {
		e.TimeoutMS = n
	}
	if b, ok := f.boolean("enabled"); ok {
		e.Enabled = b
	}
}

// handleWebhookCreate handles "POST {builder}/v1/webhook-endpoints" (201,
// with signing_secret once).
func (a *API) handleWebhookCreate(c *gin.Context) error {
	p := principal(c)
	f, err := readFields(c, false, webhookFields...)
	if err != nil {
		return err
	}
	now := engine.FmtAlertTime(a.Clock().Now())
	e := engine.EndpointRecord{AccountID: p.Account.ID, Enabled: true, Headers: map[string]string{},
		TimeoutMS: engine.DefaultWebhookTimeoutMS, CreatedAt: now, UpdatedAt: now}
	a.readWebhook(f, &e, true)
	if err := f.err(); err != nil {
		return err
	}
	a.Webhooks.Mu.Lock()
	defer a.Webhooks.Mu.Unlock()
	n, err := a.CountAccountDocs(engine.DocWebhook, p.Region, p.Account.ID)
	if err != nil {
		return err
	}
	if limit := a.World().WebhookLimit(); n >= limit {
		return engine.Errf(engine.KindConflict, engine.CodeWebhookLimit, "%s", engine.MsgWebhookLimit(limit))
	}
	e.Secret = a.NewSigningSecret()
	for range 5 {
		e.ID = a.NewID("whe_", engine.Base62, 22)
		err = a.Store().InsertDoc(engine.DocWebhook, p.Region, e.ID, &e)
		if !errors.Is(err, store.ErrExists) {
			break
		}
	}
	if err != nil {
		return err
	}
	v := e.View()
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
	c.JSON(http.StatusOK, e.View())
	return nil
}

// handleWebhookList handles "GET {builder}/v1/webhook-endpoints" with the
// filters enabled and event_type (docs/fidelity.md G10): unpaginated
// {"data": [...]}.
func (a *API) handleWebhookList(c *gin.Context) error {
	p := principal(c)
	var errs []engine.FieldError
	enabled := boolQuery(c, "enabled", &errs)
	eventType, hasType := enumQuery(c, "event_type", engine.WebhookEventTypes, &errs)
	if errs != nil {
		return engine.Invalid(engine.CodeValidation, engine.MsgValidationFailed, errs...)
	}
	list, err := a.ListWebhooks(p.Region, p.Account.ID)
	if err != nil {
		return err
	}
	data := []engine.WebhookView{}
	for _, e := range list {
		if enabled != nil && e.Enabled != *enabled || hasType && !e.Subscribes(eventType) {
			continue
		}
		data = append(data, e.View())
	}
	c.JSON(http.StatusOK, engine.WebhookList{Data: data})
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
	var scratch engine.EndpointRecord
	a.readWebhook(f, &scratch, false)
	if err := f.err(); err != nil {
		return err
	}
	now := engine.FmtAlertTime(a.Clock().Now())
	e, err := a.UpdateWebhook(p, id, func(e *engine.EndpointRecord) {
		a.readWebhook(&fieldBody{raw: f.raw}, e, false)
		e.UpdatedAt = now
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, e.View())
	return nil
}

// handleWebhookDelete handles "DELETE {builder}/v1/webhook-endpoints/{endpoint_id}" (204).
func (a *API) handleWebhookDelete(c *gin.Context) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	p := principal(c)
	a.Webhooks.Mu.Lock()
	defer a.Webhooks.Mu.Unlock()
	if _, err := a.GetWebhook(p, id); err != nil {
		return err
	}
	if err := a.Store().DeleteDoc(engine.DocWebhook, p.Region, id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return engine.ErrWebhookNotFound()
		}
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// handleWebhookRotate handles "POST {builder}/v1/webhook-endpoints/{endpoint_id}/rotate-secret":
// a new secret, returned once; the old one is invalid at once
// (docs/fidelity.md G16).
func (a *API) handleWebhookRotate(c *gin.Context) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	p := principal(c)
	secret := a.NewSigningSecret()
	now := engine.FmtAlertTime(a.Clock().Now())
	if _, err := a.UpdateWebhook(p, id, func(e *engine.EndpointRecord) {
		e.Secret = secret
		e.UpdatedAt = now
	}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, engine.WebhookSecret{SigningSecret: secret})
	return nil
}
