package handlers

// The timeline's messaging sessions (engine.Sessions) live with the
// clients': opened, spoken to and ended as a client's would be, without a
// socket.

import (
	"errors"
	"fmt"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/scenario"
)

// timelineSessions holds the timeline's messaging sessions
// (engine.Sessions).
type timelineSessions struct{ a *API }

var errSessionGone = errors.New("the session has ended or expired")

// OpenSession opens a session with a connector credential of the project
// and environment that has hosts, as its access token would, and lets
// the agent join.
func (t timelineSessions) OpenSession(acct *scenario.Account, proj *scenario.Project, env string, streaming bool) (string, error) {
	a, w := t.a, t.a.View()
	for i := range w.Scenario().Credentials {
		c := &w.Scenario().Credentials[i]
		if c.Kind != scenario.KindConnector || c.Disabled || w.Account(c.Account) != acct || acct.Project(c.Project) != proj ||
			c.ClientEnv != env || len(c.Hosts) == 0 {
			continue
		}
		variant := c.Variant
		if v := proj.Variant(variant); v != nil {
			variant = v.ID
		}
		s := a.newSession(&bearer{Account: acct, Project: proj, Connector: c, Claims: accessClaims{AccountID: acct.ID,
			ProjectID: proj.ID, Environment: env, ConnectorID: engine.ConnectorID(c.Key), VariantID: variant}},
			"web", streaming, "", "mockplatform-timeline")
		s.mu.Lock()
		defer s.mu.Unlock()
		a.emitLocked(s, nil, evJoinRequest, map[string]any{}, nil, true, itemOther)
		a.joinLocked(s, nil)
		if !s.joined {
			return s.id, errors.New("the agent did not join")
		}
		return s.id, nil
	}
	return "", fmt.Errorf("no connector credential of project %s (client_env %s) has hosts", proj.Slug, env)
}

// SessionMessage sends the user's message, as EVENT_TYPE_USER_MESSAGE.
func (t timelineSessions) SessionMessage(id, text string) (bool, error) {
	a := t.a
	s := a.session(id)
	if s == nil {
		return true, errSessionGone
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return true, errSessionGone
	}
	a.touchLocked(s)
	a.emitLocked(s, nil, evUserMessage, map[string]any{"text": text, "message_id": a.MessagingMessageID()}, nil, true, itemOther)
	a.userMessageLocked(s, nil, text, nil)
	return s.ended || s.left, nil
}

// EndSession ends the session as the user, as EVENT_TYPE_USER_END.
func (t timelineSessions) EndSession(id string) error {
	a := t.a
	s := a.session(id)
	if s == nil {
		return errSessionGone
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return errSessionGone
	}
	a.emitLocked(s, nil, evUserEnd, map[string]any{}, nil, true, itemOther)
	a.endSessionLocked(s, reasonUserEnd, wsCloseNormal, "session ended", "user")
	return nil
}

// ExpireSessions expires every live session, oldest first.
func (t timelineSessions) ExpireSessions() []string {
	var ids []string
	for _, s := range t.a.MessagingSessions() {
		if t.a.ExpireMessagingSession(s.ID) == nil {
			ids = append(ids, s.ID)
		}
	}
	return ids
}

// ExpireTokens revokes every access token issued so far.
func (t timelineSessions) ExpireTokens() { t.a.ExpireMessagingTokens() }
