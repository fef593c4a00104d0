package engine

// The Chat API (docs/api.md#chat; errors docs/fidelity.md G17, D15): start
// a text conversation, send messages, receive the agent's replies and
// handoffs, close it. Every chat conversation is a conversation record in
// the store (docs/api.md#conversations-record).

import (
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// Chat error codes and messages (docs/api.md#chat-errors; docs/fidelity.md
// G17 gives the basis of each, the ones the real service does not document
// included).
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

// ChatChannelNames is the channel enum (docs/api.md#chat-create); each
// conversation gets an analytics label, the name in upper case ("api":
// "CHAT"); no channel gives "CHAT".
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

// chatOwned refuses a conversation of another project (as unknown, so as not
// to reveal it) and one that has ended (410, docs/fidelity.md D15).
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

// chatVariant picks the conversation's variant: the body's variant_id (which
// must exist), else the connector token's, else the project's default. A
// body variant that contradicts the token's is refused.
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

// builtinState is the state a conversation starts with: the built-in keys
// (docs/api.md#conversations-record) and the integration attributes.
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

// ChatStart is a chat create's request (docs/api.md#chat-create), its
// fields' shapes checked by the edge: Channel one of ChatChannelNames,
// the language codes LangCode.
type ChatStart struct {
	Channel        *string
	VariantID      *string
	Asr, Tts       *string
	Attributes     map[string]any
	InitialMessage *string
}

// CreateChat starts a chat conversation of p's project and returns it
// with the agent's first words (the greeting, or the answer to the
// initial message). An initial message is refused under the fidelity
// switch initial_message: reject (D8); the variant is chatVariant's.
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

// RespondChat runs the user's message as a turn of p's chat conversation
// id and returns the conversation's head with the agent's outcome. A
// conversation of another project is not found; an ended one is 410
// (docs/fidelity.md D15).
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

// CloseChat ends p's chat conversation id now, closed by the client
// (docs/api.md#chat-close); errors as RespondChat's.
func (a *Engine) CloseChat(p *Principal, id string) error {
	conv, err := a.closeConversation(p.Region, id, "client", func(conv *store.Conversation) error {
		return chatOwned(conv, p)
	})
	if err == nil {
		a.RecordTransition(MachineChatConversation, chatTurnsState(userTurns(conv.Turns)), "closed")
	}
	return chatStoreError(err)
}

// insertConversation gives conv a fresh CONV- id and stores it.
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

// writeHandoffState stores the data of a handoff for the Handoff API.
func (a *Engine) writeHandoffState(conv *store.Conversation, h *handoffOutcome) {
	hs := &store.HandoffState{
		Region: conv.Region, AccountID: conv.AccountID, ProjectID: conv.ProjectID,
		ID: conv.ID, SharedID: h.SharedID, Data: h.Data, CreatedAt: a.clock.Now(),
	}
	if err := a.store.PutHandoffState(hs); err != nil {
		a.Log.Error("write handoff state", "conversation", conv.ID, "err", err)
	}
}
