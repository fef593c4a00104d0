package journal

// Redaction of what the journal and the console show
// (docs/security.md#secrets).

import (
	"bytes"
	"encoding/json"
	"mime"
	"net/http"
	"net/url"
	"slices"

	"github.com/agentplatform/mockplatform/scenario"
)

// Redacted replaces a secret (scenario's redaction rules).
const Redacted = scenario.Redacted

// secretFields are the JSON, query and form fields redacted.
var secretFields = []string{"access_token", "signing_secret", "secret", "token", "api_key", "password", "signing_key"}

// JSON fields whose values are rewritten: every value of a "headers"
// object, the password of a "url".
const (
	headersField = "headers"
	urlField     = "url"
)

// RedactPayload redacts a body (a form, or else JSON) as the journal does.
func RedactPayload(contentType string, body []byte) string {
	mt, _, _ := mime.ParseMediaType(contentType)
	if mt == "application/x-www-form-urlencoded" {
		return redactQuery(string(body))
	}
	return redactBody(body)
}

func redactHeader(h http.Header) map[string][]string {
	out := make(map[string][]string, len(h))
	for k, v := range h {
		if scenario.SecretHeader(k) {
			out[k] = []string{Redacted}
			continue
		}
		out[k] = append([]string(nil), v...)
	}
	return out
}

func redactQuery(raw string) string {
	if raw == "" {
		return ""
	}
	q, err := url.ParseQuery(raw)
	if err != nil {
		return "[unparsable query]"
	}
	changed := false
	for _, f := range secretFields {
		if _, ok := q[f]; ok {
			q[f] = []string{Redacted}
			changed = true
		}
	}
	if !changed {
		return raw
	}
	return q.Encode()
}

// redactBody redacts a JSON body; one naming no secret field is kept unparsed.
func redactBody(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	hit := quotedName(b, secretFields) || quotedName(b, []string{headersField}) ||
		bytes.IndexByte(b, '@') >= 0 && quotedName(b, []string{urlField})
	if !hit {
		return string(b)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		return "[body withheld: it names a secret field and is not complete JSON]"
	}
	if !RedactValue(v) {
		return string(b)
	}
	out, err := json.Marshal(v)
	if err != nil {
		return "[body withheld]"
	}
	return string(out)
}

// quotedName reports whether b holds one of names between quotes.
func quotedName(b []byte, names []string) bool {
	for i := 0; ; {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return false
		}
		i += j + 1
		if i >= len(b) {
			return false
		}
		for _, f := range names {
			if len(b)-i > len(f) && b[i] == f[0] && string(b[i:i+len(f)]) == f && b[i+len(f)] == '"' {
				return true
			}
		}
	}
}

// RedactValue redacts a decoded JSON value in place; it reports a change.
func RedactValue(v any) bool {
	changed := false
	switch t := v.(type) {
	case map[string]any:
		for k, x := range t {
			switch {
			case slices.Contains(secretFields, k):
				t[k] = Redacted
				changed = true
				continue
			case k == headersField:
				if h, ok := x.(map[string]any); ok {
					for name := range h {
						h[name] = Redacted
						changed = true
					}
					continue
				}
			case k == urlField:
				if u, ok := x.(string); ok {
					if r := scenario.RedactURL(u); r != u {
						t[k] = r
						changed = true
					}
					continue
				}
			}
			changed = RedactValue(x) || changed
		}
	case []any:
		for _, x := range t {
			changed = RedactValue(x) || changed
		}
	}
	return changed
}
