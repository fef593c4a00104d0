package handlers

// Messaging sessions: the live session, its history, timer and end.

import (
	"cmp"
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/coder/websocket"
	"github.com/gin-gonic/gin"
)

// handleMessagingSessionCreate handles "POST {messaging}/api/v1/sessions"
// (docs/api.md#messaging-session).
func (a *API) handleMessagingSessionCreate(c *gin.Context) error {
	auth := c.GetHeader("Authorization")
	if auth == "" {
		return msgError(http.StatusBadRequest, MsgMessagingMissingToken)
	}
	scheme, raw, ok := strings.Cut(strings.TrimSpace(auth), " ")
	raw = strings.TrimSpace(raw)
	if !ok || !strings.EqualFold(scheme, "bearer") || raw == "" {
		return msgError(http.StatusUnauthorized, MsgMessagingMissingHeaders)
	}
	b, err := a.verifyToken(c, raw)
	if err != nil {
		return msgError(http.StatusUnauthorized, MsgMessagingInvalidToken)
	}
	var req sessionCreateRequest
	if err := bindJSON(c, &req, true, ""); err != nil {
		return msgParseError(c, err)
	}
	platform := "web"
	if req.Platform != nil {
		if !sessionPlatforms[*req.Platform] {
			addWarning(c, "platform %q is not one of web, ios, android, ios-web, android-web, custom", *req.Platform)
			return msgError(http.StatusBadRequest, MsgMessagingParse)
		}
		platform = *req.Platform
	}
	s := a.newSession(b, platform, req.StreamingEnabled != nil && *req.StreamingEnabled,
		engine.Deref(req.DeviceType), c.GetHeader("User-Agent"))
	if p, ok := requestPreset(c); ok {
		switch p.Name {
		case PresetExpireSession:
			a.expireSession(s, -1)
		case PresetExpireSessionAfter:
			s.mu.Lock()
			s.expireAfter = p.N
			s.mu.Unlock()
		}
	}
	c.JSON(http.StatusOK, sessionCreateResponse{SessionID: s.id})
	return nil
}

// rtSession is a live messaging session.
type rtSession struct {
	id                               string
	region, accountID, projectID     string
	environment, variantID, platform string
	connectorID, deviceType, agent   string
	avatar, userAgent                string
	streaming                        bool
	createdAt                        time.Time

	mu       sync.Mutex
	convID   string
	joined   bool
	left     bool // the agent left (handoff)
	ended    bool // ended or expired: no new sockets, no more events
	seq      int
	history  []histEvent
	conns    map[*rtConn]struct{}
	stopIdle func() bool
	idleGen  int
	// expireAfter > 0 expires the session after that many more user
	// messages.
	expireAfter int

	// connected: a socket attached once (engine.MachineMessagingSession).
	connected bool
}

// newSession registers a session and arms its inactivity timer
// (docs/api.md#messaging-session).
func (a *API) newSession(b *bearer, platform string, streaming bool, device, ua string) *rtSession {
	now := a.Clock().Now()
	s := &rtSession{
		id: a.NewUUID(), region: b.Account.Region, accountID: b.Account.ID, projectID: b.Project.ID,
		environment: b.Claims.Environment, variantID: b.Claims.VariantID, platform: platform,
		connectorID: b.Claims.ConnectorID, deviceType: device, userAgent: ua, streaming: streaming,
		createdAt: now, agent: b.Project.Name, conns: map[*rtConn]struct{}{},
	}
	if m := b.Project.Messaging; m != nil {
		if m.AgentName != "" {
			s.agent = m.AgentName
		}
		s.avatar = m.AgentAvatarURL
	}
	cfg := a.View().Scenario().MessagingConfig()
	s.mu.Lock()
	a.emitLocked(s, nil, evSessionStart, map[string]any{"capabilities": map[string]any{
		"streaming": streaming, "max_message_size_bytes": cfg.MaxMessageBytes,
		"max_reconnect_attempts": maxReconnects, "heartbeat_interval_seconds": heartbeatInterval,
	}}, nil, true, itemOther)
	a.touchLocked(s)
	s.mu.Unlock()
	a.messaging.mu.Lock()
	a.sessionsLocked()[s.id] = s
	a.messaging.mu.Unlock()
	a.RecordTransition(engine.MachineMessagingSession, "", "created")
	return s
}

func (a *API) session(id string) *rtSession {
	a.messaging.mu.Lock()
	defer a.messaging.mu.Unlock()
	return a.sessionsLocked()[id]
}

