package engine

// Debug chat (docs/api.md#agents-debug-chat; docs/fidelity.md G28): the
// agent's dialogue without a deployment, from a branch's current content,
// else the clientEnv's active deployment, else main. Its record is a
// "debug_chat" document, not live traffic: only the agent-scoped
// conversation reads see it. Test runs keep their conversations the same way.

import (
	"cmp"
	"errors"
	"regexp"
	"slices"
	"strings"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// DocDebugChat is the store kind of debug chats and test runs'
// conversations.
const DocDebugChat = "debug_chat"

// Debug chat error codes and messages ([OAS] for the draft's).
const (
	CodeChatDraftNotExist = "CHAT_DRAFT_NOT_EXIST"
	MsgChatDraftNotExist  = "The draft you are attempting to chat with does not exist."
	MsgConvNotExist       = "Conversation ID does not exist."
	MsgDebugChatIDTaken   = "conversationId is already in use."
	debugChatPrefix       = "AS_CHAT_"
)

// DebugChatIDRE is the form of a custom debug chat id.
var DebugChatIDRE = regexp.MustCompile(`^[A-Za-z0-9_.:-]{1,128}$`)

type debugChatDoc struct {
	Conversation *store.Conversation `json:"conversation"`
	// Branch, when set, is the branch it answers from.
	Branch string `json:"branch,omitempty"`
}

func (doc *debugChatDoc) of(d *AgentDoc) bool {
	c := doc.Conversation
	return c != nil && c.AccountID == d.AccountID && c.ProjectID == d.AgentID
}

// DebugChatBody is a debug chat create's body (OAS CreateDebugChatBody)
// plus branchId.
type DebugChatBody struct {
	ClientEnv             *string        `json:"clientEnv"`
	AsrLangCode           *string        `json:"asrLangCode"`
	TtsLangCode           *string        `json:"ttsLangCode"`
	ConversationID        *string        `json:"conversationId"`
	VariantID             *string        `json:"variantId"`
	Channel               *string        `json:"channel"`
	IntegrationAttributes map[string]any `json:"integrationAttributes"`
	BranchID              *string        `json:"branchId"`
}

func (DebugChatBody) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{
		"clientEnv":      {Required: true, Enum: DeployEnvs, Doc: "Answers from the deployment active there, else from main."},
		"asrLangCode":    {Pattern: LangCode},
		"ttsLangCode":    {Pattern: LangCode},
		"conversationId": {Pattern: DebugChatIDRE, Doc: "A custom id, not in use; default AS_CHAT_<uuid>."},
		"variantId":      {Doc: "A variant of the agent (id or name); default the default variant."},
		"channel":        {Doc: "Kept in the conversation's state; the record's channel is CHAT."},
		"branchId": {Doc: "Answers from this branch's current content, without a deployment.",
			Fidelity: &Fidelity{ID: "G28", Note: "not in the document: the kit's draft chat chats with a branch"}},
	}
}

// DebugRespondBody is a debug chat message's body (OAS RespondDebugChatBody).
type DebugRespondBody struct {
	ClientEnv   *string        `json:"clientEnv"`
	AsrLangCode *string        `json:"asrLangCode"`
	TtsLangCode *string        `json:"ttsLangCode"`
	Message     *string        `json:"message"`
	Metadata    map[string]any `json:"metadata"`
}

func (DebugRespondBody) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{
		"clientEnv":   {Required: true, Enum: DeployEnvs, Doc: "Another environment than the chat's is ignored (a journal warning)."},
		"asrLangCode": {Pattern: LangCode},
		"ttsLangCode": {Pattern: LangCode},
		"message":     {Doc: "Default \"\" (a silent turn)."},
	}
}

// debugFields checks the environment and language codes.
func debugFields(env, asr, tts *string) []FieldError {
	var fields []FieldError
	switch {
	case env == nil:
		fields = append(fields, FieldError{Field: "clientEnv", Message: "is required"})
	case !slices.Contains(DeployEnvs, *env):
		fields = append(fields, FieldError{Field: "clientEnv", Message: "must be one of: " + strings.Join(DeployEnvs, ", ")})
	}
	for _, f := range []struct {
		name string
		v    *string
	}{{"asrLangCode", asr}, {"ttsLangCode", tts}} {
		if f.v != nil && !LangCode.MatchString(*f.v) {
			fields = append(fields, FieldError{Field: f.name, Message: "must be a language plus region code such as en-GB"})
		}
	}
	return fields
}

