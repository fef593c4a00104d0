package handlers

// Phone numbers of an agent: list, import (one or many), batch get, get,
// reassign to another connector, delete (one or many). A number is E.164
// and belongs to one account; routed to a connector it is the agent's
// inbound number (CallNumber, telephony.go).

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/store"
)

// telephonyNumbersRoutes are the routes of TelephonyNumbers.
var telephonyNumbersRoutes = []Route{
	route("GET /v1/agents/:agent/telephony/phone-numbers", (*API).handlePhoneNumberList, opPhoneNumberList),
	route("POST /v1/agents/:agent/telephony/phone-numbers", (*API).handlePhoneNumberImport, opPhoneNumberImport),
	route("DELETE /v1/agents/:agent/telephony/phone-numbers", (*API).handlePhoneNumberDeleteMany, opPhoneNumberDeleteMany),
	route("POST /v1/agents/:agent/telephony/phone-numbers/batch", (*API).handlePhoneNumberBatchGet, opPhoneNumberBatchGet),
	route("GET /v1/agents/:agent/telephony/phone-numbers/:number", (*API).handlePhoneNumberGet, opPhoneNumberGet),
	route("POST /v1/agents/:agent/telephony/phone-numbers/:number", (*API).handlePhoneNumberImportOne, opPhoneNumberImportOne),
	route("DELETE /v1/agents/:agent/telephony/phone-numbers/:number", (*API).handlePhoneNumberDelete, opPhoneNumberDelete),
	route("PATCH /v1/agents/:agent/telephony/phone-numbers/:number", (*API).handlePhoneNumberReassign, opPhoneNumberReassign),
}

var (
	opPhoneNumberList = &Op{ID: "phoneNumberList", Summary: "List phone numbers",
		Doc:       "The agent's numbers (docs/api.md#agents-numbers).",
		Query:     []Param{{Name: "connectorId", Doc: "Only the numbers routed to this connector."}},
		Responses: []Response{ok(200, phoneNumberList{})}, Errors: []int{400, 404}}
	opPhoneNumberImport = &Op{ID: "phoneNumberImport", Summary: "Import phone numbers",
		Doc:  "Every number must be E.164 and new, else nothing is imported; imported numbers route to no connector until reassigned.",
		Body: phoneNumbersBody{}, Responses: []Response{ok(201, numbersImported{})}, Errors: []int{400, 404, 409}}
	opPhoneNumberDeleteMany = &Op{ID: "phoneNumberDeleteMany", Summary: "Release phone numbers",
		Doc:  "Each number is released on its own; those that could not be are listed in errors.",
		Body: phoneNumberListBody{}, Responses: []Response{ok(200, numbersDeleted{})}, Errors: []int{400, 404}}
	opPhoneNumberBatchGet = &Op{ID: "phoneNumberBatchGet", Summary: "Read phone numbers",
		Body: phoneNumberListBody{}, Responses: []Response{ok(200, numbersFound{})}, Errors: []int{400, 404}}
	opPhoneNumberGet = &Op{ID: "phoneNumberGet", Summary: "Read a phone number",
		Path: numberPath, Responses: []Response{ok(200, phoneNumberRec{})}, Errors: []int{404}}
	opPhoneNumberImportOne = &Op{ID: "phoneNumberImportOne", Summary: "Import one phone number",
		Path: numberPath, Body: clientEnvBody{}, BodyOptional: true,
		Responses: []Response{ok(201, numberImported{})}, Errors: []int{400, 404, 409}}
	opPhoneNumberDelete = &Op{ID: "phoneNumberDelete", Summary: "Release a phone number",
		Path: numberPath, Responses: []Response{ok(200, numberDeleted{})}, Errors: []int{404}}
	opPhoneNumberReassign = &Op{ID: "phoneNumberReassign", Summary: "Route a phone number to a connector",
		Path: numberPath, Body: reassignBody{}, Responses: []Response{ok(200, phoneNumberRec{})}, Errors: []int{400, 404}}

	numberPath = []Param{{Name: "number", Doc: "The E.164 number (with its +, URL-encoded as %2B or not)."}}
)

