package handlers

// The Chat API (docs/api.md#chat; errors docs/fidelity.md G17, D15): start
// a text conversation, send messages, receive the agent's replies and
// handoffs, close it. Every chat conversation is a conversation record in
// the store (docs/api.md#conversations-record).

import (
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// famChat is the Chat API (docs/api.md#chat).
var famChat = &Family{
	Name: "chat", Base: "runtime", Shape: shapeEnvelope,
	Credential: scenario.KindChat, Headers: []string{"X-Api-Key"}, Connector: true, ProjectKeys: true, Forbid: true,
	Marks: []string{"/chat/"},
	Doc:   "Text conversations: start, send a message, close; handoffs come back in the answer (docs/api.md#chat).",
	Schemes: map[string]Scheme{
		"chatKey":        {Type: "apiKey", In: "header", Name: "X-API-KEY", Doc: "A chat key of the account or project (credential kind chat)."},
		"connectorToken": {Type: "apiKey", In: "header", Name: "X-TOKEN", Doc: "A connector token of the project (credential kind connector); it fixes the client environment."},
	},
	Security: [][]string{{"chatKey", "connectorToken"}},
	Routes:   chatRoutes,
}

// chatRoutes are its routes.
var chatRoutes = []Route{
	route("POST /:version/:account/:project/chat/create", (*API).handleChatCreate, opChatCreate),
	route("POST /:version/:account/:project/chat/respond", (*API).handleChatRespond, opChatRespond),
	route("PUT /:version/:account/:project/chat/close", (*API).handleChatClose, opChatClose),
}

var (
	opChatCreate = &Op{ID: "chatCreate", Summary: "Start a chat conversation",
		Doc:  "Starts a conversation and answers the agent's greeting (docs/api.md#chat-create). The whole body is optional.",
		Body: chatCreateRequest{}, BodyOptional: true,
		Responses: []Response{ok(200, chatCreateResponse{})}, Errors: []int{400, 404}}
	opChatRespond = &Op{ID: "chatRespond", Summary: "Send a message",
		Doc:  "Sends the user's message and answers the agent's reply, with the handoff when the agent hands off (docs/api.md#chat-respond).",
		Body: chatRespondRequest{}, Responses: []Response{ok(200, chatRespondResponse{})}, Errors: []int{400, 404, 410}}
	opChatClose = &Op{ID: "chatClose", Summary: "Close a conversation",
		Doc:  "Ends the conversation (docs/api.md#chat-close).",
		Body: chatCloseRequest{}, Responses: []Response{ok(200, chatCloseResponse{})}, Errors: []int{400, 404, 410}}
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

// chatChannelNames is the channel enum (docs/api.md#chat-create); each
// conversation gets an analytics label, the name in upper case ("api":
// "CHAT"); no channel gives "CHAT".
var chatChannelNames = []string{"webchat", "whatsapp", "sms", "api"}

func chatChannelLabel(name string) string {
	if name == "api" {
		return "CHAT"
	}
	return strings.ToUpper(name)
}

// langCode is a language plus region code (docs/api.md#chat-create), e.g. en-GB.
var langCode = regexp.MustCompile(`^[a-z]{2,3}-[A-Z]{2}$`)

// chatCreateRequest is the create body (docs/api.md#chat-create); the whole
// body is optional.
type chatCreateRequest struct {
	IntegrationAttributes map[string]any `json:"integration_attributes"`
	VariantID             *string        `json:"variant_id"`
	Channel               *string        `json:"channel"`
	AsrLangCode           *string        `json:"asr_lang_code"`
	TtsLangCode           *string        `json:"tts_lang_code"`
	InitialMessage        *string        `json:"initial_message"`
}

type chatCreateResponse struct {
	ConversationID string `json:"conversation_id"`
	Response       string `json:"response"`
}

// chatRespondRequest is the respond body (docs/api.md#chat-respond).
// VariantID is here only to refuse it: it is accepted on create alone.
type chatRespondRequest struct {
	ConversationID        *string        `json:"conversation_id"`
	Message               *string        `json:"message"`
	IntegrationAttributes map[string]any `json:"integration_attributes"`
	Metadata              map[string]any `json:"metadata"`
	AsrLangCode           *string        `json:"asr_lang_code"`
	TtsLangCode           *string        `json:"tts_lang_code"`
	VariantID             *string        `json:"variant_id"`
}

type chatHandoff struct {
	Destination string `json:"destination"`
	Reason      string `json:"reason"`
}

type chatRespondResponse struct {
	ConversationID  string       `json:"conversation_id"`
	Response        string       `json:"response"`
	EndConversation bool         `json:"end_conversation"`
	Handoff         *chatHandoff `json:"handoff,omitempty"`
}

type chatCloseRequest struct {
	ConversationID *string `json:"conversation_id"`
}

type chatCloseResponse struct {
	Success bool `json:"success"`
}

// FieldRules are the rules the chat handlers check on the create body.
func (chatCreateRequest) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{
		"channel":         {Enum: chatChannelNames},
		"asr_lang_code":   {Pattern: langCode},
		"tts_lang_code":   {Pattern: langCode},
		"initial_message": {Fidelity: &Fidelity{ID: "D8", Switch: switchInitialMessage, Value: "reject", Note: "refused (400) under initial_message: reject"}},
	}
}

func (chatRespondRequest) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{
		"conversation_id": {Required: true, MinLen: 1},
		"asr_lang_code":   {Pattern: langCode},
		"tts_lang_code":   {Pattern: langCode},
		"variant_id":      {Doc: "Refused (400): a variant is chosen on create only."},
	}
}

