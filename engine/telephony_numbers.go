package engine

// Phone numbers of an agent: list, import (one or many), batch get, get,
// reassign to another connector, delete (one or many). A number is E.164
// and belongs to one account; routed to a connector it is the agent's
// inbound number (CallNumber, telephony.go).

import (
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

var ClientEnvRule = FieldRule{Enum: DeployEnvs, Doc: "Default live."}

var ReassignRules = map[string]FieldRule{"connectorId": {Required: true, MinLen: 1, MaxLen: 255}}

func (PhoneNumberRec) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"clientEnv": {Enum: DeployEnvs}}
}

// takenNumbersLocked is the set of numbers an import may not take: those of the
// region's other accounts and every dni pool number of the scenario (a
// number routes to one place). Called with agents.mu held.
func (a *Engine) TakenNumbersLocked(region, account string) (map[string]bool, error) {
	taken := map[string]bool{}
	for _, acct := range a.World().Scenario().Accounts {
		for _, proj := range acct.Projects {
			if proj.DNI != nil {
				for _, n := range proj.DNI.Numbers {
					taken[n] = true
				}
			}
		}
	}
	err := store.ListDocs(a.store, DocTelephony, region, func(id string, t *TelephonyDoc) bool {
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

// deleteError is one number a batch delete could not release.
type DeleteError struct {
	PhoneNumber string `json:"phoneNumber"`
	Error       string `json:"error"`
}
