package handlers

// Alert rules and active alerts (docs/api.md#alerts; docs/fidelity.md G1, G6,
// G9, D16-D18). The domain and evaluation are the engine's (engine/alerts*.go).

import (
	"net/http"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/scenario"
)

// famAlerts is alert rules and the alerts they fire (docs/api.md#alerts).
var famAlerts = &Family{
	Name: engine.NameAlerts, Base: "builder", Shape: shapeBuilder,
	Credential: scenario.KindBuilder, Headers: []string{"X-Api-Key"},
	Marks:    []string{"/alert"},
	Doc:      "Rules over metrics of running agents, and the alerts that fire (docs/api.md#alerts).",
	Schemes:  builderSchemes,
	Security: [][]string{{"builderKey"}},
	Routes:   alertsRoutes,
	Counts:   []Counted{countDocs("alert rules", engine.DocAlertRule)},
	Presets: []faults.Preset{
		{Name: engine.PresetAlertsLimit, Family: "alerts"},
		{Name: engine.PresetMonitoringBackend, Family: "alerts"},
	},
	ApplyPreset: (*API).presetAlerts,
	Codes: []ErrorCode{
		{Status: 400, Code: engine.CodeValidation},
		{Status: 404, Code: engine.CodeAlertRuleNotFound, In: "/:rule"},
		{Status: 409, Code: engine.CodeAlertRuleLimit},
		{Status: 422, Code: engine.CodeAlertRuleInvalidID},
	},
	Machines:    []*Machine{engine.MachineAlertRule},
	ClockEvents: []ClockEvent{engine.ClockAlertsEvaluation},
}

var alertsRoutes = []Route{
	route("POST /v1/alert-rules", (*API).handleAlertRuleCreate, opAlertRuleCreate),
	route("GET /v1/alert-rules", (*API).handleAlertRuleList, opAlertRuleList),
	route("GET /v1/alert-rules/:rule", (*API).handleAlertRuleGet, opAlertRuleGet),
	route("PATCH /v1/alert-rules/:rule", (*API).handleAlertRuleUpdate, opAlertRuleUpdate),
	route("DELETE /v1/alert-rules/:rule", (*API).handleAlertRuleDelete, opAlertRuleDelete),
	route("GET /v1/alerts", (*API).handleAlertList, opAlertList),
}

var (
	opAlertRuleCreate = &Op{ID: "alertRuleCreate", Summary: "Create an alert rule",
		Doc:  "A rule over a metric of the account's agents; its state starts ok (docs/api.md#alert-rules).",
		Body: alertRuleBody{}, Responses: []Response{ok(201, alertRuleView{})}, Errors: []int{400, 409}}
	opAlertRuleList = &Op{ID: "alertRuleList", Summary: "List alert rules",
		Query: alertRuleParams, Responses: []Response{ok(200, alertRuleList{})}, Errors: []int{400}}
	opAlertRuleGet = &Op{ID: "alertRuleGet", Summary: "Read an alert rule",
		Path: alertRulePath, Responses: []Response{ok(200, alertRuleView{})}, Errors: []int{404, 422}}
	opAlertRuleUpdate = &Op{ID: "alertRuleUpdate", Summary: "Update an alert rule",
		Doc:  "Changes the fields given; a changed condition re-evaluates the rule (docs/api.md#alert-rules).",
		Path: alertRulePath, Body: alertRuleBody{}, BodyPartial: true,
		Responses: []Response{ok(200, alertRuleView{})}, Errors: []int{400, 404, 422}}
	opAlertRuleDelete = &Op{ID: "alertRuleDelete", Summary: "Delete an alert rule",
		Path: alertRulePath, Responses: []Response{{Status: 204}}, Errors: []int{404, 422}}
	opAlertList = &Op{ID: "alertList", Summary: "List active alerts",
		Doc:   "The rules in the alert state, oldest alert first (docs/api.md#alerts-active).",
		Query: alertRuleParams[:2], Responses: []Response{ok(200, activeAlertList{})}, Errors: []int{400}}

	alertRulePath   = []Param{{Name: "rule", Pattern: engine.AlertRuleIDRE, Doc: "The rule's id (ar_...); another form is 422."}}
	alertRuleParams = []Param{
		{Name: "project_id", Doc: "The monitored project (slug, id or PROJECT-<id>)."},
		{Name: "metric", Enum: engine.AlertMetrics},
		{Name: "enabled", Type: "boolean"},
		{Name: "state", Enum: engine.AlertStates},
	}
)

// alertRuleBody is the body of an alert rule create or update;
// readAlertRule reads it field by field.
type alertRuleBody struct {
	Name           string  `json:"name"`
	ProjectID      *string `json:"project_id"`
	Metric         string  `json:"metric"`
	Operator       string  `json:"operator"`
	ThresholdValue int64   `json:"threshold_value"`
	WindowDuration string  `json:"window_duration"`
	Enabled        bool    `json:"enabled"`
}

