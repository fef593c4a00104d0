package telephony

// Telephony connectors of an agent. They come from the scenario: the API
// has no create; moving one to another agent moves its numbers.

import (
	"slices"

	"github.com/agentplatform/mockplatform/engine/core"
	"github.com/agentplatform/mockplatform/scenario"
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

var ConnectorPatchRules = map[string]core.FieldRule{
	"variantId":   {Nullable: true, Doc: "A variant of the connector's agent; null or \"\" unassigns it."},
	"asrLangCode": {Pattern: scenario.LangCodeRE},
	"voiceName":   {Pattern: scenario.VoiceNameRE, Doc: "Also sets ttsLangCode (its language prefix)."},
	"projectId":   {MinLen: 1, Doc: "Another agent of the account to move the connector to."},
}

func (ConnectorRec) FieldRules() map[string]core.FieldRule {
	return map[string]core.FieldRule{"clientEnv": {Enum: scenario.Environments}}
}

// ConnectorPatch is a validated connector update (OAS UpdateConnectorBody;
// variantId null unassigns).
type ConnectorPatch struct {
	Variant, Asr, Voice, Project *string
	target                       *Agent // the agent of Project, when given
}

// apply changes x by the patch, or returns a field error when the variant
// is not one of the target agent's main-branch variants.
func (cp ConnectorPatch) apply(t *telephonyDoc, cur Agent, x *ConnectorRec) *core.FieldError {
	owner := cur
	if cp.target != nil {
		owner = *cp.target
	}
	if cp.Variant != nil && *cp.Variant != "" && !slices.Contains(owner.Variants, *cp.Variant) {
		return &core.FieldError{Field: "variantId", Message: "not a variant of agent " + owner.ID}
	}
	if cp.Variant != nil {
		x.VariantID = *cp.Variant
	} else if cp.target != nil && cp.target.ID != cur.ID {
		// One agent's variant ids mean nothing to another.
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
	if cp.target != nil && cp.target.ID != x.ProjectID {
		for _, n := range t.Numbers {
			if n.ConnectorID == x.ConnectorID && n.ProjectID == x.ProjectID {
				n.ProjectID = cp.target.ID
			}
		}
		x.ProjectID = cp.target.ID
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
func FieldText(fe core.FieldError) string { return fe.Field + ": " + fe.Message }

// Connectors lists an agent's connectors (docs/api.md#agents-connectors).
func (s *Service) Connectors(p *core.Principal, agent string) ([]*ConnectorRec, error) {
	ag, t, err := s.read(p, agent)
	if err != nil {
		return nil, err
	}
	out := []*ConnectorRec{}
	for _, x := range t.Connectors {
		if x.ProjectID == ag.ID {
			out = append(out, x)
		}
	}
	return out, nil
}

// Connector reads a connector of an agent: 404 CONNECTORS_NOT_FOUND.
func (s *Service) Connector(p *core.Principal, agent, id string) (*ConnectorRec, error) {
	ag, t, err := s.read(p, agent)
	if err != nil {
		return nil, err
	}
	x := t.connector(ag.ID, id)
	if x == nil {
		return nil, errConnectorNotFound()
	}
	return x, nil
}

// ConnectorsByID reads an agent's connectors by id: found ones and the
// missing ids, in order.
func (s *Service) ConnectorsByID(p *core.Principal, agent string, ids []string) (ConnectorsFound, error) {
	ag, t, err := s.read(p, agent)
	if err != nil {
		return ConnectorsFound{}, err
	}
	out := ConnectorsFound{Found: []*ConnectorRec{}, NotFound: []string{}}
	for _, id := range ids {
		if x := t.connector(ag.ID, id); x != nil {
			out.Found = append(out.Found, x)
		} else {
			out.NotFound = append(out.NotFound, id)
		}
	}
	return out, nil
}

// resolveTargetLocked loads the agent of the key's account a patch moves
// the connector to (unknown: a field error). The Agents API's write lock
// must be held.
func (s *Service) resolveTargetLocked(p *core.Principal, cp *ConnectorPatch) (*core.FieldError, error) {
	if cp.Project == nil {
		return nil, nil
	}
	ag, ok, err := s.agents.Find(p, *cp.Project)
	if err != nil {
		return nil, err
	}
	if !ok || ag.AccountID != p.Account.ID {
		return &core.FieldError{Field: "projectId", Message: "no agent with this id in the account"}, nil
	}
	cp.target = &ag
	return nil, nil
}

// UpdateConnector changes the given fields of a connector; a move to
// another agent moves its numbers.
func (s *Service) UpdateConnector(p *core.Principal, agent, id string, cp ConnectorPatch) (*ConnectorRec, error) {
	s.agents.Lock()
	defer s.agents.Unlock()
	if fe, err := s.resolveTargetLocked(p, &cp); err != nil {
		return nil, err
	} else if fe != nil {
		return nil, ErrConnectorInvalid(*fe)
	}
	var out ConnectorRec
	if err := s.updateLocked(p, agent, func(ag Agent, t *telephonyDoc) error {
		x := t.connector(ag.ID, id)
		if x == nil {
			return errConnectorNotFound()
		}
		if fe := cp.apply(t, ag, x); fe != nil {
			return ErrConnectorInvalid(*fe)
		}
		out = *x
		return nil
	}); err != nil {
		return nil, err
	}
	return &out, nil
}

// ConnectorUpdate is one batch update and its validation error, if any.
type ConnectorUpdate struct {
	ID      string
	Patch   ConnectorPatch
	Invalid string
}

// UpdateConnectors applies each update on its own, in one store update.
func (s *Service) UpdateConnectors(p *core.Principal, agent string, updates []ConnectorUpdate) ([]BatchResult, error) {
	s.agents.Lock()
	defer s.agents.Unlock()
	for i := range updates {
		if u := &updates[i]; u.Invalid == "" {
			fe, err := s.resolveTargetLocked(p, &u.Patch)
			if err != nil {
				return nil, err
			}
			if fe != nil {
				u.Invalid = FieldText(*fe)
			}
		}
	}
	var results []BatchResult
	if err := s.updateLocked(p, agent, func(ag Agent, t *telephonyDoc) error {
		results = results[:0]
		for _, u := range updates {
			r := BatchResult{ConnectorID: u.ID}
			x := t.connector(ag.ID, u.ID)
			switch {
			case x == nil:
				r.Error = MsgConnectorNotFound
			case u.Invalid != "":
				r.Error = u.Invalid
			default:
				if fe := u.Patch.apply(t, ag, x); fe != nil {
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

// LookupConnector is the connector an agent's number routes to (404 for an
// unknown number or one routed nowhere).
func (s *Service) LookupConnector(p *core.Principal, agent, number string) (*ConnectorRec, error) {
	ag, t, err := s.read(p, agent)
	if err != nil {
		return nil, err
	}
	_, num := t.number(ag.ID, number)
	if num == nil {
		return nil, errPhoneNotFound()
	}
	x := t.connector(ag.ID, num.ConnectorID)
	if x == nil {
		return nil, core.Errf(core.KindNotFound, CodeConnectorNotFound, MsgPhoneNoConnector)
	}
	return x, nil
}

// DeleteConnector deletes a connector and returns the numbers it deleted
// with it.
func (s *Service) DeleteConnector(p *core.Principal, agent, id string) ([]string, error) {
	deleted := []string{}
	if err := s.update(p, agent, func(ag Agent, t *telephonyDoc) error {
		x := t.connector(ag.ID, id)
		if x == nil {
			return errConnectorNotFound()
		}
		t.Connectors = slices.DeleteFunc(t.Connectors, func(y *ConnectorRec) bool { return y == x })
		deleted = deleted[:0]
		t.Numbers = slices.DeleteFunc(t.Numbers, func(n *PhoneNumberRec) bool {
			if n.ConnectorID == id && n.ProjectID == ag.ID {
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