func (chatCloseRequest) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"conversation_id": {Required: true, MinLen: 1}}
}

// handleChatCreate handles "POST {runtime}/{version}/{account}/{project}/chat/create".
func (a *API) handleChatCreate(c *gin.Context) error {
	if err := chatVersion(c); err != nil {
		return err
	}
	var req chatCreateRequest
	if err := bindJSON(c, &req, true, CodeChatInvalid); err != nil {
		return err
	}
	p := principal(c)
	w := a.world()
	if err := validateLangs(req.AsrLangCode, req.TtsLangCode); err != nil {
		return err
	}
	label := "CHAT"
	chatChannel := ""
	if req.Channel != nil {
		if !slices.Contains(chatChannelNames, *req.Channel) {
			return invalid(CodeChatInvalid, fmt.Sprintf(`Field "channel" must be one of %s.`, strings.Join(chatChannelNames, ", ")),
				FieldError{Field: "channel", Message: "must be one of " + strings.Join(chatChannelNames, ", ")})
		}
		label, chatChannel = chatChannelLabel(*req.Channel), *req.Channel
	}
	if req.InitialMessage != nil && w.fidelity(switchInitialMessage) == "reject" {
		return invalid(CodeChatInvalid, MsgChatInitialMessage)
	}
	variant, err := chatVariant(p, req.VariantID)
	if err != nil {
		return err
	}

	conv, out, err := a.startConversation(convStart{
		Region:         p.Region,
		Account:        p.Account,
		Project:        p.Project,
		Environment:    p.Connector.ClientEnv,
		Channel:        label,
		ChatChannel:    chatChannel,
		Variant:        variant,
		Language:       deref(req.AsrLangCode),
		TTSLanguage:    deref(req.TtsLangCode),
		Attributes:     req.IntegrationAttributes,
		InitialMessage: req.InitialMessage,
	})
	if err != nil {
		return err
	}
	resp := chatCreateResponse{ConversationID: conv.ID, Response: out.Text}
	answerJSON(c, http.StatusOK, func(b []byte) ([]byte, bool) {
		b = append(b, `{"conversation_id":`...)
		b = appendJSONString(b, resp.ConversationID)
		b = append(b, `,"response":`...)
		b = appendJSONString(b, resp.Response)
		return append(b, '}'), true
	}, func() any { return resp })
	return nil
}

// handleChatRespond handles "POST {runtime}/{version}/{account}/{project}/chat/respond".
func (a *API) handleChatRespond(c *gin.Context) error {
	if err := chatVersion(c); err != nil {
		return err
	}
	var req chatRespondRequest
	if err := bindJSON(c, &req, false, CodeChatInvalid); err != nil {
		return err
	}
	if req.ConversationID == nil || *req.ConversationID == "" {
		return invalid(CodeChatInvalid, MsgChatIDRequired, FieldError{Field: "conversation_id", Message: "is required"})
	}
	if req.VariantID != nil {
		return invalid(CodeChatInvalid, MsgChatVariantOnCreate, FieldError{Field: "variant_id", Message: "only accepted on create"})
	}
	if err := validateLangs(req.AsrLangCode, req.TtsLangCode); err != nil {
		return err
	}
	p := principal(c)
	msg := userTurn{Text: deref(req.Message), Metadata: req.Metadata, Attributes: req.IntegrationAttributes,
		Asr: req.AsrLangCode, Tts: req.TtsLangCode}
	conv, out, err := a.converse(p.Region, *req.ConversationID, func(conv *store.Conversation) error {
		return chatOwned(conv, p)
	}, msg)
	if err != nil {
		return chatStoreError(err)
	}
	resp := chatRespondResponse{ConversationID: conv.ID, Response: out.Text, EndConversation: !conv.InProgress}
	if out.Handoff != nil {
		resp.Handoff = &chatHandoff{Destination: out.Handoff.Destination, Reason: out.Handoff.Reason}
	}
	answerJSON(c, http.StatusOK, func(b []byte) ([]byte, bool) {
		b = append(b, `{"conversation_id":`...)
		b = appendJSONString(b, resp.ConversationID)
		b = append(b, `,"response":`...)
		b = appendJSONString(b, resp.Response)
		b = append(b, `,"end_conversation":`...)
		b = strconv.AppendBool(b, resp.EndConversation)
		if h := resp.Handoff; h != nil {
			b = append(b, `,"handoff":{"destination":`...)
			b = appendJSONString(b, h.Destination)
			b = append(b, `,"reason":`...)
			b = appendJSONString(b, h.Reason)
			b = append(b, '}')
		}
		return append(b, '}'), true
	}, func() any { return resp })
	return nil
}

