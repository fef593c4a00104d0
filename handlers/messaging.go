package handlers

// Messaging (docs/api.md#messaging; docs/fidelity.md G12, G14, G20, M13):
// a connector token and registered host buy a short-lived JWT, the JWT a
// session (messaging_session.go), the session a WebSocket to the agent
// (messaging_socket.go). A session the agent joins is a WEBCHAT
// conversation.

import (
	"errors"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/faults"

	"github.com/gin-gonic/gin"
	"github.com/golang-jwt/jwt/v5"

	"github.com/agentplatform/mockplatform/scenario"
)

// famMessaging is messaging; its handlers authenticate.
var famMessaging = &Family{
	Name: "messaging", Base: "messaging", Shape: shapeMessaging,
	Credential: scenario.KindConnector, ProjectKeys: true,
	Doc: "A connector token buys a short-lived JWT, the JWT a session, the session a streaming WebSocket (docs/api.md#messaging).",
	Schemes: map[string]Scheme{
		"messagingToken":  {Type: "apiKey", In: "header", Name: "X-Token", Doc: "A connector token with registered hosts (credential kind connector)."},
		"messagingBearer": {Type: "http", Scheme: "bearer", BearerFormat: "JWT", Doc: "An access token of POST /messaging/api/v1/access-token."},
		"messagingSocket": {Type: "apiKey", In: "query", Name: "access_token", Doc: "An access token of POST /messaging/api/v1/access-token."},
	},
	Routes:      messagingRoutes,
	Counts:      []Counted{{What: "live sessions", N: (*API).countSessions}},
	Presets:     messagingPresets,
	ApplyPreset: markPreset,
}

// messagingRoutes are its routes.
var messagingRoutes = []Route{
	route("POST /api/v1/access-token", (*API).handleMessagingAccessToken, opMessagingToken),
	route("POST /api/v1/sessions", (*API).handleMessagingSessionCreate, opMessagingSession),
	route("GET /ws", (*API).handleMessagingSocket, opMessagingSocket),
}

var (
	opMessagingToken = &Op{Security: [][]string{{"messagingToken"}}, ID: "messagingAccessToken", Summary: "Get an access token",
		Doc: "A connector token (X-Token) and one of its registered hosts (X-Host) buy a short-lived JWT " +
			"(docs/api.md#messaging-token). The body, if any, is ignored.",
		Headers:      []Param{{Name: "X-Host", Required: true, Doc: "A registered domain or app namespace of the connector token (subdomains match)."}},
		Body:         new(any),
		BodyOptional: true,
		Responses:    []Response{ok(200, accessTokenResponse{})}, Errors: []int{400, 401}}
	opMessagingSession = &Op{Security: [][]string{{"messagingBearer"}}, ID: "messagingSessionCreate", Summary: "Create a session",
		Doc:  "A bearer access token creates an active session (docs/api.md#messaging-session).",
		Body: sessionCreateRequest{}, BodyOptional: true,
		Responses: []Response{ok(200, sessionCreateResponse{})}, Errors: []int{400, 401}}
	opMessagingSocket = &Op{Security: [][]string{{"messagingSocket"}}, ID: "messagingSocket", Summary: "Open the session's WebSocket",
		Doc: "Upgrades to a WebSocket that streams the session's events and takes the user's messages " +
			"(docs/api.md#messaging-ws). Handshake problems are HTTP errors.",
		Query: []Param{
			{Name: "session_id", Required: true, Doc: "The session."},
			{Name: "cursor", Doc: "Replay the history after this event sequence number (\"N\" or \"seq:N\")."},
		},
		Responses: []Response{{Status: 101, Doc: "Switching to the WebSocket protocol."}},
		Errors:    []int{400, 404, 429, 503}}
)

