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
	"regexp"
	"slices"
	"strings"
	"sync"

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
	Counts:   []Counted{countDocs("webhook endpoints", docWebhook)},
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
		Body: webhookBody{}, Responses: []Response{ok(201, webhookView{})}, Errors: []int{400, 409}}
	opWebhookList = &Op{ID: "webhookEndpointList", Summary: "List webhook endpoints",
		Query:     []Param{{Name: "enabled", Type: "boolean"}, {Name: "event_type", Enum: webhookEventTypes}},
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

	webhookPath = []Param{{Name: "endpoint", Pattern: webhookIDRE, Doc: "The endpoint's id (whe_...); another form is 422."}}
)

// webhookIDRE is the form of a webhook endpoint id.
var webhookIDRE = regexp.MustCompile(`^whe_[A-Za-z0-9]+$`)

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

func (webhookBody) FieldRules() map[string]FieldRule { return webhookRules }

var webhookRules = map[string]FieldRule{
	"name": {Required: true, MinLen: 1, MaxLen: 255},
	"url": {Required: true, Pattern: webhookURLRE, Doc: "An absolute http or https URL.",
		Fidelity: &Fidelity{ID: "G2", Switch: switchWebhookURL, Value: "https", Note: "https only"}},
	"event_types": {Required: true, Enum: webhookEventTypes, MinItems: 1},
	"headers":     {Doc: "Added to every delivery."},
	"timeout_ms":  {Min: i64(minWebhookTimeoutMS), Max: i64(maxWebhookTimeoutMS), Doc: fmt.Sprintf("Default %d.", DefaultWebhookTimeoutMS)},
	"enabled":     {Doc: "Default true."},
}

// webhookURLRE is the form the document gives a url (readWebhook parses
// it: an absolute http or https URL with a host).
var webhookURLRE = regexp.MustCompile(`^[hH][tT][tT][pP][sS]?://[^/?#]`)

type (
	webhookList struct {
		Data []webhookView `json:"data"`
	}
	webhookSecret struct {
		SigningSecret string `json:"signing_secret"`
	}
)

// webhooksState is the webhooks family's in-memory state: the delivery log
// and the attempts in flight (engine_webhooks.go).
type webhooksState struct {
	// mu serialises the count-then-insert (and delete) of endpoints, whose
	// per-account limit is checked against the store (held across store
	// calls), and guards the fields below.
	mu  sync.Mutex
	log []DeliveryAttempt
	// client sends the deliveries (newDeliveryClient: no proxy, no
	// redirects, no connection kept between attempts, connections through
	// dialTarget); net is how it resolves and dials (tests replace it);
	// allow is the instance's allow-list of targets (Config.WebhookTargets;
	// set by Open, read-only after).
	client *http.Client
	net    targetNet
	allow  *scenario.HostList
}

// resetWebhooks empties the delivery log; attempts of the earlier
// generation stop (engine_webhooks.go).
func (a *API) resetWebhooks() {
	a.webhooks.mu.Lock()
	a.webhooks.log = nil
	a.webhooks.mu.Unlock()
}

// Webhook event types (docs/api.md#webhook-endpoints).
const (
	EventAlertsTriggered = "alerts.triggered"
	EventAlertsResolved  = "alerts.resolved"
)

// webhookEventTypes is scenario's list, which the scenario loader reads too.
var webhookEventTypes = scenario.WebhookEvents

// Webhook messages and codes that tests compare.
const (
	CodeWebhookNotFound  = "WEBHOOK_ENDPOINT_NOT_FOUND"
	CodeWebhookInvalidID = "INVALID_WEBHOOK_ENDPOINT_ID"
	CodeWebhookLimit     = "WEBHOOK_ENDPOINT_LIMIT_EXCEEDED"

	MsgWebhookNotFound  = "Webhook endpoint not found."
	MsgWebhookInvalidID = "Malformed webhook endpoint id: want whe_ followed by letters and digits."
)

func msgWebhookLimit(n int) string {
	return fmt.Sprintf("Maximum number of webhook endpoints (%d) reached", n)
}

// switchWebhookURL selects the url rule: "any" (default: http or https,
// so that tests can use plain-http httptest receivers) or "https" (the
// OAS pattern ^https://). G2.
const switchWebhookURL = "webhook_url"

// Webhook endpoint defaults and bounds (docs/fidelity.md G2).
const (
	DefaultWebhookTimeoutMS = 5000
	minWebhookTimeoutMS     = scenario.WebhookTimeoutMinMS
	maxWebhookTimeoutMS     = scenario.WebhookTimeoutMaxMS
)

// docWebhook is the store kind of webhook endpoints.
const docWebhook = "webhook_endpoint"

// webhookEndpoint is the stored endpoint. Secret is never shown after
// create and rotate.
type webhookEndpoint struct {
	ID         string            `json:"id"`
	AccountID  string            `json:"account_id"`
	Name       string            `json:"name"`
	URL        string            `json:"url"`
	Enabled    bool              `json:"enabled"`
	EventTypes []string          `json:"event_types"`
	Headers    map[string]string `json:"headers"`
	TimeoutMS  int64             `json:"timeout_ms"`
	CreatedAt  string            `json:"created_at"`
	UpdatedAt  string            `json:"updated_at"`
	Secret     string            `json:"secret"`
}