// handleChatClose handles "PUT {runtime}/{version}/{account}/{project}/chat/close".
func (a *API) handleChatClose(c *gin.Context) error {
	if err := chatVersion(c); err != nil {
		return err
	}
	var req chatCloseRequest
	if err := bindJSON(c, &req, false, CodeChatInvalid); err != nil {
		return err
	}
	if req.ConversationID == nil || *req.ConversationID == "" {
		return invalid(CodeChatInvalid, MsgChatIDRequired, FieldError{Field: "conversation_id", Message: "is required"})
	}
	p := principal(c)
	now := a.clock.Now()
	_, err := a.store.UpdateConversation(p.Region, *req.ConversationID, func(conv *store.Conversation) error {
		if err := chatOwned(conv, p); err != nil {
			return err
		}
		endConversation(conv, now)
		conv.State["closed_by"] = "client"
		return nil
	})
	if err != nil {
		return chatStoreError(err)
	}
	c.JSON(http.StatusOK, chatCloseResponse{Success: true})
	return nil
}

// chatVersion checks the {version} segment: the chat API is v1 (docs/api.md#chat).
func chatVersion(c *gin.Context) error {
	if v := c.Param("version"); v != "v1" {
		return errf(KindNotFound, CodeChatVersion, "Unsupported API version %q: the chat API is v1.", v)
	}
	return nil
}

// chatOwned refuses a conversation of another project (as unknown, so as not
// to reveal it) and one that has ended (410, docs/fidelity.md D15).
func chatOwned(conv *store.Conversation, p *Principal) error {
	if conv.AccountID != p.Account.ID || conv.ProjectID != p.Project.ID {
		return errf(KindNotFound, CodeChatNotFound, MsgChatNotFound)
	}
	if !conv.InProgress {
		return errf(KindGone, CodeChatEnded, MsgChatEnded)
	}
	return nil
}

func chatStoreError(err error) error {
	switch {
	case errors.Is(err, store.ErrNotFound):
		return errf(KindNotFound, CodeChatNotFound, MsgChatNotFound)
	case errors.Is(err, errConversationEnded):
		return errf(KindGone, CodeChatEnded, MsgChatEnded)
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
			return nil, invalid(CodeChatInvalid, "variant_id conflicts with the variant of the connector token.")
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

func validateLangs(asr, tts *string) error {
	for _, f := range []struct {
		name string
		v    *string
	}{{"asr_lang_code", asr}, {"tts_lang_code", tts}} {
		if f.v != nil && !langCode.MatchString(*f.v) {
			return invalid(CodeChatInvalid,
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

// insertConversation gives conv a fresh CONV- id and stores it.
func (a *API) insertConversation(conv *store.Conversation) error {
	for range 5 {
		conv.ID = a.newID("CONV-", digits, 10)
		conv.State["conversation_id"] = conv.ID
		err := a.store.InsertConversation(conv)
		if !errors.Is(err, store.ErrExists) {
			return err
		}
	}
	return errors.New("could not allocate a conversation id")
}

// writeHandoffState stores the data of a handoff for the Handoff API.
func (a *API) writeHandoffState(conv *store.Conversation, h *handoffOutcome) {
	hs := &store.HandoffState{
		Region: conv.Region, AccountID: conv.AccountID, ProjectID: conv.ProjectID,
		ID: conv.ID, SharedID: h.SharedID, Data: h.Data, CreatedAt: a.clock.Now(),
	}
	if err := a.store.PutHandoffState(hs); err != nil {
		a.log.Error("write handoff state", "conversation", conv.ID, "err", err)
	}
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
