package scenario

// Redaction: what the mock hides wherever it shows data it was given, in
// one place so every surface applies the same rules
// (docs/security.md#secrets).

import (
	"maps"
	"net/http"
	"net/url"

	"github.com/agentplatform/mockplatform/faults"
)

// Redacted replaces a secret value.
const Redacted = "[REDACTED]"

// secretHeaders carry credentials (canonical names).
var secretHeaders = map[string]bool{
	"Authorization":        true,
	"Proxy-Authorization":  true,
	"X-Api-Key":            true,
	"X-Token":              true,
	"X-Service-Auth-Token": true,
	"X-Polyai-Auth-Token":  true,
	"Cookie":               true,
	"Set-Cookie":           true,
}

// SecretHeader reports whether a header (any case) carries a credential.
func SecretHeader(name string) bool { return secretHeaders[http.CanonicalHeaderKey(name)] }

// RedactURL hides the password of a URL's user information; any other
// string is returned as it is.
func RedactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	if _, ok := u.User.Password(); !ok {
		return s
	}
	u.User = url.UserPassword(u.User.Username(), Redacted)
	return u.String()
}

// RedactHeaders returns a copy of a header map with every value redacted.
func RedactHeaders(h map[string]string) map[string]string {
	if h == nil {
		return nil
	}
	out := make(map[string]string, len(h))
	for k := range h {
		out[k] = Redacted
	}
	return out
}

// RedactFault returns a copy of a fault rule with its predicates on
// credential headers redacted.
func RedactFault(r faults.Rule) faults.Rule {
	if len(r.Match.Headers) == 0 {
		return r
	}
	h := maps.Clone(r.Match.Headers)
	for k, v := range h {
		if SecretHeader(k) && v != "*" {
			h[k] = Redacted
		}
	}
	r.Match.Headers = h
	return r
}

// Redacted returns a copy of s fit to show: webhook headers, URL passwords
// and fault predicates on credential headers redacted. Keys and signing
// secrets are never shown (their JSON form omits them).
func (s *Scenario) Redacted() *Scenario {
	cp := *s
	cp.Accounts = make([]Account, len(s.Accounts))
	for i, a := range s.Accounts {
		if len(a.WebhookEndpoints) > 0 {
			eps := make([]WebhookEndpoint, len(a.WebhookEndpoints))
			for j, e := range a.WebhookEndpoints {
				e.Headers = RedactHeaders(e.Headers)
				e.URL = RedactURL(e.URL)
				eps[j] = e
			}
			a.WebhookEndpoints = eps
		}
		cp.Accounts[i] = a
	}
	if s.Accounts == nil {
		cp.Accounts = nil
	}
	if len(s.Faults) > 0 {
		cp.Faults = make([]faults.Rule, len(s.Faults))
		for i, r := range s.Faults {
			cp.Faults[i] = RedactFault(r)
		}
	}
	cp.Timeline = redactTimeline(s.Timeline)
	return &cp
}
