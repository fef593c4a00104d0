package engine

// Simulated callers on voice conversations (docs/api.md#voice;
// docs/fidelity.md M11.12): a call to a reserved number (docs/api.md#dni) or
// to an agent's number (docs/api.md#agents-inbound) reaches the agent, and an
// answered outbound call (docs/api.md#outbound-states) is a voice
// conversation too. The platform's voice side has no API of its own in the
// spec, so the mock offers control-plane calls (and Go methods) that speak as
// the caller into any in-progress voice conversation and hang up. A caller's
// utterance is a user turn like a chat message: it goes through a.converse,
// so dialogue rules, handoffs (and the Handoff API's data), awaited external
// events and ending rules apply exactly as for chat.

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
	// ErrNotVoice: the conversation is not a voice call (its channel does
	// not start with VOICE); use the chat or messaging API for it.
	ErrNotVoice = errors.New("conversation is not a voice call")
	// ErrCallEnded: the call is over (hung up, ended by the agent, or
	// handed off).
	ErrCallEnded = errors.New("call has ended")
)

// SayResult is the agent's answer to a caller's utterance.
type SayResult struct {
	ConversationID string `json:"conversation_id"`
	// Response is what the agent says.
	Response string `json:"response"`
	// Ended is true when the agent ended the call with this turn (an end
	// or handoff rule).
	Ended bool `json:"end_conversation"`
	// Handoff is set when this turn handed the call off.
	Handoff *CallHandoff `json:"handoff,omitempty"`
}

// CallHandoff is the transfer a turn performed.
type CallHandoff struct {
	Destination string `json:"destination"`
	Reason      string `json:"reason"`
}

// findConversation returns the region pair that holds a conversation id
// (ids are unique per region; the first region that has it wins, in the
// order us, uk, eu).
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

// voiceError maps the store's and the engine's errors to the call errors.
func voiceError(id string, err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return fmt.Errorf("%s: %w", id, ErrCallNotFound)
	case errors.Is(err, ErrConversationEnded):
		return fmt.Errorf("%s: %w", id, ErrCallEnded)
	}
	return err
}

// Say speaks text as the caller into an in-progress voice conversation
// (one a dialled reserved number or an answered outbound call started, or
// a seeded one) and returns the agent's answer. An empty text is a
// silent turn (the caller said nothing: is_silence). The turn runs through
// the dialogue like a chat message: a handoff rule writes the handoff
// state and ends the call, an await_event rule registers the awaited
// event id, an event rule matches events already received.
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

// Hangup ends an in-progress voice conversation as the caller: it ends
// now (ended_at is the current time, in_progress false) and its state
// records closed_by "caller". A call that has already ended returns
// ErrCallEnded and is not changed.
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
