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

// Control plane protection: the control plane ({base}/_mock) can wipe and
// sabotage the whole mock, so, as local developer servers do, it answers
// only requests no web page can forge: a loopback or allowed Host, an
// Origin (when present) naming that host, a Content-Type that needs a CORS
// preflight for a change, and the control token when one is set. Client()
// requests skip the Host rule; GET /_mock/health answers everyone. The
// rules and their reasons: docs/security.md#control-plane.

// guardConfig is the control plane's protection, set by options.
type guardConfig struct {
	hosts scenario.HostList // allowed besides loopback ones
	token string
}

// WithAllowedHosts lets the control plane answer requests whose Host (and
// Origin) names one of hosts, besides loopback ones: a name, ".domain", an
// IP address, a CIDR prefix, or "*" for any (docs/security.md#control-plane).
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

func (g *guardConfig) allow(h string) error {
	if err := g.hosts.Add(h); err != nil {
		return fmt.Errorf("mockplatform: allowed host %q: %w", strings.ToLower(strings.TrimSpace(h)), err)
	}
	return nil
}

// hostname is the lower-case host of a Host header or URL host.
func hostname(hostport string) string { return scenario.Hostname(hostport) }

// isLoopback reports whether a host name is a loopback name or address.
func isLoopback(h string) bool {
	if h == "localhost" || strings.HasSuffix(h, ".localhost") {
		return true
	}
	a, err := netip.ParseAddr(h)
	return err == nil && a.Unmap().IsLoopback()
}

func (g *guardConfig) allowed(h string) bool { return g.hosts.Allows(h) }

// inMemoryKey marks requests of Client(), which never leave the process.
type inMemoryKey struct{}

func withInMemory(ctx context.Context) context.Context {
	return context.WithValue(ctx, inMemoryKey{}, true)
}

var scenarioTypes = []string{"application/yaml", "application/x-yaml", "text/yaml", "application/json"}

// guardControl is the control plane's first handler: it refuses a request
// that breaks a rule of the protection.
func (p *Platform) guardControl(c *gin.Context) {
	g := &p.cfg.guard
	r := c.Request
	if r.Method == http.MethodGet && c.FullPath() == "/_mock/health" {
		return
	}
	host := hostname(r.Host)
	inMemory, _ := r.Context().Value(inMemoryKey{}).(bool)
	if !inMemory && host == "" && r.Method != http.MethodGet && r.Method != http.MethodHead && g.token == "" && !g.allowed(host) {
		// No Host (HTTP/1.0): a change needs a Host or the token.
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

// bodiless reports that a request has no body.
func bodiless(r *http.Request) bool {
	return r.ContentLength == 0 && len(r.TransferEncoding) == 0
}

// presentedToken is the control token a request presents, as a Bearer
// token or a Basic password (what a browser sends), "" when none.
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

// challenge asks for the token as Bearer and Basic, so that a browser
// shows its sign-in prompt.
func challenge(c *gin.Context, bearer string) {
	c.Writer.Header()["Www-Authenticate"] = []string{bearer, `Basic realm="mockd control plane", charset="UTF-8"`}
}
