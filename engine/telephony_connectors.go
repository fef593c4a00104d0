package engine

// Telephony connectors of an agent: list, get, batch get, lookup by
// number, update (one or a batch; moving a connector to another agent
// moves its numbers), delete (its numbers lose their routing). Connectors
// come from the scenario: the API has no create operation.

import (
	"errors"
	"slices"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

type (
	ConnectorList struct {
		Connectors []*ConnectorRec `json:"connectors"`
	}
	ConnectorsFound struct {
		Found    []*ConnectorRec `json:"found"`
		NotFound []string        `json:"notFound"`
	}
	ConnectorResults struct {
		Results []BatchResult `json:"results"`
	}
	ConnectorDeleted struct {
		DeletedConnector    string   `json:"deletedConnector"`
		DeletedPhoneNumbers []string `json:"deletedPhoneNumbers"`
	}
)

var ConnectorPatchRules = map[string]FieldRule{
	"variantId":   {Nullable: true, Doc: "A variant of the connector's agent; null or \"\" unassigns it."},
	"asrLangCode": {Pattern: scenario.LangCodeRE},
	"voiceName":   {Pattern: scenario.VoiceNameRE, Doc: "Also sets ttsLangCode (its language prefix)."},
	"projectId":   {MinLen: 1, Doc: "Another agent of the account to move the connector to."},
}

func (ConnectorRec) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"clientEnv": {Enum: scenario.Environments}}
}

// ConnectorPatch is a validated connector update (OAS UpdateConnectorBody:
// only the given fields change; variantId null unassigns).
type ConnectorPatch struct {
	Variant, Asr, Voice, Project *string
	target                       *AgentDoc // the agent of Project, when given
}

// apply changes x by the patch (the agent is x's current agent); it
// returns a field error, leaving x unchanged, when the variant is not one
// of the (target) agent's main-branch variants.
func (cp ConnectorPatch) apply(t *telephonyDoc, cur *AgentDoc, x *ConnectorRec) *FieldError {
	owner := cur
	if cp.target != nil {
		owner = cp.target
	}
	if cp.Variant != nil && *cp.Variant != "" {
		main := owner.Branch(MainBranch)
		if main == nil || !slices.ContainsFunc(main.Content.Variants, func(v *Variant) bool { return v.ID == *cp.Variant }) {
			return &FieldError{Field: "variantId", Message: "not a variant of agent " + owner.AgentID}
		}
	}
	if cp.Variant != nil {
		x.VariantID = *cp.Variant
	} else if cp.target != nil && cp.target.AgentID != cur.AgentID {
		// The variant ids of one agent mean nothing to another.
		x.VariantID = ""
	}
	if cp.Asr != nil {
		x.ASRLangCode = *cp.Asr
	}
	if cp.Voice != nil {
		// "tts_lang_code is auto-derived from the voice name prefix" (OAS).
		x.VoiceName = *cp.Voice
		x.TTSLangCode = scenario.VoiceNameRE.FindStringSubmatch(*cp.Voice)[1]
	}
	if cp.target != nil && cp.target.AgentID != x.ProjectID {
		// The connector's numbers move with it.
		for _, n := range t.Numbers {
			if n.ConnectorID == x.ConnectorID && n.ProjectID == x.ProjectID {
				n.ProjectID = cp.target.AgentID
			}
		}
		x.ProjectID = cp.target.AgentID
	}
	return nil
}

// BatchResult is one item of a batch connector update.
type BatchResult struct {
	ConnectorID string        `json:"connectorId"`
	Success     bool          `json:"success"`
	Data        *ConnectorRec `json:"data,omitempty"`
	Error       string        `json:"error,omitempty"`
}

// FieldText is a field error as one batch item's error text.
func FieldText(fe FieldError) string { return fe.Field + ": " + fe.Message }

// Connectors lists an agent's connectors (docs/api.md#agents-connectors).
func (a *Engine) Connectors(p *Principal, agent string) ([]*ConnectorRec, error) {
	d, t, err := a.telephony(p, agent)
	if err != nil {
		return nil, err
	}
	out := []*ConnectorRec{}
	for _, x := range t.Connectors {
		if x.ProjectID == d.AgentID {
			out = append(out, x)
		}
	}
	return out, nil
}

// Connector reads a connector of an agent: 404 CONNECTORS_NOT_FOUND.
func (a *Engine) Connector(p *Principal, agent, id string) (*ConnectorRec, error) {
	d, t, err := a.telephony(p, agent)
	if err != nil {
		return nil, err
	}
	x := t.connector(d.AgentID, id)
	if x == nil {
		return nil, errConnectorNotFound()
	}
	return x, nil
}

// ConnectorsByID reads connectors of an agent by id: the found ones and
// the ids of the others, in the order of ids.
func (a *Engine) ConnectorsByID(p *Principal, agent string, ids []string) (ConnectorsFound, error) {
	d, t, err := a.telephony(p, agent)
	if err != nil {
		return ConnectorsFound{}, err
	}
	out := ConnectorsFound{Found: []*ConnectorRec{}, NotFound: []string{}}
	for _, id := range ids {
		if x := t.connector(d.AgentID, id); x != nil {
			out.Found = append(out.Found, x)
		} else {
			out.NotFound = append(out.NotFound, id)
		}
	}
	return out, nil
}

