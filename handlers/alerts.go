package handlers

// Alert rules and active alerts (docs/api.md#alerts; docs/fidelity.md G1, G6,
// G9, D16-D18). Rules are account-scoped (the account comes from the key) and
// live in the account's region partition as "alert_rule" documents.
// Evaluation on the virtual clock is in engine_alerts.go.

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"regexp"
	"sort"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// The alerts' presets, which webhook endpoints answer too
// (docs/scenarios.md#faults).
const (
	// PresetAlertsLimit answers 409 as if the account's alert rule (or
	// webhook endpoint) limit were reached.
	PresetAlertsLimit = "alerts_limit"
	// PresetMonitoringBackend answers 502 "Monitoring backend
	// synchronisation failure". Matched by an evaluation pass (path
	// "/_evaluation" of family alerts), it fails that pass.
	PresetMonitoringBackend = "monitoring_backend_failure"
)

// nameAlerts is the alerts family's name (an evaluation pass is a request
// of the family to fault rules).
const nameAlerts = "alerts"

// famAlerts is alert rules and the alerts they fire (docs/api.md#alerts).
var famAlerts = &Family{
	Name: nameAlerts, Base: "builder", Shape: shapeBuilder,
	Credential: scenario.KindBuilder, Headers: []string{"X-Api-Key"},
	Marks:    []string{"/alert"},
	Doc:      "Rules over metrics of running agents, and the alerts that fire (docs/api.md#alerts).",
	Schemes:  builderSchemes,
	Security: [][]string{{"builderKey"}},
	Routes:   alertsRoutes,
	Counts:   []Counted{countDocs("alert rules", docAlertRule)},
	Presets: []faults.Preset{
		{Name: PresetAlertsLimit, Family: "alerts"},
		{Name: PresetMonitoringBackend, Family: "alerts"},
	},
	ApplyPreset: (*API).presetAlerts,
}

// alertsRoutes are its routes.
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

	alertRulePath   = []Param{{Name: "rule", Pattern: alertRuleIDRE, Doc: "The rule's id (ar_...); another form is 422."}}
	alertRuleParams = []Param{
		{Name: "project_id", Doc: "The monitored project (slug, id or PROJECT-<id>)."},
		{Name: "metric", Enum: alertMetrics},
		{Name: "enabled", Type: "boolean"},
		{Name: "state", Enum: alertStates},
	}
)

// alertRuleIDRE is the form of an alert rule id.
var alertRuleIDRE = regexp.MustCompile(`^ar_[A-Za-z0-9]+$`)

// alertRuleBody is the body of an alert rule create (the required fields)
// or update (any of them); readAlertRule reads it field by field, by the
// rules of alertRuleRules.
type alertRuleBody struct {
	Name           string  `json:"name"`
	ProjectID      *string `json:"project_id"`
	Metric         string  `json:"metric"`
	Operator       string  `json:"operator"`
	ThresholdValue int64   `json:"threshold_value"`
	WindowDuration string  `json:"window_duration"`
	Enabled        bool    `json:"enabled"`
}

func (alertRuleBody) FieldRules() map[string]FieldRule { return alertRuleRules }

var alertRuleRules = map[string]FieldRule{
	"name":            {Required: true, MinLen: 1, MaxLen: 255},
	"project_id":      {Nullable: true, Doc: "The monitored project (slug, id or PROJECT-<id>); null or absent: every project of the account."},
	"metric":          {Required: true, Enum: alertMetrics},
	"operator":        {Required: true, Enum: alertOperators},
	"threshold_value": {Required: true, Min: i64(0), Max: i64(1 << 53)},
	"window_duration": {Required: true, Enum: alertWindows},
	"enabled":         {Doc: "Default true."},
}

// alertRuleList and activeAlertList are the list answers.
type (
	alertRuleList struct {
		Data []alertRuleView `json:"data"`
	}
	activeAlertList struct {
		Data []activeAlertView `json:"data"`
	}
)

func (alertRuleView) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"metric": {Enum: alertMetrics}, "operator": {Enum: alertOperators},
		"window_duration": {Enum: alertWindows}, "current_state": {Enum: alertStates}}
}

