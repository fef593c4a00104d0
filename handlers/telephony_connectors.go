package handlers

// Telephony connectors of an agent. Connectors come from the scenario:
// the API has no create operation.

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/engine/telephony"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/scenario"
)

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
		Doc: "The agent's connectors (docs/api.md#agents-connectors).", Responses: []Response{ok(200, telephony.ConnectorList{})}, Errors: []int{404}}
	opConnectorBatchGet = &Op{ID: "connectorBatchGet", Summary: "Read connectors by id",
		Body: connectorIDsBody{}, Responses: []Response{ok(200, telephony.ConnectorsFound{})}, Errors: []int{400, 404}}
	opConnectorBatchUpdate = &Op{ID: "connectorBatchUpdate", Summary: "Update several connectors",
		Doc:  "Each update succeeds or fails on its own; the answer has one result per update.",
		Body: connectorUpdatesBody{}, Responses: []Response{ok(200, telephony.ConnectorResults{})}, Errors: []int{400, 404}}
	opConnectorLookup = &Op{ID: "connectorLookup", Summary: "Find the connector of a phone number",
		Body: phoneNumberBody{}, Responses: []Response{ok(200, telephony.ConnectorRec{})}, Errors: []int{400, 404}}
	opConnectorGet = &Op{ID: "connectorGet", Summary: "Read a connector",
		Responses: []Response{ok(200, telephony.ConnectorRec{})}, Errors: []int{404}}
	opConnectorUpdate = &Op{ID: "connectorUpdate", Summary: "Update a connector",
		Doc:  "Changes its variant, speech settings, or moves it (with its numbers) to another agent of the account.",
		Body: connectorPatchBody{}, Responses: []Response{ok(200, telephony.ConnectorRec{})}, Errors: []int{400, 404}}
	opConnectorDelete = &Op{ID: "connectorDelete", Summary: "Delete a connector",
		Doc: "Its phone numbers go with it.", Responses: []Response{ok(200, telephony.ConnectorDeleted{})}, Errors: []int{404}}
)

type (
	connectorIDsBody struct {
		ConnectorIDs []string `json:"connectorIds"`
	}
	// connectorPatchBody is the body of a connector update (with
	// connectorId, a batch item); readConnectorPatch reads it.
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
	phoneNumberBody struct {
		PhoneNumber string `json:"phoneNumber"`
	}
)

func (connectorIDsBody) FieldRules() map[string]engine.FieldRule {
	return map[string]engine.FieldRule{"connectorIds": {Required: true}}
}

func (connectorPatchBody) FieldRules() map[string]engine.FieldRule {
	return telephony.ConnectorPatchRules
}

// An update of a batch that breaks a rule of connectorPatchRules fails on
// its own: its result says why, and the batch answers 200.
func (connectorUpdate) FieldRules() map[string]engine.FieldRule {
	r := map[string]engine.FieldRule{"connectorId": {Required: true, MinLen: 1}}
	for name, rule := range telephony.ConnectorPatchRules {
		rule.Pattern, rule.MinLen = nil, 0
		r[name] = rule
	}
	return r
}

func (connectorUpdatesBody) FieldRules() map[string]engine.FieldRule {
	return map[string]engine.FieldRule{"updates": {Required: true, MinItems: 1}}
}

func (phoneNumberBody) FieldRules() map[string]engine.FieldRule {
	return map[string]engine.FieldRule{"phoneNumber": {Required: true, Pattern: engine.E164RE}}
}

// --- connectors ---

