package handlers

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
	"encoding/json"
	"errors"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/store"
)

// readTelephony returns the path's agent (404 or 403 as the Agents API
// does) and its account's telephony.
func (a *API) readTelephony(c *gin.Context) (*engine.AgentDoc, *engine.TelephonyDoc, error) {
	d, err := a.loadAgent(c)
	if err != nil {
		return nil, nil, err
	}
	p := principal(c)
	t := &engine.TelephonyDoc{AccountID: p.Account.ID}
	if err := a.Store().GetDoc(engine.DocTelephony, p.Region, p.Account.ID, t); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, nil, err
	}
	return d, t, nil
}

// updateTelephony applies fn to the account's telephony in one store
// update, for the path's agent. Telephony writes are serialised with the
// other Agents writes (agents.mu), so the checks made before the update
// (other agents, other accounts' numbers) still hold when it runs.
func (a *API) updateTelephony(c *gin.Context, fn func(d *engine.AgentDoc, t *engine.TelephonyDoc) error) error {
	a.Agents.Mu.Lock()
	defer a.Agents.Mu.Unlock()
	return a.updateTelephonyLocked(c, fn)
}

func (a *API) updateTelephonyLocked(c *gin.Context, fn func(d *engine.AgentDoc, t *engine.TelephonyDoc) error) error {
	d, err := a.loadAgent(c)
	if err != nil {
		return err
	}
	p := principal(c)
	for range 2 {
		var t engine.TelephonyDoc
		err = a.Store().UpdateDoc(engine.DocTelephony, p.Region, p.Account.ID, &t, func() error { return fn(d, &t) })
		if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		// Not seeded (an account added after the seed): create it empty.
		if err := a.Store().InsertDoc(engine.DocTelephony, p.Region, p.Account.ID, &engine.TelephonyDoc{AccountID: p.Account.ID,
			Connectors: []*engine.ConnectorRec{}, Numbers: []*engine.PhoneNumberRec{}}); err != nil && !errors.Is(err, store.ErrExists) {
			return err
		}
	}
	return err
}

// stringList reads a required, non-empty array of strings.
func stringList(f *fieldBody, name string) ([]string, bool) {
	if !f.require(name) {
		return nil, false
	}
	var list []string
	if err := json.Unmarshal(f.raw[name], &list); err != nil || list == nil {
		f.fail(name, "must be an array of strings")
		return nil, false
	}
	if len(list) == 0 {
		f.fail(name, "must have at least 1 item")
		return nil, false
	}
	return list, true
}
