package handlers

// Phone numbers of an agent: E.164, of one account; routed to a connector
// a number is the agent's inbound number (telephony.go).

import (
	"fmt"
	"net/http"
	"slices"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/engine/telephony"

	"github.com/gin-gonic/gin"
)

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
		Responses: []Response{ok(200, telephony.PhoneNumberList{})}, Errors: []int{400, 404}}
	opPhoneNumberImport = &Op{ID: "phoneNumberImport", Summary: "Import phone numbers",
		Doc:  "Every number must be E.164 and new, else nothing is imported; imported numbers route to no connector until reassigned.",
		Body: phoneNumbersBody{}, Responses: []Response{ok(201, telephony.NumbersImported{})}, Errors: []int{400, 404, 409}}
	opPhoneNumberDeleteMany = &Op{ID: "phoneNumberDeleteMany", Summary: "Release phone numbers",
		Doc:  "Each number is released on its own; those that could not be are listed in errors.",
		Body: phoneNumberListBody{}, Responses: []Response{ok(200, telephony.NumbersDeleted{})}, Errors: []int{400, 404}}
	opPhoneNumberBatchGet = &Op{ID: "phoneNumberBatchGet", Summary: "Read phone numbers",
		Body: phoneNumberListBody{}, Responses: []Response{ok(200, telephony.NumbersFound{})}, Errors: []int{400, 404}}
	opPhoneNumberGet = &Op{ID: "phoneNumberGet", Summary: "Read a phone number",
		Path: numberPath, Responses: []Response{ok(200, telephony.PhoneNumberRec{})}, Errors: []int{404}}
	opPhoneNumberImportOne = &Op{ID: "phoneNumberImportOne", Summary: "Import one phone number",
		Path: numberPath, Body: clientEnvBody{}, BodyOptional: true,
		Responses: []Response{ok(201, telephony.NumberImported{})}, Errors: []int{400, 404, 409}}
	opPhoneNumberDelete = &Op{ID: "phoneNumberDelete", Summary: "Release a phone number",
		Path: numberPath, Responses: []Response{ok(200, telephony.NumberDeleted{})}, Errors: []int{404}}
	opPhoneNumberReassign = &Op{ID: "phoneNumberReassign", Summary: "Route a phone number to a connector",
		Path: numberPath, Body: reassignBody{}, Responses: []Response{ok(200, telephony.PhoneNumberRec{})}, Errors: []int{400, 404}}

	numberPath = []Param{{Name: "number", Doc: "The E.164 number (with its +, URL-encoded as %2B or not)."}}
)

type (
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
	reassignBody struct {
		ConnectorID string `json:"connectorId"`
	}
)

func (clientEnvBody) FieldRules() map[string]engine.FieldRule {
	return map[string]engine.FieldRule{"clientEnv": telephony.ClientEnvRule}
}

func (phoneNumbersBody) FieldRules() map[string]engine.FieldRule {
	return map[string]engine.FieldRule{"phoneNumbers": {Required: true, MinItems: 1, Pattern: engine.E164RE}, "clientEnv": telephony.ClientEnvRule}
}

func (phoneNumberListBody) FieldRules() map[string]engine.FieldRule {
	return map[string]engine.FieldRule{"phoneNumbers": {Required: true, MinItems: 1}}
}

func (reassignBody) FieldRules() map[string]engine.FieldRule { return telephony.ReassignRules }

// --- phone numbers ---

// handlePhoneNumberList handles "GET .../telephony/phone-numbers?connectorId=",
// in import order.
func (a *API) handlePhoneNumberList(c *gin.Context) error {
	conn, filter := c.GetQuery("connectorId")
	out, err := a.Telephony().PhoneNumbers(principal(c), c.Param("agent"), conn, filter)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, telephony.PhoneNumberList{PhoneNumbers: out})
	return nil
}

// readClientEnv reads clientEnv (default live).
func readClientEnv(f *fieldBody) string {
	if env, ok := f.enum("clientEnv", engine.DeployEnvs); ok {
		return env
	}
	return "live"
}

