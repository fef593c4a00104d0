package handlers

// Telephony of the Agents API: connectors and phone numbers (spec 2.8,
// 2.9, 4.3 "GET /v1/agents/{agentId}/telephony/connectors/{connectorId}";
// the rest, which spec 4.11 marks "not shown", from notes section 4 and
// the agents OpenAPI).
//
// Spec 2.8: "A connector bundles voice, language, variant and environment
// for incoming calls; several phone numbers can share one connector."
// Spec 2.9: telephony is "connector, phone number in E.164 format routed to
// a connector", scoped to the agent, not to a branch.
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
	"fmt"
	"net/http"
	"slices"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

func (a *API) registerTelephony(rt gin.IRoutes) {
	rt.GET("/v1/agents/:agent/telephony/connectors", a.wrap(famAgents, a.handleConnectorList))
	rt.POST("/v1/agents/:agent/telephony/connectors/batch", a.wrap(famAgents, a.handleConnectorBatchGet))
	rt.PATCH("/v1/agents/:agent/telephony/connectors/batch", a.wrap(famAgents, a.handleConnectorBatchUpdate))
	rt.POST("/v1/agents/:agent/telephony/connectors/lookup", a.wrap(famAgents, a.handleConnectorLookup))
	rt.GET("/v1/agents/:agent/telephony/connectors/:connector", a.wrap(famAgents, a.handleConnectorGet))
	rt.PATCH("/v1/agents/:agent/telephony/connectors/:connector", a.wrap(famAgents, a.handleConnectorUpdate))
	rt.DELETE("/v1/agents/:agent/telephony/connectors/:connector", a.wrap(famAgents, a.handleConnectorDelete))

	rt.GET("/v1/agents/:agent/telephony/phone-numbers", a.wrap(famAgents, a.handlePhoneNumberList))
	rt.POST("/v1/agents/:agent/telephony/phone-numbers", a.wrap(famAgents, a.handlePhoneNumberImport))
	rt.DELETE("/v1/agents/:agent/telephony/phone-numbers", a.wrap(famAgents, a.handlePhoneNumberDeleteMany))
	rt.POST("/v1/agents/:agent/telephony/phone-numbers/batch", a.wrap(famAgents, a.handlePhoneNumberBatchGet))
	rt.GET("/v1/agents/:agent/telephony/phone-numbers/:number", a.wrap(famAgents, a.handlePhoneNumberGet))
	rt.POST("/v1/agents/:agent/telephony/phone-numbers/:number", a.wrap(famAgents, a.handlePhoneNumberImportOne))
	rt.DELETE("/v1/agents/:agent/telephony/phone-numbers/:number", a.wrap(famAgents, a.handlePhoneNumberDelete))
	rt.PATCH("/v1/agents/:agent/telephony/phone-numbers/:number", a.wrap(famAgents, a.handlePhoneNumberReassign))
}

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

