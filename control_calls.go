package mockplatform

// Control-plane operations of voice calls: a simulated caller dialling a
// reserved number (dni) or an agent's number (telephony), speaking into a
// voice call and hanging up.

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

// Dial simulates a caller (from: an E.164 number, may be empty) dialling a
// number reserved through the dynamic number reservation API. During the
// reservation window it starts a VOICE-SIP conversation of the reserving
// agent whose state carries the reservation's attributes
// (integration_attributes) from the first turn; after the window it
// returns an error wrapping ErrNotRouted.
//
// A number that is not a reservation but an agent's own number, routed to
// a telephony connector, is answered by that connector's agent in its
// client environment, variant and languages (docs/api.md#agents-inbound;
// docs/fidelity.md M12.16).
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
	// ErrCallNotFound: no conversation has this id.
	ErrCallNotFound = engine.ErrCallNotFound
	// ErrNotVoice: the conversation is not a voice call.
	ErrNotVoice = engine.ErrNotVoice
	// ErrCallEnded: the call has ended (hung up, or ended by the agent).
	ErrCallEnded = engine.ErrCallEnded
)

// Say speaks text as the caller into an in-progress voice conversation
// (VOICE-SIP or another VOICE-* channel: a dialled reserved number, an
// answered outbound call, a seeded call) and returns the agent's answer.
// The turn runs through the dialogue like a chat message, so handoffs
// (readable through the Handoff API), awaited external events and ending
// rules apply; Ended reports that the agent ended the call. An empty text
// is a silent turn. Errors wrap ErrCallNotFound, ErrNotVoice or
// ErrCallEnded.
func (p *Platform) Say(conversationID, text string) (SayResult, error) {
	r, err := p.api.Say(conversationID, text)
	if err != nil {
		return SayResult{}, err
	}
	return *r, nil
}

// Hangup ends an in-progress voice conversation as the caller: it is no
// longer in progress, ended_at is now, and its state has closed_by
// "caller". Errors wrap ErrCallNotFound, ErrNotVoice or ErrCallEnded.
func (p *Platform) Hangup(conversationID string) error {
	return p.api.Hangup(conversationID)
}

// callErrorStatus maps the errors of Say and Hangup to control-plane
// statuses: 404 unknown id, 409 not a voice call, 410 call ended.
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

// handleControlSay handles "POST /_mock/calls/{id}/say" {"text":"..."}:
// 200 {"conversation_id","response","end_conversation","handoff"?}; an
// empty text is a silent turn; 400 without "text", 404/409/410 (see
// callErrorStatus).
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

// handleControlHangup handles "POST /_mock/calls/{id}/hangup" (no body):
// 200 {"conversation_id","ended":true}, 404/409/410 (see callErrorStatus).
func (p *Platform) handleControlHangup(c *gin.Context) {
	id := c.Param("id")
	if err := p.Hangup(id); err != nil {
		controlError(c, callErrorStatus(err), err.Error())
		return
	}
	c.JSON(http.StatusOK, hangupAnswer{ConversationID: id, Ended: true})
}

// handleControlDial handles "POST /_mock/dni/dial" {"number":"+1...","from":"+1..."}:
// 200 {"conversation_id","response"}, 404 when the number is not routed.
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
