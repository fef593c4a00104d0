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

// telephonyConnectorsRoutes are the routes of TelephonyConnectors.
var telephonyConnectorsRoutes = []Route{
	route("GET /v1/agents/:agent/telephony/connectors", (*API).handleConnectorList, opConnectorList),
	route("POST /v1/agents/:agent/telephony/connectors/batch", (*API).handleConnectorBatchGet, opConnectorBatchGet),
	route("PATCH /v1/agents/:agent/telephony/connectors/batch", (*API).handleConnectorBatchUpdate, opConnectorBatchUpdate),
	route("POST /v1/agents/:agent/telephony/connectors/lookup", (*API).handleConnectorLookup, opConnectorLookup),
	route("GET /v1/agents/:agent/telephony/connectors/:connector", (*API).handleConnectorGet, opConnectorGet),
	route("PATCH /v1/agents/:agent/telephony/connectors/:connector", (*API).handleConnectorUpdate, opConnectorUpdate),
	route("DELETE /v1/agents/:agent/telephony/connectors/:connector", (*API).handleConnectorDelete, opConnectorDelete),
}

var (
	opConnectorList = &Op{ID: "connectorList", Summary: "List telephony connectors",
		Doc: "The agent's connectors (docs/api.md#agents-connectors).", Responses: []Response{ok(200, connectorList{})}, Errors: []int{404}}
	opConnectorBatchGet = &Op{ID: "connectorBatchGet", Summary: "Read connectors by id",
		Body: connectorIDsBody{}, Responses: []Response{ok(200, connectorsFound{})}, Errors: []int{400, 404}}
	opConnectorBatchUpdate = &Op{ID: "connectorBatchUpdate", Summary: "Update several connectors",
		Doc:  "Each update succeeds or fails on its own; the answer has one result per update.",
		Body: connectorUpdatesBody{}, Responses: []Response{ok(200, connectorResults{})}, Errors: []int{400, 404}}
	opConnectorLookup = &Op{ID: "connectorLookup", Summary: "Find the connector of a phone number",
		Body: phoneNumberBody{}, Responses: []Response{ok(200, connectorRec{})}, Errors: []int{400, 404}}
	opConnectorGet = &Op{ID: "connectorGet", Summary: "Read a connector",
		Responses: []Response{ok(200, connectorRec{})}, Errors: []int{404}}
	opConnectorUpdate = &Op{ID: "connectorUpdate", Summary: "Update a connector",
		Doc:  "Changes its variant, speech settings, or moves it (with its numbers) to another agent of the account.",
		Body: connectorPatchBody{}, Responses: []Response{ok(200, connectorRec{})}, Errors: []int{400, 404}}
	opConnectorDelete = &Op{ID: "connectorDelete", Summary: "Delete a connector",
		Doc: "Its phone numbers go with it.", Responses: []Response{ok(200, connectorDeleted{})}, Errors: []int{404}}
)

type (
	connectorList struct {
		Connectors []*connectorRec `json:"connectors"`
	}
	connectorIDsBody struct {
		ConnectorIDs []string `json:"connectorIds"`
	}
	connectorsFound struct {
		Found    []*connectorRec `json:"found"`
		NotFound []string        `json:"notFound"`
	}
	// connectorPatchBody is the body of a connector update (and, with
	// connectorId, an item of a batch update); readConnectorPatch reads it.
	connectorPatchBody struct {
		VariantID   *string `json:"variantId"`
		ASRLangCode string  `json:"asrLangCode"`
		VoiceName   string  `json:"voiceName"`
		ProjectID   string  `json:"projectId"`
	}
	connectorUpdate struct {
		ConnectorID string `json:"connectorId"`
		connectorPatchBody
	}
	connectorUpdatesBody struct {
		Updates []connectorUpdate `json:"updates"`
	}
	connectorResults struct {
		Results []batchResult `json:"results"`
	}
	phoneNumberBody struct {
		PhoneNumber string `json:"phoneNumber"`
	}
	connectorDeleted struct {
		DeletedConnector    string   `json:"deletedConnector"`
		DeletedPhoneNumbers []string `json:"deletedPhoneNumbers"`
	}
)

func (connectorIDsBody) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"connectorIds": {Required: true}}
}

func (connectorPatchBody) FieldRules() map[string]FieldRule { return connectorPatchRules }

var connectorPatchRules = map[string]FieldRule{
	"variantId":   {Nullable: true, Doc: "A variant of the connector's agent; null or \"\" unassigns it."},
	"asrLangCode": {Pattern: scenario.LangCodeRE},
	"voiceName":   {Pattern: scenario.VoiceNameRE, Doc: "Also sets ttsLangCode (its language prefix)."},
	"projectId":   {MinLen: 1, Doc: "Another agent of the account to move the connector to."},
}

// An update of a batch that breaks a rule of connectorPatchRules fails on
// its own: its result says why, and the batch answers 200.
func (connectorUpdate) FieldRules() map[string]FieldRule {
	r := map[string]FieldRule{"connectorId": {Required: true, MinLen: 1}}
	for name, rule := range connectorPatchRules {
		rule.Pattern, rule.MinLen = nil, 0
		r[name] = rule
	}
	return r
}

func (connectorUpdatesBody) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"updates": {Required: true, MinItems: 1}}
}

func (phoneNumberBody) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"phoneNumber": {Required: true, Pattern: e164RE}}
}

func (connectorRec) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"clientEnv": {Enum: scenario.Environments}}
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
	c.JSON(http.StatusOK, connectorList{Connectors: out})
	return nil
}

// handleConnectorGet handles "GET /v1/agents/{agentId}/telephony/connectors/{connectorId}"
// (docs/api.md#agents-connectors): the connector with every field; 404
// CONNECTORS_NOT_FOUND.
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
	f, err := readFields(c, false, bodyFields(connectorIDsBody{})...)
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
	c.JSON(http.StatusOK, connectorsFound{Found: found, NotFound: notFound})
	return nil
}

// connectorPatch is a validated connector update (OAS UpdateConnectorBody:
// only the given fields change; variantId null unassigns).
type connectorPatch struct {
	variant, asr, voice, project *string
	target                       *agentDoc // the agent of project, when given
}

var connectorPatchFields = bodyFields(connectorPatchBody{})

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
	f, err := readFields(c, false, bodyFields(connectorUpdatesBody{})...)
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
	c.JSON(http.StatusOK, connectorResults{Results: results})
	return nil
}

// handleConnectorLookup handles "POST .../telephony/connectors/lookup"
// {phoneNumber}: the connector the agent's number routes to. A number
// that is not E.164 gives 400, an unknown one 404 PHONE_NUMBERS_NOT_FOUND,
// a number routed to no connector 404 CONNECTORS_NOT_FOUND.
func (a *API) handleConnectorLookup(c *gin.Context) error {
	f, err := readFields(c, false, bodyFields(phoneNumberBody{})...)
	if err != nil {
		return err
	}
	f.requireAll(phoneNumberBody{})
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
	c.JSON(http.StatusOK, connectorDeleted{DeletedConnector: id, DeletedPhoneNumbers: deleted})
	return nil
}