// alertsState is the alerts family's in-memory state.
type alertsState struct {
	// mu serialises the count-then-insert (and delete) of alert rules,
	// whose per-account limit is checked against the store, and the
	// evaluation passes. It is held across store calls. (The recorded API
	// errors live in the store, store/metrics_query.go.)
	mu sync.Mutex
	// history is each rule's state over time (alerts_history.go), by
	// region and id.
	history map[string]*ruleHistory
	// schedMu guards sched, the evaluation timer's state; a leaf, taken
	// under mu or alone (engine_alerts_schedule.go).
	schedMu sync.Mutex
	sched   evalSchedule
}

// resetAlerts forgets the state histories and arms the evaluation timer of
// the new generation (the store's reset forgot the recorded API errors).
func (a *API) resetAlerts() {
	a.alerts.mu.Lock()
	a.alerts.history = nil
	a.alerts.mu.Unlock()
	a.armEvaluation()
}

// Alert rule vocabulary (docs/api.md#alert-rules), the one the scenario
// validates by.
var (
	alertMetrics   = scenario.AlertMetrics
	alertOperators = scenario.AlertOperators
	alertWindows   = scenario.AlertWindows
	alertStates    = scenario.AlertStates
)

// Alert states (docs/api.md#alert-states).
const (
	stateOK      = "ok"
	stateAlert   = "alert"
	stateNoData  = "no_data"
	stateUnknown = "unknown"
)

// Alert messages and codes that tests compare.
const (
	CodeAlertRuleNotFound  = "ALERT_RULE_NOT_FOUND"
	CodeAlertRuleInvalidID = "INVALID_ALERT_RULE_ID"
	CodeAlertRuleLimit     = "ALERT_RULE_LIMIT_EXCEEDED"
	CodeMonitoringBackend  = "MONITORING_BACKEND_ERROR"

	MsgAlertRuleNotFound  = "Alert rule not found."
	MsgAlertRuleInvalidID = "Malformed alert rule id: want ar_ followed by letters and digits."
	MsgMonitoringBackend  = "Monitoring backend synchronisation failure."
)

// msgAlertRuleLimit is the 409 of the rule limit (docs/api.md#limits).
func msgAlertRuleLimit(n int) string {
	return fmt.Sprintf("Maximum number of alert rules (%d) reached", n)
}

// Fidelity switches of the alerts family (docs/fidelity.md).
const (
	switchInitialAlertState = "initial_alert_state" // "ok" (default) | "unknown" (D16)
	switchAlertTriggerFrom  = "alert_trigger_from"  // "any" (default) | "ok" (D24)
)

// docAlertRule is the store kind of alert rules.
const docAlertRule = "alert_rule"