// messagingState is the messaging family's in-memory state: the live
// sessions (each with its own lock, messaging_session.go), the JWT key,
// the id stream of messaging events and the token generations.
type messagingState struct {
	// mu guards the fields below. It is taken under a session's mu, never
	// the reverse.
	mu       sync.Mutex
	sessions map[string]*rtSession
	// randomKey is the instance's own HS256 key, from crypto/rand when the
	// API is built: no one can derive it from what the mock shows (the
	// scenario, its seed). secret is the key in force: the scenario's
	// messaging.signing_key when it sets one (reproducible tokens), else
	// randomKey.
	randomKey []byte
	secret    []byte
	// view is the View the secret and rng were derived from; a new view
	// (scenario load, reset) derives them again.
	view *engine.View
	rng  *rand.Rand
	// tokenGen numbers the access tokens issued over the instance's life
	// (a reset does not restart it); a token is valid only with a number
	// in (revokedGen, tokenGen]: ExpireMessagingTokens and a reset move
	// revokedGen up to tokenGen, and a number the mock never issued (a
	// forged or replayed token from another instance) is refused.
	tokenGen, revokedGen uint64
	// verified holds the claims of access tokens whose signature and
	// claims the world's key verified (parsing a token cost more than the
	// rest of a session request): a token is parsed once, and its time
	// checks run again at each use. A new world (a new key) empties it; it
	// is emptied too when it reaches maxVerifiedTokens.
	verified map[string]accessClaims
}

// messagingLocked derives the per-world secret and id stream when the
// world has changed. a.messaging.mu must be held.
func (a *API) messagingLocked() *messagingState {
	m := &a.messaging
	w := a.View()
	if m.view != w {
		seed := uint64(w.Scenario().Seed)
		if seed == 0 {
			seed = 1
		}
		m.secret = m.randomKey
		if k := w.Scenario().MessagingConfig().SigningKey; k != "" {
			m.secret = []byte(k)
		}
		// A stream of its own, so that messaging traffic does not shift the
		// resource ids of the other families.
		m.rng = rand.New(rand.NewPCG(seed^0x3c6ef372fe94f82b, seed^0xa54ff53a5f1d36f1))
		m.view = w
		m.verified = nil
	}
	if m.sessions == nil {
		m.sessions = map[string]*rtSession{}
	}
	return m
}

// jwtSecret is the instance's HS256 key for access tokens.
func (a *API) jwtSecret() []byte {
	a.messaging.mu.Lock()
	defer a.messaging.mu.Unlock()
	return a.messagingLocked().secret
}

// eventID returns a UUIDv7 for a messaging event at t
// (docs/api.md#messaging-events).
func (a *API) eventID(t time.Time) string {
	a.messaging.mu.Lock()
	r := a.messagingLocked().rng
	hi, lo := r.Uint64(), r.Uint64()
	a.messaging.mu.Unlock()
	ms := uint64(t.UnixMilli())
	hi = ms<<16 | 0x7000 | hi&0x0fff
	lo = lo&^(0xc<<60) | 0x8<<60
	return engine.FormatUUIDBits(hi, lo)
}

// messageID returns a message id like the real "msg_abc123".
func (a *API) messageID() string {
	const alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
	a.messaging.mu.Lock()
	defer a.messaging.mu.Unlock()
	r := a.messagingLocked().rng
	b := []byte("msg_")
	for range 12 {
		b = append(b, alphabet[r.IntN(len(alphabet))])
	}
	return string(b)
}

// resetMessaging drops live state after a reset: every session ends, its
// sockets are closed with 1012 (service restart), and every access token
// issued so far is refused from now on.
func (a *API) resetMessaging() {
	a.messaging.mu.Lock()
	sessions := a.messaging.sessions
	a.messaging.sessions = nil
	a.messaging.revokedGen = a.messaging.tokenGen
	a.messaging.view = nil
	a.messaging.mu.Unlock()
	for _, s := range sessions {
		s.mu.Lock()
		s.ended = true
		if s.stopIdle != nil {
			s.stopIdle()
		}
		for c := range s.conns {
			c.closeWith(wsCloseRestart, "mock reset")
		}
		s.mu.Unlock()
	}
}

