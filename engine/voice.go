package engine

// Simulated callers on voice conversations (docs/api.md#voice;
// docs/fidelity.md M11.12): the spec has no voice API, so control-plane
// calls speak as the caller into an in-progress voice conversation and
// hang up. An utterance is a user turn like a chat message.

import (
	"errors"
	"fmt"

	"github.com/agentplatform/mockplatform/engine/core"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// Errors of Say and Hangup (tests compare with errors.Is).
var (
	// ErrCallNotFound: no conversation has this id.
	ErrCallNotFound = errors.New("no conversation with this id")
	// ErrNotVoice: the conversation's channel is not VOICE*.
	ErrNotVoice = errors.New("conversation is not a voice call")
	// ErrCallEnded: the call is over.
	ErrCallEnded = errors.New("call has ended")
)

// SayResult is the agent's answer to a caller's utterance.
type SayResult struct {
	ConversationID string `json:"conversation_id"`
	// Response is what the agent says.
	Response string `json:"response"`
	// Ended is true when the agent ended the call with this turn.
	Ended bool `json:"end_conversation"`
	// Handoff is set when this turn handed the call off.
	Handoff *CallHandoff `json:"handoff,omitempty"`
}

// CallHandoff is the transfer a turn performed.
type CallHandoff struct {
	Destination string `json:"destination"`
	Reason      string `json:"reason"`
}

// findConversation returns the region pair holding a conversation id
// (first of us, uk, eu).
func (a *Engine) findConversation(id string) (string, error) {
	if id == "" {
		return "", ErrCallNotFound
	}
	for _, region := range scenario.Regions {
		_, err := a.store.GetConversation(region, id)
		if err == nil {
			return region, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return "", err
		}
	}
	return "", ErrCallNotFound
}

func voiceCheck(conv *store.Conversation) error {
	if !core.IsVoice(conv) {
		return fmt.Errorf("%s (channel %s): %w", conv.ID, conv.Channel, ErrNotVoice)
	}
	if !conv.InProgress {
		return fmt.Errorf("%s: %w", conv.ID, ErrCallEnded)
	}
	return nil
}

func voiceError(id string, err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("%s: %w", id, ErrCallNotFound)
	case errors.Is(err, ErrConversationEnded):
		return fmt.Errorf("%s: %w", id, ErrCallEnded)
	}
	return err
}

// Say speaks text as the caller into an in-progress voice conversation and
// returns the agent's answer; empty text is a silent turn. The dialogue
// applies as for chat.
func (a *Engine) Say(conversationID, text string) (*SayResult, error) {
	region, err := a.findConversation(conversationID)
	if err != nil {
		return nil, voiceError(conversationID, err)
	}
	conv, out, err := a.Converse(region, conversationID, voiceCheck, UserTurn{Text: text})
	if err != nil {
		return nil, voiceError(conversationID, err)
	}
	res := &SayResult{ConversationID: conv.ID, Response: out.Text, Ended: !conv.InProgress}
	if out.Handoff != nil {
		res.Handoff = &CallHandoff{Destination: out.Handoff.Destination, Reason: out.Handoff.Reason}
	}
	return res, nil
}

// Hangup ends an in-progress voice conversation now, closed_by "caller";
// an ended one is ErrCallEnded.
func (a *Engine) Hangup(conversationID string) error {
	region, err := a.findConversation(conversationID)
	if err != nil {
		return voiceError(conversationID, err)
	}
	conv, err := a.closeConversation(region, conversationID, "caller", voiceCheck)
	if err != nil {
		return voiceError(conversationID, err)
	}
	a.outboundConversationEnded(conv)
	return nil
}