// connectorRec is a connector, every field of spec 2.8.
type connectorRec struct {
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

// phoneNumberRec is a phone number of a project (OAS PhoneNumberResponse).
type phoneNumberRec struct {
	Number      string `json:"number"`
	ProjectID   string `json:"projectId"`
	AccountID   string `json:"accountId"`
	ClientEnv   string `json:"clientEnv"`
	ConnectorID string `json:"connectorId,omitempty"`
}

// telephonyDoc is the stored telephony of an account, in creation order.
type telephonyDoc struct {
	AccountID  string            `json:"account_id"`
	Connectors []*connectorRec   `json:"connectors"`
	Numbers    []*phoneNumberRec `json:"numbers"`
}

func (t *telephonyDoc) connector(agent, id string) *connectorRec {
	for _, c := range t.Connectors {
		if c.ConnectorID == id && c.ProjectID == agent {
			return c
		}
	}
	return nil
}

func (t *telephonyDoc) number(agent, n string) (int, *phoneNumberRec) {
	for i, x := range t.Numbers {
		if x.Number == n && x.ProjectID == agent {
			return i, x
		}
	}
	return -1, nil
}

func (t *telephonyDoc) hasNumber(n string) bool {
	return slices.ContainsFunc(t.Numbers, func(x *phoneNumberRec) bool { return x.Number == n })
}

func errConnectorNotFound() error {
	return errf(KindNotFound, CodeConnectorNotFound, MsgConnectorNotFound)
}

// errConnectorInvalid is the 400 of a connector body's field errors.
func errConnectorInvalid(fields ...FieldError) error {
	return invalid(CodeConnectorInvalid, MsgConnectorInvalid, fields...)
}

func errPhoneNotFound() error { return errf(KindNotFound, CodePhoneNotFound, MsgPhoneNotFound) }

func errPhoneInvalid(field string) error {
	return &Error{Kind: KindInvalid, Code: CodePhoneInvalid, Message: MsgPhoneInvalid,
		Fields: []FieldError{{Field: field, Message: "must be an E.164 number, e.g. +14155550100"}}}
}

// readTelephony returns the path's agent (404 or 403 as the Agents API
// does) and its account's telephony.
func (a *API) readTelephony(c *gin.Context) (*agentDoc, *telephonyDoc, error) {
	d, err := a.loadAgent(c)
	if err != nil {
		return nil, nil, err
	}
	p := principal(c)
	t := &telephonyDoc{AccountID: p.Account.ID}
	if err := a.store.GetDoc(docTelephony, p.Region, p.Account.ID, t); err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, nil, err
	}
	return d, t, nil
}

// updateTelephony applies fn to the account's telephony in one store
// update, for the path's agent. Telephony writes are serialised with the
// other Agents writes (agentMu), so the checks made before the update
// (other agents, other accounts' numbers) still hold when it runs.
func (a *API) updateTelephony(c *gin.Context, fn func(d *agentDoc, t *telephonyDoc) error) error {
	a.build.agentMu.Lock()
	defer a.build.agentMu.Unlock()
	return a.updateTelephonyLocked(c, fn)
}

