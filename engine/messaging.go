package engine

// Messaging: access token, sessions, streaming WebSocket
// (docs/api.md#messaging; docs/fidelity.md G12, G14, G20, M13). A client
// trades its connector token and registered host for a short-lived JWT,
// creates a session with it and then talks to the agent over a WebSocket
// (messaging_session.go, messaging_socket.go). The agent's words come from
// the dialogue engine, and each session that the agent joins is a WEBCHAT
// conversation record.

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net"
	"strconv"
	"strings"

	"github.com/golang-jwt/jwt/v5"

	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/scenario"
)

// maxVerifiedTokens bounds messagingState.verified.
const MaxVerifiedTokens = 1024

// Messaging's presets (docs/scenarios.md#faults).
const (
	// PresetExpireSession expires the session of the request at once: on
	// POST /api/v1/sessions the new session, on /ws the session right after
	// the socket's history batch.
	PresetExpireSession = "messaging.expire_session"
	// PresetExpireSessionAfter expires the session after N more answered
	// user messages ("messaging.expire_session_after:N").
	PresetExpireSessionAfter = "messaging.expire_session_after"
	// PresetExpireToken on /api/v1/access-token issues a token that has
	// already expired; on /api/v1/sessions and /ws the presented token is
	// refused as expired.
	PresetExpireToken = "messaging.expire_token"
	// PresetDropSocket (on /ws) drops the socket without a close frame in
	// the middle of the next agent reply.
	PresetDropSocket = "messaging.drop_socket"
	// PresetStallChunks (on /ws) stops delivering on the socket after the
	// first chunk of the next streamed reply; the socket stays open.
	PresetStallChunks = "messaging.stall_chunks"
	// PresetDelayChunks (on /ws) waits this long (wall time) before each
	// chunk ("messaging.delay_chunks:200ms").
	PresetDelayChunks = "messaging.delay_chunks"
)

var MessagingPresets = []faults.Preset{
	{Name: PresetExpireSession, Family: "messaging"},
	{Name: PresetExpireSessionAfter, Family: "messaging", Arg: faults.ArgCount},
	{Name: PresetExpireToken, Family: "messaging"},
	{Name: PresetDropSocket, Family: "messaging"},
	{Name: PresetStallChunks, Family: "messaging"},
	{Name: PresetDelayChunks, Family: "messaging", Arg: faults.ArgDuration},
}

// Messaging error texts (docs/api.md#messaging-errors; docs/fidelity.md G20).
// The real service sends them in both "error" and "message".
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
const SwitchHostMatch = "messaging_host_match"

type AccessTokenResponse struct {
	AccessToken string `json:"access_token"`
	ExpiresIn   int64  `json:"expires_in"`
	TokenType   string `json:"token_type"`
}

// accessClaims are the claims of an access token.
type AccessClaims struct {
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
const TokenIssuer = "mockplatform"

// connectorID names a connector token in tokens and records without
// revealing it: CONNECTOR- and the first 12 hex digits of its SHA-256.
func ConnectorID(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "CONNECTOR-" + hex.EncodeToString(sum[:6])
}

// msgError is a messaging error with the real text (in both keys).
func MsgError(status int, text string) *Error {
	return &Error{Status: status, Message: text}
}

// normalizeHost lowercases a host and drops a scheme, a path and a port.
func NormalizeHost(h string) string {
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
func HostAllowed(hosts []string, host string, subdomains bool) bool {
	h := NormalizeHost(host)
	if h == "" {
		return false
	}
	for _, reg := range hosts {
		r := NormalizeHost(reg)
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
type Bearer struct {
	Claims    AccessClaims
	Account   *scenario.Account
	Project   *scenario.Project
	Connector *scenario.Credential
}

var ErrTokenExpired = errors.New("access token expired")