// DebugChatReply is a debug chat's answer (OAS DebugChatResponse).
type DebugChatReply struct {
	ConversationID    string         `json:"conversationId"`
	UserInput         string         `json:"userInput"`
	Response          string         `json:"response"`
	Metadata          DebugChatLangs `json:"metadata"`
	ConversationEnded bool           `json:"conversationEnded"`
	DelayedResponse   bool           `json:"delayedResponse"`
}

// DebugChatLangs is the answer's metadata (OAS ChatMetadataResponse).
type DebugChatLangs struct {
	AsrLangCode string `json:"asrLangCode,omitempty"`
	TtsLangCode string `json:"ttsLangCode,omitempty"`
}

func debugReply(conv *store.Conversation, user string, out Outcome) DebugChatReply {
	return DebugChatReply{ConversationID: conv.ID, UserInput: user, Response: out.Text,
		Metadata:          DebugChatLangs{AsrLangCode: conv.Language, TtsLangCode: conv.TTSLanguage},
		ConversationEnded: !conv.InProgress, DelayedResponse: out.AwaitEvent != ""}
}

// runtimeProject is an agent's scenario project, or for an API-created
// agent an empty project of its own.
func runtimeProject(acct *scenario.Account, d *AgentDoc) *scenario.Project {
	if p := acct.Project(d.AgentID); p != nil {
		return p
	}
	return &scenario.Project{ID: d.AgentID, Name: d.Name}
}

// debugScript is what a debug chat of agent d in env answers from now; a
// missing branch is CHAT_DRAFT_NOT_EXIST.
func (a *Engine) debugScript(region string, d *AgentDoc, proj *scenario.Project, env, branch string) (runtimeScript, error) {
	var vars map[string]any
	if pg := d.Configs[env]; pg != nil && len(pg.Variables) > 0 {
		vars = pg.Variables
	}
	if branch == "" && d.active(env) != nil {
		if e := (*a.agents.idx.Load())[runtimeKey(region, d.AgentID, env)]; e != nil {
			return runtimeScript{Dialogue: e.dialogueFor(proj), Variables: vars}, nil
		}
	}
	b := d.Branch(cmp.Or(branch, MainBranch))
	if b == nil {
		return runtimeScript{}, Errf(KindInvalid, CodeChatDraftNotExist, MsgChatDraftNotExist)
	}
	e := &runtimeEntry{topics: b.Content.Topics}
	return runtimeScript{Dialogue: e.dialogueFor(proj), Variables: vars}, nil
}

// conversationExists reports a stored conversation or debug chat id.
func (a *Engine) conversationExists(region, id string) (bool, error) {
	_, err := a.store.GetConversation(region, id)
	if err == nil {
		return true, nil
	}
	if !errors.Is(err, store.ErrNotFound) {
		return false, err
	}
	var doc debugChatDoc
	err = a.store.GetDoc(DocDebugChat, region, id, &doc)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	return err == nil, err
}

// CreateDebugChat starts a debug chat whose first turn is the greeting.
func (a *Engine) CreateDebugChat(p *Principal, agent string, in DebugChatBody) (DebugChatReply, error) {
	fields := debugFields(in.ClientEnv, in.AsrLangCode, in.TtsLangCode)
	if in.ConversationID != nil && !DebugChatIDRE.MatchString(*in.ConversationID) {
		fields = append(fields, FieldError{Field: "conversationId", Message: "must be 1 to 128 letters, digits or _.:-"})
	}
	if len(fields) > 0 {
		return DebugChatReply{}, Invalid(CodeValidation, MsgValidationFailed, fields...)
	}
	env, branch := *in.ClientEnv, Deref(in.BranchID)
	d, err := a.Agent(p, agent)
	if err != nil {
		return DebugChatReply{}, err
	}
	proj := runtimeProject(p.Account, d)
	var variant *scenario.Variant
	if in.VariantID != nil {
		if variant = proj.Variant(*in.VariantID); variant == nil {
			return DebugChatReply{}, &Error{Kind: KindInvalid, Code: CodeChatVariantNotFound, Message: MsgChatVariantNotFound,
				Fields: []FieldError{{Field: "variantId", Message: "unknown variant"}}}
		}
	} else {
		variant = SessionVariant(proj, "")
	}
	script, err := a.debugScript(p.Region, d, proj, env, branch)
	if err != nil {
		return DebugChatReply{}, err
	}
	id := Deref(in.ConversationID)
	if id != "" {
		taken, err := a.conversationExists(p.Region, id)
		if err != nil {
			return DebugChatReply{}, err
		}
		if taken {
			return DebugChatReply{}, Invalid(CodeChatInvalid, MsgDebugChatIDTaken,
				FieldError{Field: "conversationId", Message: "is already in use"})
		}
	} else {
		id = debugChatPrefix + a.NewUUID()
	}
	state := map[string]any{"debug": true}
	if in.Channel != nil {
		state["debug_channel"] = *in.Channel
	}
	if branch != "" {
		state["branch_id"] = branch
	}
	conv, out := a.openConversation(ConvStart{ID: id, Region: p.Region, Account: p.Account, Project: proj,
		Environment: env, Channel: "CHAT", Variant: variant, Language: Deref(in.AsrLangCode), TTSLanguage: Deref(in.TtsLangCode),
		Attributes: in.IntegrationAttributes, State: state},
		func(*store.Conversation) runtimeScript { return script })
	if err := a.store.InsertDoc(DocDebugChat, p.Region, id, &debugChatDoc{Conversation: conv, Branch: branch}); err != nil {
		if errors.Is(err, store.ErrExists) {
			return DebugChatReply{}, Invalid(CodeChatInvalid, MsgDebugChatIDTaken, FieldError{Field: "conversationId", Message: "is already in use"})
		}
		return DebugChatReply{}, err
	}
	a.afterDebugTurn(conv, out)
	return debugReply(conv, "", out), nil
}

