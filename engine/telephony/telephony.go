// Package telephony is the Agents API's telephony: connectors and phone
// numbers (docs/api.md#agents-connectors, #agents-numbers, #agents-inbound;
// docs/fidelity.md G13, M12.12-M12.16). A connector routes an agent's
// incoming calls to a voice, languages, a variant and an environment;
// numbers are routed to connectors. One "telephony" document per account
// holds all its agents' connectors and numbers, so every operation is one
// store update. Writes hold the Agents API's write lock (Agents).
package telephony

import (
	"errors"
	"slices"
	"sync"

	"github.com/agentplatform/mockplatform/engine/core"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// Telephony error codes and messages (agents OpenAPI examples).
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
	return core.Errf(core.KindNotFound, CodeConnectorNotFound, MsgConnectorNotFound)
}

// ErrConnectorInvalid is the 400 of a connector body's field errors.
func ErrConnectorInvalid(fields ...core.FieldError) error {
	return core.Invalid(CodeConnectorInvalid, MsgConnectorInvalid, fields...)
}

func errPhoneNotFound() error {
	return core.Errf(core.KindNotFound, CodePhoneNotFound, MsgPhoneNotFound)
}

func ErrPhoneInvalid(field string) error {
	return &core.Error{Kind: core.KindInvalid, Code: CodePhoneInvalid, Message: MsgPhoneInvalid,
		Fields: []core.FieldError{{Field: field, Message: "must be an E.164 number, e.g. +14155550100"}}}
}

// Service is one instance's telephony.
type Service struct {
	env    core.Env
	agents Agents
}

// Agents is what telephony needs of the Agents API.
type Agents interface {
	// Lock and Unlock are the Agents API's write lock, held across telephony
	// writes' store calls.
	sync.Locker
	// Agent resolves an agent of the principal's account (404 or 403).
	Agent(p *core.Principal, agent string) (Agent, error)
	// Find reads the agent a reference names, of any account, without
	// Agent's checks.
	Find(p *core.Principal, ref string) (ag Agent, ok bool, err error)
}

// Agent is an agent as telephony sees it.
type Agent struct {
	AccountID, ID string
	// Variants are the ids of its main branch's variants.
	Variants []string
}

// New returns the telephony of an instance.
func New(env core.Env, agents Agents) *Service { return &Service{env: env, agents: agents} }

// read returns an agent of p's account and its account's telephony.
func (s *Service) read(p *core.Principal, agent string) (Agent, *telephonyDoc, error) {
	ag, err := s.agents.Agent(p, agent)
	if err != nil {
		return Agent{}, nil, err
	}
	t := &telephonyDoc{AccountID: p.Account.ID}
	if err := s.env.Store.GetDoc(docTelephony, p.Region, p.Account.ID, t); err != nil && !errors.Is(err, store.ErrNotFound) {
		return Agent{}, nil, err
	}
	return ag, t, nil
}

// update applies fn to the account's telephony in one store update, under
// the Agents' lock so the checks made before it still hold.
func (s *Service) update(p *core.Principal, agent string, fn func(ag Agent, t *telephonyDoc) error) error {
	s.agents.Lock()
	defer s.agents.Unlock()
	return s.updateLocked(p, agent, fn)
}

func (s *Service) updateLocked(p *core.Principal, agent string, fn func(ag Agent, t *telephonyDoc) error) error {
	ag, err := s.agents.Agent(p, agent)
	if err != nil {
		return err
	}
	for range 2 {
		var t telephonyDoc
		err = s.env.Store.UpdateDoc(docTelephony, p.Region, p.Account.ID, &t, func() error { return fn(ag, &t) })
		if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		if err := s.env.Store.InsertDoc(docTelephony, p.Region, p.Account.ID, &telephonyDoc{AccountID: p.Account.ID,
			Connectors: []*ConnectorRec{}, Numbers: []*PhoneNumberRec{}}); err != nil && !errors.Is(err, store.ErrExists) {
			return err
		}
	}
	return err
}

// DropAgentLocked removes an agent's connectors and numbers. The Agents
// API's write lock must be held.
func (s *Service) DropAgentLocked(region, account, agent string) error {
	var t telephonyDoc
	err := s.env.Store.UpdateDoc(docTelephony, region, account, &t, func() error {
		t.Connectors = slices.DeleteFunc(t.Connectors, func(x *ConnectorRec) bool { return x.ProjectID == agent })
		t.Numbers = slices.DeleteFunc(t.Numbers, func(x *PhoneNumberRec) bool { return x.ProjectID == agent })
		return nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil
	}
	return err
}

// Seed writes every account's telephony from its projects' scenario blocks.
func Seed(st *store.Store, sc *scenario.Scenario) error {
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

// Route finds where a call to number goes: the account that imported it
// (nil: none) and its connector (nil: none).
func (s *Service) Route(number string) (acct *scenario.Account, cn *ConnectorRec, err error) {
	accts := s.env.View().Scenario().Accounts
	for ai := range accts {
		acct := &accts[ai]
		var t telephonyDoc
		err := s.env.Store.GetDoc(docTelephony, acct.Region, acct.ID, &t)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, nil, err
		}
		i := slices.IndexFunc(t.Numbers, func(n *PhoneNumberRec) bool { return n.Number == number })
		if i < 0 {
			continue
		}
		num := t.Numbers[i]
		return acct, t.connector(num.ProjectID, num.ConnectorID), nil
	}
	return nil, nil, nil
}

// ConnectorOf is the agent's connector of an environment (nil: none).
func (s *Service) ConnectorOf(p *core.Principal, agent, env string) (Agent, *ConnectorRec, error) {
	ag, t, err := s.read(p, agent)
	if err != nil {
		return Agent{}, nil, err
	}
	for _, x := range t.Connectors {
		if x.ProjectID == ag.ID && x.ClientEnv == env {
			return ag, x, nil
		}
	}
	return ag, nil, nil
}

// ConnectorVoice is the voice of the connector the conversation called
// ("" when none).
func (s *Service) ConnectorVoice(conv *store.Conversation) string {
	if conv.ToNumber == "" {
		return ""
	}
	var t telephonyDoc
	if err := s.env.Store.GetDoc(docTelephony, conv.Region, conv.AccountID, &t); err != nil {
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
