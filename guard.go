package mockplatform

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"mime"
	"net/http"
	"net/netip"
	"net/url"
	"strings"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/gin-gonic/gin"
)

// Control plane protection. The control plane ({base}/_mock) can wipe,
// replace and sabotage the whole mock, so, as local developer servers do,
// it answers only requests that no web page can forge:
//
//   - Host: a loopback name or address (localhost, *.localhost, 127.0.0.0/8,
//     ::1) or a host the operator allowed (WithAllowedHosts; mockd
//     --allow-host). A DNS-rebinding page reaches the mock under its own
//     host name, which is neither. Requests of Client() skip this check:
//     they never leave the process and carry whatever host the test named.
//     A request with no Host at all (HTTP/1.0) may read but not change
//     anything, unless a control token is set.
//   - Origin: absent (no browser), or naming the request's own host or an
//     allowed host. A browser names the page's origin on every cross-site
//     request it sends.
//   - Content-Type of POST, PUT and PATCH: application/json (the scenario
//     upload also takes application/yaml, application/x-yaml or
//     text/yaml). A page may send text/plain or a form to any site without
//     asking (no CORS preflight); any other type needs a preflight, which
//     the control plane never grants. DELETE always needs one. A POST
//     whose body is optional (POST /_mock/worlds) may come without a body
//     and without a type: it changes no existing state, and a browser
//     names its page's Origin on every POST, which the Origin rule refuses
//     cross-site.
//   - With a control token (WithControlToken; mockd --control-token):
//     Authorization: Bearer <token>, or HTTP Basic with the token as the
//     password, which a browser sends once its user signed in (the web
//     console). A browser sends it on cross-site requests too, so it is
//     no defence against them: the Origin and Content-Type rules are.
//
// GET /_mock/health answers everyone: it tells nothing but "ok", and
// orchestrators probe it under whatever address they have. The emulated
// API is not guarded here: it has its own keys, and its messaging
// WebSocket takes any origin, as browsers need (docs/security.md).

// guardConfig is the control plane's protection, set by options.
type guardConfig struct {
	hosts scenario.HostList // allowed besides loopback ones
	token string
}

// WithAllowedHosts lets the control plane answer requests whose Host (and
// Origin) names one of hosts, besides loopback ones: a host name ("mockd"),
// a domain and its subdomains (".corp.test"), an IP address, a CIDR prefix
// ("10.0.0.0/8"), or "*" for any host (then only a control token protects
// the control plane). Names carry no port. See docs/security.md.
func WithAllowedHosts(hosts ...string) Option {
	return func(c *config) {
		for _, h := range hosts {
			if err := c.guard.allow(h); err != nil {
				c.err = errors.Join(c.err, err)
			}
		}
	}
}

// WithControlToken requires Authorization: Bearer <token> on every control
// plane call but GET /_mock/health. An empty token requires none.
func WithControlToken(token string) Option { return func(c *config) { c.guard.token = token } }

// allow adds one allowed host.
func (g *guardConfig) allow(h string) error {
	if err := g.hosts.Add(h); err != nil {
		return fmt.Errorf("mockplatform: allowed host %q: %w", strings.ToLower(strings.TrimSpace(h)), err)
	}
	return nil
}

// hostname is the host of a Host header or URL host (port, brackets and a
// final dot removed), in lower case.
func hostname(hostport string) string { return scenario.Hostname(hostport) }

// isLoopback reports whether a host name is a loopback name or address.
func isLoopback(h string) bool {
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.Unmap().IsLoopback()
}

// allowed reports whether the operator allowed a host name.
func (g *guardConfig) allowed(h string) bool { return g.hosts.Allows(h) }

// inMemoryKey marks requests of Client(), which never leave the process.
type inMemoryKey struct{}

func withInMemory(ctx context.Context) context.Context {
	return context.WithValue(ctx, inMemoryKey{}, true)
}

// scenarioTypes are the media types of a scenario upload.
var scenarioTypes = []string{"application/yaml", "application/x-yaml", "text/yaml", "application/json"}