// touchLocked re-arms the inactivity timer. s.mu must be held.
func (a *API) touchLocked(s *rtSession) {
	if s.stopIdle != nil {
		s.stopIdle()
	}
	s.idleGen++
	gen := s.idleGen
	s.stopIdle = a.Clock().AfterFunc(a.View().Scenario().SessionIdle(), func(time.Time) {
		a.RecordClockEvent(engine.ClockMessagingIdleExpiry)
		a.expireSession(s, gen)
	})
}

// expireSession ends a session as abandoned (docs/fidelity.md M13.2); gen
// is the firing idle timer's generation (-1: any).
func (a *API) expireSession(s *rtSession, gen int) {
	s.mu.Lock()
	if s.ended || gen >= 0 && gen != s.idleGen {
		s.mu.Unlock()
		return
	}
	a.endSessionLocked(s, reasonAbandoned, wsCloseExpired, "session expired", "expired")
	s.mu.Unlock()
}

// state is the session's state while it lasts (engine.MachineMessagingSession).
func (s *rtSession) state() string {
	if s.connected {
		return "connected"
	}
	return "created"
}

// ExpireMessagingSession expires a session now (control plane).
func (a *API) ExpireMessagingSession(id string) error {
	s := a.session(id)
	if s == nil {
		return engine.ErrNotFound
	}
	a.expireSession(s, -1)
	return nil
}

// MessagingSessions lists the live sessions, oldest first.
func (a *API) MessagingSessions() []MessagingSession {
	a.messaging.mu.Lock()
	list := make([]*rtSession, 0, len(a.messaging.sessions))
	for _, s := range a.messaging.sessions {
		list = append(list, s)
	}
	a.messaging.mu.Unlock()
	out := make([]MessagingSession, 0, len(list))
	for _, s := range list {
		s.mu.Lock()
		out = append(out, MessagingSession{ID: s.id, AccountID: s.accountID, ProjectID: s.projectID,
			ConversationID: s.convID, Streaming: s.streaming, Platform: s.platform, CreatedAt: s.createdAt,
			Connections: len(s.conns), Events: s.seq})
		s.mu.Unlock()
	}
	slices.SortFunc(out, func(a, b MessagingSession) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), strings.Compare(a.ID, b.ID))
	})
	return out
}

// endSessionLocked sends SESSION_END, closes the sockets, ends the
// conversation and forgets the session. s.mu must be held.
func (a *API) endSessionLocked(s *rtSession, reason string, code websocket.StatusCode, text, closedBy string) {
	a.emitLocked(s, nil, evSessionEnd, map[string]any{"reason": reason}, nil, true, itemOther)
	if !s.ended {
		to := "ended"
		if reason == reasonAbandoned {
			to = "idle_expired"
		}
		a.RecordTransition(engine.MachineMessagingSession, s.state(), to)
	}
	s.ended = true
	if s.stopIdle != nil {
		s.stopIdle()
	}
	for c := range s.conns {
		c.closeWith(code, text)
	}
	if s.convID != "" {
		a.EndSessionConversation(s.id, s.region, s.convID, closedBy)
	}
	a.messaging.mu.Lock()
	if a.messaging.sessions[s.id] == s {
		delete(a.messaging.sessions, s.id)
	}
	a.messaging.mu.Unlock()
}

// sessionPlatforms are the spec's four platforms and the real service's
// two "-web" ones (D12).
var sessionPlatforms = map[string]bool{"web": true, "ios": true, "android": true, "custom": true,
	"ios-web": true, "android-web": true}

type sessionCreateRequest struct {
	Platform         *string `json:"platform"`
	StreamingEnabled *bool   `json:"streaming_enabled"`
	DeviceType       *string `json:"device_type"`
}

type sessionCreateResponse struct {
	SessionID string `json:"session_id"`
}

type histEvent struct {
	Seq  int
	Data json.RawMessage
}

// MessagingSession describes a live session for the control plane.
type MessagingSession struct {
	ID             string    `json:"session_id"`
	AccountID      string    `json:"account_id"`
	ProjectID      string    `json:"project_id"`
	ConversationID string    `json:"conversation_id,omitempty"`
	Streaming      bool      `json:"streaming_enabled"`
	Platform       string    `json:"platform"`
	CreatedAt      time.Time `json:"created_at"`
	Connections    int       `json:"connections"`
	Events         int       `json:"events"`
}
