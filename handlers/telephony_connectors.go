package handlers

// Telephony connectors of an agent: list, get, batch get, lookup by
// number, update (one or a batch; moving a connector to another agent
// moves its numbers), delete (its numbers lose their routing). Connectors
// come from the scenario: the API has no create operation.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

func (a *API) registerTelephonyConnectors(rt gin.IRoutes) {
	rt.GET("/v1/agents/:agent/telephony/connectors", a.wrap(famAgents, a.handleConnectorList))
	rt.POST("/v1/agents/:agent/telephony/connectors/batch", a.wrap(famAgents, a.handleConnectorBatchGet))
	rt.PATCH("/v1/agents/:agent/telephony/connectors/batch", a.wrap(famAgents, a.handleConnectorBatchUpdate))
	rt.POST("/v1/agents/:agent/telephony/connectors/lookup", a.wrap(famAgents, a.handleConnectorLookup))
	rt.GET("/v1/agents/:agent/telephony/connectors/:connector", a.wrap(famAgents, a.handleConnectorGet))
	rt.PATCH("/v1/agents/:agent/telephony/connectors/:connector", a.wrap(famAgents, a.handleConnectorUpdate))
	rt.DELETE("/v1/agents/:agent/telephony/connectors/:connector", a.wrap(famAgents, a.handleConnectorDelete))
}

// --- connectors ---

// handleConnectorList handles "GET .../telephony/connectors" → {"connectors": [...]}.
func (a *API) handleConnectorList(c *gin.Context) error {
	d, t, err := a.readTelephony(c)
	if err != nil {
		return err
	}
	out := []*connectorRec{}
	for _, x := range t.Connectors {
		if x.ProjectID == d.AgentID {
			out = append(out, x)
		}
	}
	c.JSON(http.StatusOK, gin.H{"connectors": out})
	return nil
}

// handleConnectorGet handles "GET /v1/agents/{agentId}/telephony/connectors/{connectorId}"
// (spec 4.3): the connector, spec 2.8; 404 CONNECTORS_NOT_FOUND.
func (a *API) handleConnectorGet(c *gin.Context) error {
	d, t, err := a.readTelephony(c)
	if err != nil {
		return err
	}
	x := t.connector(d.AgentID, c.Param("connector"))
	if x == nil {
		return errConnectorNotFound()
	}
	c.JSON(http.StatusOK, x)
	return nil
}

// handleConnectorBatchGet handles "POST .../telephony/connectors/batch"
// {connectorIds} → {found: [connector], notFound: [id]}, in request order.
func (a *API) handleConnectorBatchGet(c *gin.Context) error {
	f, err := readFields(c, false, "connectorIds")
	if err != nil {
		return err
	}
	ids, _ := stringList(f, "connectorIds")
	if len(f.errs) > 0 {
		return errConnectorInvalid(f.errs...)
	}
	d, t, err := a.readTelephony(c)
	if err != nil {
		return err
	}
	found, notFound := []*connectorRec{}, []string{}
	for _, id := range ids {
		if x := t.connector(d.AgentID, id); x != nil {
			found = append(found, x)
		} else {
			notFound = append(notFound, id)
		}
	}
	c.JSON(http.StatusOK, gin.H{"found": found, "notFound": notFound})
	return nil
}

// connectorPatch is a validated connector update (OAS UpdateConnectorBody:
// only the given fields change; variantId null unassigns).
type connectorPatch struct {
	variant, asr, voice, project *string
	target                       *agentDoc // the agent of project, when given
}

var connectorPatchFields = []string{"variantId", "asrLangCode", "voiceName", "projectId"}

// readConnectorPatch reads the patch fields of f. It reports field errors
// in f; the variant is checked against the agents by apply.
func readConnectorPatch(f *fieldBody) connectorPatch {
	var cp connectorPatch
	if f.isNull("variantId") {
		empty := ""
		cp.variant = &empty
	} else if s, ok := f.str("variantId"); ok {
		cp.variant = &s
	}
	if s, ok := f.str("asrLangCode"); ok {
		if !scenario.LangCodeRE.MatchString(s) {
			f.fail("asrLangCode", "must be a language code such as en-US")
		} else {
			cp.asr = &s
		}
	}
	if s, ok := f.str("voiceName"); ok {
		if !scenario.VoiceNameRE.MatchString(s) {
			f.fail("voiceName", "must be a voice name such as en-US-Neural2-A")
		} else {
			cp.voice = &s
		}
	}
	if s, ok := f.str("projectId"); ok {
		if s == "" {
			f.fail("projectId", "must not be empty")
		} else {
			cp.project = &s
		}
	}
	return cp
}

