package mockplatform

// Control-plane operations of voice calls: a simulated caller dialling,
// speaking and hanging up.

import (
	"errors"
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/engine"
)

// DialResult is the voice conversation a dialled number started.
type DialResult = engine.DialResult

// ErrNotRouted is returned by Dial for a number with no active reservation.
var ErrNotRouted = engine.ErrNotRouted

// Dial simulates a caller (from may be empty) dialling a number reserved
// through the dynamic number reservation API: during the reservation it
// starts a VOICE-SIP conversation carrying the reservation's attributes,
// after it the error wraps ErrNotRouted. An agent's own number routed to a
// telephony connector is answered by that agent (docs/fidelity.md M12.16).
func (p *Platform) Dial(number, from string) (DialResult, error) {
	r, err := p.api.CallIn(number, from)
	if err != nil {
		return DialResult{}, err
	}
	return *r, nil
}

// SayResult is the agent's answer to a caller's utterance.
type SayResult = engine.SayResult

// CallHandoff is the transfer a caller's turn caused.
type CallHandoff = engine.CallHandoff

// Errors of Say and Hangup.
var (
	ErrCallNotFound = engine.ErrCallNotFound
	ErrNotVoice     = engine.ErrNotVoice
	ErrCallEnded    = engine.ErrCallEnded
)

// Say speaks text as the caller into an in-progress voice conversation and
// returns the agent's answer. The turn runs through the dialogue like a
// chat message (handoffs, events, ending rules); an empty text is silence.
// Errors wrap ErrCallNotFound, ErrNotVoice or ErrCallEnded.
func (p *Platform) Say(conversationID, text string) (SayResult, error) {
	r, err := p.api.Say(conversationID, text)
	if err != nil {
		return SayResult{}, err
	}
	return *r, nil
}

// Hangup ends an in-progress voice conversation as the caller (closed_by
// "caller"). Errors wrap ErrCallNotFound, ErrNotVoice or ErrCallEnded.
func (p *Platform) Hangup(conversationID string) error {
	return p.api.Hangup(conversationID)
}

// callErrorStatus maps Say's and Hangup's errors to 404, 409 and 410.
func callErrorStatus(err error) int {
	switch {
	case errors.Is(err, ErrCallNotFound):
		return http.StatusNotFound
	case errors.Is(err, ErrNotVoice):
		return http.StatusConflict
	case errors.Is(err, ErrCallEnded):
		return http.StatusGone
	}
	return http.StatusInternalServerError
}

// handleControlSay handles "POST /_mock/calls/{id}/say" {"text"}.
func (p *Platform) handleControlSay(c *gin.Context) {
	var req sayInput
	const usage = `body must be {"text":"what the caller says"} ("" for silence)`
	if !bindControl(c, maxControlSmall, &req, usage) {
		return
	}
	if req.Text == nil {
		controlError(c, http.StatusBadRequest, usage)
		return
	}
	res, err := p.Say(c.Param("id"), *req.Text)
	if err != nil {
		controlError(c, callErrorStatus(err), err.Error())
		return
	}
	c.JSON(http.StatusOK, res)
}

// handleControlHangup handles "POST /_mock/calls/{id}/hangup".
func (p *Platform) handleControlHangup(c *gin.Context) {
	id := c.Param("id")
	if err := p.Hangup(id); err != nil {
		controlError(c, callErrorStatus(err), err.Error())
		return
	}
	c.JSON(http.StatusOK, hangupAnswer{ConversationID: id, Ended: true})
}

// handleControlDial handles "POST /_mock/dni/dial" {"number","from"}.
func (p *Platform) handleControlDial(c *gin.Context) {
	var req dialInput
	const usage = `body must be {"number":"+14155550100","from":"+14155550199"} (from optional)`
	if !bindControl(c, maxControlSmall, &req, usage) {
		return
	}
	if req.Number == "" {
		controlError(c, http.StatusBadRequest, usage)
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
