package engine

// Inbound calls to an agent's numbers (docs/api.md#agents-inbound): the
// engine's side of telephony (engine/telephony), which holds the
// connectors and numbers and reads agents through telephonyAgents.

import (
	"errors"
	"fmt"

	"github.com/agentplatform/mockplatform/engine/telephony"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// inboundConversationPrefix starts the ids of inbound voice calls (CA +
// 32 hex, as the real voice conversations; docs/api.md#ids).
const inboundConversationPrefix = "CA"

// CallNumber simulates a caller (from: an E.164 number, may be empty)
// dialling a phone number imported into an agent and routed to one of its
// connectors: the call starts a VOICE-SIP conversation of that agent in
// the connector's client environment (so it answers from the deployment
// active there), with the connector's variant (the project's default
// variant when unassigned), ASR and TTS languages; its state carries
// "connector_id" and, when the connector disables handoff,
// "disable_handoff": true. A number that is not imported, is routed to no
// connector, or whose agent has no runtime (an agent created through the
// API, not in the scenario) gives an error wrapping ErrNotRouted.
func (a *Engine) CallNumber(number, from string) (*DialResult, error) {
	acct, cn, err := a.tel.Route(number)
	switch {
	case err != nil:
		return nil, err
	case acct == nil:
		return nil, fmt.Errorf("call %s: no agent has this number: %w", number, ErrNotRouted)
	case cn == nil:
		return nil, fmt.Errorf("call %s: the number is routed to no connector: %w", number, ErrNotRouted)
	}
	proj := acct.Project(cn.ProjectID)
	if proj == nil {
		return nil, fmt.Errorf("call %s: agent %s has no runtime in the scenario: %w", number, cn.ProjectID, ErrNotRouted)
	}
	var vr *scenario.Variant
	for k := range proj.Variants {
		if v := &proj.Variants[k]; (cn.VariantID != "" && v.ID == cn.VariantID) || (cn.VariantID == "" && v.Default) {
			vr = v
		}
	}
	state := map[string]any{"connector_id": cn.ConnectorID}
	if cn.DisableHandoff {
		state["disable_handoff"] = true
	}
	conv, out, err := a.StartConversation(ConvStart{
		Region: acct.Region, Account: acct, Project: proj, Environment: cn.ClientEnv, Channel: "VOICE-SIP",
		Variant: vr, Language: cn.ASRLangCode, TTSLanguage: cn.TTSLangCode, FromNumber: from, ToNumber: number,
		State: state, ID: inboundConversationPrefix + a.NewID("", hexDigits, 32),
	})
	if err != nil {
		return nil, err
	}
	return &DialResult{ConversationID: conv.ID, Response: out.Text}, nil
}

// telephonyAgents is what telephony needs of the Agents API
// (telephony.Agents): its write lock and its agents.
type telephonyAgents struct{ e *Engine }

func (t telephonyAgents) Lock()   { t.e.agents.mu.Lock() }
func (t telephonyAgents) Unlock() { t.e.agents.mu.Unlock() }

func (t telephonyAgents) Agent(p *Principal, agent string) (telephony.Agent, error) {
	d, err := t.e.Agent(p, agent)
	if err != nil {
		return telephony.Agent{}, err
	}
	return telephonyAgent(d), nil
}

func (t telephonyAgents) Find(p *Principal, ref string) (telephony.Agent, bool, error) {
	var d AgentDoc
	err := t.e.store.GetDoc(DocAgent, p.Region, agentRef(p, ref), &d)
	if errors.Is(err, store.ErrNotFound) {
		return telephony.Agent{}, false, nil
	}
	if err != nil {
		return telephony.Agent{}, false, err
	}
	return telephonyAgent(&d), true, nil
}

// telephonyAgent is an agent as telephony sees it: its ids and its main
// branch's variants.
func telephonyAgent(d *AgentDoc) telephony.Agent {
	ag := telephony.Agent{AccountID: d.AccountID, ID: d.AgentID}
	if main := d.Branch(MainBranch); main != nil {
		for _, v := range main.Content.Variants {
			ag.Variants = append(ag.Variants, v.ID)
		}
	}
	return ag
}
