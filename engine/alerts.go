package engine

// Alert rules and active alerts (docs/api.md#alerts; docs/fidelity.md G1, G6,
// G9, D16-D18). Rules are account-scoped (the account comes from the key) and
// live in the account's region partition as "alert_rule" documents.
// Evaluation on the virtual clock is in engine_alerts.go.

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"regexp"
	"sync"
	"time"

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
const NameAlerts = "alerts"

// alertRuleIDRE is the form of an alert rule id.
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

// alertRuleList and activeAlertList are the list answers.
type (
	ActiveAlertList struct {
		Data []ActiveAlertView `json:"data"`
	}
)

// alertsState is the alerts family's in-memory state.
type alertsState struct {
	// mu serialises the count-then-insert (and delete) of alert rules,
	// whose per-account limit is checked against the store, and the
	// evaluation passes. It is held across store calls. (The recorded API
	// errors live in the store, store/metrics_query.go.)
	Mu sync.Mutex
	// history is each rule's state over time (alerts_history.go), by
	// region and id.
	History map[string]*ruleHistory
	// schedMu guards sched, the evaluation timer's state; a leaf, taken
	// under mu or alone (engine_alerts_schedule.go).
	schedMu sync.Mutex
	sched   evalSchedule
}

// resetAlerts forgets the state histories and arms the evaluation timer of
// the new generation (the store's reset forgot the recorded API errors).
func (a *Engine) resetAlerts() {
	a.Alerts.Mu.Lock()
	a.Alerts.History = nil
	a.Alerts.Mu.Unlock()
	a.armEvaluation()
}

// Alert rule vocabulary (docs/api.md#alert-rules), the one the scenario
// validates by.
var (
	AlertMetrics   = scenario.AlertMetrics
	AlertOperators = scenario.AlertOperators
	AlertWindows   = scenario.AlertWindows
	AlertStates    = scenario.AlertStates
)

// Alert states (docs/api.md#alert-states).
const (
	StateOK      = "ok"
	StateAlert   = "alert"
	stateNoData  = "no_data"
	StateUnknown = "unknown"
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
func MsgAlertRuleLimit(n int) string {
	return fmt.Sprintf("Maximum number of alert rules (%d) reached", n)
}

// Fidelity switches of the alerts family (docs/fidelity.md).
const (
	SwitchInitialAlertState = "initial_alert_state" // "ok" (default) | "unknown" (D16)
	switchAlertTriggerFrom  = "alert_trigger_from"  // "any" (default) | "ok" (D24)
)

// docAlertRule is the store kind of alert rules.
const DocAlertRule = "alert_rule"

// alertRule is the stored rule.
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

// activeAlertView is an item of GET /v1/alerts: the spec's fields (2.3)
// plus the OAS's metric, operator and window_duration (D17).
type ActiveAlertView struct {
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

const MsgThreshold = "must be a non-negative integer"

// alertRuleLimit is the account's rule limit (docs/api.md#limits; the
// scenario's limits.alert_rules).
func (w *World) AlertRuleLimit() int {
	if n := w.Sc.Limits.AlertRules; n > 0 {
		return n
	}
	return 10
}

// countAccountDocs counts the documents of a kind that belong to an account.
func (a *Engine) CountAccountDocs(kind, region, account string) (int, error) {
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

func ErrAlertRuleNotFound() error {
	return Errf(KindNotFound, CodeAlertRuleNotFound, MsgAlertRuleNotFound)
}

// getAlertRule reads a rule of the principal's account (another account's
// rule is not found).
func (a *Engine) GetAlertRule(p *Principal, id string) (*AlertRule, error) {
	var r AlertRule
	if err := a.store.GetDoc(DocAlertRule, p.Region, id, &r); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, ErrAlertRuleNotFound()
		}
		return nil, err
	}
	if r.AccountID != p.Account.ID {
		return nil, ErrAlertRuleNotFound()
	}
	return &r, nil
}

// listAlertRules reads the account's rules in id order.
func (a *Engine) ListAlertRules(region, account string) ([]*AlertRule, error) {
	var out []*AlertRule
	err := store.ListDocs(a.store, DocAlertRule, region, func(_ string, r *AlertRule) bool {
		if account == "" || r.AccountID == account {
			out = append(out, r)
		}
		return true
	})
	return out, err
}

// alertQuery reads the list filters project_id, metric, enabled and state.
type AlertQuery struct {
	Project, Metric, State string
	Enabled                *bool
}

func (q AlertQuery) Keep(r *AlertRule) bool {
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

// seedAlerts writes the scenario's alert rules and webhook endpoints.
// Missing ids come from a generator seeded by the scenario's seed.
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
	initial := StateOK
	if sc.Switch(SwitchInitialAlertState) == StateUnknown {
		initial = StateUnknown
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
				e.TimeoutMS = DefaultWebhookTimeoutMS
			}
			if err := st.PutDoc(DocWebhook, acct.Region, e.ID, &e); err != nil {
				return err
			}
		}
	}
	return nil
}
