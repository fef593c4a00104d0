package mockplatform

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/handlers"
	"github.com/agentplatform/mockplatform/store"
)

// MessagingSession describes a live messaging session.
type MessagingSession = handlers.MessagingSession

// ErrNoSession is returned for an unknown, ended or expired messaging session.
var ErrNoSession = errors.New("mockplatform: messaging session not found")

// MessagingSessions lists the live messaging sessions, oldest first.
func (p *Platform) MessagingSessions() []MessagingSession { return p.api.MessagingSessions() }

// ExpireMessagingSession expires a messaging session now, as 10 minutes of
// inactivity would: its sockets get SESSION_END and close with 4001.
func (p *Platform) ExpireMessagingSession(id string) error {
	if err := p.api.ExpireMessagingSession(id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return ErrNoSession
		}
		return err
	}
	return nil
}

// ExpireMessagingTokens invalidates every messaging access token issued so
// far (401 from then on); open sockets stay open.
func (p *Platform) ExpireMessagingTokens() { p.api.ExpireMessagingTokens() }

// handleControlMessagingSessions handles "GET /_mock/messaging/sessions".
func (p *Platform) handleControlMessagingSessions(c *gin.Context) {
	list := p.MessagingSessions()
	if list == nil {
		list = []MessagingSession{}
	}
	c.JSON(http.StatusOK, sessionsAnswer{Sessions: list})
}

// handleControlMessagingExpire handles "POST /_mock/messaging/sessions/{id}/expire".
func (p *Platform) handleControlMessagingExpire(c *gin.Context) {
	if err := p.ExpireMessagingSession(c.Param("id")); err != nil {
		controlError(c, http.StatusNotFound, "messaging session not found")
		return
	}
	c.JSON(http.StatusOK, sessionExpired{SessionID: c.Param("id"), Expired: true})
}

// handleControlMessagingTokensExpire handles "POST /_mock/messaging/tokens/expire".
func (p *Platform) handleControlMessagingTokensExpire(c *gin.Context) {
	p.ExpireMessagingTokens()
	c.JSON(http.StatusOK, tokensExpired{Expired: true})
}
