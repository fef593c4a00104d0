package mockplatform

// Control-plane operations of the webhooks family: the delivery log of
// signed alert notifications.

import (
	"context"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/handlers"
)

// registerControlWebhooks adds the webhooks family's control-plane routes.
func (p *Platform) registerControlWebhooks(g *gin.RouterGroup) {
	g.GET("/webhooks/deliveries", p.handleControlDeliveries)
}

// DeliveryAttempt is one webhook delivery attempt of the delivery log.
type DeliveryAttempt = handlers.DeliveryAttempt

// Deliveries returns every webhook delivery attempt since the last reset,
// oldest first (time, endpoint, status, latency, error).
func (p *Platform) Deliveries() []DeliveryAttempt { return p.api.Deliveries() }

// WaitDeliveries waits until no webhook delivery attempt is in flight: the
// attempts due so far have been sent and logged and their retries
// scheduled. Call it after Advance before reading Deliveries.
func (p *Platform) WaitDeliveries(ctx context.Context) error { return p.api.WaitDeliveries(ctx) }

// handleControlDeliveries handles "GET /_mock/webhooks/deliveries"
// ({"deliveries": [...]}); ?wait=true first waits for attempts in flight.
func (p *Platform) handleControlDeliveries(c *gin.Context) {
	if c.Query("wait") == "true" {
		if err := p.WaitDeliveries(c.Request.Context()); err != nil {
			controlError(c, http.StatusServiceUnavailable, err.Error())
			return
		}
	}
	list := p.Deliveries()
	if list == nil {
		list = []DeliveryAttempt{}
	}
	c.JSON(http.StatusOK, gin.H{"deliveries": list})
}