func (alertRuleBody) FieldRules() map[string]engine.FieldRule { return engine.AlertRuleRules }

type (
	alertRuleList struct {
		Data []alertRuleView `json:"data"`
	}
	activeAlertList struct {
		Data []activeAlertView `json:"data"`
	}
)

func (alertRuleView) FieldRules() map[string]engine.FieldRule {
	return map[string]engine.FieldRule{"metric": {Enum: engine.AlertMetrics}, "operator": {Enum: engine.AlertOperators},
		"window_duration": {Enum: engine.AlertWindows}, "current_state": {Enum: engine.AlertStates}}
}

// alertRuleView is a rule as the API shows it (docs/api.md#alert-rules).
type alertRuleView struct {
	ID              string  `json:"id"`
	Name            string  `json:"name"`
	ProjectID       *string `json:"project_id"`
	Metric          string  `json:"metric"`
	Operator        string  `json:"operator"`
	ThresholdValue  int64   `json:"threshold_value"`
	WindowDuration  string  `json:"window_duration"`
	Enabled         bool    `json:"enabled"`
	CurrentState    string  `json:"current_state"`
	CreatedAt       string  `json:"created_at"`
	UpdatedAt       string  `json:"updated_at"`
	Since           *string `json:"since"`
	LastEvaluatedAt *string `json:"last_evaluated_at"`
	CurrentValue    *int64  `json:"current_value"`
}

func ruleView(r *engine.AlertRule) alertRuleView {
	return alertRuleView{
		ID: r.ID, Name: r.Name, ProjectID: r.ProjectID, Metric: r.Metric, Operator: r.Operator,
		ThresholdValue: r.ThresholdValue, WindowDuration: r.WindowDuration, Enabled: r.Enabled,
		CurrentState: r.CurrentState, CreatedAt: engine.FmtAlertTime(r.CreatedAt), UpdatedAt: engine.FmtAlertTime(r.UpdatedAt),
		Since: engine.FmtAlertTimePtr(r.Since), LastEvaluatedAt: engine.FmtAlertTimePtr(r.LastEvaluatedAt), CurrentValue: r.CurrentValue,
	}
}

// activeAlertView is an item of GET /v1/alerts: the spec's fields (2.3)
// plus the OAS's (D17).
type activeAlertView struct {
	AlertRuleID     string  `json:"alert_rule_id"`
	Name            string  `json:"name"`
	ProjectID       *string `json:"project_id"`
	Metric          string  `json:"metric"`
	Operator        string  `json:"operator"`
	ThresholdValue  int64   `json:"threshold_value"`
	WindowDuration  string  `json:"window_duration"`
	Since           *string `json:"since"`
	LastEvaluatedAt *string `json:"last_evaluated_at"`
	CurrentValue    *int64  `json:"current_value"`
}

var alertRuleFields = engine.BodyFields(alertRuleBody{})

// readAlertRule validates the fields of a create or PATCH into the
// engine's input, reporting every bad field.
func readAlertRule(f *fieldBody, acct *scenario.Account, create bool) engine.AlertRuleInput {
	var in engine.AlertRuleInput
	if create {
		f.requireAll(alertRuleBody{})
	}
	if s, ok := f.text("name", engine.AlertRuleRules["name"]); ok {
		in.Name = &s
	}
	if f.has("project_id") {
		if f.isNull("project_id") {
			in.SetProject = true
		} else if s, ok := f.str("project_id"); ok {
			if p := acct.Project(s); p != nil {
				in.SetProject, in.ProjectID = true, &p.ID
			} else {
				f.fail("project_id", "unknown project %q", s)
			}
		}
	}
	if s, ok := f.enum("metric", engine.AlertMetrics); ok {
		in.Metric = &s
	}
	if s, ok := f.enum("operator", engine.AlertOperators); ok {
		in.Operator = &s
	}
	if n, ok := f.whole("threshold_value", engine.AlertRuleRules["threshold_value"], engine.MsgThreshold); ok {
		in.ThresholdValue = &n
	}
	if s, ok := f.enum("window_duration", engine.AlertWindows); ok {
		in.WindowDuration = &s
	}
	if b, ok := f.boolean("enabled"); ok {
		in.Enabled = &b
	}
	return in
}

// handleAlertRuleCreate handles "POST {builder}/v1/alert-rules".
func (a *API) handleAlertRuleCreate(c *gin.Context) error {
	p := principal(c)
	f, err := readFields(c, false, alertRuleFields...)
	if err != nil {
		return err
	}
	in := readAlertRule(f, p.Account, true)
	if err := f.err(); err != nil {
		return err
	}
	r, err := a.CreateAlertRule(p, in)
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, ruleView(r))
	return nil
}

