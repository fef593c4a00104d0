package mockplatform

// Control-plane operations of the webhooks family: the delivery log of
// signed alert notifications.

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/handlers"
)

// DeliveryAttempt is one webhook delivery attempt of the delivery log.
type DeliveryAttempt = handlers.DeliveryAttempt

// Deliveries returns every webhook delivery attempt since the last reset,
// oldest first (time, endpoint, attempt, status, error). Attempts run inside
// the Advance that makes them due, so after Advance returns the log holds
// every attempt due by then.
func (p *Platform) Deliveries() []DeliveryAttempt { return p.api.Deliveries() }

// handleControlDeliveries handles "GET /_mock/webhooks/deliveries"
// ({"deliveries": [...]}).
func (p *Platform) handleControlDeliveries(c *gin.Context) {
	list := p.Deliveries()
	if list == nil {
		list = []DeliveryAttempt{}
	}
	c.JSON(http.StatusOK, deliveriesAnswer{Deliveries: list})
}
