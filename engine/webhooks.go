package engine

// Webhook endpoints (docs/api.md#webhook-endpoints; docs/fidelity.md G2,
// G10, G22). Endpoints are account-scoped and live in the account's region
// partition as "webhook_endpoint" documents. Signed deliveries are in
// engine_webhooks.go.

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

// webhookIDRE is the form of a webhook endpoint id.
var WebhookIDRE = regexp.MustCompile(`^whe_[A-Za-z0-9]+$`)

var WebhookRules = map[string]FieldRule{
	"name": {Required: true, MinLen: 1, MaxLen: 255},
	"url": {Required: true, Pattern: webhookURLRE, Doc: "An absolute http or https URL.",
		Fidelity: &Fidelity{ID: "G2", Switch: SwitchWebhookURL, Value: "https", Note: "https only"}},
	"event_types": {Required: true, Enum: WebhookEventTypes, MinItems: 1},
	"headers":     {Doc: "Added to every delivery."},
	"timeout_ms":  {Min: I64(MinWebhookTimeoutMS), Max: I64(MaxWebhookTimeoutMS), Doc: fmt.Sprintf("Default %d.", DefaultWebhookTimeoutMS)},
	"enabled":     {Doc: "Default true."},
}

// webhookURLRE is the form the document gives a url (readWebhook parses
// it: an absolute http or https URL with a host).
var webhookURLRE = regexp.MustCompile(`^[hH][tT][tT][pP][sS]?://[^/?#]`)

type (
	WebhookList struct {
		Data []WebhookView `json:"data"`
	}
	WebhookSecret struct {
		SigningSecret string `json:"signing_secret"`
	}
)

// webhooksState is the webhooks family's in-memory state: the delivery log
// and the attempts in flight (engine_webhooks.go).
type webhooksState struct {
	// mu serialises the count-then-insert (and delete) of endpoints, whose
	// per-account limit is checked against the store (held across store
	// calls), and guards the fields below.
	Mu  sync.Mutex
	log []DeliveryAttempt
	// client sends the deliveries (newDeliveryClient: no proxy, no
	// redirects, no connection kept between attempts, connections through
	// dialTarget); net is how it resolves and dials (tests replace it);
	// allow is the instance's allow-list of targets (Config.WebhookTargets;
	// set by Open, read-only after).
	client *http.Client
	Net    TargetNet
	allow  *scenario.HostList
}

// resetWebhooks empties the delivery log; attempts of the earlier
// generation stop (engine_webhooks.go).
func (a *Engine) resetWebhooks() {
	a.Webhooks.Mu.Lock()
	a.Webhooks.log = nil
	a.Webhooks.Mu.Unlock()
}

// Webhook event types (docs/api.md#webhook-endpoints).
const (
	EventAlertsTriggered = "alerts.triggered"
	EventAlertsResolved  = "alerts.resolved"
)

// webhookEventTypes is scenario's list, which the scenario loader reads too.
var WebhookEventTypes = scenario.WebhookEvents

// Webhook messages and codes that tests compare.
const (
	CodeWebhookNotFound  = "WEBHOOK_ENDPOINT_NOT_FOUND"
	CodeWebhookInvalidID = "INVALID_WEBHOOK_ENDPOINT_ID"
	CodeWebhookLimit     = "WEBHOOK_ENDPOINT_LIMIT_EXCEEDED"

	MsgWebhookNotFound  = "Webhook endpoint not found."
	MsgWebhookInvalidID = "Malformed webhook endpoint id: want whe_ followed by letters and digits."
)

func MsgWebhookLimit(n int) string {
	return fmt.Sprintf("Maximum number of webhook endpoints (%d) reached", n)
}

// switchWebhookURL selects the url rule: "any" (default: http or https,
// so that tests can use plain-http httptest receivers) or "https" (the
// OAS pattern ^https://). G2.
const SwitchWebhookURL = "webhook_url"

// Webhook endpoint defaults and bounds (docs/fidelity.md G2).
const (
	DefaultWebhookTimeoutMS = 5000
	MinWebhookTimeoutMS     = scenario.WebhookTimeoutMinMS
	MaxWebhookTimeoutMS     = scenario.WebhookTimeoutMaxMS
)

// docWebhook is the store kind of webhook endpoints.
const DocWebhook = "webhook_endpoint"

// endpointRecord is the stored endpoint. Secret is never shown after
// create and rotate.
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

// webhookView is an endpoint as the API shows it (docs/fidelity.md G2).
type WebhookView struct {
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

func (e *EndpointRecord) View() WebhookView {
	h := e.Headers
	if h == nil {
		h = map[string]string{}
	}
	return WebhookView{ID: e.ID, Name: e.Name, URL: e.URL, Enabled: e.Enabled, EventTypes: e.EventTypes,
		Headers: h, TimeoutMS: e.TimeoutMS, CreatedAt: e.CreatedAt, UpdatedAt: e.UpdatedAt}
}

func (e *EndpointRecord) Subscribes(eventType string) bool {
	return ContainsStr(e.EventTypes, eventType)
}

func Dedupe(list []string) []string {
	var out []string
	for _, s := range list {
		if !ContainsStr(out, s) {
			out = append(out, s)
		}
	}
	return out
}

// webhookLimit is the account's endpoint limit (docs/fidelity.md G22: 10).
func (w *World) WebhookLimit() int {
	if n := w.Sc.Limits.WebhookEndpoints; n > 0 {
		return n
	}
	return 10
}

// newSigningSecret returns a fresh secret: whsec_ + 32 base62 [INF].
func (a *Engine) NewSigningSecret() string { return a.NewID("whsec_", Base62, 32) }

func ErrWebhookNotFound() error { return Errf(KindNotFound, CodeWebhookNotFound, MsgWebhookNotFound) }

// getWebhook reads an endpoint of the principal's account (another
// account's endpoint is not found).
func (a *Engine) GetWebhook(p *Principal, id string) (*EndpointRecord, error) {
	var e EndpointRecord
	if err := a.store.GetDoc(DocWebhook, p.Region, id, &e); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, ErrWebhookNotFound()
		}
		return nil, err
	}
	if e.AccountID != p.Account.ID {
		return nil, ErrWebhookNotFound()
	}
	return &e, nil
}

// updateWebhook applies fn to an endpoint of the principal's account.
func (a *Engine) UpdateWebhook(p *Principal, id string, fn func(e *EndpointRecord)) (*EndpointRecord, error) {
	var e EndpointRecord
	err := a.store.UpdateDoc(DocWebhook, p.Region, id, &e, func() error {
		if e.AccountID != p.Account.ID {
			return ErrWebhookNotFound()
		}
		fn(&e)
		return nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, ErrWebhookNotFound()
	}
	if err != nil {
		return nil, err
	}
	return &e, nil
}

// listWebhooks reads an account's endpoints in id order.
func (a *Engine) ListWebhooks(region, account string) ([]*EndpointRecord, error) {
	var out []*EndpointRecord
	err := store.ListDocs(a.store, DocWebhook, region, func(_ string, e *EndpointRecord) bool {
		if e.AccountID == account {
			out = append(out, e)
		}
		return true
	})
	return out, err
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
