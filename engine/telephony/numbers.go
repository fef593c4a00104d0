package telephony

// Phone numbers of an agent: E.164, one account each; routed to a
// connector, a number is the agent's inbound number.

import (
	"slices"

	"github.com/agentplatform/mockplatform/engine/core"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

type (
	PhoneNumberList struct {
		PhoneNumbers []*PhoneNumberRec `json:"phoneNumbers"`
	}
	NumbersImported struct {
		Imported []string `json:"imported"`
	}
	NumberImported struct {
		Imported string `json:"imported"`
	}
	NumbersDeleted struct {
		Deleted []string      `json:"deleted"`
		Errors  []DeleteError `json:"errors,omitempty"`
	}
	NumberDeleted struct {
		Deleted string `json:"deleted"`
	}
	NumbersFound struct {
		Found    []*PhoneNumberRec `json:"found"`
		NotFound []string          `json:"notFound"`
	}
)

var ClientEnvRule = core.FieldRule{Enum: core.DeployEnvs, Doc: "Default live."}

var ReassignRules = map[string]core.FieldRule{"connectorId": {Required: true, MinLen: 1, MaxLen: 255}}

func (PhoneNumberRec) FieldRules() map[string]core.FieldRule {
	return map[string]core.FieldRule{"clientEnv": {Enum: core.DeployEnvs}}
}

// takenNumbersLocked is the numbers an import may not take: other accounts'
// in the region and every dni pool number. agents.mu must be held.
func (s *Service) takenNumbersLocked(region, account string) (map[string]bool, error) {
	taken := map[string]bool{}
	for _, acct := range s.env.View().Scenario().Accounts {
		for _, proj := range acct.Projects {
			if proj.DNI != nil {
				for _, n := range proj.DNI.Numbers {
					taken[n] = true
				}
			}
		}
	}
	err := store.ListDocs(s.env.Store, docTelephony, region, func(id string, t *telephonyDoc) bool {
		if id == account {
			return true
		}
		for _, n := range t.Numbers {
			taken[n.Number] = true
		}
		return true
	})
	return taken, err
}

// DeleteError is one number a batch delete could not release.
type DeleteError struct {
	PhoneNumber string `json:"phoneNumber"`
	Error       string `json:"error"`
}

// PhoneNumbers lists an agent's numbers in import order (byConnector: only
// connector's).
func (s *Service) PhoneNumbers(p *core.Principal, agent, connector string, byConnector bool) ([]*PhoneNumberRec, error) {
	ag, t, err := s.read(p, agent)
	if err != nil {
		return nil, err
	}
	out := []*PhoneNumberRec{}
	for _, n := range t.Numbers {
		if n.ProjectID == ag.ID && (!byConnector || n.ConnectorID == connector) {
			out = append(out, n)
		}
	}
	return out, nil
}

// PhoneNumber reads a number of an agent: 404 PHONE_NUMBERS_NOT_FOUND.
func (s *Service) PhoneNumber(p *core.Principal, agent, number string) (*PhoneNumberRec, error) {
	ag, t, err := s.read(p, agent)
	if err != nil {
		return nil, err
	}
	_, x := t.number(ag.ID, number)
	if x == nil {
		return nil, errPhoneNotFound()
	}
	return x, nil
}

// FindPhoneNumbers reads an agent's numbers: found ones and the others, in
// order.
func (s *Service) FindPhoneNumbers(p *core.Principal, agent string, numbers []string) (NumbersFound, error) {
	ag, t, err := s.read(p, agent)
	if err != nil {
		return NumbersFound{}, err
	}
	out := NumbersFound{Found: []*PhoneNumberRec{}, NotFound: []string{}}
	for _, n := range numbers {
		if _, x := t.number(ag.ID, n); x != nil {
			out.Found = append(out.Found, x)
		} else {
			out.NotFound = append(out.NotFound, n)
		}
	}
	return out, nil
}

// ImportNumbers adds numbers to an agent in env, unrouted, in one update;
// any number already taken is 409 (a field error per number) and nothing
// is imported.
func (s *Service) ImportNumbers(p *core.Principal, agent string, numbers []string, env, field string) error {
	s.agents.Lock()
	defer s.agents.Unlock()
	taken, err := s.takenNumbersLocked(p.Region, p.Account.ID)
	if err != nil {
		return err
	}
	return s.updateLocked(p, agent, func(ag Agent, t *telephonyDoc) error {
		var dup []core.FieldError
		for _, n := range numbers {
			if taken[n] || t.hasNumber(n) {
				dup = append(dup, core.FieldError{Field: field, Message: n + " already exists"})
			}
		}
		if len(dup) > 0 {
			return &core.Error{Kind: core.KindConflict, Code: CodePhoneExists, Message: MsgPhoneExists, Fields: dup}
		}
		for _, n := range numbers {
			t.Numbers = append(t.Numbers, &PhoneNumberRec{Number: n, ProjectID: ag.ID, AccountID: ag.AccountID, ClientEnv: env})
		}
		return nil
	})
}

// DeleteNumbers releases each number on its own, returning those released
// and why the others were not.
func (s *Service) DeleteNumbers(p *core.Principal, agent string, numbers []string) ([]string, []DeleteError, error) {
	var deleted []string
	var errs []DeleteError
	if err := s.update(p, agent, func(ag Agent, t *telephonyDoc) error {
		deleted, errs = []string{}, nil
		for _, n := range numbers {
			if !scenario.E164RE.MatchString(n) {
				errs = append(errs, DeleteError{PhoneNumber: n, Error: MsgPhoneInvalid})
				continue
			}
			i, _ := t.number(ag.ID, n)
			if i < 0 {
				errs = append(errs, DeleteError{PhoneNumber: n, Error: MsgPhoneNotFound})
				continue
			}
			t.Numbers = slices.Delete(t.Numbers, i, i+1)
			deleted = append(deleted, n)
		}
		return nil
	}); err != nil {
		return nil, nil, err
	}
	return deleted, errs, nil
}

// DeleteNumber releases a number of an agent.
func (s *Service) DeleteNumber(p *core.Principal, agent, number string) error {
	return s.update(p, agent, func(ag Agent, t *telephonyDoc) error {
		i, _ := t.number(ag.ID, number)
		if i < 0 {
			return errPhoneNotFound()
		}
		t.Numbers = slices.Delete(t.Numbers, i, i+1)
		return nil
	})
}

// ReassignNumber routes an agent's number to another of its connectors.
func (s *Service) ReassignNumber(p *core.Principal, agent, number, connector string) (*PhoneNumberRec, error) {
	var out PhoneNumberRec
	if err := s.update(p, agent, func(ag Agent, t *telephonyDoc) error {
		_, x := t.number(ag.ID, number)
		if x == nil {
			return errPhoneNotFound()
		}
		if t.connector(ag.ID, connector) == nil {
			return errConnectorNotFound()
		}
		x.ConnectorID = connector
		out = *x
		return nil
	}); err != nil {
		return nil, err
	}
	return &out, nil
}
