package engine

// Telephony of the Agents API: connectors and phone numbers
// (docs/api.md#agents-connectors, docs/api.md#agents-numbers,
// docs/api.md#agents-inbound). The spec shows one operation, "GET
// /v1/agents/{agentId}/telephony/connectors/{connectorId}"; the others fill
// its gap from the real agents OpenAPI document (docs/fidelity.md G13,
// M12.12-M12.16).
//
// A connector ties an agent's incoming calls to a voice, languages, a
// variant and an environment, and several phone numbers (E.164) can be
// routed to one connector. Telephony belongs to the agent, not to a
// branch.
//
// Storage: one "telephony" document per account (kind, region, account
// id) holds the connectors and phone numbers of all its agents, each
// record carrying its projectId (= agentId). So every operation is one
// store update, including those that touch a connector and its numbers
// together (delete cascades, moving a connector to another project).
// Connectors come from the scenario (the API has no create operation);
// numbers from the scenario or the import operations.
//
// A number routed to a connector is the agent's inbound number:
// CallNumber starts the call a caller dialling it would start.

import (
	"errors"
	"fmt"
	"slices"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// Telephony error codes and messages (agents OpenAPI examples; the
// already-exists message is not shown there).
const (
	CodeConnectorNotFound = "CONNECTORS_NOT_FOUND"
	CodeConnectorInvalid  = "CONNECTORS_VALIDATION_FAILED"
	CodePhoneInvalid      = "PHONE_NUMBERS_INVALID_PHONE_NUMBER_FORMAT"
	CodePhoneExists       = "PHONE_NUMBERS_ALREADY_EXISTS"
	CodePhoneNotFound     = "PHONE_NUMBERS_NOT_FOUND"

	MsgConnectorNotFound = "Connector ID does not exist."
	MsgConnectorInvalid  = "Connector request body failed validation."
	MsgPhoneInvalid      = "Number is not in valid E.164 format."
	MsgPhoneNotFound     = "Phone number does not exist."
	MsgPhoneExists       = "Phone number already exists."
	MsgPhoneNoConnector  = "No connector routes this phone number."
)

const docTelephony = "telephony"

// ConnectorRec is a connector, every field of docs/api.md#agents-connectors.
type ConnectorRec struct {
	ConnectorID    string `json:"connectorId"`
	Name           string `json:"name"`
	AccountID      string `json:"accountId"`
	ProjectID      string `json:"projectId"`
	ClientEnv      string `json:"clientEnv"`
	VariantID      string `json:"variantId"`
	ASRLangCode    string `json:"asrLangCode"`
	TTSLangCode    string `json:"ttsLangCode"`
	VoiceName      string `json:"voiceName"`
	DisableHandoff bool   `json:"disableHandoff"`
}

// PhoneNumberRec is a phone number of a project (OAS PhoneNumberResponse).
type PhoneNumberRec struct {
	Number      string `json:"number"`
	ProjectID   string `json:"projectId"`
	AccountID   string `json:"accountId"`
	ClientEnv   string `json:"clientEnv"`
	ConnectorID string `json:"connectorId,omitempty"`
}

// telephonyDoc is the stored telephony of an account, in creation order.
type telephonyDoc struct {
	AccountID  string            `json:"account_id"`
	Connectors []*ConnectorRec   `json:"connectors"`
	Numbers    []*PhoneNumberRec `json:"numbers"`
}

func (t *telephonyDoc) connector(agent, id string) *ConnectorRec {
	for _, c := range t.Connectors {
		if c.ConnectorID == id && c.ProjectID == agent {
			return c
		}
	}
	return nil
}

func (t *telephonyDoc) number(agent, n string) (int, *PhoneNumberRec) {
	for i, x := range t.Numbers {
		if x.Number == n && x.ProjectID == agent {
			return i, x
		}
	}
	return -1, nil
}

func (t *telephonyDoc) hasNumber(n string) bool {
	return slices.ContainsFunc(t.Numbers, func(x *PhoneNumberRec) bool { return x.Number == n })
}

func errConnectorNotFound() error {
	return Errf(KindNotFound, CodeConnectorNotFound, MsgConnectorNotFound)
}

// ErrConnectorInvalid is the 400 of a connector body's field errors.
func ErrConnectorInvalid(fields ...FieldError) error {
	return Invalid(CodeConnectorInvalid, MsgConnectorInvalid, fields...)
}

func errPhoneNotFound() error { return Errf(KindNotFound, CodePhoneNotFound, MsgPhoneNotFound) }

func ErrPhoneInvalid(field string) error {
	return &Error{Kind: KindInvalid, Code: CodePhoneInvalid, Message: MsgPhoneInvalid,
		Fields: []FieldError{{Field: field, Message: "must be an E.164 number, e.g. +14155550100"}}}
}

// telephony returns an agent of the principal's account (404 or 403 as
// the Agents API does) and its account's telephony.
func (a *Engine) telephony(p *Principal, agent string) (*AgentDoc, *telephonyDoc, error) {
	d, err := a.Agent(p, agent)
	if err != nil {
		return nil, nil, err
	}
	t := &telephonyDoc{AccountID: p.Account.ID}
	if err := a.store.GetDoc(docTelephony, p.Region, p.Account.ID, t); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, nil, err
	}
	return d, t, nil
}

