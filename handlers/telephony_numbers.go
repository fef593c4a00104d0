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

func (a *API) registerTelephonyNumbers(rt gin.IRoutes) {
	rt.GET("/v1/agents/:agent/telephony/phone-numbers", a.wrap(famAgents, a.handlePhoneNumberList))
	rt.POST("/v1/agents/:agent/telephony/phone-numbers", a.wrap(famAgents, a.handlePhoneNumberImport))
	rt.DELETE("/v1/agents/:agent/telephony/phone-numbers", a.wrap(famAgents, a.handlePhoneNumberDeleteMany))
	rt.POST("/v1/agents/:agent/telephony/phone-numbers/batch", a.wrap(famAgents, a.handlePhoneNumberBatchGet))
	rt.GET("/v1/agents/:agent/telephony/phone-numbers/:number", a.wrap(famAgents, a.handlePhoneNumberGet))
	rt.POST("/v1/agents/:agent/telephony/phone-numbers/:number", a.wrap(famAgents, a.handlePhoneNumberImportOne))
	rt.DELETE("/v1/agents/:agent/telephony/phone-numbers/:number", a.wrap(famAgents, a.handlePhoneNumberDelete))
	rt.PATCH("/v1/agents/:agent/telephony/phone-numbers/:number", a.wrap(famAgents, a.handlePhoneNumberReassign))
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
