package engine

// Webhook endpoints (docs/api.md#webhook-endpoints; docs/fidelity.md G2,
// G10, G22): account-scoped "webhook_endpoint" documents. Deliveries are
// in webhooks_delivery.go.

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// WebhookIDRE is the form of a webhook endpoint id.
var WebhookIDRE = regexp.MustCompile(`^whe_[A-Za-z0-9]+$`)

var WebhookRules = map[string]FieldRule{
	"name": {Required: true, MinLen: 1, MaxLen: 255},
	"url": {Required: true, Pattern: webhookURLRE, Doc: "An absolute http or https URL.",
		Fidelity: &Fidelity{ID: "G2", Switch: switchWebhookURL, Value: "https", Note: "https only"}},
	"event_types": {Required: true, Enum: WebhookEventTypes, MinItems: 1},
	"headers":     {Doc: "Added to every delivery."},
	"timeout_ms":  {Min: I64(MinWebhookTimeoutMS), Max: I64(MaxWebhookTimeoutMS), Doc: fmt.Sprintf("Default %d.", defaultWebhookTimeoutMS)},
	"enabled":     {Doc: "Default true."},
}

// webhookURLRE is a url's form: absolute http(s) with a host.
var webhookURLRE = regexp.MustCompile(`^[hH][tT][tT][pP][sS]?://[^/?#]`)

// webhooksState is the delivery log and the attempts in flight.
type webhooksState struct {
	// mu serialises endpoint inserts and deletes (held across store calls)
	// and guards the fields below.
	mu  sync.Mutex
	log []DeliveryAttempt
	// client sends the deliveries (newDeliveryClient); net is how it resolves
	// and dials (tests replace it); allow is the instance's target allow-list.
	client *http.Client
	net    TargetNet
	allow  *scenario.HostList
}

// resetWebhooks empties the delivery log.
func (a *Engine) resetWebhooks() {
	a.webhooks.mu.Lock()
	a.webhooks.log = nil
	a.webhooks.mu.Unlock()
}

// Webhook event types (docs/api.md#webhook-endpoints).
const (
	EventAlertsTriggered = "alerts.triggered"
	EventAlertsResolved  = "alerts.resolved"
)

// WebhookEventTypes is scenario's list of event types.
var WebhookEventTypes = scenario.WebhookEvents

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

// switchWebhookURL selects the url rule (G2): "any" (default, so tests can
// use http receivers) or "https".
const switchWebhookURL = "webhook_url"

// Webhook endpoint defaults and bounds (docs/fidelity.md G2).
const (
	defaultWebhookTimeoutMS = 5000
	MinWebhookTimeoutMS     = scenario.WebhookTimeoutMinMS
	MaxWebhookTimeoutMS     = scenario.WebhookTimeoutMaxMS
)

// DocWebhook is the store kind of webhook endpoints.
const DocWebhook = "webhook_endpoint"

