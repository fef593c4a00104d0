package handlers

// Messaging (docs/api.md#messaging; docs/fidelity.md G12, G14, G20, M13):
// a connector token buys a JWT, the JWT a session (messaging_session.go),
// the session a WebSocket to the agent (messaging_socket.go).

import (
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/faults"

	"github.com/gin-gonic/gin"

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
	Machines:    []*Machine{engine.MachineMessagingSession},
	ClockEvents: []ClockEvent{engine.ClockMessagingIdleExpiry},
}

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

// messagingState is the live sessions, each with its own lock; the engine
// holds the token key (engine/messaging_tokens.go).
type messagingState struct {
	// mu guards sessions. It is taken under a session's mu, never the
	// reverse.
	mu       sync.Mutex
	sessions map[string]*rtSession
}

// sessionsLocked is the live sessions. a.messaging.mu must be held.
func (a *API) sessionsLocked() map[string]*rtSession {
	if a.messaging.sessions == nil {
		a.messaging.sessions = map[string]*rtSession{}
	}
	return a.messaging.sessions
}

// resetMessaging ends every session after a reset, closing its sockets
// with 1012 (service restart).
func (a *API) resetMessaging() {
	a.messaging.mu.Lock()
	sessions := a.messaging.sessions
	a.messaging.sessions = nil
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

// msgParseError answers an unreadable body with the real fixed text; the
// reason goes to the journal's warnings.
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
	if !engine.HostAllowed(cred.Hosts, host, w.Fidelity(switchHostMatch) != "exact") {
		return msgError(http.StatusUnauthorized, MsgMessagingHostMismatch)
	}
	acct := w.Account(cred.Account)
	proj := acct.Project(cred.Project)
	if acct == nil || proj == nil {
		return msgError(http.StatusUnauthorized, MsgMessagingNoConnector)
	}
	ttl := w.Scenario().MessagingConfig().TokenTTL.D()
	if p, ok := requestPreset(c); ok && p.Name == PresetExpireToken {
		ttl = 0
	}
	signed, err := a.IssueMessagingToken(cred, acct, proj, host, ttl)
	if err != nil {
		return msgError(http.StatusInternalServerError, "Failed to create access token")
	}
	c.JSON(http.StatusOK, accessTokenResponse{AccessToken: signed, ExpiresIn: int64(ttl / time.Second), TokenType: "bearer"})
	return nil
}

// verifyToken checks an access token; the expire_token preset refuses it.
func (a *API) verifyToken(c *gin.Context, raw string) (*bearer, error) {
	p, ok := requestPreset(c)
	return a.VerifyMessagingToken(raw, ok && p.Name == PresetExpireToken)
}

// Messaging's presets (docs/scenarios.md#faults).
const (
	// PresetExpireSession expires the request's session at once.
	PresetExpireSession = "messaging.expire_session"
	// PresetExpireSessionAfter expires the session after N more answered
	// user messages ("messaging.expire_session_after:N").
	PresetExpireSessionAfter = "messaging.expire_session_after"
	// PresetExpireToken issues an expired token, or refuses the one
	// presented as expired.
	PresetExpireToken = "messaging.expire_token"
	// PresetDropSocket (on /ws) drops the socket in the next agent reply.
	PresetDropSocket = "messaging.drop_socket"
	// PresetStallChunks (on /ws) stops delivering after the first chunk of
	// the next streamed reply.
	PresetStallChunks = "messaging.stall_chunks"
	// PresetDelayChunks (on /ws) waits before each chunk (":200ms").
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

// accessClaims and bearer are the engine's token claims and grant.
type (
	accessClaims = engine.AccessClaims
	bearer       = engine.Bearer
)

// msgError is a messaging error with the real text (in both keys).
func msgError(status int, text string) *engine.Error {
	return &engine.Error{Status: status, Message: text}
}
