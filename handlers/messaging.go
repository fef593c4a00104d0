package handlers

// Messaging: access token, sessions, streaming WebSocket (spec 2.2, 3.4,
// 4.2, 5; notes section 3). A client trades its connector token and
// registered host for a short-lived JWT, creates a session with it and then
// talks to the agent over a WebSocket (messaging_session.go, messaging_socket.go). The agent's words
// come from the dialogue engine, and each session that the agent joins is a
// WEBCHAT conversation record.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/golang-jwt/jwt/v5"

	"github.com/agentplatform/mockplatform/scenario"
)

func (a *API) registerMessaging(rt gin.IRoutes) {
	rt.POST("/api/v1/access-token", a.wrap(famMessagingSession, a.handleMessagingAccessToken))
	rt.POST("/api/v1/sessions", a.wrap(famMessagingSession, a.handleMessagingSessionCreate))
	rt.GET("/ws", a.wrap(famMessagingSession, a.handleMessagingSocket))
}

// famMessagingSession is the messaging family with the generic credential
// check skipped: the access-token endpoint checks X-Token and X-Host itself
// (to answer with the real service's texts), and the sessions endpoint and
// the WebSocket authenticate with the access token (a JWT).
var famMessagingSession = &family{name: "messaging", base: "messaging", shape: shapeMessaging}

// Messaging error texts (notes section 3; docs/fidelity.md G20). The real
// service sends them in both "error" and "message".
const (
	MsgMessagingMissingHeaders = "Missing authentication headers"
	MsgMessagingNoConnector    = "Connector token does not exist"
	MsgMessagingHostMismatch   = "Failed to validate connector"
	MsgMessagingNoHost         = "Connector missing host domain"
	MsgMessagingMissingToken   = "Missing access token"
	MsgMessagingInvalidToken   = "Invalid access token"
	MsgMessagingParse          = "Error parsing request"
	MsgMessagingNoSession      = "session not found"
	MsgMessagingAuthFailed     = "authentication failed"
	MsgMessagingTooMany        = "connection limit exceeded for session"
	MsgMessagingBadParams      = "invalid connection parameters"
)

// switchHostMatch selects how X-Host is matched (docs/fidelity.md D23):
// "subdomain" (default, the real service) or "exact" (the spec's wording).
const switchHostMatch = "messaging_host_match"

type accessTokenResponse struct {
	AccessToken string `json:"access_token"`
	ExpiresIn   int64  `json:"expires_in"`
	TokenType   string `json:"token_type"`
}

// accessClaims are the claims of an access token.
type accessClaims struct {
	AccountID   string `json:"account_id"`
	ProjectID   string `json:"project_id"`
	Environment string `json:"client_env"`
	ConnectorID string `json:"connector_id"`
	VariantID   string `json:"variant_id,omitempty"`
	Host        string `json:"host"`
	Gen         uint64 `json:"gen"`
	jwt.RegisteredClaims
}

// tokenIssuer is the iss of access tokens; the audience is "messaging".
const tokenIssuer = "mockplatform"

// connectorID names a connector token in tokens and records without
// revealing it: CONNECTOR- and the first 12 hex digits of its SHA-256.
func connectorID(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "CONNECTOR-" + hex.EncodeToString(sum[:6])
}

// handleMessagingAccessToken handles "POST {messaging}/api/v1/access-token"
// (spec 4.2): X-Token (a connector token) and X-Host (its registered domain
// or app namespace) give a short-lived HS256 JWT.
func (a *API) handleMessagingAccessToken(c *gin.Context) error {
	var body struct{}
	if err := bindJSON(c, &body, true, ""); err != nil {
		return msgError(http.StatusBadRequest, MsgMessagingParse)
	}
	tok, host := c.GetHeader("X-Token"), c.GetHeader("X-Host")
	if tok == "" || host == "" {
		return msgError(http.StatusUnauthorized, MsgMessagingMissingHeaders)
	}
	w := a.world()
	cred := w.credential(tok)
	if cred == nil || cred.Kind != scenario.KindConnector {
		return msgError(http.StatusUnauthorized, MsgMessagingNoConnector)
	}
	if len(cred.Hosts) == 0 {
		return msgError(http.StatusUnauthorized, MsgMessagingNoHost)
	}
	if !hostAllowed(cred.Hosts, host, w.fidelity(switchHostMatch) != "exact") {
		return msgError(http.StatusUnauthorized, MsgMessagingHostMismatch)
	}
	acct := w.account(cred.Account)
	proj := acct.Project(cred.Project)
	if acct == nil || proj == nil {
		return msgError(http.StatusUnauthorized, MsgMessagingNoConnector)
	}
	now := a.clock.Now()
	ttl := w.sc.MessagingConfig().TokenTTL.D()
	if p, ok := requestPreset(c); ok && p.name == PresetExpireToken {
		ttl = 0
	}
	a.realtime.mu.Lock()
	rt := a.rtLocked()
	rt.tokenGen++
	gen, secret := rt.tokenGen, rt.secret
	a.realtime.mu.Unlock()
	variant := cred.Variant
	if v := proj.Variant(variant); v != nil {
		variant = v.ID
	}
	claims := accessClaims{
		AccountID: acct.ID, ProjectID: proj.ID, Environment: cred.ClientEnv, ConnectorID: connectorID(cred.Key),
		VariantID: variant, Host: normalizeHost(host), Gen: gen,
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer: tokenIssuer, Subject: connectorID(cred.Key), Audience: jwt.ClaimStrings{"messaging"},
			IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)), ID: a.newUUID(),
		},
	}
	signed, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
	if err != nil {
		return msgError(http.StatusInternalServerError, "Failed to create access token")
	}
	c.JSON(http.StatusOK, accessTokenResponse{AccessToken: signed, ExpiresIn: int64(ttl / time.Second), TokenType: "Bearer"})
	return nil
}