// alertRule is the stored rule.
type alertRule struct {
	ID              string     `json:"id"`
	AccountID       string     `json:"account_id"`
	Name            string     `json:"name"`
	ProjectID       *string    `json:"project_id"`
	Metric          string     `json:"metric"`
	Operator        string     `json:"operator"`
	ThresholdValue  int64      `json:"threshold_value"`
	WindowDuration  string     `json:"window_duration"`
	Enabled         bool       `json:"enabled"`
	CurrentState    string     `json:"current_state"`
	CreatedAt       time.Time  `json:"created_at"`
	UpdatedAt       time.Time  `json:"updated_at"`
	Since           *time.Time `json:"since"`
	LastEvaluatedAt *time.Time `json:"last_evaluated_at"`
	CurrentValue    *int64     `json:"current_value"`
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

func (r *alertRule) view() alertRuleView {
	return alertRuleView{
		ID: r.ID, Name: r.Name, ProjectID: r.ProjectID, Metric: r.Metric, Operator: r.Operator,
		ThresholdValue: r.ThresholdValue, WindowDuration: r.WindowDuration, Enabled: r.Enabled,
		CurrentState: r.CurrentState, CreatedAt: fmtAlertTime(r.CreatedAt), UpdatedAt: fmtAlertTime(r.UpdatedAt),
		Since: fmtAlertTimePtr(r.Since), LastEvaluatedAt: fmtAlertTimePtr(r.LastEvaluatedAt), CurrentValue: r.CurrentValue,
	}
}

// activeAlertView is an item of GET /v1/alerts: the spec's fields (2.3)
// plus the OAS's metric, operator and window_duration (D17).
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

var alertRuleFields = bodyFields(alertRuleBody{})

const msgThreshold = "must be a non-negative integer"

// readAlertRule validates the fields of a create (all) or PATCH (only
// those given) into r. It reports every bad field.
func readAlertRule(f *fieldBody, acct *scenario.Account, r *alertRule, create bool) {
	if create {
		f.requireAll(alertRuleBody{})
	}
	if s, ok := f.text("name", alertRuleRules["name"]); ok {
		r.Name = s
	}
	if f.has("project_id") {
		if f.isNull("project_id") {
			r.ProjectID = nil
		} else if s, ok := f.str("project_id"); ok {
			if p := acct.Project(s); p != nil {
				id := p.ID
				r.ProjectID = &id
			} else {
				f.fail("project_id", "unknown project %q", s)
			}
		}
	}
	if s, ok := f.enum("metric", alertMetrics); ok {
		r.Metric = s
	}
	if s, ok := f.enum("operator", alertOperators); ok {
		r.Operator = s
	}
	if n, ok := f.whole("threshold_value", alertRuleRules["threshold_value"], msgThreshold); ok {
		r.ThresholdValue = n
	}
	if s, ok := f.enum("window_duration", alertWindows); ok {
		r.WindowDuration = s
	}
	if b, ok := f.boolean("enabled"); ok {
		r.Enabled = b
	}
}

// alertRuleLimit is the account's rule limit (docs/api.md#limits; the
// scenario's limits.alert_rules).
func (w *World) alertRuleLimit() int {
	if n := w.sc.Limits.AlertRules; n > 0 {
		return n
	}
	return 10
}

// handleAlertRuleCreate handles "POST {builder}/v1/alert-rules".
func (a *API) handleAlertRuleCreate(c *gin.Context) error {
	p := principal(c)
	f, err := readFields(c, false, alertRuleFields...)
	if err != nil {
		return err
	}
	now := a.clock.Now()
	r := alertRule{AccountID: p.Account.ID, Enabled: true, CreatedAt: now, UpdatedAt: now}
	readAlertRule(f, p.Account, &r, true)
	if err := f.err(); err != nil {
		return err
	}
	r.CurrentState = stateOK
	if a.world().fidelity(switchInitialAlertState) == stateUnknown {
		r.CurrentState = stateUnknown
	}
	since := now
	r.Since = &since

	a.alerts.mu.Lock()
	defer a.alerts.mu.Unlock()
	n, err := a.countAccountDocs(docAlertRule, p.Region, p.Account.ID)
	if err != nil {
		return err
	}
	if limit := a.world().alertRuleLimit(); n >= limit {
		return errf(KindConflict, CodeAlertRuleLimit, "%s", msgAlertRuleLimit(limit))
	}
	for range 5 {
		r.ID = a.newID("ar_", base62, 22)
		err = a.store.InsertDoc(docAlertRule, p.Region, r.ID, &r)
		if !errors.Is(err, store.ErrExists) {
			break
		}
	}
	if err != nil {
		return err
	}
	a.wakeEvaluation()
	c.JSON(http.StatusCreated, r.view())
	return nil
}

// countAccountDocs counts the documents of a kind that belong to an account.
func (a *API) countAccountDocs(kind, region, account string) (int, error) {
	n := 0
	type owner struct {
		AccountID string `json:"account_id"`
	}
	err := store.ListDocs(a.store, kind, region, func(_ string, o *owner) bool {
		if o.AccountID == account {
			n++
		}
		return true
	})
	return n, err
}

// alertRuleID checks the path's rule id (422 when malformed,
// docs/api.md#alerts-errors).
func alertRuleID(c *gin.Context) (string, error) {
	id := c.Param("rule")
	if !alertRuleIDRE.MatchString(id) {
		return "", errf(KindUnprocessable, CodeAlertRuleInvalidID, MsgAlertRuleInvalidID)
	}
	return id, nil
}

func errAlertRuleNotFound() error {
	return errf(KindNotFound, CodeAlertRuleNotFound, MsgAlertRuleNotFound)
}

// getAlertRule reads a rule of the principal's account (another account's
// rule is not found).
func (a *API) getAlertRule(p *Principal, id string) (*alertRule, error) {
	var r alertRule
	if err := a.store.GetDoc(docAlertRule, p.Region, id, &r); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, errAlertRuleNotFound()
		}
		return nil, err
	}
	if r.AccountID != p.Account.ID {
		return nil, errAlertRuleNotFound()
	}
	return &r, nil
}

// handleAlertRuleGet handles "GET {builder}/v1/alert-rules/{rule_id}".
func (a *API) handleAlertRuleGet(c *gin.Context) error {
	id, err := alertRuleID(c)
	if err != nil {
		return err
	}
	r, err := a.getAlertRule(principal(c), id)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, r.view())
	return nil
}