// alertRuleID checks the path's rule id (422 when malformed,
// docs/api.md#alerts-errors).
func alertRuleID(c *gin.Context) (string, error) {
	id := c.Param("rule")
	if !engine.AlertRuleIDRE.MatchString(id) {
		return "", engine.Errf(engine.KindUnprocessable, engine.CodeAlertRuleInvalidID, engine.MsgAlertRuleInvalidID)
	}
	return id, nil
}

// handleAlertRuleGet handles "GET {builder}/v1/alert-rules/{rule_id}".
func (a *API) handleAlertRuleGet(c *gin.Context) error {
	id, err := alertRuleID(c)
	if err != nil {
		return err
	}
	r, err := a.GetAlertRule(principal(c), id)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, ruleView(r))
	return nil
}

// handleAlertRuleUpdate handles "PATCH {builder}/v1/alert-rules/{rule_id}"
// (docs/api.md#alert-rules).
func (a *API) handleAlertRuleUpdate(c *gin.Context) error {
	id, err := alertRuleID(c)
	if err != nil {
		return err
	}
	p := principal(c)
	f, err := readFields(c, false, alertRuleFields...)
	if err != nil {
		return err
	}
	in := readAlertRule(f, p.Account, false)
	if err := f.err(); err != nil {
		return err // nothing changes on a 400
	}
	r, err := a.UpdateAlertRule(p, id, in)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, ruleView(r))
	return nil
}

// handleAlertRuleDelete handles "DELETE {builder}/v1/alert-rules/{rule_id}"
// (204, docs/fidelity.md G9).
func (a *API) handleAlertRuleDelete(c *gin.Context) error {
	id, err := alertRuleID(c)
	if err != nil {
		return err
	}
	if err := a.DeleteAlertRule(principal(c), id); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

func readAlertQuery(c *gin.Context, acct *scenario.Account, withEnabled bool) (engine.AlertQuery, error) {
	var q engine.AlertQuery
	var errs []engine.FieldError
	if v, ok := c.GetQuery("project_id"); ok {
		if p := acct.Project(v); p != nil {
			q.Project = p.ID
		} else {
			q.Project = v // matches nothing
		}
	}
	q.Metric, _ = enumQuery(c, "metric", engine.AlertMetrics, &errs)
	if withEnabled {
		q.Enabled = boolQuery(c, "enabled", &errs)
		q.State, _ = enumQuery(c, "state", engine.AlertStates, &errs)
	}
	if errs != nil {
		return q, engine.Invalid(engine.CodeValidation, engine.MsgValidationFailed, errs...)
	}
	return q, nil
}

// handleAlertRuleList handles "GET {builder}/v1/alert-rules" (docs/fidelity.md G9).
func (a *API) handleAlertRuleList(c *gin.Context) error {
	p := principal(c)
	q, err := readAlertQuery(c, p.Account, true)
	if err != nil {
		return err
	}
	rules, err := a.ListAlertRules(p, q)
	if err != nil {
		return err
	}
	data := []alertRuleView{}
	for _, r := range rules {
		data = append(data, ruleView(r))
	}
	c.JSON(http.StatusOK, alertRuleList{Data: data})
	return nil
}

// handleAlertList handles "GET {builder}/v1/alerts", oldest first.
func (a *API) handleAlertList(c *gin.Context) error {
	p := principal(c)
	q, err := readAlertQuery(c, p.Account, false)
	if err != nil {
		return err
	}
	firing, err := a.ActiveAlerts(p, q)
	if err != nil {
		return err
	}
	data := []activeAlertView{}
	for _, r := range firing {
		data = append(data, activeAlertView{AlertRuleID: r.ID, Name: r.Name, ProjectID: r.ProjectID, Metric: r.Metric,
			Operator: r.Operator, ThresholdValue: r.ThresholdValue, WindowDuration: r.WindowDuration,
			Since: engine.FmtAlertTimePtr(r.Since), LastEvaluatedAt: engine.FmtAlertTimePtr(r.LastEvaluatedAt), CurrentValue: r.CurrentValue})
	}
	c.JSON(http.StatusOK, activeAlertList{Data: data})
	return nil
}

// presetAlerts returns the alerts and webhooks failure modes.
func (a *API) presetAlerts(call faults.PresetCall) presetFunc {
	switch call.Name {
	case engine.PresetAlertsLimit:
		return func(c *gin.Context, _ faults.Rule) (bool, error) {
			if f := familyOf(c); f == famWebhooks {
				return true, a.ErrWebhookLimit()
			}
			return true, a.ErrAlertRuleLimit()
		}
	case engine.PresetMonitoringBackend:
		return func(*gin.Context, faults.Rule) (bool, error) {
			return true, engine.ErrMonitoringBackend()
		}
	}
	return nil
}