type (
	phoneNumberList struct {
		PhoneNumbers []*phoneNumberRec `json:"phoneNumbers"`
	}
	clientEnvBody struct {
		ClientEnv string `json:"clientEnv"`
	}
	phoneNumbersBody struct {
		PhoneNumbers []string `json:"phoneNumbers"`
		ClientEnv    string   `json:"clientEnv"`
	}
	phoneNumberListBody struct {
		PhoneNumbers []string `json:"phoneNumbers"`
	}
	numbersImported struct {
		Imported []string `json:"imported"`
	}
	numberImported struct {
		Imported string `json:"imported"`
	}
	numbersDeleted struct {
		Deleted []string      `json:"deleted"`
		Errors  []deleteError `json:"errors,omitempty"`
	}
	numberDeleted struct {
		Deleted string `json:"deleted"`
	}
	numbersFound struct {
		Found    []*phoneNumberRec `json:"found"`
		NotFound []string          `json:"notFound"`
	}
	reassignBody struct {
		ConnectorID string `json:"connectorId"`
	}
)

var clientEnvRule = FieldRule{Enum: deployEnvs, Doc: "Default live."}

func (clientEnvBody) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"clientEnv": clientEnvRule}
}

func (phoneNumbersBody) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"phoneNumbers": {Required: true, MinItems: 1, Pattern: e164RE}, "clientEnv": clientEnvRule}
}

func (phoneNumberListBody) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"phoneNumbers": {Required: true, MinItems: 1}}
}

func (reassignBody) FieldRules() map[string]FieldRule { return reassignRules }

var reassignRules = map[string]FieldRule{"connectorId": {Required: true, MinLen: 1, MaxLen: 255}}

func (phoneNumberRec) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"clientEnv": {Enum: deployEnvs}}
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
	c.JSON(http.StatusOK, phoneNumberList{PhoneNumbers: out})
	return nil
}

// readClientEnv reads clientEnv (default live).
func readClientEnv(f *fieldBody) string {
	if env, ok := f.enum("clientEnv", deployEnvs); ok {
		return env
	}
	return "live"
}

// takenNumbersLocked is the set of numbers an import may not take: those of the
// region's other accounts and every dni pool number of the scenario (a
// number routes to one place). Called with agents.mu held.
func (a *API) takenNumbersLocked(region, account string) (map[string]bool, error) {
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
	err := store.ListDocs(a.store, docTelephony, region, func(id string, t *telephonyDoc) bool {
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

// importNumbers adds numbers (validated, deduplicated) to the agent in one
// update; any number already imported (here or elsewhere) gives 409 and
// imports nothing.
func (a *API) importNumbers(c *gin.Context, numbers []string, env, field string) error {
	p := principal(c)
	a.agents.mu.Lock()
	defer a.agents.mu.Unlock()
	taken, err := a.takenNumbersLocked(p.Region, p.Account.ID)
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
	f, err := readFields(c, false, bodyFields(phoneNumbersBody{})...)
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
	c.JSON(http.StatusCreated, numbersImported{Imported: numbers})
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
	f, err := readFields(c, false, bodyFields(phoneNumberListBody{})...)
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
	c.JSON(http.StatusOK, numbersDeleted{Deleted: deleted, Errors: errs})
	return nil
}

// handlePhoneNumberBatchGet handles "POST .../telephony/phone-numbers/batch"
// {phoneNumbers} → {found, notFound}; a malformed number gives 400.
func (a *API) handlePhoneNumberBatchGet(c *gin.Context) error {
	f, err := readFields(c, false, bodyFields(phoneNumberListBody{})...)
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
	c.JSON(http.StatusOK, numbersFound{Found: found, NotFound: notFound})
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
	f, err := readFields(c, true, bodyFields(clientEnvBody{})...)
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
	c.JSON(http.StatusCreated, numberImported{Imported: n})
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
	c.JSON(http.StatusOK, numberDeleted{Deleted: n})
	return nil
}

// handlePhoneNumberReassign handles "PATCH .../telephony/phone-numbers/{phoneNumber}"
// {connectorId}: routes the number to a connector of the same agent.
func (a *API) handlePhoneNumberReassign(c *gin.Context) error {
	f, err := readFields(c, false, bodyFields(reassignBody{})...)
	if err != nil {
		return err
	}
	f.requireAll(reassignBody{})
	conn, _ := f.text("connectorId", reassignRules["connectorId"])
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