// msgError is a messaging error with the real text (in both keys).
func msgError(status int, text string) *Error {
	return &Error{Status: status, Message: text}
}

// normalizeHost lowercases a host and drops a scheme, a path and a port.
func normalizeHost(h string) string {
	h = strings.ToLower(strings.TrimSpace(h))
	if _, rest, ok := strings.Cut(h, "://"); ok {
		h = rest
	}
	h, _, _ = strings.Cut(h, "/")
	if host, port, err := net.SplitHostPort(h); err == nil {
		if _, err := strconv.Atoi(port); err == nil {
			h = host
		}
	}
	return strings.TrimSuffix(h, ".")
}

// hostAllowed matches X-Host against a connector's registered hosts:
// equal (case-insensitive, any port), or, with subdomains, a subdomain of
// a registered domain ("app.example.com" for "example.com";
// "dev.localhost" for "localhost").
func hostAllowed(hosts []string, host string, subdomains bool) bool {
	h := normalizeHost(host)
	if h == "" {
		return false
	}
	for _, reg := range hosts {
		r := normalizeHost(reg)
		if r == "" {
			continue
		}
		if h == r || subdomains && strings.HasSuffix(h, "."+r) {
			return true
		}
	}
	return false
}

// bearer is what a verified access token grants.
type bearer struct {
	claims    accessClaims
	account   *scenario.Account
	project   *scenario.Project
	connector *scenario.Credential
}

var errTokenExpired = errors.New("access token expired")

// verifyToken checks an access token: HS256 with the instance's secret,
// not expired on the virtual clock, not revoked, and its connector still
// known and enabled.
func (a *API) verifyToken(c *gin.Context, raw string) (*bearer, error) {
	var cl accessClaims
	_, err := jwt.ParseWithClaims(raw, &cl, func(*jwt.Token) (any, error) { return a.jwtSecret(), nil },
		jwt.WithTimeFunc(a.clock.Now), jwt.WithValidMethods([]string{"HS256"}), jwt.WithExpirationRequired(),
		jwt.WithIssuer(tokenIssuer), jwt.WithAudience("messaging"))
	if err != nil {
		return nil, err
	}
	if p, ok := requestPreset(c); ok && p.name == PresetExpireToken {
		return nil, errTokenExpired
	}
	a.realtime.mu.Lock()
	revoked := cl.Gen <= a.rtLocked().revokedGen
	a.realtime.mu.Unlock()
	if revoked {
		return nil, errTokenExpired
	}
	w := a.world()
	b := &bearer{claims: cl}
	for i := range w.sc.Credentials {
		cr := &w.sc.Credentials[i]
		if cr.Kind == scenario.KindConnector && !cr.Disabled && connectorID(cr.Key) == cl.ConnectorID {
			b.connector = cr
			break
		}
	}
	if b.connector == nil {
		return nil, errors.New("connector unknown")
	}
	b.account = w.account(cl.AccountID)
	b.project = b.account.Project(cl.ProjectID)
	if b.account == nil || b.project == nil {
		return nil, errors.New("project unknown")
	}
	return b, nil
}

// ExpireMessagingTokens makes every access token issued so far invalid
// (401 on sessions and new sockets); open sockets stay open.
func (a *API) ExpireMessagingTokens() {
	a.realtime.mu.Lock()
	rt := a.rtLocked()
	rt.revokedGen = rt.tokenGen
	a.realtime.mu.Unlock()
}