// handleAlertRuleUpdate handles "PATCH {builder}/v1/alert-rules/{rule_id}":
// a flat body with only the fields to change (docs/api.md#alert-rules).
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
	// Validate against a scratch rule first: nothing changes on a 400.
	var scratch alertRule
	readAlertRule(f, p.Account, &scratch, false)
	if err := f.err(); err != nil {
		return err
	}
	now := a.clock.Now()
	var r alertRule
	err = a.store.UpdateDoc(docAlertRule, p.Region, id, &r, func() error {
		if r.AccountID != p.Account.ID {
			return errAlertRuleNotFound()
		}
		g := &fieldBody{raw: f.raw}
		readAlertRule(g, p.Account, &r, false)
		r.UpdatedAt = now
		return nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return errAlertRuleNotFound()
	}
	if err != nil {
		return err
	}
	if r.Enabled {
		a.wakeEvaluation()
	}
	c.JSON(http.StatusOK, r.view())
	return nil
}

// handleAlertRuleDelete handles "DELETE {builder}/v1/alert-rules/{rule_id}"
// (204, docs/fidelity.md G9).
func (a *API) handleAlertRuleDelete(c *gin.Context) error {
	id, err := alertRuleID(c)
	if err != nil {
		return err
	}
	p := principal(c)
	a.alerts.mu.Lock()
	defer a.alerts.mu.Unlock()
	if _, err := a.getAlertRule(p, id); err != nil {
		return err
	}
	if err := a.store.DeleteDoc(docAlertRule, p.Region, id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errAlertRuleNotFound()
		}
		return err
	}
	a.forgetAlertHistoryLocked(p.Region, id)
	c.Status(http.StatusNoContent)
	return nil
}

// listAlertRules reads the account's rules in id order.
func (a *API) listAlertRules(region, account string) ([]*alertRule, error) {
	var out []*alertRule
	err := store.ListDocs(a.store, docAlertRule, region, func(_ string, r *alertRule) bool {
		if account == "" || r.AccountID == account {
			out = append(out, r)
		}
		return true
	})
	return out, err
}

// alertQuery reads the list filters project_id, metric, enabled and state.
type alertQuery struct {
	project, metric, state string
	enabled                *bool
}

func readAlertQuery(c *gin.Context, acct *scenario.Account, withEnabled bool) (alertQuery, error) {
	var q alertQuery
	var errs []FieldError
	if v, ok := c.GetQuery("project_id"); ok {
		if p := acct.Project(v); p != nil {
			q.project = p.ID
		} else {
			q.project = v // matches nothing
		}
	}
	q.metric, _ = enumQuery(c, "metric", alertMetrics, &errs)
	if withEnabled {
		q.enabled = boolQuery(c, "enabled", &errs)
		q.state, _ = enumQuery(c, "state", alertStates, &errs)
	}
	if errs != nil {
		return q, invalid(CodeValidation, MsgValidationFailed, errs...)
	}
	return q, nil
}

func (q alertQuery) keep(r *alertRule) bool {
	if q.project != "" && (r.ProjectID == nil || *r.ProjectID != q.project) {
		return false
	}
	if q.metric != "" && r.Metric != q.metric {
		return false
	}
	if q.enabled != nil && r.Enabled != *q.enabled {
		return false
	}
	return q.state == "" || r.CurrentState == q.state
}

// handleAlertRuleList handles "GET {builder}/v1/alert-rules": unpaginated
// {"data": [...]} (docs/fidelity.md G9).
func (a *API) handleAlertRuleList(c *gin.Context) error {
	p := principal(c)
	q, err := readAlertQuery(c, p.Account, true)
	if err != nil {
		return err
	}
	rules, err := a.listAlertRules(p.Region, p.Account.ID)
	if err != nil {
		return err
	}
	data := []alertRuleView{}
	for _, r := range rules {
		if q.keep(r) {
			data = append(data, r.view())
		}
	}
	c.JSON(http.StatusOK, alertRuleList{Data: data})
	return nil
}

