package mockplatform

// Control-plane operations of the webhooks family.

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/engine"
)

// DeliveryAttempt is one webhook delivery attempt of the delivery log.
type DeliveryAttempt = engine.DeliveryAttempt

// Deliveries returns every webhook delivery attempt since the last reset,
// oldest first. Attempts run inside the Advance that makes them due.
func (p *Platform) Deliveries() []DeliveryAttempt { return p.api.Deliveries() }

// handleControlDeliveries handles "GET /_mock/webhooks/deliveries".
func (p *Platform) handleControlDeliveries(c *gin.Context) {
	list := p.Deliveries()
	if list == nil {
		list = []DeliveryAttempt{}
	}
	c.JSON(http.StatusOK, deliveriesAnswer{Deliveries: list})
}
