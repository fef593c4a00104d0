package engine

// The conversation engine: every family starts its conversations and feeds
// them turns through here, so there is one record shape and one dialogue.

import (
	"errors"
	"maps"
	"time"

	"github.com/agentplatform/mockplatform/engine/dialogue"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// ConvStart describes a new conversation.
type ConvStart struct {
	Region      string
	Account     *scenario.Account
	Project     *scenario.Project
	Environment string // live (default), pre-release, sandbox
	Channel     string // analytics label: CHAT, WEBCHAT, VOICE-SIP, ...
	ChatChannel string // chat API channel field, when any
	Variant     *scenario.Variant
	Language    string
	TTSLanguage string
	FromNumber  string
	ToNumber    string
	Attributes  map[string]any // integration attributes
	// State is extra initial state, merged over the built-in keys.
	State map[string]any
	// ID fixes the conversation id (empty: a fresh CONV- id).
	ID string
	// InitialMessage is a first user turn, answered instead of greeting.
	InitialMessage *string
}

// UserTurn is one user message of a running conversation.
type UserTurn struct {
	Text       string
	Metadata   map[string]any
	Attributes map[string]any
	Asr, Tts   *string
}

// StartConversation creates a conversation whose first turn is the
// greeting (or the answer to the initial message).
func (a *Engine) StartConversation(s ConvStart) (*store.Conversation, Outcome, error) {
	conv, out := a.openConversation(s, a.script)
	var err error
	if s.ID != "" {
		err = a.store.InsertConversation(conv)
	} else {
		err = a.insertConversation(conv)
	}
	if err != nil {
		return nil, Outcome{}, err
	}
	a.afterTurn(conv, out)
	return conv, out, nil
}

// openConversation makes an unstored conversation with its first turn,
// answered from script.
func (a *Engine) openConversation(s ConvStart, script func(*store.Conversation) runtimeScript) (*store.Conversation, Outcome) {
	now := a.clock.Now()
	conv := &store.Conversation{
		ID:                    s.ID,
		Region:                s.Region,
		AccountID:             s.Account.ID,
		ProjectID:             s.Project.ID,
		Environment:           s.Environment,
		Channel:               s.Channel,
		ChatChannel:           s.ChatChannel,
		StartedAt:             now,
		InProgress:            true,
		FromNumber:            s.FromNumber,
		ToNumber:              s.ToNumber,
		Language:              s.Language,
		TTSLanguage:           s.TTSLanguage,
		IntegrationAttributes: s.Attributes,
		Metrics:               map[string]any{},
		Turns:                 []store.Turn{},
	}
	if conv.Environment == "" {
		conv.Environment = "live"
	}
	if s.Variant != nil {
		conv.VariantID, conv.VariantName = s.Variant.ID, s.Variant.Name
	}
	conv.State = builtinState(conv)
	maps.Copy(conv.State, s.State)

	w := a.View()
	sc := script(conv)
	in := turnInput{Attributes: conv.IntegrationAttributes, State: conv.State, Metadata: map[string]any{}, Variables: sc.Variables}
	var out Outcome
	if s.InitialMessage != nil {
		in.Message, in.Turn = *s.InitialMessage, 1
		out = w.scripts.Respond(sc.Dialogue, conv.VariantID, in).WithoutHandoff(conv.State)
	} else {
		text, err := w.scripts.Greeting(sc.Dialogue, conv.VariantID, in)
		if err != nil {
			text = DefaultGreeting
		}
		out = Outcome{Text: text}
	}
	dialogue.ApplyTurn(conv, now, in, out, nil)
	if s.ID != "" {
		conv.State["conversation_id"] = conv.ID
	}
	return conv, out
}

// Converse runs a user turn on a stored conversation in one store update,
// after check (which may refuse it) sees the record without turns. It
// returns the record's head (store.AppendNewTurns) and the outcome.
func (a *Engine) Converse(region, id string, check func(*store.Conversation) error, msg UserTurn) (*store.Conversation, Outcome, error) {
	w := a.View()
	now := a.clock.Now()
	var out Outcome
	conv, err := a.store.AppendNewTurns(region, id, func(conv *store.Conversation, prior store.PriorTurns) error {
		if check != nil {
			if err := check(conv); err != nil {
				return err
			}
		}
		if !conv.InProgress {
			return ErrConversationEnded
		}
		out = takeTurn(w, conv, prior.UserTurns()+1, a.script(conv), msg, now)
		return nil
	})
	if err != nil {
		return nil, Outcome{}, err
	}
	a.afterTurn(conv, out)
	return conv, out, nil
}

// takeTurn runs the user's turn n of conv at now, answered from script.
func takeTurn(w *View, conv *store.Conversation, n int, script runtimeScript, msg UserTurn, now time.Time) Outcome {
	if conv.State == nil {
		conv.State = map[string]any{}
	}
	if len(msg.Attributes) > 0 {
		if conv.IntegrationAttributes == nil {
			conv.IntegrationAttributes = map[string]any{}
		}
		maps.Copy(conv.IntegrationAttributes, msg.Attributes)
		conv.State["integration_attributes"] = conv.IntegrationAttributes
	}
	if msg.Asr != nil {
		conv.Language = *msg.Asr
		conv.State["asr_lang_code"] = conv.Language
	}
	if msg.Tts != nil {
		conv.TTSLanguage = *msg.Tts
		conv.State["tts_lang_code"] = conv.TTSLanguage
	}
	in := turnInput{
		Message:    msg.Text,
		Turn:       n,
		Metadata:   msg.Metadata,
		Attributes: conv.IntegrationAttributes,
		State:      conv.State,
		Events:     conv.Events,
		Variables:  script.Variables,
	}
	if in.Metadata == nil {
		in.Metadata = map[string]any{}
	}
	out := w.scripts.Respond(script.Dialogue, conv.VariantID, in).WithoutHandoff(conv.State)
	out.Turn = in.Turn
	dialogue.ApplyTurn(conv, now, in, out, msg.Metadata)
	return out
}

// afterTurn applies a stored turn's effects outside the transaction: audio
// cache, handoff state, awaited event.
func (a *Engine) afterTurn(conv *store.Conversation, out Outcome) {
	a.audio.CacheUtterance(conv, out.Text) // engine/audio
	if out.Handoff != nil {
		a.writeHandoffState(conv, out.Handoff)
	}
	if out.AwaitEvent != "" {
		a.awaitEvent(conv, out.AwaitEvent) // external_events.go
	}
	if !conv.InProgress {
		a.outboundConversationEnded(conv) // outbound.go
	}
}

// ErrConversationEnded refuses a turn on a finished conversation.
var ErrConversationEnded = errors.New("conversation ended")

// runtimeScript is what an agent answers from: a dialogue and its
// environment's real-time variables.
type runtimeScript struct {
	Dialogue  *scenario.Dialogue
	Variables map[string]any
}

// closeConversation ends a conversation now for closedBy, after check.
func (a *Engine) closeConversation(region, id, closedBy string, check func(*store.Conversation) error) (*store.Conversation, error) {
	now := a.clock.Now()
	return a.store.UpdateConversation(region, id, func(conv *store.Conversation) error {
		if err := check(conv); err != nil {
			return err
		}
		closeAt(conv, now, closedBy)
		return nil
	})
}

func closeAt(conv *store.Conversation, t time.Time, closedBy string) {
	EndConversation(conv, t)
	if conv.State == nil {
		conv.State = map[string]any{}
	}
	conv.State["closed_by"] = closedBy
}

// EndSessionConversation ends an ended or expired messaging session's
// conversation (docs/api.md#messaging-session); failures are only logged.
func (a *Engine) EndSessionConversation(sessionID, region, id, closedBy string) {
	now := a.clock.Now()
	_, err := a.store.UpdateConversation(region, id, func(conv *store.Conversation) error {
		if conv.InProgress {
			closeAt(conv, now, closedBy)
		}
		return nil
	})
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		a.Log.Error("end messaging conversation", "session", sessionID, "err", err)
	}
}
