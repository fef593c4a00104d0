package engine

// Alert rules and active alerts (docs/api.md#alerts; docs/fidelity.md G1,
// G6, G9, D16-D18): account-scoped "alert_rule" documents in the account's
// region partition. Evaluation is in alerts_evaluate.go.

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"sort"
	"sync"
	"time"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// The alerts' presets, answered by webhook endpoints too
// (docs/scenarios.md#faults).
const (
	// PresetAlertsLimit answers 409 as if the rule (or endpoint) limit were
	// reached.
	PresetAlertsLimit = "alerts_limit"
	// PresetMonitoringBackend answers 502; matched by an evaluation pass
	// (path "/_evaluation"), it fails that pass.
	PresetMonitoringBackend = "monitoring_backend_failure"
)

// NameAlerts is the alerts family's name.
const NameAlerts = "alerts"

// AlertRuleIDRE is the form of an alert rule id.
var AlertRuleIDRE = regexp.MustCompile(`^ar_[A-Za-z0-9]+$`)

var AlertRuleRules = map[string]FieldRule{
	"name":            {Required: true, MinLen: 1, MaxLen: 255},
	"project_id":      {Nullable: true, Doc: "The monitored project (slug, id or PROJECT-<id>); null or absent: every project of the account."},
	"metric":          {Required: true, Enum: AlertMetrics},
	"operator":        {Required: true, Enum: AlertOperators},
	"threshold_value": {Required: true, Min: I64(0), Max: I64(1 << 53)},
	"window_duration": {Required: true, Enum: AlertWindows},
	"enabled":         {Doc: "Default true."},
}

// alertsState is the alerts family's in-memory state.
type alertsState struct {
	// mu serialises rule inserts and deletes (the limit is checked against
	// the store) and evaluation passes; it is held across store calls.
	mu sync.Mutex
	// history is each rule's state over time, by region and id.
	history map[string]*ruleHistory
	// schedMu guards sched, the evaluation timer's state; a leaf, taken
	// under mu or alone.
	schedMu sync.Mutex
	sched   evalSchedule
}

// resetAlerts forgets the histories and arms the new generation's timer.
func (a *Engine) resetAlerts() {
	a.alerts.mu.Lock()
	a.alerts.history = nil
	a.alerts.mu.Unlock()
	a.armEvaluation()
}

// Alert rule vocabulary (docs/api.md#alert-rules).
var (
	AlertMetrics   = scenario.AlertMetrics
	AlertOperators = scenario.AlertOperators
	AlertWindows   = scenario.AlertWindows
	AlertStates    = scenario.AlertStates
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
	codeMonitoringBackend  = "MONITORING_BACKEND_ERROR"

	MsgAlertRuleNotFound  = "Alert rule not found."
	MsgAlertRuleInvalidID = "Malformed alert rule id: want ar_ followed by letters and digits."
	MsgMonitoringBackend  = "Monitoring backend synchronisation failure."
)

func msgAlertRuleLimit(n int) string {
	return fmt.Sprintf("Maximum number of alert rules (%d) reached", n)
}

// Fidelity switches of the alerts family (docs/fidelity.md).
const (
	switchInitialAlertState = "initial_alert_state" // "ok" (default) | "unknown" (D16)
	switchAlertTriggerFrom  = "alert_trigger_from"  // "any" (default) | "ok" (D24)
)

// DocAlertRule is the store kind of alert rules.
const DocAlertRule = "alert_rule"

