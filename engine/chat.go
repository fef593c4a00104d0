package engine

// The Chat API (docs/api.md#chat; errors docs/fidelity.md G17, D15): text
// conversations stored as conversation records.

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// Chat error codes and messages (docs/api.md#chat-errors; G17).
const (
	CodeChatInvalid         = "CHAT_INVALID_REQUEST"
	CodeChatVariantNotFound = "CHAT_VARIANT_NOT_FOUND"
	CodeChatNotFound        = "CONVERSATIONS_NOT_FOUND"
	CodeChatEnded           = "CHAT_CONVERSATION_ENDED"
	CodeChatVersion         = "CHAT_UNSUPPORTED_VERSION"

	MsgChatEnded           = "Chat conversation ended"
	MsgChatNotFound        = "Conversation not found."
	MsgChatVariantNotFound = "Variant not found."
	MsgChatVariantOnCreate = "variant_id can only be set when the conversation is created."
	MsgChatIDRequired      = "conversation_id is required."
	MsgChatInitialMessage  = "initial_message is not a supported field."
)

// ChatChannelNames is the channel enum (docs/api.md#chat-create); the
// analytics label is the name in upper case ("api" and none: "CHAT").
var ChatChannelNames = []string{"webchat", "whatsapp", "sms", "api"}

func chatChannelLabel(name string) string {
	if name == "api" {
		return "CHAT"
	}
	return strings.ToUpper(name)
}

// LangCode is a language plus region code (docs/api.md#chat-create), e.g. en-GB.
var LangCode = regexp.MustCompile(`^[a-z]{2,3}-[A-Z]{2}$`)

type ChatCreateResponse struct {
	ConversationID string `json:"conversation_id"`
	Response       string `json:"response"`
}

type ChatHandoff struct {
	Destination string `json:"destination"`
	Reason      string `json:"reason"`
}

type ChatRespondResponse struct {
	ConversationID  string       `json:"conversation_id"`
	Response        string       `json:"response"`
	EndConversation bool         `json:"end_conversation"`
	Handoff         *ChatHandoff `json:"handoff,omitempty"`
}

type ChatCloseResponse struct {
	Success bool `json:"success"`
}

// chatOwned refuses another project's conversation (as unknown) and an
// ended one (410, D15).
func chatOwned(conv *store.Conversation, p *Principal) error {
	if conv.AccountID != p.Account.ID || conv.ProjectID != p.Project.ID {
		return Errf(KindNotFound, CodeChatNotFound, MsgChatNotFound)
	}
	if !conv.InProgress {
		return Errf(KindGone, CodeChatEnded, MsgChatEnded)
	}
	return nil
}

func chatStoreError(err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return Errf(KindNotFound, CodeChatNotFound, MsgChatNotFound)
	case errors.Is(err, ErrConversationEnded):
		return Errf(KindGone, CodeChatEnded, MsgChatEnded)
	}
	return err
}

// chatVariant picks the body's variant_id, else the token's, else the
// project's default; a body variant contradicting the token's is refused.
func chatVariant(p *Principal, id *string) (*scenario.Variant, error) {
	tokenVariant := p.Connector.Variant
	if id != nil {
		v := p.Project.Variant(*id)
		if v == nil || v.ID != *id {
			return nil, &Error{Kind: KindInvalid, Code: CodeChatVariantNotFound, Message: MsgChatVariantNotFound,
				Fields: []FieldError{{Field: "variant_id", Message: "unknown variant"}}}
		}
		if tokenVariant != "" && p.Project.Variant(tokenVariant) != v {
			return nil, Invalid(CodeChatInvalid, "variant_id conflicts with the variant of the connector token.")
		}
		return v, nil
	}
	if tokenVariant != "" {
		return p.Project.Variant(tokenVariant), nil
	}
	for i := range p.Project.Variants {
		if p.Project.Variants[i].Default {
			return &p.Project.Variants[i], nil
		}
	}
	return nil, nil
}

func ValidateLangs(asr, tts *string) error {
	for _, f := range []struct {
		name string
		v    *string
	}{{"asr_lang_code", asr}, {"tts_lang_code", tts}} {
		if f.v != nil && !LangCode.MatchString(*f.v) {
			return Invalid(CodeChatInvalid,
				fmt.Sprintf("Field %q must be a language plus region code such as en-GB.", f.name),
				FieldError{Field: f.name, Message: "must be a language plus region code such as en-GB"})
		}
	}
	return nil
}

