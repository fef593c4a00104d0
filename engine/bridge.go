package engine

// Agentic-dial bridge ended (docs/api.md#external-events-bridge;
// docs/fidelity.md G29): a bridged call's conversation ends now, closed by
// "bridge", with BRIDGE_DURATION and CALL_DURATION metrics; its outbound
// call, if any, succeeds now.

import (
	"errors"
	"strconv"
	"strings"

	"github.com/agentplatform/mockplatform/engine/dialogue"
	"github.com/agentplatform/mockplatform/store"
)

// Messages of bridge-ended that tests compare.
const (
	MsgBridgeConversation = "Conversation not found."
	MsgBridgeIDRequired   = "conversation_id is required."
	MsgBridgeDuration     = "%s must be a non-negative number."
)

// BridgeEndedBody is the body of POST /internal/v1/agentic-dial/bridge-ended.
type BridgeEndedBody struct {
	ConversationID *string  `json:"conversation_id"`
	BridgeDuration *float64 `json:"bridge_duration_seconds"`
	CallDuration   *float64 `json:"call_duration_seconds"`
}

func (BridgeEndedBody) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{
		"conversation_id":         {Required: true, Doc: "A voice call of the key's account (an outbound call's sid too)."},
		"bridge_duration_seconds": {Required: true, Min: I64(0), Doc: "Recorded as the metric BRIDGE_DURATION."},
		"call_duration_seconds":   {Required: true, Min: I64(0), Doc: "Recorded as the metric CALL_DURATION."},
	}
}

// BridgeEnded ends the bridged call of p's account (and project): unknown
// or non-voice is 400; an ended one is left as it is.
func (a *Engine) BridgeEnded(p *Principal, b BridgeEndedBody) error {
	if b.ConversationID == nil || *b.ConversationID == "" {
		return &Error{Kind: KindInvalid, Message: MsgBridgeIDRequired}
	}
	for _, d := range []struct {
		name string
		v    *float64
	}{{"bridge_duration_seconds", b.BridgeDuration}, {"call_duration_seconds", b.CallDuration}} {
		if d.v == nil || *d.v < 0 {
			return Errf(KindInvalid, "", MsgBridgeDuration, d.name)
		}
	}
	bridged := func(c *store.Conversation) bool {
		return c.AccountID == p.Account.ID && (p.Project == nil || c.ProjectID == p.Project.ID) && strings.HasPrefix(c.Channel, "VOICE")
	}
	c, err := a.store.GetConversation(p.Region, *b.ConversationID)
	switch {
	case errors.Is(err, store.ErrNotFound) || (err == nil && !bridged(c)):
		return &Error{Kind: KindInvalid, Message: MsgBridgeConversation}
	case err != nil:
		return err
	case !c.InProgress:
		return nil // ended already: nothing changes
	}
	now := a.clock.Now()
	ended := false
	conv, err := a.store.UpdateConversation(p.Region, *b.ConversationID, func(c *store.Conversation) error {
		if !c.InProgress {
			return nil
		}
		closeAt(c, now, "bridge")
		dialogue.AddMetric(c, "BRIDGE_DURATION", strconv.FormatFloat(*b.BridgeDuration, 'f', -1, 64))
		dialogue.AddMetric(c, "CALL_DURATION", strconv.FormatFloat(*b.CallDuration, 'f', -1, 64))
		ended = true
		return nil
	})
	if errors.Is(err, store.ErrNotFound) { // gone since (retention)
		return &Error{Kind: KindInvalid, Message: MsgBridgeConversation}
	}
	if err != nil {
		return err
	}
	if ended {
		a.outboundConversationEnded(conv)
	}
	return nil
}
