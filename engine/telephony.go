package engine

// Inbound calls to an agent's numbers (docs/api.md#agents-inbound): the
// engine's side of engine/telephony.

import (
	"errors"
	"fmt"

	"github.com/agentplatform/mockplatform/engine/telephony"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// inboundConversationPrefix starts inbound call ids (CA + 32 hex;
// docs/api.md#ids).
const inboundConversationPrefix = "CA"

// CallNumber simulates a caller dialling a number routed to an agent's
// connector: a VOICE-SIP conversation in the connector's environment,
// variant and languages, with "connector_id" (and "disable_handoff") in its
// state. Unrouted numbers and agents without a runtime wrap ErrNotRouted.
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

// telephonyAgents is telephony.Agents over the Agents API.
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

// telephonyAgent is an agent as telephony sees it.
func telephonyAgent(d *AgentDoc) telephony.Agent {
	ag := telephony.Agent{AccountID: d.AccountID, ID: d.AgentID}
	if main := d.Branch(MainBranch); main != nil {
		for _, v := range main.Content.Variants {
			ag.Variants = append(ag.Variants, v.ID)
		}
	}
	return ag
}
