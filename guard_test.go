package mockplatform

import (
	"encoding/base64"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// The answers of the control plane protection (guard.go; docs/security.md).

func hostRefused(h string) string {
	return fmt.Sprintf("host %q may not use the control plane: it answers loopback hosts (localhost, 127.0.0.1, ::1) "+
		"and the hosts it is told to allow: mockd --allow-host %s (env MOCKD_ALLOW_HOST=%s), in Go "+
		"mockplatform.WithAllowedHosts(%q) (docs/security.md)", h, h, h, h)
}

func originRefused(origin, host string) string {
	return fmt.Sprintf("cross-site request refused: Origin %q is not this server (%s) nor an allowed host "+
		"(mockd --allow-host, MOCKD_ALLOW_HOST; mockplatform.WithAllowedHosts) (docs/security.md)", origin, host)
}

func typeRefused(want, got string) string {
	return fmt.Sprintf("Content-Type must be %s (got %s): the control plane refuses the types a web page may send "+
		"to any site (docs/security.md)", want, got)
}

const (
	tokenMissing = "the control plane needs its token: send Authorization: Bearer <token> (the token mockd was " +
		"given with --control-token or MOCKD_CONTROL_TOKEN) (docs/security.md)"
	tokenInvalid  = "the control token is not valid"
	jsonType      = "application/json"
	scenarioTypeS = "application/yaml, application/x-yaml, text/yaml, application/json"
)

// guardWorld is what a refused control call must leave as it was.
type guardWorld struct {
	Now           time.Time
	Conversations int
	Faults        int
	Scenario      string
	Worlds        int
}

// guardPlatform starts a platform with a conversation, a fault rule and
// its clock an hour on, so that a reset, an upload, a fault change or an
// advance would show.
func guardPlatform(t *testing.T, opts ...Option) *Platform {
	t.Helper()
	p := Start(t, opts...)
	r := send(t, p.Client(), "POST", p.RuntimeURL("us-1")+"/v1/acme/support/chat/create", "{}",
		"X-API-KEY", "test-chat-key", "X-TOKEN", "test-connector-token", "Content-Type", jsonType)
	mustStatus(t, r, 200)
	if _, err := p.AddFault(Fault{ID: "dni-down", Match: FaultMatch{Family: "dni"}, Action: FaultAction{Status: 503}}); err != nil {
		t.Fatal(err)
	}
	p.Advance(time.Hour)
	return p
}

func guardState(t *testing.T, p *Platform) guardWorld {
	t.Helper()
	n, err := p.Store().CountConversations("us")
	if err != nil {
		t.Fatal(err)
	}
	return guardWorld{Now: p.Now(), Conversations: n, Faults: len(p.Faults()), Scenario: p.Scenario().Name, Worlds: len(p.Worlds())}
}

// guardDo sends a request over the platform's socket; the pair "Host", h
// sets the Host header.
func guardDo(t *testing.T, client *http.Client, method, url, body string, headers ...string) (*http.Response, []byte) {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		if headers[i] == "Host" {
			req.Host = headers[i+1]
			continue
		}
		req.Header.Set(headers[i], headers[i+1])
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, data
}

// TestControlGuard checks every rule of the control plane protection: the
// status, the whole JSON answer, and that a refused call changed nothing.
func TestControlGuard(t *testing.T) {
	t.Parallel()
	allow := WithAllowedHosts("mockd", ".corp.test", "10.0.0.0/8", "192.0.2.7", "[2001:db8::1]")
	token := WithControlToken("s3cret-token")
	const yamlScenario = "name: uploaded\n"
	for _, tc := range []struct {
		name         string
		opts         []Option
		method, path string
		body         string
		headers      []string // "Host" sets the Host header; "$host" in a value is the listener's host:port
		status       int
		err          string // the {"error"} of a refused call ("" for an allowed one)
	}{
		// Host.
		{name: "foreign host", method: "GET", path: "/_mock/clock", headers: []string{"Host", "evil.example"},
			status: 403, err: hostRefused("evil.example")},
		{name: "foreign host resets", method: "POST", path: "/_mock/reset", headers: []string{"Host", "evil.example:8080", "Content-Type", jsonType},
			status: 403, err: hostRefused("evil.example")},
		{name: "foreign host uploads", method: "POST", path: "/_mock/scenario", body: yamlScenario,
			headers: []string{"Host", "rebind.attacker.test", "Content-Type", "application/yaml"}, status: 403, err: hostRefused("rebind.attacker.test")},
		{name: "foreign host deletes faults", method: "DELETE", path: "/_mock/faults", headers: []string{"Host", "evil.example"},
			status: 403, err: hostRefused("evil.example")},
		{name: "a name resolving to loopback", method: "POST", path: "/_mock/reset", headers: []string{"Host", "127.0.0.1.nip.io", "Content-Type", jsonType},
			status: 403, err: hostRefused("127.0.0.1.nip.io")},
		{name: "a non-loopback address", method: "POST", path: "/_mock/clock/advance", body: `{"duration":"1h"}`,
			headers: []string{"Host", "10.0.0.5:8080", "Content-Type", jsonType}, status: 403, err: hostRefused("10.0.0.5")},
		{name: "localhost", method: "GET", path: "/_mock/clock", headers: []string{"Host", "localhost:8080"}, status: 200},
		{name: "LOCALHOST.", method: "GET", path: "/_mock/clock", headers: []string{"Host", "LOCALHOST.:8080"}, status: 200},
		{name: "a .localhost name", method: "GET", path: "/_mock/clock", headers: []string{"Host", "app.localhost"}, status: 200},
		{name: "::1", method: "GET", path: "/_mock/clock", headers: []string{"Host", "[::1]:8080"}, status: 200},
		{name: "127.0.0.0/8", method: "GET", path: "/_mock/clock", headers: []string{"Host", "127.9.8.7"}, status: 200},
		{name: "health answers any host", method: "GET", path: "/_mock/health", headers: []string{"Host", "evil.example"}, status: 200},
		{name: "the emulated API answers any host", method: "POST", path: "/runtime/us-1/v1/acme/support/chat/create", body: "{}",
			headers: []string{"Host", "evil.example", "Origin", "http://evil.example", "X-API-KEY", "test-chat-key",
				"X-TOKEN", "test-connector-token", "Content-Type", "text/plain"}, status: 200},

		// Allowed hosts.
		{name: "allowed name", opts: []Option{allow}, method: "POST", path: "/_mock/reset", headers: []string{"Host", "MOCKD:8080", "Content-Type", jsonType}, status: 200},
		{name: "allowed domain", opts: []Option{allow}, method: "GET", path: "/_mock/clock", headers: []string{"Host", "corp.test"}, status: 200},
		{name: "allowed subdomain", opts: []Option{allow}, method: "GET", path: "/_mock/clock", headers: []string{"Host", "mock.ci.corp.test:80"}, status: 200},
		{name: "not a subdomain", opts: []Option{allow}, method: "GET", path: "/_mock/clock", headers: []string{"Host", "evilcorp.test"},
			status: 403, err: hostRefused("evilcorp.test")},
		{name: "allowed prefix", opts: []Option{allow}, method: "GET", path: "/_mock/clock", headers: []string{"Host", "10.1.2.3:8080"}, status: 200},
		{name: "allowed address", opts: []Option{allow}, method: "GET", path: "/_mock/clock", headers: []string{"Host", "192.0.2.7"}, status: 200},
		{name: "allowed IPv6 address", opts: []Option{allow}, method: "GET", path: "/_mock/clock", headers: []string{"Host", "[2001:db8::1]:8080"}, status: 200},
		{name: "another address", opts: []Option{allow}, method: "GET", path: "/_mock/clock", headers: []string{"Host", "192.0.2.8"},
			status: 403, err: hostRefused("192.0.2.8")},
		{name: "allowed origin", opts: []Option{allow}, method: "POST", path: "/_mock/reset",
			headers: []string{"Origin", "http://mockd:3000", "Content-Type", jsonType}, status: 200},
		{name: "any host", opts: []Option{WithAllowedHosts("*")}, method: "POST", path: "/_mock/reset",
			headers: []string{"Host", "evil.example", "Origin", "http://elsewhere.example", "Content-Type", jsonType}, status: 200},
		{name: "any host still wants JSON", opts: []Option{WithAllowedHosts("*")}, method: "POST", path: "/_mock/reset",
			headers: []string{"Host", "evil.example", "Content-Type", "text/plain"}, status: 415, err: typeRefused(jsonType, `"text/plain"`)},

		// Origin.
		{name: "cross-site origin", method: "POST", path: "/_mock/reset", headers: []string{"Origin", "http://evil.example", "Content-Type", jsonType},
			status: 403, err: originRefused("http://evil.example", "$host")},
		{name: "cross-site origin reads", method: "GET", path: "/_mock/requests", headers: []string{"Origin", "https://evil.example"},
			status: 403, err: originRefused("https://evil.example", "$host")},
		{name: "cross-site origin deletes", method: "DELETE", path: "/_mock/faults/dni-down", headers: []string{"Origin", "http://evil.example"},
			status: 403, err: originRefused("http://evil.example", "$host")},
		{name: "null origin", method: "POST", path: "/_mock/faults", body: `{"match":{"family":"chat"},"action":{"status":500}}`,
			headers: []string{"Origin", "null", "Content-Type", jsonType}, status: 403, err: originRefused("null", "$host")},
		{name: "another loopback name is another site", method: "POST", path: "/_mock/reset",
			headers: []string{"Origin", "http://localhost:3000", "Content-Type", jsonType}, status: 403, err: originRefused("http://localhost:3000", "$host")},
		{name: "same host, another port", method: "POST", path: "/_mock/reset",
			headers: []string{"Origin", "http://127.0.0.1:3000", "Content-Type", jsonType}, status: 200},
		{name: "same origin", method: "POST", path: "/_mock/reset", headers: []string{"Origin", "http://$host", "Content-Type", jsonType}, status: 200},

		// Content-Type.
		{name: "text/plain", method: "POST", path: "/_mock/reset", headers: []string{"Content-Type", "text/plain"},
			status: 415, err: typeRefused(jsonType, `"text/plain"`)},
		{name: "a form", method: "POST", path: "/_mock/reset", headers: []string{"Content-Type", "application/x-www-form-urlencoded"},
			status: 415, err: typeRefused(jsonType, `"application/x-www-form-urlencoded"`)},
		{name: "a multipart form", method: "POST", path: "/_mock/clock/advance", body: "--x--",
			headers: []string{"Content-Type", "multipart/form-data; boundary=x"}, status: 415, err: typeRefused(jsonType, `"multipart/form-data; boundary=x"`)},
		{name: "no type", method: "POST", path: "/_mock/reset", status: 415, err: typeRefused(jsonType, "none")},
		{name: "fault rule as text", method: "POST", path: "/_mock/faults", body: `{"match":{"family":"chat"},"action":{"status":500}}`,
			headers: []string{"Content-Type", "text/plain;charset=UTF-8"}, status: 415, err: typeRefused(jsonType, `"text/plain;charset=UTF-8"`)},
		{name: "advance as text", method: "POST", path: "/_mock/clock/advance", body: `{"duration":"1h"}`,
			headers: []string{"Content-Type", "text/plain"}, status: 415, err: typeRefused(jsonType, `"text/plain"`)},
		{name: "family control as text", method: "POST", path: "/_mock/messaging/tokens/expire",
			headers: []string{"Content-Type", "text/plain"}, status: 415, err: typeRefused(jsonType, `"text/plain"`)},
		{name: "JSON with a charset", method: "POST", path: "/_mock/reset", headers: []string{"Content-Type", "application/json; charset=utf-8"}, status: 200},
		{name: "scenario as text", method: "POST", path: "/_mock/scenario", body: yamlScenario, headers: []string{"Content-Type", "text/plain"},
			status: 415, err: typeRefused(scenarioTypeS, `"text/plain"`)},
		{name: "scenario as a form", method: "POST", path: "/_mock/scenario", body: yamlScenario,
			headers: []string{"Content-Type", "application/x-www-form-urlencoded"}, status: 415, err: typeRefused(scenarioTypeS, `"application/x-www-form-urlencoded"`)},
		{name: "scenario as application/yaml", method: "POST", path: "/_mock/scenario", body: yamlScenario, headers: []string{"Content-Type", "application/yaml"}, status: 200},
		{name: "scenario as application/x-yaml", method: "POST", path: "/_mock/scenario", body: yamlScenario, headers: []string{"Content-Type", "application/x-yaml"}, status: 200},
		{name: "scenario as text/yaml", method: "POST", path: "/_mock/scenario", body: yamlScenario, headers: []string{"Content-Type", "text/yaml; charset=utf-8"}, status: 200},
		{name: "DELETE needs no type", method: "DELETE", path: "/_mock/faults", status: 204},
		{name: "scenario validation as text", method: "POST", path: "/_mock/scenario/validate", body: yamlScenario,
			headers: []string{"Content-Type", "text/plain"}, status: 415, err: typeRefused(scenarioTypeS, `"text/plain"`)},
		{name: "scenario validation as YAML", method: "POST", path: "/_mock/scenario/validate", body: yamlScenario,
			headers: []string{"Content-Type", "application/yaml"}, status: 200},
		{name: "a world without a body needs no type", method: "POST", path: "/_mock/worlds", status: 201},
		{name: "a world with a body needs one", method: "POST", path: "/_mock/worlds", body: "{}", status: 415, err: typeRefused(jsonType, "none")},
		{name: "a world as text", method: "POST", path: "/_mock/worlds", body: "{}", headers: []string{"Content-Type", "text/plain"},
			status: 415, err: typeRefused(jsonType, `"text/plain"`)},
		{name: "a world without a body, cross-site", method: "POST", path: "/_mock/worlds", headers: []string{"Origin", "http://evil.example"},
			status: 403, err: originRefused("http://evil.example", "$host")},
		{name: "a world without a body, foreign host", method: "POST", path: "/_mock/worlds", headers: []string{"Host", "evil.example"},
			status: 403, err: hostRefused("evil.example")},

		// The web console: its pages and assets are control-plane reads.
		{name: "console, foreign host", method: "GET", path: "/_mock/ui/", headers: []string{"Host", "evil.example"},
			status: 403, err: hostRefused("evil.example")},
		{name: "console asset, rebinding host", method: "GET", path: "/_mock/ui/static/console.js", headers: []string{"Host", "127.0.0.1.nip.io"},
			status: 403, err: hostRefused("127.0.0.1.nip.io")},
		{name: "console events, cross-site origin", method: "GET", path: "/_mock/ui/events", headers: []string{"Origin", "http://evil.example"},
			status: 403, err: originRefused("http://evil.example", "$host")},
		{name: "console, cross-site origin", method: "GET", path: "/_mock/ui/requests", headers: []string{"Origin", "http://evil.example"},
			status: 403, err: originRefused("http://evil.example", "$host")},
		{name: "console, a form posted to it", method: "POST", path: "/_mock/ui/faults", body: "id=x",
			headers: []string{"Content-Type", "application/x-www-form-urlencoded"}, status: 405, err: "Method POST is not allowed here; allowed: GET."},
		{name: "console", method: "GET", path: "/_mock/ui/", status: 200},
		{name: "console, same origin", method: "GET", path: "/_mock/ui/faults", headers: []string{"Origin", "http://$host"}, status: 200},

		// Control token.
		{name: "no token", opts: []Option{token}, method: "GET", path: "/_mock/clock", status: 401, err: tokenMissing},
		{name: "no token resets", opts: []Option{token}, method: "POST", path: "/_mock/reset", headers: []string{"Content-Type", jsonType},
			status: 401, err: tokenMissing},
		{name: "another scheme", opts: []Option{token}, method: "POST", path: "/_mock/reset", headers: []string{"Authorization", "Basic s3cret-token", "Content-Type", jsonType},
			status: 401, err: tokenMissing},
		{name: "wrong token", opts: []Option{token}, method: "DELETE", path: "/_mock/faults", headers: []string{"Authorization", "Bearer s3cret"},
			status: 401, err: tokenInvalid},
		{name: "token", opts: []Option{token}, method: "POST", path: "/_mock/reset", headers: []string{"Authorization", "Bearer s3cret-token", "Content-Type", jsonType}, status: 200},
		{name: "token, scheme in lower case", opts: []Option{token}, method: "GET", path: "/_mock/clock", headers: []string{"Authorization", "bearer s3cret-token"}, status: 200},
		{name: "token as a Basic password", opts: []Option{token}, method: "POST", path: "/_mock/reset",
			headers: []string{"Authorization", "Basic " + basic("any", "s3cret-token"), "Content-Type", jsonType}, status: 200},
		{name: "the console with the token as a Basic password", opts: []Option{token}, method: "GET", path: "/_mock/ui/",
			headers: []string{"Authorization", "Basic " + basic("", "s3cret-token")}, status: 200},
		{name: "wrong Basic password", opts: []Option{token}, method: "DELETE", path: "/_mock/faults",
			headers: []string{"Authorization", "Basic " + basic("s3cret-token", "nope")}, status: 401, err: tokenInvalid},
		{name: "the console without the token", opts: []Option{token}, method: "GET", path: "/_mock/ui/requests", status: 401, err: tokenMissing},
		{name: "health needs no token", opts: []Option{token}, method: "GET", path: "/_mock/health", status: 200},
		{name: "the emulated API needs no token", opts: []Option{token}, method: "POST", path: "/runtime/us-1/v1/acme/support/chat/create", body: "{}",
			headers: []string{"X-API-KEY", "test-chat-key", "X-TOKEN", "test-connector-token", "Content-Type", jsonType}, status: 200},
		{name: "token and a foreign host", opts: []Option{token}, method: "GET", path: "/_mock/clock",
			headers: []string{"Host", "evil.example", "Authorization", "Bearer s3cret-token"}, status: 403, err: hostRefused("evil.example")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			p := guardPlatform(t, tc.opts...)
			client := &http.Client{Transport: &http.Transport{}}
			t.Cleanup(client.CloseIdleConnections)
			host := strings.TrimPrefix(p.URL(), "http://")
			headers := append([]string(nil), tc.headers...)
			for i := range headers {
				headers[i] = strings.ReplaceAll(headers[i], "$host", host)
			}
			before := guardState(t, p)
			resp, body := guardDo(t, client, tc.method, p.URL()+tc.path, tc.body, headers...)
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if tc.err == "" {
				return
			}
			mustJSON(t, reply{Status: resp.StatusCode, Body: body}, map[string]string{"error": strings.ReplaceAll(tc.err, "$host", host)})
			if diff := cmp.Diff(before, guardState(t, p)); diff != "" {
				t.Errorf("a refused call changed the mock (-before +after):\n%s", diff)
			}
			if tc.status == 401 {
				got := resp.Header.Values("WWW-Authenticate")
				if len(got) != 2 || !strings.HasPrefix(got[0], `Bearer realm="mockd control plane"`) ||
					got[1] != `Basic realm="mockd control plane", charset="UTF-8"` {
					t.Errorf("WWW-Authenticate: %q, want a Bearer and a Basic challenge", got)
				}
			}
		})
	}
}