// handleConnectorList handles "GET .../telephony/connectors" → {"connectors": [...]}.
func (a *API) handleConnectorList(c *gin.Context) error {
	out, err := a.Telephony().Connectors(principal(c), c.Param("agent"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, telephony.ConnectorList{Connectors: out})
	return nil
}

// handleConnectorGet handles "GET /v1/agents/{agentId}/telephony/connectors/{connectorId}"
// (docs/api.md#agents-connectors).
func (a *API) handleConnectorGet(c *gin.Context) error {
	x, err := a.Telephony().Connector(principal(c), c.Param("agent"), c.Param("connector"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, x)
	return nil
}

// handleConnectorBatchGet handles "POST .../telephony/connectors/batch"
// {connectorIds} → {found: [connector], notFound: [id]}, in request order.
func (a *API) handleConnectorBatchGet(c *gin.Context) error {
	f, err := readFields(c, false, engine.BodyFields(connectorIDsBody{})...)
	if err != nil {
		return err
	}
	ids, _ := stringList(f, "connectorIds")
	if len(f.errs) > 0 {
		return telephony.ErrConnectorInvalid(f.errs...)
	}
	out, err := a.Telephony().ConnectorsByID(principal(c), c.Param("agent"), ids)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, out)
	return nil
}

var connectorPatchFields = engine.BodyFields(connectorPatchBody{})

// readConnectorPatch reads the patch fields of f, reporting field errors
// in f; the engine checks the variant and the target agent.
func readConnectorPatch(f *fieldBody) telephony.ConnectorPatch {
	var cp telephony.ConnectorPatch
	if f.isNull("variantId") {
		empty := ""
		cp.Variant = &empty
	} else if s, ok := f.str("variantId"); ok {
		cp.Variant = &s
	}
	if s, ok := f.str("asrLangCode"); ok {
		if !scenario.LangCodeRE.MatchString(s) {
			f.fail("asrLangCode", "must be a language code such as en-US")
		} else {
			cp.Asr = &s
		}
	}
	if s, ok := f.str("voiceName"); ok {
		if !scenario.VoiceNameRE.MatchString(s) {
			f.fail("voiceName", "must be a voice name such as en-US-Neural2-A")
		} else {
			cp.Voice = &s
		}
	}
	if s, ok := f.str("projectId"); ok {
		if s == "" {
			f.fail("projectId", "must not be empty")
		} else {
			cp.Project = &s
		}
	}
	return cp
}

// handleConnectorUpdate handles "PATCH .../telephony/connectors/{connectorId}":
// only the given fields change.
func (a *API) handleConnectorUpdate(c *gin.Context) error {
	f, err := readFields(c, false, connectorPatchFields...)
	if err != nil {
		return err
	}
	cp := readConnectorPatch(f)
	if len(f.errs) > 0 {
		return telephony.ErrConnectorInvalid(f.errs...)
	}
	out, err := a.Telephony().UpdateConnector(principal(c), c.Param("agent"), c.Param("connector"), cp)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, out)
	return nil
}

// handleConnectorBatchUpdate handles "PATCH .../telephony/connectors/batch":
// each update applies on its own (partial success), in order, in one store
// update; an item's own field errors are its result.
func (a *API) handleConnectorBatchUpdate(c *gin.Context) error {
	f, err := readFields(c, false, engine.BodyFields(connectorUpdatesBody{})...)
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
	var updates []telephony.ConnectorUpdate
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
			if k != "connectorId" && !slices.Contains(connectorPatchFields, k) {
				addWarning(c, "unknown field %q in updates[%d] (ignored, as the real service does)", k, i)
			}
		}
		u := telephony.ConnectorUpdate{ID: id, Patch: readConnectorPatch(sub)}
		if len(sub.errs) > 0 {
			u.Invalid = telephony.FieldText(sub.errs[0])
		}
		updates = append(updates, u)
	}
	if len(f.errs) > 0 {
		return telephony.ErrConnectorInvalid(f.errs...)
	}
	results, err := a.Telephony().UpdateConnectors(principal(c), c.Param("agent"), updates)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, telephony.ConnectorResults{Results: results})
	return nil
}

// handleConnectorLookup handles "POST .../telephony/connectors/lookup":
// the connector the agent's number routes to.
func (a *API) handleConnectorLookup(c *gin.Context) error {
	f, err := readFields(c, false, engine.BodyFields(phoneNumberBody{})...)
	if err != nil {
		return err
	}
	f.requireAll(phoneNumberBody{})
	n, ok := f.str("phoneNumber")
	if len(f.errs) > 0 {
		return telephony.ErrConnectorInvalid(f.errs...)
	}
	if ok && !engine.E164RE.MatchString(n) {
		return telephony.ErrPhoneInvalid("phoneNumber")
	}
	x, err := a.Telephony().LookupConnector(principal(c), c.Param("agent"), n)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, x)
	return nil
}

// handleConnectorDelete handles "DELETE .../telephony/connectors/{connectorId}",
// deleting the numbers routed to it too.
func (a *API) handleConnectorDelete(c *gin.Context) error {
	id := c.Param("connector")
	deleted, err := a.Telephony().DeleteConnector(principal(c), c.Param("agent"), id)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, telephony.ConnectorDeleted{DeletedConnector: id, DeletedPhoneNumbers: deleted})
	return nil
}