// EndpointRecord is the stored endpoint. Secret is shown only on create and
// rotate.
type EndpointRecord struct {
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

func (e *EndpointRecord) subscribes(eventType string) bool {
	return slices.Contains(e.EventTypes, eventType)
}

func dedupe(list []string) []string {
	var out []string
	for _, s := range list {
		if !slices.Contains(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// webhookLimit is the account's endpoint limit (docs/fidelity.md G22: 10).
func (w *View) webhookLimit() int {
	if n := w.sc.Limits.WebhookEndpoints; n > 0 {
		return n
	}
	return 10
}

func (a *Engine) newSigningSecret() string { return a.NewID("whsec_", Base62, 32) }

func errWebhookNotFound() error { return Errf(KindNotFound, CodeWebhookNotFound, MsgWebhookNotFound) }

// GetWebhook reads an endpoint of the principal's account.
func (a *Engine) GetWebhook(p *Principal, id string) (*EndpointRecord, error) {
	var e EndpointRecord
	if err := a.store.GetDoc(DocWebhook, p.Region, id, &e); err != nil {
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

func (a *Engine) updateWebhook(p *Principal, id string, fn func(e *EndpointRecord)) (*EndpointRecord, error) {
	var e EndpointRecord
	err := a.store.UpdateDoc(DocWebhook, p.Region, id, &e, func() error {
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

func (a *Engine) listWebhooks(region, account string) ([]*EndpointRecord, error) {
	var out []*EndpointRecord
	err := store.ListDocs(a.store, DocWebhook, region, func(_ string, e *EndpointRecord) bool {
		if e.AccountID == account {
			out = append(out, e)
		}
		return true
	})
	return out, err
}

// WebhookQuery is the list filters (nil, "": any).
type WebhookQuery struct {
	Enabled   *bool
	EventType string
}

// ListWebhooks lists the account's endpoints that q keeps, in id order.
func (a *Engine) ListWebhooks(p *Principal, q WebhookQuery) ([]*EndpointRecord, error) {
	list, err := a.listWebhooks(p.Region, p.Account.ID)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(list, func(e *EndpointRecord) bool {
		return q.Enabled != nil && e.Enabled != *q.Enabled || q.EventType != "" && !e.subscribes(q.EventType)
	}), nil
}

// WebhookInput is the fields of a create or an update, checked by the edge
// (the url by CheckTargetURL). Nil slices and maps are not given.
type WebhookInput struct {
	Name       *string
	URL        *string
	EventTypes []string
	Headers    map[string]string
	TimeoutMS  *int64
	Enabled    *bool
}

func (in *WebhookInput) apply(e *EndpointRecord) {
	setIf(&e.Name, in.Name)
	setIf(&e.URL, in.URL)
	if in.EventTypes != nil {
		e.EventTypes = dedupe(in.EventTypes)
	}
	if in.Headers != nil {
		e.Headers = in.Headers
	}
	setIf(&e.TimeoutMS, in.TimeoutMS)
	setIf(&e.Enabled, in.Enabled)
}

// CreateWebhook stores a new endpoint with a fresh signing secret; 409 at
// the account's limit (G22).
func (a *Engine) CreateWebhook(p *Principal, in WebhookInput) (*EndpointRecord, error) {
	now := FmtAlertTime(a.clock.Now())
	e := EndpointRecord{AccountID: p.Account.ID, Enabled: true, Headers: map[string]string{},
		TimeoutMS: defaultWebhookTimeoutMS, CreatedAt: now, UpdatedAt: now}
	in.apply(&e)
	a.webhooks.mu.Lock()
	defer a.webhooks.mu.Unlock()
	n, err := a.countAccountDocs(DocWebhook, p.Region, p.Account.ID)
	if err != nil {
		return nil, err
	}
	if n >= a.View().webhookLimit() {
		return nil, a.ErrWebhookLimit()
	}
	e.Secret = a.newSigningSecret()
	if err := a.insertWithNewID(DocWebhook, p.Region, "whe_", &e.ID, &e); err != nil {
		return nil, err
	}
	a.RecordTransition(MachineWebhookEndpoint, "", endpointState(e.Enabled))
	return &e, nil
}

// UpdateWebhook changes the fields in gives.
func (a *Engine) UpdateWebhook(p *Principal, id string, in WebhookInput) (*EndpointRecord, error) {
	now := FmtAlertTime(a.clock.Now())
	var was bool
	e, err := a.updateWebhook(p, id, func(e *EndpointRecord) {
		was = e.Enabled
		in.apply(e)
		e.UpdatedAt = now
	})
	if err == nil && e.Enabled != was {
		a.RecordTransition(MachineWebhookEndpoint, endpointState(was), endpointState(e.Enabled))
	}
	return e, err
}

// RotateWebhookSecret gives an endpoint a new signing secret; the old one
// is invalid at once (G16).
func (a *Engine) RotateWebhookSecret(p *Principal, id string) (string, error) {
	secret := a.newSigningSecret()
	now := FmtAlertTime(a.clock.Now())
	if _, err := a.updateWebhook(p, id, func(e *EndpointRecord) {
		e.Secret = secret
		e.UpdatedAt = now
	}); err != nil {
		return "", err
	}
	return secret, nil
}

// DeleteWebhook deletes an endpoint of the principal's account.
func (a *Engine) DeleteWebhook(p *Principal, id string) error {
	a.webhooks.mu.Lock()
	defer a.webhooks.mu.Unlock()
	cur, err := a.GetWebhook(p, id)
	if err != nil {
		return err
	}
	if err := a.store.DeleteDoc(DocWebhook, p.Region, id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errWebhookNotFound()
		}
		return err
	}
	a.RecordTransition(MachineWebhookEndpoint, endpointState(cur.Enabled), "deleted")
	return nil
}

// ErrWebhookLimit is the 409 of an account at its endpoint limit.
func (a *Engine) ErrWebhookLimit() error {
	return Errf(KindConflict, CodeWebhookLimit, "%s", msgWebhookLimit(a.View().webhookLimit()))
}

// SetTargetNet replaces how deliveries resolve and dial (tests). Call it
// before any delivery.
func (a *Engine) SetTargetNet(n TargetNet) { a.webhooks.net = n }

// WebhookEndpoint is an endpoint as the console shows it: no secret,
// header names only, and the URL without a password.
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
func (a *Engine) WebhookEndpoints() ([]WebhookEndpoint, error) {
	var out []WebhookEndpoint
	for _, region := range scenario.Regions {
		err := store.ListDocs(a.store, DocWebhook, region, func(_ string, e *EndpointRecord) bool {
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