// guardControl is the control plane's first handler: it answers a request
// that fails a rule of the protection with a JSON error and stops it.
func (p *Platform) guardControl(c *gin.Context) {
	g := &p.cfg.guard
	r := c.Request
	if r.Method == http.MethodGet && c.FullPath() == "/_mock/health" {
		return
	}
	host := hostname(r.Host)
	inMemory, _ := r.Context().Value(inMemoryKey{}).(bool)
	if !inMemory && host == "" && r.Method != http.MethodGet && r.Method != http.MethodHead && g.token == "" && !g.allowed(host) {
		// No Host at all (HTTP/1.0): a browser never sends this, but the
		// rule is the Host one, so a change needs a Host or the token.
		controlError(c, http.StatusForbidden, "a control call that changes the mock needs a Host header: it answers loopback hosts "+
			"(localhost, 127.0.0.1, ::1) and the hosts it is told to allow, or any request with the control token "+
			"(mockd --control-token, MOCKD_CONTROL_TOKEN) (docs/security.md)")
		return
	}
	if !inMemory && host != "" && !isLoopback(host) && !g.allowed(host) {
		controlError(c, http.StatusForbidden, fmt.Sprintf("host %q may not use the control plane: it answers loopback hosts "+
			"(localhost, 127.0.0.1, ::1) and the hosts it is told to allow: mockd --allow-host %s (env MOCKD_ALLOW_HOST=%s), "+
			"in Go mockplatform.WithAllowedHosts(%q) (docs/security.md)", host, host, host, host))
		return
	}
	if origin, ok := r.Header["Origin"]; ok {
		o := strings.Join(origin, ",")
		u, err := url.Parse(o)
		oh := ""
		if err == nil && u.Host != "" && len(origin) == 1 {
			oh = hostname(u.Host)
		}
		if oh == "" || oh != host && !g.allowed(oh) {
			controlError(c, http.StatusForbidden, fmt.Sprintf("cross-site request refused: Origin %q is not this server (%s) "+
				"nor an allowed host (mockd --allow-host, MOCKD_ALLOW_HOST; mockplatform.WithAllowedHosts) (docs/security.md)", o, r.Host))
			return
		}
	}
	if g.token != "" {
		tok := presentedToken(r)
		switch {
		case tok == "":
			challenge(c, `Bearer realm="mockd control plane"`)
			controlError(c, http.StatusUnauthorized, "the control plane needs its token: send Authorization: Bearer <token> "+
				"(the token mockd was given with --control-token or MOCKD_CONTROL_TOKEN) (docs/security.md)")
			return
		case subtle.ConstantTimeCompare([]byte(tok), []byte(g.token)) != 1:
			challenge(c, `Bearer realm="mockd control plane", error="invalid_token"`)
			controlError(c, http.StatusUnauthorized, "the control token is not valid")
			return
		}
	}
	switch r.Method {
	case http.MethodPost, http.MethodPut, http.MethodPatch:
		want := []string{"application/json"}
		op := controlOp(r.Method, c.FullPath())
		if op != nil && len(op.BodyTypes) > 0 {
			want = op.BodyTypes
		}
		ct := r.Header.Get("Content-Type")
		if ct == "" && op != nil && op.BodyOptional && bodiless(r) {
			return // no body to send cross-site; the Origin rule above holds
		}
		mt, _, err := mime.ParseMediaType(ct)
		ok := false
		for _, w := range want {
			ok = ok || err == nil && mt == w
		}
		if !ok {
			got := fmt.Sprintf("%q", ct)
			if ct == "" {
				got = "none"
			}
			controlError(c, http.StatusUnsupportedMediaType, fmt.Sprintf("Content-Type must be %s (got %s): the control plane "+
				"refuses the types a web page may send to any site (docs/security.md)", strings.Join(want, ", "), got))
			return
		}
	}
}

// bodiless reports that a request has no body: no Content-Length but 0,
// no Transfer-Encoding.
func bodiless(r *http.Request) bool {
	return r.ContentLength == 0 && len(r.TransferEncoding) == 0
}

// presentedToken is the control token a request presents: Authorization:
// Bearer <token>, or, for browsers (the web console), HTTP Basic with the
// token as the password and any user name ("" when there is none).
func presentedToken(r *http.Request) string {
	scheme, cred, _ := strings.Cut(r.Header.Get("Authorization"), " ")
	if strings.EqualFold(scheme, "Bearer") {
		return strings.TrimSpace(cred)
	}
	if _, password, ok := r.BasicAuth(); ok {
		return password
	}
	return ""
}

// challenge asks for the token: as a bearer token, and as a Basic
// password, so that a browser shows its sign-in prompt (and, once signed
// in, sends the token with the console's own calls).
func challenge(c *gin.Context, bearer string) {
	c.Writer.Header()["Www-Authenticate"] = []string{bearer, `Basic realm="mockd control plane", charset="UTF-8"`}
}