// updateTelephony applies fn to the account's telephony in one store
// update, for an agent. Telephony writes are serialised with the other
// Agents writes (agents.mu), so the checks made before the update (other
// agents, other accounts' numbers) still hold when it runs.
func (a *Engine) updateTelephony(p *Principal, agent string, fn func(d *AgentDoc, t *telephonyDoc) error) error {
	a.agents.mu.Lock()
	defer a.agents.mu.Unlock()
	return a.updateTelephonyLocked(p, agent, fn)
}

func (a *Engine) updateTelephonyLocked(p *Principal, agent string, fn func(d *AgentDoc, t *telephonyDoc) error) error {
	d, err := a.Agent(p, agent)
	if err != nil {
		return err
	}
	for range 2 {
		var t telephonyDoc
		err = a.store.UpdateDoc(docTelephony, p.Region, p.Account.ID, &t, func() error { return fn(d, &t) })
		if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		// Not seeded (an account added after the seed): create it empty.
		if err := a.store.InsertDoc(docTelephony, p.Region, p.Account.ID, &telephonyDoc{AccountID: p.Account.ID,
			Connectors: []*ConnectorRec{}, Numbers: []*PhoneNumberRec{}}); err != nil && !errors.Is(err, store.ErrExists) {
			return err
		}
	}
	return err
}

// --- agent deletion, seeding, inbound calls ---

// dropTelephonyLocked removes an agent's connectors and numbers (agent delete).
// Called with agents.mu held.
func (a *Engine) dropTelephonyLocked(region, account, agent string) error {
	var t telephonyDoc
	err := a.store.UpdateDoc(docTelephony, region, account, &t, func() error {
		t.Connectors = slices.DeleteFunc(t.Connectors, func(x *ConnectorRec) bool { return x.ProjectID == agent })
		t.Numbers = slices.DeleteFunc(t.Numbers, func(x *PhoneNumberRec) bool { return x.ProjectID == agent })
		return nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}

// seedTelephony writes the telephony document of every account: the
// connectors of its projects' scenario blocks, with their numbers.
func seedTelephony(st *store.Store, sc *scenario.Scenario) error {
	for ai := range sc.Accounts {
		acct := &sc.Accounts[ai]
		t := &telephonyDoc{AccountID: acct.ID, Connectors: []*ConnectorRec{}, Numbers: []*PhoneNumberRec{}}
		for pi := range acct.Projects {
			proj := &acct.Projects[pi]
			for _, cn := range proj.Connectors {
				t.Connectors = append(t.Connectors, &ConnectorRec{ConnectorID: cn.ID, Name: cn.Name, AccountID: acct.ID,
					ProjectID: proj.ID, ClientEnv: cn.ClientEnv, VariantID: cn.Variant, ASRLangCode: cn.ASRLangCode,
					TTSLangCode: cn.TTSLangCode, VoiceName: cn.VoiceName, DisableHandoff: cn.DisableHandoff})
				for _, n := range cn.PhoneNumbers {
					t.Numbers = append(t.Numbers, &PhoneNumberRec{Number: n, ProjectID: proj.ID, AccountID: acct.ID,
						ClientEnv: cn.ClientEnv, ConnectorID: cn.ID})
				}
			}
		}
		if err := st.PutDoc(docTelephony, acct.Region, acct.ID, t); err != nil {
			return err
		}
	}
	return nil
}

// connectorVoice is the voice of the connector whose number the
// conversation called ("" when none: an outbound call, a reserved number).
func (a *Engine) connectorVoice(conv *store.Conversation) string {
	if conv.ToNumber == "" {
		return ""
	}
	var t telephonyDoc
	if err := a.store.GetDoc(docTelephony, conv.Region, conv.AccountID, &t); err != nil {
		return ""
	}
	for _, n := range t.Numbers {
		if n.Number == conv.ToNumber && n.ProjectID == conv.ProjectID {
			if c := t.connector(n.ProjectID, n.ConnectorID); c != nil {
				return c.VoiceName
			}
		}
	}
	return ""
}

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
	accts := a.View().Scenario().Accounts
	for ai := range accts {
		acct := &accts[ai]
		var t telephonyDoc
		err := a.store.GetDoc(docTelephony, acct.Region, acct.ID, &t)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		i := slices.IndexFunc(t.Numbers, func(n *PhoneNumberRec) bool { return n.Number == number })
		if i < 0 {
			continue
		}
		num := t.Numbers[i]
		cn := t.connector(num.ProjectID, num.ConnectorID)
		if cn == nil {
			return nil, fmt.Errorf("call %s: the number is routed to no connector: %w", number, ErrNotRouted)
		}
		proj := acct.Project(num.ProjectID)
		if proj == nil {
			return nil, fmt.Errorf("call %s: agent %s has no runtime in the scenario: %w", number, num.ProjectID, ErrNotRouted)
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
	return nil, fmt.Errorf("call %s: no agent has this number: %w", number, ErrNotRouted)
}