// msgParseError is the answer to a body messaging cannot read: the real
// service's fixed text, the reason in the journal's warnings.
func msgParseError(c *gin.Context, err error) error {
	var e *engine.Error
	if errors.As(err, &e) {
		addWarning(c, "%s", e.Message)
	}
	return msgError(http.StatusBadRequest, MsgMessagingParse)
}

// handleMessagingAccessToken handles "POST {messaging}/api/v1/access-token"
// (docs/api.md#messaging-token): X-Token and X-Host buy an HS256 JWT.
func (a *API) handleMessagingAccessToken(c *gin.Context) error {
	var body struct{}
	if err := bindJSON(c, &body, true, ""); err != nil {
		return msgParseError(c, err)
	}
	tok, host := c.GetHeader("X-Token"), c.GetHeader("X-Host")
	if tok == "" || host == "" {
		return msgError(http.StatusUnauthorized, MsgMessagingMissingHeaders)
	}
	w := a.View()
	cred := w.Credential(tok)
	if cred == nil || cred.Kind != scenario.KindConnector {
		return msgError(http.StatusUnauthorized, MsgMessagingNoConnector)
	}
	if len(cred.Hosts) == 0 {
		return msgError(http.StatusUnauthorized, MsgMessagingNoHost)
	}
	if !hostAllowed(cred.Hosts, host, w.Fidelity(switchHostMatch) != "exact") {
		return msgError(http.StatusUnauthorized, MsgMessagingHostMismatch)
	}
	acct := w.Account(cred.Account)
	proj := acct.Project(cred.Project)
	if acct == nil || proj == nil {
		return msgError(http.StatusUnauthorized, MsgMessagingNoConnector)
	}
	now := a.Clock().Now()
	ttl := w.Scenario().MessagingConfig().TokenTTL.D()
	if p, ok := requestPreset(c); ok && p.Name == PresetExpireToken {
		ttl = 0
	}
	a.messaging.mu.Lock()
	rt := a.messagingLocked()
	rt.tokenGen++
	gen, secret := rt.tokenGen, rt.secret
	a.messaging.mu.Unlock()
	variant := cred.Variant
	if v := proj.Variant(variant); v != nil {
		variant = v.ID
	}
	claims := accessClaims{
		AccountID: acct.ID, ProjectID: proj.ID, Environment: cred.ClientEnv, ConnectorID: engine.ConnectorID(cred.Key),
		VariantID: variant, Host: normalizeHost(host), Gen: gen,
		RegisteredClaims: jwt.RegisteredClaims{
			Issuer: tokenIssuer, Subject: engine.ConnectorID(cred.Key), Audience: jwt.ClaimStrings{"messaging"},
			IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now),
			ExpiresAt: jwt.NewNumericDate(now.Add(ttl)), ID: a.NewUUID(),
		},
	}
	signed, err := jwt.NewWithClaims(jwt.SigningMethodHS256, claims).SignedString(secret)
	if err != nil {
		return msgError(http.StatusInternalServerError, "Failed to create access token")
	}
	c.JSON(http.StatusOK, accessTokenResponse{AccessToken: signed, ExpiresIn: int64(ttl / time.Second), TokenType: "bearer"})
	return nil
}

