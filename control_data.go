package mockplatform

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/handlers"
)

// Control-plane operations of the data families (issue 3): a simulated
// caller dialling a reserved number (spec 4.9).

// DialResult is the voice conversation a dialled number started.
type DialResult = handlers.DialResult

// ErrNotRouted is returned by Dial for a number with no active reservation.
var ErrNotRouted = handlers.ErrNotRouted

// Dial simulates a caller (from: an E.164 number, may be empty) dialling a
// number reserved through the dynamic number reservation API. During the
// reservation window it starts a VOICE-SIP conversation of the reserving
// agent whose state carries the reservation's attributes
// (integration_attributes) from the first turn; after the window it
// returns an error wrapping ErrNotRouted.
func (p *Platform) Dial(number, from string) (DialResult, error) {
	r, err := p.api.Dial(number, from)
	if err != nil {
		return DialResult{}, err
	}
	return *r, nil
}

// registerControlData adds the families' control-plane routes under /_mock.
func registerControlData(g *gin.RouterGroup) {
	g.POST("/dni/dial", ctl((*Platform).handleControlDial))
}

// handleControlDial handles "POST /_mock/dni/dial" {"number":"+1...","from":"+1..."}:
// 200 {"conversation_id","response"}, 404 when the number is not routed.
func (p *Platform) handleControlDial(c *gin.Context) {
	var req struct {
		Number string `json:"number"`
		From   string `json:"from"`
	}
	if err := json.NewDecoder(io.LimitReader(c.Request.Body, 64<<10)).Decode(&req); err != nil || req.Number == "" {
		controlError(c, http.StatusBadRequest, `body must be {"number":"+14155550100","from":"+14155550199"} (from optional)`)
		return
	}
	res, err := p.Dial(req.Number, req.From)
	switch {
	case errors.Is(err, ErrNotRouted):
		controlError(c, http.StatusNotFound, err.Error())
		return
	case err != nil:
		controlError(c, http.StatusInternalServerError, err.Error())
		return
	}
	c.JSON(http.StatusOK, res)
}
