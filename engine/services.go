package engine

// The services of the family packages, each with its own state behind its
// own lock: made by newServices, reset by resetFamilies.

import (
	"cmp"
	"errors"

	"github.com/agentplatform/mockplatform/engine/audio"
	"github.com/agentplatform/mockplatform/engine/convquery"
	"github.com/agentplatform/mockplatform/engine/core"
	"github.com/agentplatform/mockplatform/engine/telephony"
	"github.com/agentplatform/mockplatform/engine/testruns"
	"github.com/agentplatform/mockplatform/store"
)

// env is what a family service runs on.
func (e *Engine) env() core.Env {
	return core.Env{Store: e.store, Clock: e.clock, Log: e.Log, IDs: &e.ids,
		View: func() *core.View { return &e.View().View }}
}

func (e *Engine) newServices() {
	env := e.env()
	e.convq = convquery.New(env, convAgents{e})
	e.audio = audio.New(env, audioAgents{e})
	e.testRuns = testruns.New(env, testAgents{e})
	e.tel = telephony.New(env, telephonyAgents{e})
}

// ConvQuery reads the conversation records.
func (e *Engine) ConvQuery() *convquery.Service { return e.convq }

// Audio is the Agents API's voice libraries and audio caches.
func (e *Engine) Audio() *audio.Service { return e.audio }

// TestRuns is the kit's test runs of the agents' test cases.
func (e *Engine) TestRuns() *testruns.Service { return e.testRuns }

// Telephony is the agents' connectors and phone numbers.
func (e *Engine) Telephony() *telephony.Service { return e.tel }

// convAgents is convquery.Agents over the Agents API.
type convAgents struct{ e *Engine }

func (c convAgents) Agent(p *Principal, agent string) (convquery.Agent, error) {
	d, err := c.e.Agent(p, agent)
	if err != nil {
		return convquery.Agent{}, err
	}
	return convquery.Agent{AccountID: d.AccountID, ID: d.AgentID}, nil
}

func (c convAgents) DebugChats(region string, ag convquery.Agent) ([]*store.Conversation, error) {
	return c.e.debugChats(region, ag.AccountID, ag.ID)
}

func (c convAgents) DebugChat(region string, ag convquery.Agent, id string) (*store.Conversation, error) {
	var doc debugChatDoc
	err := c.e.store.GetDoc(DocDebugChat, region, id, &doc)
	switch conv := doc.Conversation; {
	case err == nil && conv != nil && conv.AccountID == ag.AccountID && conv.ProjectID == ag.ID:
		return conv, nil
	case err != nil && !errors.Is(err, store.ErrNotFound):
		return nil, err
	}
	return nil, Errf(KindNotFound, CodeChatNotFound, MsgConvNotExist)
}

// audioAgents is audio.Agents over the Agents API.
type audioAgents struct{ e *Engine }

func (c audioAgents) AgentID(p *Principal, agent string) (string, error) {
	d, err := c.e.Agent(p, agent)
	if err != nil {
		return "", err
	}
	return d.AgentID, nil
}

func (c audioAgents) ConnectorVoice(conv *store.Conversation) string {
	return c.e.tel.ConnectorVoice(conv)
}

// testAgents is testruns.Agents over the Agents API.
type testAgents struct{ e *Engine }

func (c testAgents) Agent(p *Principal, agent string) (testruns.Agent, error) {
	d, err := c.e.Agent(p, agent)
	if err != nil {
		return nil, err
	}
	return testAgent{c.e, d}, nil
}

type testAgent struct {
	e *Engine
	d *AgentDoc
}

func (t testAgent) AccountID() string { return t.d.AccountID }
func (t testAgent) ID() string        { return t.d.AgentID }

func (t testAgent) Branch(id string) (string, error) {
	id = cmp.Or(id, MainBranch)
	if t.d.Branch(id) == nil {
		return "", Errf(KindNotFound, CodeBranchNotFound, MsgBranchNotFound)
	}
	return id, nil
}

func (t testAgent) Opener(p *Principal, branch string) (func(map[string]any) (*store.Conversation, error), error) {
	proj := runtimeProject(p.Account, t.d)
	script, err := t.e.debugScript(p.Region, t.d, proj, "sandbox", branch)
	if err != nil {
		return nil, err
	}
	return func(state map[string]any) (*store.Conversation, error) {
		id := debugChatPrefix + t.e.NewUUID()
		conv, out := t.e.openConversation(ConvStart{ID: id, Region: p.Region, Account: p.Account, Project: proj,
			Environment: "sandbox", Channel: "CHAT", Variant: SessionVariant(proj, ""), State: state},
			func(*store.Conversation) runtimeScript { return script })
		if err := t.e.store.InsertDoc(DocDebugChat, p.Region, id, &debugChatDoc{Conversation: conv, Branch: branch}); err != nil {
			return nil, err
		}
		t.e.afterDebugTurn(conv, out)
		return conv, nil
	}, nil
}

func (t testAgent) Say(p *Principal, branch, id, text string) (*store.Conversation, error) {
	script, err := t.e.debugScript(p.Region, t.d, runtimeProject(p.Account, t.d), "sandbox", branch)
	if err != nil {
		return nil, err
	}
	conv, _, err := t.e.debugTurn(p.Region, id, script, UserTurn{Text: text})
	return conv, err
}