// handleAlertList handles "GET {builder}/v1/alerts": the rules in the
// alert state, oldest alert first.
func (a *API) handleAlertList(c *gin.Context) error {
	p := principal(c)
	q, err := readAlertQuery(c, p.Account, false)
	if err != nil {
		return err
	}
	rules, err := a.listAlertRules(p.Region, p.Account.ID)
	if err != nil {
		return err
	}
	var firing []*alertRule
	for _, r := range rules {
		if r.CurrentState == stateAlert && q.keep(r) {
			firing = append(firing, r)
		}
	}
	sort.SliceStable(firing, func(i, j int) bool {
		si, sj := firing[i].Since, firing[j].Since
		return si != nil && sj != nil && si.Before(*sj)
	})
	data := []activeAlertView{}
	for _, r := range firing {
		data = append(data, activeAlertView{AlertRuleID: r.ID, Name: r.Name, ProjectID: r.ProjectID, Metric: r.Metric,
			Operator: r.Operator, ThresholdValue: r.ThresholdValue, WindowDuration: r.WindowDuration,
			Since: fmtAlertTimePtr(r.Since), LastEvaluatedAt: fmtAlertTimePtr(r.LastEvaluatedAt), CurrentValue: r.CurrentValue})
	}
	c.JSON(http.StatusOK, activeAlertList{Data: data})
	return nil
}

// presetAlerts returns the alerts and webhooks failure modes.
func (a *API) presetAlerts(call faults.PresetCall) presetFunc {
	switch call.Name {
	case PresetAlertsLimit:
		return func(c *gin.Context, _ faults.Rule) (bool, error) {
			if f := familyOf(c); f == famWebhooks {
				return true, errf(KindConflict, CodeWebhookLimit, "%s", msgWebhookLimit(a.world().webhookLimit()))
			}
			return true, errf(KindConflict, CodeAlertRuleLimit, "%s", msgAlertRuleLimit(a.world().alertRuleLimit()))
		}
	case PresetMonitoringBackend:
		return func(*gin.Context, faults.Rule) (bool, error) {
			return true, errf(KindBadGateway, CodeMonitoringBackend, MsgMonitoringBackend)
		}
	}
	return nil
}

// seedAlerts writes the scenario's alert rules and webhook endpoints.
// Missing ids come from a generator seeded by the scenario's seed.
func seedAlerts(st *store.Store, sc *scenario.Scenario, now time.Time) error {
	seed := uint64(sc.Seed) ^ 0x5eed
	rng := rand.New(rand.NewPCG(seed, seed^0xa1e7))
	gen := func(prefix string) string {
		b := []byte(prefix)
		for range 22 {
			b = append(b, base62[rng.IntN(len(base62))])
		}
		return string(b)
	}
	initial := stateOK
	if sc.Fidelity[switchInitialAlertState] == stateUnknown {
		initial = stateUnknown
	}
	for ai := range sc.Accounts {
		acct := &sc.Accounts[ai]
		for _, s := range acct.AlertRules {
			since := now
			r := alertRule{ID: s.ID, AccountID: acct.ID, Name: s.Name, Metric: s.Metric, Operator: s.Operator,
				ThresholdValue: s.ThresholdValue, WindowDuration: s.WindowDuration, Enabled: s.Enabled == nil || *s.Enabled,
				CurrentState: cmp.Or(s.State, initial), CreatedAt: now, UpdatedAt: now, Since: &since}
			if r.ID == "" {
				r.ID = gen("ar_")
			}
			if p := acct.Project(s.Project); p != nil {
				id := p.ID
				r.ProjectID = &id
			}
			if err := st.PutDoc(docAlertRule, acct.Region, r.ID, &r); err != nil {
				return err
			}
		}
		for _, s := range acct.WebhookEndpoints {
			e := webhookEndpoint{ID: s.ID, AccountID: acct.ID, Name: s.Name, URL: s.URL, Enabled: s.Enabled == nil || *s.Enabled,
				EventTypes: s.EventTypes, Headers: s.Headers, TimeoutMS: s.TimeoutMS, CreatedAt: fmtAlertTime(now),
				UpdatedAt: fmtAlertTime(now), Secret: s.SigningSecret}
			if e.ID == "" {
				e.ID = gen("whe_")
			}
			if len(e.EventTypes) == 0 {
				e.EventTypes = append([]string(nil), webhookEventTypes...)
			}
			if e.Headers == nil {
				e.Headers = map[string]string{}
			}
			if e.TimeoutMS == 0 {
				e.TimeoutMS = DefaultWebhookTimeoutMS
			}
			if err := st.PutDoc(docWebhook, acct.Region, e.ID, &e); err != nil {
				return err
			}
		}
	}
	return nil
}