// RespondDebugChat runs the user's message on a debug chat of the agent:
// 404 CONVERSATIONS_NOT_FOUND for an unknown one, 400 for an ended one.
// The chat keeps its environment, whatever the body's clientEnv says.
func (a *Engine) RespondDebugChat(p *Principal, agent, id string, in DebugRespondBody) (reply DebugChatReply, chatEnv string, err error) {
	if fields := debugFields(in.ClientEnv, in.AsrLangCode, in.TtsLangCode); len(fields) > 0 {
		return DebugChatReply{}, "", Invalid(CodeValidation, MsgValidationFailed, fields...)
	}
	msg := UserTurn{Text: Deref(in.Message), Metadata: in.Metadata, Asr: in.AsrLangCode, Tts: in.TtsLangCode}
	d, err := a.Agent(p, agent)
	if err != nil {
		return DebugChatReply{}, "", err
	}
	var doc debugChatDoc
	if err := a.store.GetDoc(DocDebugChat, p.Region, id, &doc); err != nil || !doc.of(d) {
		if err == nil || errors.Is(err, store.ErrNotFound) {
			err = Errf(KindNotFound, CodeChatNotFound, MsgConvNotExist)
		}
		return DebugChatReply{}, "", err
	}
	proj := runtimeProject(p.Account, d)
	script, err := a.debugScript(p.Region, d, proj, doc.Conversation.Environment, doc.Branch)
	if err != nil {
		return DebugChatReply{}, "", err
	}
	conv, out, err := a.debugTurn(p.Region, id, script, msg)
	if err != nil {
		return DebugChatReply{}, "", err
	}
	return debugReply(conv, msg.Text, out), conv.Environment, nil
}

func (a *Engine) debugTurn(region, id string, script runtimeScript, msg UserTurn) (*store.Conversation, Outcome, error) {
	w := a.View()
	now := a.clock.Now()
	var doc debugChatDoc
	var out Outcome
	err := a.store.UpdateDoc(DocDebugChat, region, id, &doc, func() error {
		conv := doc.Conversation
		if conv == nil {
			return store.ErrNotFound
		}
		if !conv.InProgress {
			return Errf(KindInvalid, CodeChatEnded, MsgChatEnded)
		}
		out = takeTurn(w, conv, len(conv.Turns), script, msg, now) // the first turn is the greeting
		return nil
	})
	if errors.Is(err, store.ErrNotFound) {
		err = Errf(KindNotFound, CodeChatNotFound, MsgConvNotExist)
	}
	if err != nil {
		return nil, Outcome{}, err
	}
	a.afterDebugTurn(doc.Conversation, out)
	return doc.Conversation, out, nil
}

// afterDebugTurn writes a handoff's state; external events do not bind to
// debug chats.
func (a *Engine) afterDebugTurn(conv *store.Conversation, out Outcome) {
	if out.Handoff != nil {
		a.writeHandoffState(conv, out.Handoff)
	}
}

// debugChats lists an agent's debug chats in a region (unordered).
func (a *Engine) debugChats(region, account, agent string) ([]*store.Conversation, error) {
	var out []*store.Conversation
	err := store.ListDocs(a.store, DocDebugChat, region, func(_ string, doc *debugChatDoc) bool {
		if c := doc.Conversation; c != nil && c.AccountID == account && c.ProjectID == agent {
			out = append(out, c)
		}
		return true
	})
	return out, err
}