// basic is the credentials of an Authorization: Basic header.
func basic(user, password string) string {
	return base64.StdEncoding.EncodeToString([]byte(user + ":" + password))
}

// TestControlGuardInMemory: requests of Client() never leave the process,
// so their host (any name the test uses) is not checked; the other rules
// hold as over a socket.
func TestControlGuardInMemory(t *testing.T) {
	t.Parallel()
	p := guardPlatform(t, WithoutListener(), WithControlToken("tok"))
	auth := []string{"Authorization", "Bearer tok"}
	r := send(t, p.Client(), "GET", PlaceholderURL+"/_mock/clock", nil, auth...)
	mustStatus(t, r, 200)
	r = send(t, p.Client(), "GET", "http://any-name.example/_mock/clock", nil, auth...)
	mustStatus(t, r, 200)
	before := guardState(t, p)
	r = send(t, p.Client(), "POST", PlaceholderURL+"/_mock/reset", nil, append(auth, "Content-Type", "text/plain")...)
	mustStatus(t, r, 415)
	r = send(t, p.Client(), "POST", PlaceholderURL+"/_mock/reset", nil, append(auth, "Content-Type", jsonType, "Origin", "http://evil.example")...)
	mustJSON(t, r, map[string]string{"error": originRefused("http://evil.example", "mockplatform.invalid")})
	r = send(t, p.Client(), "POST", PlaceholderURL+"/_mock/reset", nil, "Content-Type", jsonType)
	mustJSON(t, r, map[string]string{"error": tokenMissing})
	if diff := cmp.Diff(before, guardState(t, p)); diff != "" {
		t.Errorf("refused calls changed the mock (-before +after):\n%s", diff)
	}
	r = send(t, p.Client(), "POST", PlaceholderURL+"/_mock/reset", nil, append(auth, "Content-Type", jsonType)...)
	mustStatus(t, r, 200)
}

func TestWithAllowedHostsErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ host, err string }{
		{"", `mockplatform: allowed host "": empty`},
		{"mockd:8080", `mockplatform: allowed host "mockd:8080": want a host name without port, .domain, an IP address, a CIDR prefix or *`},
		{"http://mockd", `mockplatform: allowed host "http://mockd": want a host name, .domain, an IP address, a CIDR prefix or *`},
		{"10.0.0.0/33", `mockplatform: allowed host "10.0.0.0/33": want a host name, .domain, an IP address, a CIDR prefix or *`},
		{".", `mockplatform: allowed host ".": want a host name without port, .domain, an IP address, a CIDR prefix or *`},
	} {
		p, err := New(WithAllowedHosts("ok.example", tc.host))
		if p != nil {
			p.Close()
		}
		if err == nil || err.Error() != tc.err {
			t.Errorf("%q: %v, want %s", tc.host, err, tc.err)
		}
	}
}