// handlePhoneNumberImport handles "POST .../telephony/phone-numbers": all
// numbers or none are imported, routed to no connector until reassigned.
func (a *API) handlePhoneNumberImport(c *gin.Context) error {
	f, err := readFields(c, false, engine.BodyFields(phoneNumbersBody{})...)
	if err != nil {
		return err
	}
	list, _ := stringList(f, "phoneNumbers")
	env := readClientEnv(f)
	if err := f.err(); err != nil {
		return err
	}
	var numbers []string
	var bad []engine.FieldError
	for i, n := range list {
		if !engine.E164RE.MatchString(n) {
			bad = append(bad, engine.FieldError{Field: fmt.Sprintf("phoneNumbers/%d", i), Message: "must be an E.164 number, e.g. +14155550100"})
		} else if !slices.Contains(numbers, n) {
			numbers = append(numbers, n)
		}
	}
	if len(bad) > 0 {
		return &engine.Error{Kind: engine.KindInvalid, Code: telephony.CodePhoneInvalid, Message: telephony.MsgPhoneInvalid, Fields: bad}
	}
	if err := a.Telephony().ImportNumbers(principal(c), c.Param("agent"), numbers, env, "phoneNumbers"); err != nil {
		return err
	}
	c.JSON(http.StatusCreated, telephony.NumbersImported{Imported: numbers})
	return nil
}

// handlePhoneNumberDeleteMany handles "DELETE .../telephony/phone-numbers":
// each number is released on its own.
func (a *API) handlePhoneNumberDeleteMany(c *gin.Context) error {
	f, err := readFields(c, false, engine.BodyFields(phoneNumberListBody{})...)
	if err != nil {
		return err
	}
	list, _ := stringList(f, "phoneNumbers")
	if err := f.err(); err != nil {
		return err
	}
	deleted, errs, err := a.Telephony().DeleteNumbers(principal(c), c.Param("agent"), list)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, telephony.NumbersDeleted{Deleted: deleted, Errors: errs})
	return nil
}

// handlePhoneNumberBatchGet handles "POST .../telephony/phone-numbers/batch".
func (a *API) handlePhoneNumberBatchGet(c *gin.Context) error {
	f, err := readFields(c, false, engine.BodyFields(phoneNumberListBody{})...)
	if err != nil {
		return err
	}
	list, _ := stringList(f, "phoneNumbers")
	if err := f.err(); err != nil {
		return err
	}
	for i, n := range list {
		if !engine.E164RE.MatchString(n) {
			return telephony.ErrPhoneInvalid(fmt.Sprintf("phoneNumbers/%d", i))
		}
	}
	out, err := a.Telephony().FindPhoneNumbers(principal(c), c.Param("agent"), list)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, out)
	return nil
}

// handlePhoneNumberGet handles "GET .../telephony/phone-numbers/{phoneNumber}";
// a malformed number is 404, as the OAS lists no 400 here.
func (a *API) handlePhoneNumberGet(c *gin.Context) error {
	x, err := a.Telephony().PhoneNumber(principal(c), c.Param("agent"), c.Param("number"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, x)
	return nil
}

// handlePhoneNumberImportOne handles "POST .../telephony/phone-numbers/{phoneNumber}".
func (a *API) handlePhoneNumberImportOne(c *gin.Context) error {
	f, err := readFields(c, true, engine.BodyFields(clientEnvBody{})...)
	if err != nil {
		return err
	}
	env := readClientEnv(f)
	if err := f.err(); err != nil {
		return err
	}
	n := c.Param("number")
	if !engine.E164RE.MatchString(n) {
		return telephony.ErrPhoneInvalid("phoneNumber")
	}
	if err := a.Telephony().ImportNumbers(principal(c), c.Param("agent"), []string{n}, env, "phoneNumber"); err != nil {
		return err
	}
	c.JSON(http.StatusCreated, telephony.NumberImported{Imported: n})
	return nil
}

// handlePhoneNumberDelete handles "DELETE .../telephony/phone-numbers/{phoneNumber}".
func (a *API) handlePhoneNumberDelete(c *gin.Context) error {
	n := c.Param("number")
	if err := a.Telephony().DeleteNumber(principal(c), c.Param("agent"), n); err != nil {
		return err
	}
	c.JSON(http.StatusOK, telephony.NumberDeleted{Deleted: n})
	return nil
}

// handlePhoneNumberReassign handles "PATCH .../telephony/phone-numbers/{phoneNumber}".
func (a *API) handlePhoneNumberReassign(c *gin.Context) error {
	f, err := readFields(c, false, engine.BodyFields(reassignBody{})...)
	if err != nil {
		return err
	}
	f.requireAll(reassignBody{})
	conn, _ := f.text("connectorId", telephony.ReassignRules["connectorId"])
	if err := f.err(); err != nil {
		return err
	}
	out, err := a.Telephony().ReassignNumber(principal(c), c.Param("agent"), c.Param("number"), conn)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, out)
	return nil
}