// AlertRule is the stored rule.
type AlertRule struct {
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

const MsgThreshold = "must be a non-negative integer"

// alertRuleLimit is the account's rule limit (docs/api.md#limits).
func (w *View) alertRuleLimit() int {
	if n := w.sc.Limits.AlertRules; n > 0 {
		return n
	}
	return 10
}

func (a *Engine) countAccountDocs(kind, region, account string) (int, error) {
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

func errAlertRuleNotFound() error {
	return Errf(KindNotFound, CodeAlertRuleNotFound, MsgAlertRuleNotFound)
}

// GetAlertRule reads a rule of the principal's account.
func (a *Engine) GetAlertRule(p *Principal, id string) (*AlertRule, error) {
	var r AlertRule
	if err := a.store.GetDoc(DocAlertRule, p.Region, id, &r); err != nil {
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

func (a *Engine) listAlertRules(region, account string) ([]*AlertRule, error) {
	var out []*AlertRule
	err := store.ListDocs(a.store, DocAlertRule, region, func(_ string, r *AlertRule) bool {
		if account == "" || r.AccountID == account {
			out = append(out, r)
		}
		return true
	})
	return out, err
}

// AlertQuery is the list filters; a zero field keeps every rule.
type AlertQuery struct {
	Project, Metric, State string
	Enabled                *bool
}

func (q AlertQuery) keep(r *AlertRule) bool {
	if q.Project != "" && (r.ProjectID == nil || *r.ProjectID != q.Project) {
		return false
	}
	if q.Metric != "" && r.Metric != q.Metric {
		return false
	}
	if q.Enabled != nil && r.Enabled != *q.Enabled {
		return false
	}
	return q.State == "" || r.CurrentState == q.State
}

// ListAlertRules lists the account's rules that q keeps, in id order.
func (a *Engine) ListAlertRules(p *Principal, q AlertQuery) ([]*AlertRule, error) {
	rules, err := a.listAlertRules(p.Region, p.Account.ID)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(rules, func(r *AlertRule) bool { return !q.keep(r) }), nil
}

// ActiveAlerts lists the account's alerting rules that q keeps, oldest
// alert first (docs/api.md#alerts-active).
func (a *Engine) ActiveAlerts(p *Principal, q AlertQuery) ([]*AlertRule, error) {
	q.State = stateAlert
	firing, err := a.ListAlertRules(p, q)
	if err != nil {
		return nil, err
	}
	sort.SliceStable(firing, func(i, j int) bool {
		si, sj := firing[i].Since, firing[j].Since
		return si != nil && sj != nil && si.Before(*sj)
	})
	return firing, nil
}

// AlertRuleInput is the fields of a create (all required set) or an
// update (those to change), checked by the edge.
type AlertRuleInput struct {
	Name *string
	// SetProject reports that ProjectID is given (nil: every project).
	SetProject     bool
	ProjectID      *string
	Metric         *string
	Operator       *string
	ThresholdValue *int64
	WindowDuration *string
	Enabled        *bool
}

func (in *AlertRuleInput) apply(r *AlertRule) {
	setIf(&r.Name, in.Name)
	if in.SetProject {
		r.ProjectID = nil
		if in.ProjectID != nil {
			id := *in.ProjectID
			r.ProjectID = &id
		}
	}
	setIf(&r.Metric, in.Metric)
	setIf(&r.Operator, in.Operator)
	setIf(&r.ThresholdValue, in.ThresholdValue)
	setIf(&r.WindowDuration, in.WindowDuration)
	setIf(&r.Enabled, in.Enabled)
}

func setIf[T any](dst *T, v *T) {
	if v != nil {
		*dst = *v
	}
}

// CreateAlertRule stores a new rule in the initial state initial_alert_state
// names (D16) and arms the evaluation timer; 409 at the account's limit.
func (a *Engine) CreateAlertRule(p *Principal, in AlertRuleInput) (*AlertRule, error) {
	now := a.clock.Now()
	since := now
	r := AlertRule{AccountID: p.Account.ID, Enabled: true, CreatedAt: now, UpdatedAt: now, CurrentState: stateOK, Since: &since}
	in.apply(&r)
	if a.View().Fidelity(switchInitialAlertState) == stateUnknown {
		r.CurrentState = stateUnknown
	}
	a.alerts.mu.Lock()
	defer a.alerts.mu.Unlock()
	n, err := a.countAccountDocs(DocAlertRule, p.Region, p.Account.ID)
	if err != nil {
		return nil, err
	}
	if n >= a.View().alertRuleLimit() {
		return nil, a.ErrAlertRuleLimit()
	}
	if err := a.insertWithNewID(DocAlertRule, p.Region, "ar_", &r.ID, &r); err != nil {
		return nil, err
	}
	a.RecordTransition(MachineAlertRule, "", r.CurrentState)
	a.wakeEvaluation()
	return &r, nil
}

// UpdateAlertRule changes the fields in gives; an enabled rule arms the
// evaluation timer.
func (a *Engine) UpdateAlertRule(p *Principal, id string, in AlertRuleInput) (*AlertRule, error) {
	now := a.clock.Now()
	var r AlertRule
	err := a.store.UpdateDoc(DocAlertRule, p.Region, id, &r, func() error {
		if r.AccountID != p.Account.ID {
			return errAlertRuleNotFound()
		}
		in.apply(&r)
		r.UpdatedAt = now
		return nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, errAlertRuleNotFound()
	}
	if err != nil {
		return nil, err
	}
	if r.Enabled {
		a.wakeEvaluation()
	}
	return &r, nil
}

// DeleteAlertRule deletes a rule and its state history.
func (a *Engine) DeleteAlertRule(p *Principal, id string) error {
	a.alerts.mu.Lock()
	defer a.alerts.mu.Unlock()
	if _, err := a.GetAlertRule(p, id); err != nil {
		return err
	}
	if err := a.store.DeleteDoc(DocAlertRule, p.Region, id); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errAlertRuleNotFound()
		}
		return err
	}
	a.forgetAlertHistoryLocked(p.Region, id)
	return nil
}

// ErrAlertRuleLimit is the 409 of an account at its alert rule limit.
func (a *Engine) ErrAlertRuleLimit() error {
	return Errf(KindConflict, CodeAlertRuleLimit, "%s", msgAlertRuleLimit(a.View().alertRuleLimit()))
}

// ErrMonitoringBackend is the 502 of the monitoring_backend_failure preset.
func ErrMonitoringBackend() error {
	return Errf(KindBadGateway, codeMonitoringBackend, MsgMonitoringBackend)
}

// insertWithNewID stores doc under a fresh id written to *id.
func (a *Engine) insertWithNewID(kind, region, prefix string, id *string, doc any) error {
	var err error
	for range 5 {
		*id = a.NewID(prefix, Base62, 22)
		err = a.store.InsertDoc(kind, region, *id, doc)
		if !errors.Is(err, store.ErrExists) {
			break
		}
	}
	return err
}

// seedAlerts writes the scenario's alert rules and webhook endpoints.
func seedAlerts(st *store.Store, sc *scenario.Scenario, now time.Time) error {
	seed := uint64(sc.Seed) ^ 0x5eed
	rng := rand.New(rand.NewPCG(seed, seed^0xa1e7))
	gen := func(prefix string) string {
		b := []byte(prefix)
		for range 22 {
			b = append(b, Base62[rng.IntN(len(Base62))])
		}
		return string(b)
	}
	initial := stateOK
	if sc.Switch(switchInitialAlertState) == stateUnknown {
		initial = stateUnknown
	}
	for ai := range sc.Accounts {
		acct := &sc.Accounts[ai]
		for _, s := range acct.AlertRules {
			since := now
			r := AlertRule{ID: s.ID, AccountID: acct.ID, Name: s.Name, Metric: s.Metric, Operator: s.Operator,
				ThresholdValue: s.ThresholdValue, WindowDuration: s.WindowDuration, Enabled: s.Enabled == nil || *s.Enabled,
				CurrentState: cmp.Or(s.State, initial), CreatedAt: now, UpdatedAt: now, Since: &since}
			if r.ID == "" {
				r.ID = gen("ar_")
			}
			if p := acct.Project(s.Project); p != nil {
				id := p.ID
				r.ProjectID = &id
			}
			if err := st.PutDoc(DocAlertRule, acct.Region, r.ID, &r); err != nil {
				return err
			}
		}
		for _, s := range acct.WebhookEndpoints {
			e := EndpointRecord{ID: s.ID, AccountID: acct.ID, Name: s.Name, URL: s.URL, Enabled: s.Enabled == nil || *s.Enabled,
				EventTypes: s.EventTypes, Headers: s.Headers, TimeoutMS: s.TimeoutMS, CreatedAt: FmtAlertTime(now),
				UpdatedAt: FmtAlertTime(now), Secret: s.SigningSecret}
			if e.ID == "" {
				e.ID = gen("whe_")
			}
			if len(e.EventTypes) == 0 {
				e.EventTypes = append([]string(nil), WebhookEventTypes...)
			}
			if e.Headers == nil {
				e.Headers = map[string]string{}
			}
			if e.TimeoutMS == 0 {
				e.TimeoutMS = defaultWebhookTimeoutMS
			}
			if err := st.PutDoc(DocWebhook, acct.Region, e.ID, &e); err != nil {
				return err
			}
		}
	}
	return nil
}