func (a *API) updateTelephonyLocked(c *gin.Context, fn func(d *agentDoc, t *telephonyDoc) error) error {
	d, err := a.loadAgent(c)
	if err != nil {
		return err
	}
	p := principal(c)
	for range 2 {
		var t telephonyDoc
		err = a.store.UpdateDoc(docTelephony, p.Region, p.Account.ID, &t, func() error { return fn(d, &t) })
		if !errors.Is(err, store.ErrNotFound) {
			return err
		}
		// Not seeded (an account added after the seed): create it empty.
		if err := a.store.InsertDoc(docTelephony, p.Region, p.Account.ID, &telephonyDoc{AccountID: p.Account.ID,
			Connectors: []*connectorRec{}, Numbers: []*phoneNumberRec{}}); err != nil && !errors.Is(err, store.ErrExists) {
			return err
		}
	}
	return err
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
	// The target agent is read under agentMu, so it still exists when the
	// connector moves.
	a.build.agentMu.Lock()
	defer a.build.agentMu.Unlock()
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
	a.build.agentMu.Lock()
	defer a.build.agentMu.Unlock()
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

// --- phone numbers ---

// handlePhoneNumberList handles "GET .../telephony/phone-numbers?connectorId="
// → {"phoneNumbers": [...]}: the agent's numbers, in import order; an
// unknown connectorId filters everything out.
func (a *API) handlePhoneNumberList(c *gin.Context) error {
	d, t, err := a.readTelephony(c)
	if err != nil {
		return err
	}
	conn, filter := c.GetQuery("connectorId")
	out := []*phoneNumberRec{}
	for _, n := range t.Numbers {
		if n.ProjectID == d.AgentID && (!filter || n.ConnectorID == conn) {
			out = append(out, n)
		}
	}
	c.JSON(http.StatusOK, gin.H{"phoneNumbers": out})
	return nil
}

// readClientEnv reads clientEnv (default live).
func readClientEnv(f *fieldBody) string {
	if env, ok := f.enum("clientEnv", deployEnvs); ok {
		return env
	}
	return "live"
}

// takenNumbers is the set of numbers an import may not take: those of the
// region's other accounts and every dni pool number of the scenario (a
// number routes to one place). Called with agentMu held.
func (a *API) takenNumbers(region, account string) (map[string]bool, error) {
	taken := map[string]bool{}
	for _, acct := range a.world().Scenario().Accounts {
		for _, proj := range acct.Projects {
			if proj.DNI != nil {
				for _, n := range proj.DNI.Numbers {
					taken[n] = true
				}
			}
		}
	}
	err := a.store.ListDocs(docTelephony, region, func(id string, raw []byte) bool {
		if id == account {
			return true
		}
		var t telephonyDoc
		if json.Unmarshal(raw, &t) == nil {
			for _, n := range t.Numbers {
				taken[n.Number] = true
			}
		}
		return true
	})
	return taken, err
}

// importNumbers adds numbers (validated, deduplicated) to the agent in one
// update; any number already imported (here or elsewhere) gives 409 and
// imports nothing.
func (a *API) importNumbers(c *gin.Context, numbers []string, env, field string) error {
	p := principal(c)
	a.build.agentMu.Lock()
	defer a.build.agentMu.Unlock()
	taken, err := a.takenNumbers(p.Region, p.Account.ID)
	if err != nil {
		return err
	}
	return a.updateTelephonyLocked(c, func(d *agentDoc, t *telephonyDoc) error {
		var dup []FieldError
		for _, n := range numbers {
			if taken[n] || t.hasNumber(n) {
				dup = append(dup, FieldError{Field: field, Message: n + " already exists"})
			}
		}
		if len(dup) > 0 {
			return &Error{Kind: KindConflict, Code: CodePhoneExists, Message: MsgPhoneExists, Fields: dup}
		}
		for _, n := range numbers {
			t.Numbers = append(t.Numbers, &phoneNumberRec{Number: n, ProjectID: d.AgentID, AccountID: d.AccountID, ClientEnv: env})
		}
		return nil
	})
}

// handlePhoneNumberImport handles "POST .../telephony/phone-numbers"
// {phoneNumbers, clientEnv = live} → 201 {imported}. Every number must be
// E.164 (else 400 PHONE_NUMBERS_INVALID_PHONE_NUMBER_FORMAT) and new
// (else 409 PHONE_NUMBERS_ALREADY_EXISTS); either way nothing is imported.
// A number repeated in the request is imported once. Imported numbers are
// routed to no connector until reassigned.
func (a *API) handlePhoneNumberImport(c *gin.Context) error {
	f, err := readFields(c, false, "phoneNumbers", "clientEnv")
	if err != nil {
		return err
	}
	list, _ := stringList(f, "phoneNumbers")
	env := readClientEnv(f)
	if err := f.err(); err != nil {
		return err
	}
	var numbers []string
	var bad []FieldError
	for i, n := range list {
		if !e164RE.MatchString(n) {
			bad = append(bad, FieldError{Field: fmt.Sprintf("phoneNumbers/%d", i), Message: "must be an E.164 number, e.g. +14155550100"})
		} else if !slices.Contains(numbers, n) {
			numbers = append(numbers, n)
		}
	}
	if len(bad) > 0 {
		return &Error{Kind: KindInvalid, Code: CodePhoneInvalid, Message: MsgPhoneInvalid, Fields: bad}
	}
	if err := a.importNumbers(c, numbers, env, "phoneNumbers"); err != nil {
		return err
	}
	c.JSON(http.StatusCreated, gin.H{"imported": numbers})
	return nil
}

// deleteError is one number a batch delete could not release.
type deleteError struct {
	PhoneNumber string `json:"phoneNumber"`
	Error       string `json:"error"`
}

// handlePhoneNumberDeleteMany handles "DELETE .../telephony/phone-numbers"
// {phoneNumbers} → {deleted, errors?}: each number is released on its own;
// unknown or malformed ones are listed in errors (omitted when empty).
func (a *API) handlePhoneNumberDeleteMany(c *gin.Context) error {
	f, err := readFields(c, false, "phoneNumbers")
	if err != nil {
		return err
	}
	list, _ := stringList(f, "phoneNumbers")
	if err := f.err(); err != nil {
		return err
	}
	var deleted []string
	var errs []deleteError
	if err := a.updateTelephony(c, func(d *agentDoc, t *telephonyDoc) error {
		deleted, errs = []string{}, nil
		for _, n := range list {
			if !e164RE.MatchString(n) {
				errs = append(errs, deleteError{PhoneNumber: n, Error: MsgPhoneInvalid})
				continue
			}
			i, _ := t.number(d.AgentID, n)
			if i < 0 {
				errs = append(errs, deleteError{PhoneNumber: n, Error: MsgPhoneNotFound})
				continue
			}
			t.Numbers = slices.Delete(t.Numbers, i, i+1)
			deleted = append(deleted, n)
		}
		return nil
	}); err != nil {
		return err
	}
	out := gin.H{"deleted": deleted}
	if len(errs) > 0 {
		out["errors"] = errs
	}
	c.JSON(http.StatusOK, out)
	return nil
}

// handlePhoneNumberBatchGet handles "POST .../telephony/phone-numbers/batch"
// {phoneNumbers} → {found, notFound}; a malformed number gives 400.
func (a *API) handlePhoneNumberBatchGet(c *gin.Context) error {
	f, err := readFields(c, false, "phoneNumbers")
	if err != nil {
		return err
	}
	list, _ := stringList(f, "phoneNumbers")
	if err := f.err(); err != nil {
		return err
	}
	for i, n := range list {
		if !e164RE.MatchString(n) {
			return errPhoneInvalid(fmt.Sprintf("phoneNumbers/%d", i))
		}
	}
	d, t, err := a.readTelephony(c)
	if err != nil {
		return err
	}
	found, notFound := []*phoneNumberRec{}, []string{}
	for _, n := range list {
		if _, x := t.number(d.AgentID, n); x != nil {
			found = append(found, x)
		} else {
			notFound = append(notFound, n)
		}
	}
	c.JSON(http.StatusOK, gin.H{"found": found, "notFound": notFound})
	return nil
}

// handlePhoneNumberGet handles "GET .../telephony/phone-numbers/{phoneNumber}"
// (404 PHONE_NUMBERS_NOT_FOUND, also for a malformed number: the OAS
// lists no 400 here).
func (a *API) handlePhoneNumberGet(c *gin.Context) error {
	d, t, err := a.readTelephony(c)
	if err != nil {
		return err
	}
	_, x := t.number(d.AgentID, c.Param("number"))
	if x == nil {
		return errPhoneNotFound()
	}
	c.JSON(http.StatusOK, x)
	return nil
}

// handlePhoneNumberImportOne handles "POST .../telephony/phone-numbers/{phoneNumber}"
// {clientEnv = live} (body optional) → 201 {imported}.
func (a *API) handlePhoneNumberImportOne(c *gin.Context) error {
	f, err := readFields(c, true, "clientEnv")
	if err != nil {
		return err
	}
	env := readClientEnv(f)
	if err := f.err(); err != nil {
		return err
	}
	n := c.Param("number")
	if !e164RE.MatchString(n) {
		return errPhoneInvalid("phoneNumber")
	}
	if err := a.importNumbers(c, []string{n}, env, "phoneNumber"); err != nil {
		return err
	}
	c.JSON(http.StatusCreated, gin.H{"imported": n})
	return nil
}

// handlePhoneNumberDelete handles "DELETE .../telephony/phone-numbers/{phoneNumber}"
// → {deleted}.
func (a *API) handlePhoneNumberDelete(c *gin.Context) error {
	n := c.Param("number")
	if err := a.updateTelephony(c, func(d *agentDoc, t *telephonyDoc) error {
		i, _ := t.number(d.AgentID, n)
		if i < 0 {
			return errPhoneNotFound()
		}
		t.Numbers = slices.Delete(t.Numbers, i, i+1)
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, gin.H{"deleted": n})
	return nil
}

// handlePhoneNumberReassign handles "PATCH .../telephony/phone-numbers/{phoneNumber}"
// {connectorId}: routes the number to a connector of the same agent.
func (a *API) handlePhoneNumberReassign(c *gin.Context) error {
	f, err := readFields(c, false, "connectorId")
	if err != nil {
		return err
	}
	f.require("connectorId")
	conn, _ := f.strLen("connectorId", 1, 255)
	if err := f.err(); err != nil {
		return err
	}
	n := c.Param("number")
	var out phoneNumberRec
	if err := a.updateTelephony(c, func(d *agentDoc, t *telephonyDoc) error {
		_, x := t.number(d.AgentID, n)
		if x == nil {
			return errPhoneNotFound()
		}
		if t.connector(d.AgentID, conn) == nil {
			return errConnectorNotFound()
		}
		x.ConnectorID = conn
		out = *x
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, out)
	return nil
}

// --- agent deletion, seeding, inbound calls ---

// dropTelephony removes an agent's connectors and numbers (agent delete).
// Called with agentMu held.
func (a *API) dropTelephony(region, account, agent string) error {
	var t telephonyDoc
	err := a.store.UpdateDoc(docTelephony, region, account, &t, func() error {
		t.Connectors = slices.DeleteFunc(t.Connectors, func(x *connectorRec) bool { return x.ProjectID == agent })
		t.Numbers = slices.DeleteFunc(t.Numbers, func(x *phoneNumberRec) bool { return x.ProjectID == agent })
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
		t := &telephonyDoc{AccountID: acct.ID, Connectors: []*connectorRec{}, Numbers: []*phoneNumberRec{}}
		for pi := range acct.Projects {
			proj := &acct.Projects[pi]
			for _, cn := range proj.Connectors {
				t.Connectors = append(t.Connectors, &connectorRec{ConnectorID: cn.ID, Name: cn.Name, AccountID: acct.ID,
					ProjectID: proj.ID, ClientEnv: cn.ClientEnv, VariantID: cn.Variant, ASRLangCode: cn.ASRLangCode,
					TTSLangCode: cn.TTSLangCode, VoiceName: cn.VoiceName, DisableHandoff: cn.DisableHandoff})
				for _, n := range cn.PhoneNumbers {
					t.Numbers = append(t.Numbers, &phoneNumberRec{Number: n, ProjectID: proj.ID, AccountID: acct.ID,
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

// inboundConversationPrefix starts the ids of inbound voice calls (CA +
// 32 hex, as the real voice conversations; notes section 16).
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
func (a *API) CallNumber(number, from string) (*DialResult, error) {
	accts := a.world().Scenario().Accounts
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
		i := slices.IndexFunc(t.Numbers, func(n *phoneNumberRec) bool { return n.Number == number })
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
		conv, out, err := a.startConversation(convStart{
			Region: acct.Region, Account: acct, Project: proj, Environment: cn.ClientEnv, Channel: "VOICE-SIP",
			Variant: vr, Language: cn.ASRLangCode, TTSLanguage: cn.TTSLangCode, FromNumber: from, ToNumber: number,
			State: state, ID: inboundConversationPrefix + a.newID("", hexDigits, 32),
		})
		if err != nil {
			return nil, err
		}
		return &DialResult{ConversationID: conv.ID, Response: out.Text}, nil
	}
	return nil, fmt.Errorf("call %s: no agent has this number: %w", number, ErrNotRouted)
}