// builtinState is a new conversation's built-in state keys and
// integration attributes.
func builtinState(conv *store.Conversation) map[string]any {
	st := map[string]any{
		"conversation_id": conv.ID,
		"channel":         conv.Channel,
		"client_env":      conv.Environment,
		"variant_id":      conv.VariantID,
	}
	if conv.Language != "" {
		st["asr_lang_code"] = conv.Language
	}
	if conv.TTSLanguage != "" {
		st["tts_lang_code"] = conv.TTSLanguage
	}
	if len(conv.IntegrationAttributes) > 0 {
		st["integration_attributes"] = conv.IntegrationAttributes
	}
	return st
}

// ChatStart is a chat create's request (docs/api.md#chat-create), shapes
// checked by the edge.
type ChatStart struct {
	Channel        *string
	VariantID      *string
	Asr, Tts       *string
	Attributes     map[string]any
	InitialMessage *string
}

// CreateChat starts a chat of p's project and returns it with the agent's
// first words. initial_message: reject (D8) refuses an initial message.
func (a *Engine) CreateChat(p *Principal, in ChatStart) (*store.Conversation, Outcome, error) {
	label, chatChannel := "CHAT", ""
	if in.Channel != nil {
		label, chatChannel = chatChannelLabel(*in.Channel), *in.Channel
	}
	if in.InitialMessage != nil && a.View().Fidelity(SwitchInitialMessage) == "reject" {
		return nil, Outcome{}, Invalid(CodeChatInvalid, MsgChatInitialMessage)
	}
	variant, err := chatVariant(p, in.VariantID)
	if err != nil {
		return nil, Outcome{}, err
	}
	conv, out, err := a.StartConversation(ConvStart{
		Region: p.Region, Account: p.Account, Project: p.Project, Environment: p.Connector.ClientEnv,
		Channel: label, ChatChannel: chatChannel, Variant: variant,
		Language: Deref(in.Asr), TTSLanguage: Deref(in.Tts), Attributes: in.Attributes,
		InitialMessage: in.InitialMessage,
	})
	if err == nil {
		a.RecordTransition(MachineChatConversation, "", "created")
		if in.InitialMessage != nil {
			a.RecordTransition(MachineChatConversation, "created", chatState(conv.InProgress, out))
		}
	}
	return conv, out, err
}

// RespondChat runs the user's message on p's chat id and returns the
// conversation's head and the outcome (errors: chatOwned).
func (a *Engine) RespondChat(p *Principal, id string, msg UserTurn) (*store.Conversation, Outcome, error) {
	conv, out, err := a.Converse(p.Region, id, func(conv *store.Conversation) error {
		return chatOwned(conv, p)
	}, msg)
	if err != nil {
		return nil, Outcome{}, chatStoreError(err)
	}
	a.RecordTransition(MachineChatConversation, chatTurnsState(out.Turn-1), chatState(conv.InProgress, out))
	return conv, out, nil
}

// CloseChat ends p's chat id now, closed by the client.
func (a *Engine) CloseChat(p *Principal, id string) error {
	conv, err := a.closeConversation(p.Region, id, "client", func(conv *store.Conversation) error {
		return chatOwned(conv, p)
	})
	if err == nil {
		a.RecordTransition(MachineChatConversation, chatTurnsState(userTurns(conv.Turns)), "closed")
	}
	return chatStoreError(err)
}

func (a *Engine) insertConversation(conv *store.Conversation) error {
	for range 5 {
		conv.ID = a.NewID("CONV-", digits, 10)
		conv.State["conversation_id"] = conv.ID
		err := a.store.InsertConversation(conv)
		if !errors.Is(err, store.ErrExists) {
			return err
		}
	}
	return errors.New("could not allocate a conversation id")
}

func (a *Engine) writeHandoffState(conv *store.Conversation, h *handoffOutcome) {
	hs := &store.HandoffState{
		Region: conv.Region, AccountID: conv.AccountID, ProjectID: conv.ProjectID,
		ID: conv.ID, SharedID: h.SharedID, Data: h.Data, CreatedAt: a.clock.Now(),
	}
	if err := a.store.PutHandoffState(hs); err != nil {
		a.Log.Error("write handoff state", "conversation", conv.ID, "err", err)
	}
}
