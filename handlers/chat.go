package handlers

// The Chat API (docs/api.md#chat; errors docs/fidelity.md G17, D15); every
// chat is a conversation record (docs/api.md#conversations-record).

import (
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/internal/jsonw"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/scenario"
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
	Codes: []ErrorCode{
		{Status: 400, Code: engine.CodeChatInvalid},
		{Status: 400, Code: engine.CodeChatVariantNotFound, Ops: []string{"chatCreate"}},
		{Status: 404, Code: engine.CodeChatNotFound, Ops: []string{"chatRespond", "chatClose"}},
		{Status: 404, Code: engine.CodeChatVersion},
		{Status: 410, Code: engine.CodeChatEnded},
	},
	Machines: []*Machine{engine.MachineChatConversation},
}

var chatRoutes = []Route{
	route("POST /:version/:account/:project/chat/create", (*API).handleChatCreate, opChatCreate),
	route("POST /:version/:account/:project/chat/respond", (*API).handleChatRespond, opChatRespond),
	route("PUT /:version/:account/:project/chat/close", (*API).handleChatClose, opChatClose),
}

var (
	opChatCreate = &Op{ID: "chatCreate", Summary: "Start a chat conversation",
		Doc:  "Starts a conversation and answers the agent's greeting (docs/api.md#chat-create). The whole body is optional.",
		Body: chatCreateRequest{}, BodyOptional: true,
		Responses: []Response{ok(200, engine.ChatCreateResponse{})}, Errors: []int{400, 404}}
	opChatRespond = &Op{ID: "chatRespond", Summary: "Send a message",
		Doc:  "Sends the user's message and answers the agent's reply, with the handoff when the agent hands off (docs/api.md#chat-respond).",
		Body: chatRespondRequest{}, Responses: []Response{ok(200, engine.ChatRespondResponse{})}, Errors: []int{400, 404, 410}}
	opChatClose = &Op{ID: "chatClose", Summary: "Close a conversation",
		Doc:  "Ends the conversation (docs/api.md#chat-close).",
		Body: chatCloseRequest{}, Responses: []Response{ok(200, engine.ChatCloseResponse{})}, Errors: []int{400, 404, 410}}
)

