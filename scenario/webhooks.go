package scenario

// The webhooks block: the accounts' seeded webhook endpoints.

import (
	"net/url"
	"regexp"
)

// WebhookEndpoint is a seeded webhook endpoint (docs/api.md#webhook-endpoints).
type WebhookEndpoint struct {
	// ID is whe_ plus letters and digits; empty gives a generated id.
	ID   string `yaml:"id" json:"id,omitempty"`
	Name string `yaml:"name" json:"name"`
	URL  string `yaml:"url" json:"url"`
	// EventTypes default to both alert events.
	EventTypes []string          `yaml:"event_types" json:"event_types,omitempty"`
	Headers    map[string]string `yaml:"headers" json:"headers,omitempty"`
	// TimeoutMS is the delivery timeout in milliseconds, 1000 to 30000
	// (default 5000).
	TimeoutMS int64 `yaml:"timeout_ms" json:"timeout_ms,omitempty"`
	// Enabled defaults to true.
	Enabled *bool `yaml:"enabled" json:"enabled,omitempty"`
	// SigningSecret is the endpoint's secret (required: a test must know it
	// to verify signatures).
	SigningSecret string `yaml:"signing_secret" json:"-"`
}

var WebhookIDRE = regexp.MustCompile(`^whe_[A-Za-z0-9]+$`)

// WebhookEvents are the event types an endpoint may subscribe to.
var WebhookEvents = []string{"alerts.triggered", "alerts.resolved"}

// The bounds of an endpoint's timeout_ms, here and in the webhooks API.
const (
	WebhookTimeoutMinMS = 1000
	WebhookTimeoutMaxMS = 30000
)

// webhookEndpoints validates webhook endpoints; ids are unique.
func (v *validator) webhookEndpoints(s *Scenario) {
	var targets HostList
	if s.Webhooks != nil {
		for i, e := range s.Webhooks.AllowedTargets {
			if err := targets.Add(e); err != nil {
				v.reportf(path{"webhooks", "allowed_targets", i}, "%v", err)
			}
		}
	}
	hookIDs := map[string]path{}
	for i := range s.Accounts {
		a := &s.Accounts[i]
		ap := path{"accounts", i}
		for j := range a.WebhookEndpoints {
			e := &a.WebhookEndpoints[j]
			p := ap.with("webhook_endpoints", j)
			if e.ID != "" && !WebhookIDRE.MatchString(e.ID) {
				v.reportf(p.with("id"), "invalid webhook endpoint id %q (want whe_ followed by letters and digits)", e.ID)
			}
			v.unique(hookIDs, e.ID, p.with("id"), "webhook endpoint id")
			if e.Name == "" {
				v.reportf(p.with("name"), "required")
			}
			if u, err := url.Parse(e.URL); e.URL == "" || err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
				v.reportf(p.with("url"), "want an absolute http or https URL")
			} else if err := CheckTargetURL(u, &targets); err != nil {
				v.reportf(p.with("url"), "%v", err)
			}
			for k, t := range e.EventTypes {
				v.oneOf(p.with("event_types", k), t, WebhookEvents)
			}
			if e.TimeoutMS != 0 && (e.TimeoutMS < WebhookTimeoutMinMS || e.TimeoutMS > WebhookTimeoutMaxMS) {
				v.reportf(p.with("timeout_ms"), "must be from %d to %d", WebhookTimeoutMinMS, WebhookTimeoutMaxMS)
			}
			if e.SigningSecret == "" {
				v.reportf(p.with("signing_secret"), "required")
			}
		}
	}
}