// resolveTargetLocked loads the agent a patch moves the connector to: an
// agent of the key's account ("API key must have access to both
// projects"). An unknown agent is a field error; a store failure is the
// error. Called with agents.mu held, so the agent still exists when the
// connector moves.
func (a *Engine) resolveTargetLocked(p *Principal, cp *ConnectorPatch) (*FieldError, error) {
	if cp.Project == nil {
		return nil, nil
	}
	var d AgentDoc
	err := a.store.GetDoc(DocAgent, p.Region, agentRef(p, *cp.Project), &d)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	if err != nil || d.AccountID != p.Account.ID {
		return &FieldError{Field: "projectId", Message: "no agent with this id in the account"}, nil
	}
	cp.target = &d
	return nil, nil
}

// UpdateConnector changes the given fields of a connector (name,
// clientEnv and disableHandoff are not settable); a move to another agent
// of the account moves its numbers.
func (a *Engine) UpdateConnector(p *Principal, agent, id string, cp ConnectorPatch) (*ConnectorRec, error) {
	a.agents.mu.Lock()
	defer a.agents.mu.Unlock()
	if fe, err := a.resolveTargetLocked(p, &cp); err != nil {
		return nil, err
	} else if fe != nil {
		return nil, ErrConnectorInvalid(*fe)
	}
	var out ConnectorRec
	if err := a.updateTelephonyLocked(p, agent, func(d *AgentDoc, t *telephonyDoc) error {
		x := t.connector(d.AgentID, id)
		if x == nil {
			return errConnectorNotFound()
		}
		if fe := cp.apply(t, d, x); fe != nil {
			return ErrConnectorInvalid(*fe)
		}
		out = *x
		return nil
	}); err != nil {
		return nil, err
	}
	return &out, nil
}

// ConnectorUpdate is one update of a batch: the connector, its patch,
// and the patch's validation error (FieldText), if any.
type ConnectorUpdate struct {
	ID      string
	Patch   ConnectorPatch
	Invalid string
}

// UpdateConnectors applies each update on its own (partial success), in
// order, in one store update: one result per update.
func (a *Engine) UpdateConnectors(p *Principal, agent string, updates []ConnectorUpdate) ([]BatchResult, error) {
	a.agents.mu.Lock()
	defer a.agents.mu.Unlock()
	for i := range updates {
		if u := &updates[i]; u.Invalid == "" {
			fe, err := a.resolveTargetLocked(p, &u.Patch)
			if err != nil {
				return nil, err
			}
			if fe != nil {
				u.Invalid = FieldText(*fe)
			}
		}
	}
	var results []BatchResult
	if err := a.updateTelephonyLocked(p, agent, func(d *AgentDoc, t *telephonyDoc) error {
		results = results[:0]
		for _, u := range updates {
			r := BatchResult{ConnectorID: u.ID}
			x := t.connector(d.AgentID, u.ID)
			switch {
			case x == nil:
				r.Error = MsgConnectorNotFound
			case u.Invalid != "":
				r.Error = u.Invalid
			default:
				if fe := u.Patch.apply(t, d, x); fe != nil {
					r.Error = FieldText(*fe)
				} else {
					cp := *x
					r.Success, r.Data = true, &cp
				}
			}
			results = append(results, r)
		}
		return nil
	}); err != nil {
		return nil, err
	}
	return results, nil
}

// LookupConnector is the connector an agent's number routes to: 404
// PHONE_NUMBERS_NOT_FOUND for an unknown number, 404 CONNECTORS_NOT_FOUND
// for a number routed to no connector.
func (a *Engine) LookupConnector(p *Principal, agent, number string) (*ConnectorRec, error) {
	d, t, err := a.telephony(p, agent)
	if err != nil {
		return nil, err
	}
	_, num := t.number(d.AgentID, number)
	if num == nil {
		return nil, errPhoneNotFound()
	}
	x := t.connector(d.AgentID, num.ConnectorID)
	if x == nil {
		return nil, Errf(KindNotFound, CodeConnectorNotFound, MsgPhoneNoConnector)
	}
	return x, nil
}

// DeleteConnector deletes a connector and every phone number routed to
// it; it returns those numbers.
func (a *Engine) DeleteConnector(p *Principal, agent, id string) ([]string, error) {
	deleted := []string{}
	if err := a.updateTelephony(p, agent, func(d *AgentDoc, t *telephonyDoc) error {
		x := t.connector(d.AgentID, id)
		if x == nil {
			return errConnectorNotFound()
		}
		t.Connectors = slices.DeleteFunc(t.Connectors, func(y *ConnectorRec) bool { return y == x })
		deleted = deleted[:0]
		t.Numbers = slices.DeleteFunc(t.Numbers, func(n *PhoneNumberRec) bool {
			if n.ConnectorID == id && n.ProjectID == d.AgentID {
				deleted = append(deleted, n.Number)
				return true
			}
			return false
		})
		return nil
	}); err != nil {
		return nil, err
	}
	return deleted, nil
}