// chatCreateRequest is the optional create body (docs/api.md#chat-create).
type chatCreateRequest struct {
	IntegrationAttributes map[string]any `json:"integration_attributes"`
	VariantID             *string        `json:"variant_id"`
	Channel               *string        `json:"channel"`
	AsrLangCode           *string        `json:"asr_lang_code"`
	TtsLangCode           *string        `json:"tts_lang_code"`
	InitialMessage        *string        `json:"initial_message"`
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

type chatCloseRequest struct {
	ConversationID *string `json:"conversation_id"`
}

// FieldRules are the rules the chat handlers check on the create body.
func (chatCreateRequest) FieldRules() map[string]engine.FieldRule {
	return map[string]engine.FieldRule{
		"channel":         {Enum: engine.ChatChannelNames},
		"asr_lang_code":   {Pattern: engine.LangCode},
		"tts_lang_code":   {Pattern: engine.LangCode},
		"initial_message": {Fidelity: &engine.Fidelity{ID: "D8", Switch: engine.SwitchInitialMessage, Value: "reject", Note: "refused (400) under initial_message: reject"}},
	}
}

func (chatRespondRequest) FieldRules() map[string]engine.FieldRule {
	return map[string]engine.FieldRule{
		"conversation_id": {Required: true, MinLen: 1},
		"asr_lang_code":   {Pattern: engine.LangCode},
		"tts_lang_code":   {Pattern: engine.LangCode},
		"variant_id":      {Doc: "Refused (400): a variant is chosen on create only."},
	}
}

func (chatCloseRequest) FieldRules() map[string]engine.FieldRule {
	return map[string]engine.FieldRule{"conversation_id": {Required: true, MinLen: 1}}
}

// handleChatCreate handles "POST {runtime}/{version}/{account}/{project}/chat/create".
func (a *API) handleChatCreate(c *gin.Context) error {
	if err := chatVersion(c); err != nil {
		return err
	}
	var req chatCreateRequest
	if err := bindJSON(c, &req, true, engine.CodeChatInvalid); err != nil {
		return err
	}
	if err := engine.ValidateLangs(req.AsrLangCode, req.TtsLangCode); err != nil {
		return err
	}
	if req.Channel != nil && !slices.Contains(engine.ChatChannelNames, *req.Channel) {
		return engine.Invalid(engine.CodeChatInvalid, fmt.Sprintf(`Field "channel" must be one of %s.`, strings.Join(engine.ChatChannelNames, ", ")),
			engine.FieldError{Field: "channel", Message: "must be one of " + strings.Join(engine.ChatChannelNames, ", ")})
	}
	conv, out, err := a.CreateChat(principal(c), engine.ChatStart{Channel: req.Channel, VariantID: req.VariantID,
		Asr: req.AsrLangCode, Tts: req.TtsLangCode, Attributes: req.IntegrationAttributes, InitialMessage: req.InitialMessage})
	if err != nil {
		return err
	}
	resp := engine.ChatCreateResponse{ConversationID: conv.ID, Response: out.Text}
	answerJSON(c, http.StatusOK, func(b []byte) ([]byte, bool) {
		b = append(b, `{"conversation_id":`...)
		b = jsonw.AppendString(b, resp.ConversationID)
		b = append(b, `,"response":`...)
		b = jsonw.AppendString(b, resp.Response)
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
	if err := bindJSON(c, &req, false, engine.CodeChatInvalid); err != nil {
		return err
	}
	if req.ConversationID == nil || *req.ConversationID == "" {
		return engine.Invalid(engine.CodeChatInvalid, engine.MsgChatIDRequired, engine.FieldError{Field: "conversation_id", Message: "is required"})
	}
	if req.VariantID != nil {
		return engine.Invalid(engine.CodeChatInvalid, engine.MsgChatVariantOnCreate, engine.FieldError{Field: "variant_id", Message: "only accepted on create"})
	}
	if err := engine.ValidateLangs(req.AsrLangCode, req.TtsLangCode); err != nil {
		return err
	}
	msg := engine.UserTurn{Text: engine.Deref(req.Message), Metadata: req.Metadata, Attributes: req.IntegrationAttributes,
		Asr: req.AsrLangCode, Tts: req.TtsLangCode}
	conv, out, err := a.RespondChat(principal(c), *req.ConversationID, msg)
	if err != nil {
		return err
	}
	resp := engine.ChatRespondResponse{ConversationID: conv.ID, Response: out.Text, EndConversation: !conv.InProgress}
	if out.Handoff != nil {
		resp.Handoff = &engine.ChatHandoff{Destination: out.Handoff.Destination, Reason: out.Handoff.Reason}
	}
	answerJSON(c, http.StatusOK, func(b []byte) ([]byte, bool) {
		b = append(b, `{"conversation_id":`...)
		b = jsonw.AppendString(b, resp.ConversationID)
		b = append(b, `,"response":`...)
		b = jsonw.AppendString(b, resp.Response)
		b = append(b, `,"end_conversation":`...)
		b = strconv.AppendBool(b, resp.EndConversation)
		if h := resp.Handoff; h != nil {
			b = append(b, `,"handoff":{"destination":`...)
			b = jsonw.AppendString(b, h.Destination)
			b = append(b, `,"reason":`...)
			b = jsonw.AppendString(b, h.Reason)
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
	if err := bindJSON(c, &req, false, engine.CodeChatInvalid); err != nil {
		return err
	}
	if req.ConversationID == nil || *req.ConversationID == "" {
		return engine.Invalid(engine.CodeChatInvalid, engine.MsgChatIDRequired, engine.FieldError{Field: "conversation_id", Message: "is required"})
	}
	if err := a.CloseChat(principal(c), *req.ConversationID); err != nil {
		return err
	}
	c.JSON(http.StatusOK, engine.ChatCloseResponse{Success: true})
	return nil
}

// chatVersion checks the {version} segment: the chat API is v1 (docs/api.md#chat).
func chatVersion(c *gin.Context) error {
	if v := c.Param("version"); v != "v1" {
		return engine.Errf(engine.KindNotFound, engine.CodeChatVersion, "Unsupported API version %q: the chat API is v1.", v)
	}
	return nil
}