// resolveTarget loads the agent a patch moves the connector to: an agent
// of the key's account ("API key must have access to both projects").
// An unknown agent is a field error; a store failure is the error.
func (a *API) resolveTarget(c *gin.Context, cp *connectorPatch) (*FieldError, error) {
	if cp.project == nil {
		return nil, nil
	}
	p := principal(c)
	var d agentDoc
	err := a.store.GetDoc(docAgent, p.Region, agentRef(p, *cp.project), &d)
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	if err != nil || d.AccountID != p.Account.ID {
		return &FieldError{Field: "projectId", Message: "no agent with this id in the account"}, nil
	}
	cp.target = &d
	return nil, nil
}

// apply changes x by the patch (the agent is x's current agent); it
// returns a field error, leaving x unchanged, when the variant is not one
// of the (target) agent's main-branch variants.
func (cp connectorPatch) apply(t *telephonyDoc, cur *agentDoc, x *connectorRec) *FieldError {
	owner := cur
	if cp.target != nil {
		owner = cp.target
	}
	if cp.variant != nil && *cp.variant != "" {
		main := owner.branch(mainBranch)
		if main == nil || !slices.ContainsFunc(main.Content.Variants, func(v *variant) bool { return v.ID == *cp.variant }) {
			return &FieldError{Field: "variantId", Message: "not a variant of agent " + owner.AgentID}
		}
	}
	if cp.variant != nil {
		x.VariantID = *cp.variant
	} else if cp.target != nil && cp.target.AgentID != cur.AgentID {
		// The variant ids of one agent mean nothing to another.
		x.VariantID = ""
	}
	if cp.asr != nil {
		x.ASRLangCode = *cp.asr
	}
	if cp.voice != nil {
		// "tts_lang_code is auto-derived from the voice name prefix" (OAS).
		x.VoiceName = *cp.voice
		x.TTSLangCode = scenario.VoiceNameRE.FindStringSubmatch(*cp.voice)[1]
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

// handleConnectorUpdate handles "PATCH .../telephony/connectors/{connectorId}"
// {variantId, asrLangCode, voiceName, projectId}: only the given fields
// change (name, clientEnv and disableHandoff are not settable).
func (a *API) handleConnectorUpdate(c *gin.Context) error {
	f, err := readFields(c, false, connectorPatchFields...)
	if err != nil {
		return err
	}
	cp := readConnectorPatch(f)
	if len(f.errs) > 0 {
		return errConnectorInvalid(f.errs...)
	}
	// The target agent is read under agents.mu, so it still exists when the
	// connector moves.
	a.agents.mu.Lock()
	defer a.agents.mu.Unlock()
	if fe, err := a.resolveTarget(c, &cp); err != nil {
		return err
	} else if fe != nil {
		return errConnectorInvalid(*fe)
	}
	id := c.Param("connector")
	var out connectorRec
	if err := a.updateTelephonyLocked(c, func(d *agentDoc, t *telephonyDoc) error {
		x := t.connector(d.AgentID, id)
		if x == nil {
			return errConnectorNotFound()
		}
		if fe := cp.apply(t, d, x); fe != nil {
			return errConnectorInvalid(*fe)
		}
		out = *x
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, out)
	return nil
}

// batchResult is one item of a batch connector update.
type batchResult struct {
	ConnectorID string        `json:"connectorId"`
	Success     bool          `json:"success"`
	Data        *connectorRec `json:"data,omitempty"`
	Error       string        `json:"error,omitempty"`
}

// fieldText is a field error as one batch item's error text.
func fieldText(fe FieldError) string { return fe.Field + ": " + fe.Message }

// handleConnectorBatchUpdate handles "PATCH .../telephony/connectors/batch"
// {updates: [{connectorId, variantId?, asrLangCode?, voiceName?, projectId?}]}
// → {results: [{connectorId, success, data?, error?}]}: each update is
// applied on its own (partial success), in order, in one store update. A
// malformed body (no updates, an item without connectorId) gives 400.
func (a *API) handleConnectorBatchUpdate(c *gin.Context) error {
	f, err := readFields(c, false, "updates")
	if err != nil {
		return err
	}
	var items []map[string]json.RawMessage
	if f.require("updates") {
		if err := json.Unmarshal(f.raw["updates"], &items); err != nil || items == nil {
			f.fail("updates", "must be an array of objects")
		} else if len(items) == 0 {
			f.fail("updates", "must have at least 1 item")
		}
	}
	type update struct {
		id  string
		cp  connectorPatch
		bad string // the item's validation error, if any
	}
	var updates []update
	for i, item := range items {
		if item == nil {
			f.fail(fmt.Sprintf("updates/%d", i), "must be an object")
			continue
		}
		sub := &fieldBody{raw: item}
		id, ok := sub.str("connectorId")
		if !ok || id == "" {
			f.fail(fmt.Sprintf("updates/%d/connectorId", i), "is required")
			continue
		}
		for k := range item {
			if k != "connectorId" && !containsStr(connectorPatchFields, k) {
				addWarning(c, "unknown field %q in updates[%d] (ignored, as the real service does)", k, i)
			}
		}
		u := update{id: id, cp: readConnectorPatch(sub)}
		if len(sub.errs) > 0 {
			u.bad = fieldText(sub.errs[0])
		}
		updates = append(updates, u)
	}
	if len(f.errs) > 0 {
		return errConnectorInvalid(f.errs...)
	}
	a.agents.mu.Lock()
	defer a.agents.mu.Unlock()
	for i := range updates {
		if u := &updates[i]; u.bad == "" {
			fe, err := a.resolveTarget(c, &u.cp)
			if err != nil {
				return err
			}
			if fe != nil {
				u.bad = fieldText(*fe)
			}
		}
	}
	var results []batchResult
	if err := a.updateTelephonyLocked(c, func(d *agentDoc, t *telephonyDoc) error {
		results = results[:0]
		for _, u := range updates {
			r := batchResult{ConnectorID: u.id}
			x := t.connector(d.AgentID, u.id)
			switch {
			case x == nil:
				r.Error = MsgConnectorNotFound
			case u.bad != "":
				r.Error = u.bad
			default:
				if fe := u.cp.apply(t, d, x); fe != nil {
					r.Error = fieldText(*fe)
				} else {
					cp := *x
					r.Success, r.Data = true, &cp
				}
			}
			results = append(results, r)
		}
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"results": results})
	return nil
}

// handleConnectorLookup handles "POST .../telephony/connectors/lookup"
// {phoneNumber}: the connector the agent's number routes to. A number
// that is not E.164 gives 400, an unknown one 404 PHONE_NUMBERS_NOT_FOUND,
// a number routed to no connector 404 CONNECTORS_NOT_FOUND.
func (a *API) handleConnectorLookup(c *gin.Context) error {
	f, err := readFields(c, false, "phoneNumber")
	if err != nil {
		return err
	}
	f.require("phoneNumber")
	n, ok := f.str("phoneNumber")
	if len(f.errs) > 0 {
		return errConnectorInvalid(f.errs...)
	}
	if ok && !e164RE.MatchString(n) {
		return errPhoneInvalid("phoneNumber")
	}
	d, t, err := a.readTelephony(c)
	if err != nil {
		return err
	}
	_, num := t.number(d.AgentID, n)
	if num == nil {
		return errPhoneNotFound()
	}
	x := t.connector(d.AgentID, num.ConnectorID)
	if x == nil {
		return errf(KindNotFound, CodeConnectorNotFound, MsgPhoneNoConnector)
	}
	c.JSON(http.StatusOK, x)
	return nil
}

// handleConnectorDelete handles "DELETE .../telephony/connectors/{connectorId}":
// the connector and every phone number routed to it are deleted →
// {deletedConnector, deletedPhoneNumbers}.
func (a *API) handleConnectorDelete(c *gin.Context) error {
	id := c.Param("connector")
	deleted := []string{}
	if err := a.updateTelephony(c, func(d *agentDoc, t *telephonyDoc) error {
		x := t.connector(d.AgentID, id)
		if x == nil {
			return errConnectorNotFound()
		}
		t.Connectors = slices.DeleteFunc(t.Connectors, func(y *connectorRec) bool { return y == x })
		deleted = deleted[:0]
		t.Numbers = slices.DeleteFunc(t.Numbers, func(n *phoneNumberRec) bool {
			if n.ConnectorID == id && n.ProjectID == d.AgentID {
				deleted = append(deleted, n.Number)
				return true
			}
			return false
		})
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"deletedConnector": id, "deletedPhoneNumbers": deleted})
	return nil
}