// webhookView is an endpoint as the API shows it (docs/fidelity.md G2).
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

func (e *webhookEndpoint) view() webhookView {
	h := e.Headers
	if h == nil {
		h = map[string]string{}
	}
	return webhookView{ID: e.ID, Name: e.Name, URL: e.URL, Enabled: e.Enabled, EventTypes: e.EventTypes,
		Headers: h, TimeoutMS: e.TimeoutMS, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
}

func (e *webhookEndpoint) subscribes(eventType string) bool {
	return containsStr(e.EventTypes, eventType)
}

var webhookFields = bodyFields(webhookBody{})

// readWebhook validates the fields of a create (all required ones) or PATCH
// (those given) into e.
func (a *API) readWebhook(f *fieldBody, e *webhookEndpoint, create bool) {
	if create {
		f.requireAll(webhookBody{})
	}
	if s, ok := f.text("name", webhookRules["name"]); ok {
		e.Name = s
	}
	if s, ok := f.str("url"); ok {
		u, err := url.Parse(s)
		httpsOnly := a.world().fidelity(switchWebhookURL) == "https"
		switch {
		case err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
			f.fail("url", "must be an absolute http or https URL")
		case httpsOnly && u.Scheme != "https":
			f.fail("url", "must start with https://")
		default:
			if err := a.checkTargetURL(u); err != nil {
				f.fail("url", "%v", err)
				break
			}
			e.URL = s
		}
	}
	if r, ok := f.raw["event_types"]; ok {
		var list []string
		unknown := func(t string) bool { return !containsStr(webhookEventTypes, t) }
		if err := json.Unmarshal(r, &list); err != nil || len(list) == 0 || slices.ContainsFunc(list, unknown) {
			f.fail("event_types", "must be a non-empty array of: %s", strings.Join(webhookEventTypes, ", "))
		} else {
			e.EventTypes = dedupe(list)
		}
	}
	if f.has("headers") {
		var h map[string]string
		if f.object("headers", &h, "must be an object of string values") {
			e.Headers = h
		}
	}
	if n, ok := f.whole("timeout_ms", webhookRules["timeout_ms"],
		fmt.Sprintf("must be an integer from %d to %d", minWebhookTimeoutMS, maxWebhookTimeoutMS)); ok {
		e.TimeoutMS = n
	}
	if b, ok := f.boolean("enabled"); ok {
		e.Enabled = b
	}
}

func dedupe(list []string) []string {
	var out []string
	for _, s := range list {
		if !containsStr(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// webhookLimit is the account's endpoint limit (docs/fidelity.md G22: 10).
func (w *World) webhookLimit() int {
	if n := w.sc.Limits.WebhookEndpoints; n > 0 {
		return n
	}
	return 10
}

// newSigningSecret returns a fresh secret: whsec_ + 32 base62 [INF].
func (a *API) newSigningSecret() string { return a.newID("whsec_", base62, 32) }

// handleWebhookCreate handles "POST {builder}/v1/webhook-endpoints" (201,
// with signing_secret once).
func (a *API) handleWebhookCreate(c *gin.Context) error {
	p := principal(c)
	f, err := readFields(c, false, webhookFields...)
	if err != nil {
		return err
	}
	now := fmtAlertTime(a.clock.Now())
	e := webhookEndpoint{AccountID: p.Account.ID, Enabled: true, Headers: map[string]string{},
		TimeoutMS: DefaultWebhookTimeoutMS, CreatedAt: now, UpdatedAt: now}
	a.readWebhook(f, &e, true)
	if err := f.err(); err != nil {
		return err
	}
	a.webhooks.mu.Lock()
	defer a.webhooks.mu.Unlock()
	n, err := a.countAccountDocs(docWebhook, p.Region, p.Account.ID)
	if err != nil {
		return err
	}
	if limit := a.world().webhookLimit(); n >= limit {
		return errf(KindConflict, CodeWebhookLimit, "%s", msgWebhookLimit(limit))
	}
	e.Secret = a.newSigningSecret()
	for range 5 {
		e.ID = a.newID("whe_", base62, 22)
		err = a.store.InsertDoc(docWebhook, p.Region, e.ID, &e)
		if !errors.Is(err, store.ErrExists) {
			break
		}
	}
	if err != nil {
		return err
	}
	v := e.view()
	v.SigningSecret = e.Secret
	c.JSON(http.StatusCreated, v)
	return nil
}

func webhookID(c *gin.Context) (string, error) {
	id := c.Param("endpoint")
	if !webhookIDRE.MatchString(id) {
		return "", errf(KindUnprocessable, CodeWebhookInvalidID, MsgWebhookInvalidID)
	}
	return id, nil
}

func errWebhookNotFound() error { return errf(KindNotFound, CodeWebhookNotFound, MsgWebhookNotFound) }

// getWebhook reads an endpoint of the principal's account (another
// account's endpoint is not found).
func (a *API) getWebhook(p *Principal, id string) (*webhookEndpoint, error) {
	var e webhookEndpoint
	if err := a.store.GetDoc(docWebhook, p.Region, id, &e); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, errWebhookNotFound()
		}
		return nil, err
	}
	if e.AccountID != p.Account.ID {
		return nil, errWebhookNotFound()
	}
	return &e, nil
}

// updateWebhook applies fn to an endpoint of the principal's account.
func (a *API) updateWebhook(p *Principal, id string, fn func(e *webhookEndpoint)) (*webhookEndpoint, error) {
	var e webhookEndpoint
	err := a.store.UpdateDoc(docWebhook, p.Region, id, &e, func() error {
		if e.AccountID != p.Account.ID {
			return errWebhookNotFound()
		}
		fn(&e)
		return nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, errWebhookNotFound()
	}
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// handleWebhookGet handles "GET {builder}/v1/webhook-endpoints/{endpoint_id}".
func (a *API) handleWebhookGet(c *gin.Context) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	e, err := a.getWebhook(principal(c), id)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, e.view())
	return nil
}

// handleWebhookList handles "GET {builder}/v1/webhook-endpoints" with the
// filters enabled and event_type (docs/fidelity.md G10): unpaginated
// {"data": [...]}.
func (a *API) handleWebhookList(c *gin.Context) error {
	p := principal(c)
	var errs []FieldError
	enabled := boolQuery(c, "enabled", &errs)
	eventType, hasType := enumQuery(c, "event_type", webhookEventTypes, &errs)
	if errs != nil {
		return invalid(CodeValidation, MsgValidationFailed, errs...)
	}
	list, err := a.listWebhooks(p.Region, p.Account.ID)
	if err != nil {
		return err
	}
	data := []webhookView{}
	for _, e := range list {
		if enabled != nil && e.Enabled != *enabled || hasType && !e.subscribes(eventType) {
			continue
		}
		data = append(data, e.view())
	}
	c.JSON(http.StatusOK, webhookList{Data: data})
	return nil
}

// listWebhooks reads an account's endpoints in id order.
func (a *API) listWebhooks(region, account string) ([]*webhookEndpoint, error) {
	var out []*webhookEndpoint
	err := store.ListDocs(a.store, docWebhook, region, func(_ string, e *webhookEndpoint) bool {
		if e.AccountID == account {
			out = append(out, e)
		}
		return true
	})
	return out, err
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
	var scratch webhookEndpoint
	a.readWebhook(f, &scratch, false)
	if err := f.err(); err != nil {
		return err
	}
	now := fmtAlertTime(a.clock.Now())
	e, err := a.updateWebhook(p, id, func(e *webhookEndpoint) {
		a.readWebhook(&fieldBody{raw: f.raw}, e, false)
		e.UpdatedAt = now
	})
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, e.view())
	return nil
}

// handleWebhookDelete handles "DELETE {builder}/v1/webhook-endpoints/{endpoint_id}" (204).
func (a *API) handleWebhookDelete(c *gin.Context) error {
	id, err := webhookID(c)
	if err != nil {
		return err
	}
	p := principal(c)
	a.webhooks.mu.Lock()
	defer a.webhooks.mu.Unlock()
	if _, err := a.getWebhook(p, id); err != nil {
		return err
	}
	if err := a.store.DeleteDoc(docWebhook, p.Region, id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errWebhookNotFound()
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
	secret := a.newSigningSecret()
	now := fmtAlertTime(a.clock.Now())
	if _, err := a.updateWebhook(p, id, func(e *webhookEndpoint) {
		e.Secret = secret
		e.UpdatedAt = now
	}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, webhookSecret{SigningSecret: secret})
	return nil
}

// WebhookEndpoint is a webhook endpoint as the console shows it: never
// its signing secret, its custom headers by name only (their values may
// be credentials) and its URL without a password.
type WebhookEndpoint struct {
	ID          string   `json:"id"`
	Region      string   `json:"region"`
	AccountID   string   `json:"account_id"`
	Name        string   `json:"name"`
	URL         string   `json:"url"`
	Enabled     bool     `json:"enabled"`
	EventTypes  []string `json:"event_types"`
	HeaderNames []string `json:"header_names,omitempty"`
	TimeoutMS   int64    `json:"timeout_ms"`
}

// WebhookEndpoints lists every webhook endpoint of every region.
func (a *API) WebhookEndpoints() ([]WebhookEndpoint, error) {
	var out []WebhookEndpoint
	for _, region := range scenario.Regions {
		err := store.ListDocs(a.store, docWebhook, region, func(_ string, e *webhookEndpoint) bool {
			v := WebhookEndpoint{ID: e.ID, Region: region, AccountID: e.AccountID, Name: e.Name, URL: scenario.RedactURL(e.URL),
				Enabled: e.Enabled, EventTypes: slices.Clone(e.EventTypes), TimeoutMS: e.TimeoutMS}
			for name := range e.Headers {
				v.HeaderNames = append(v.HeaderNames, name)
			}
			slices.SortFunc(v.HeaderNames, strings.Compare)
			out = append(out, v)
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