// verifyToken checks an access token: HS256 with the instance's key, not
// expired on the virtual clock, a generation this mock issued and did not
// revoke, and its connector still known and enabled.
func (a *API) verifyToken(c *gin.Context, raw string) (*bearer, error) {
	checks := []jwt.ParserOption{jwt.WithTimeFunc(a.Clock().Now), jwt.WithExpirationRequired(),
		jwt.WithIssuer(tokenIssuer), jwt.WithAudience("messaging")}
	a.messaging.mu.Lock()
	cl, known := a.messagingLocked().verified[raw]
	a.messaging.mu.Unlock()
	if known {
		if err := jwt.NewValidator(checks...).Validate(cl); err != nil {
			return nil, err
		}
	} else {
		var secret []byte
		_, err := jwt.ParseWithClaims(raw, &cl, func(*jwt.Token) (any, error) { secret = a.jwtSecret(); return secret, nil },
			append(checks, jwt.WithValidMethods([]string{"HS256"}))...)
		if err != nil {
			return nil, err
		}
		a.messaging.mu.Lock()
		if m := a.messagingLocked(); string(m.secret) == string(secret) { // the key it was verified with
			if len(m.verified) >= maxVerifiedTokens || m.verified == nil {
				m.verified = map[string]accessClaims{}
			}
			m.verified[raw] = cl
		}
		a.messaging.mu.Unlock()
	}
	if p, ok := requestPreset(c); ok && p.Name == PresetExpireToken {
		return nil, errTokenExpired
	}
	a.messaging.mu.Lock()
	m := a.messagingLocked()
	issued, revoked := cl.Gen <= m.tokenGen, cl.Gen <= m.revokedGen
	a.messaging.mu.Unlock()
	if !issued {
		return nil, errors.New("access token not issued by this mock")
	}
	if revoked {
		return nil, errTokenExpired
	}
	w := a.View()
	b := &bearer{Claims: cl}
	for i := range w.Scenario().Credentials {
		cr := &w.Scenario().Credentials[i]
		if cr.Kind == scenario.KindConnector && !cr.Disabled && engine.ConnectorID(cr.Key) == cl.ConnectorID {
			b.Connector = cr
			break
		}
	}
	if b.Connector == nil {
		return nil, errors.New("connector unknown")
	}
	b.Account = w.Account(cl.AccountID)
	b.Project = b.Account.Project(cl.ProjectID)
	if b.Account == nil || b.Project == nil {
		return nil, errors.New("project unknown")
	}
	return b, nil
}

// ExpireMessagingTokens makes every access token issued so far invalid
// (401 on sessions and new sockets); open sockets stay open.
func (a *API) ExpireMessagingTokens() {
	a.messaging.mu.Lock()
	rt := a.messagingLocked()
	rt.revokedGen = rt.tokenGen
	a.messaging.mu.Unlock()
}

// maxVerifiedTokens bounds messagingState.verified.
const maxVerifiedTokens = 1024

// Messaging's presets (docs/scenarios.md#faults).
const (
	// PresetExpireSession expires the request's session at once (on /ws,
	// after the history batch).
	PresetExpireSession = "messaging.expire_session"
	// PresetExpireSessionAfter expires the session after N more answered
	// user messages ("messaging.expire_session_after:N").
	PresetExpireSessionAfter = "messaging.expire_session_after"
	// PresetExpireToken issues an expired token, or refuses the one
	// presented as expired.
	PresetExpireToken = "messaging.expire_token"
	// PresetDropSocket (on /ws) drops the socket, without a close frame,
	// in the next agent reply.
	PresetDropSocket = "messaging.drop_socket"
	// PresetStallChunks (on /ws) stops delivering after the first chunk of
	// the next streamed reply.
	PresetStallChunks = "messaging.stall_chunks"
	// PresetDelayChunks (on /ws) waits this long (wall time) before each
	// chunk ("messaging.delay_chunks:200ms").
	PresetDelayChunks = "messaging.delay_chunks"
)

var messagingPresets = []faults.Preset{
	{Name: PresetExpireSession, Family: "messaging"},
	{Name: PresetExpireSessionAfter, Family: "messaging", Arg: faults.ArgCount},
	{Name: PresetExpireToken, Family: "messaging"},
	{Name: PresetDropSocket, Family: "messaging"},
	{Name: PresetStallChunks, Family: "messaging"},
	{Name: PresetDelayChunks, Family: "messaging", Arg: faults.ArgDuration},
}

// Messaging error texts, sent in both "error" and "message"
// (docs/api.md#messaging-errors; docs/fidelity.md G20).
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

// switchHostMatch selects how X-Host matches (docs/fidelity.md D23):
// "subdomain" (default) or "exact".
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

// msgError is a messaging error with the real text (in both keys).
func msgError(status int, text string) *engine.Error {
	return &engine.Error{Status: status, Message: text}
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
	Claims    accessClaims
	Account   *scenario.Account
	Project   *scenario.Project
	Connector *scenario.Credential
}

var errTokenExpired = errors.New("access token expired")
