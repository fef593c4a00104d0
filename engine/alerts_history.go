package engine

// The state history of alert rules for the console: each evaluation pass
// records the state it left a rule in; in memory, bounded, reset-scoped.

import (
	"slices"
	"time"

	"github.com/agentplatform/mockplatform/scenario"
)

// maxAlertHistory is how many state spans a rule keeps.
const maxAlertHistory = 100

// AlertStateSpan is a stretch of virtual time a rule spent in one state;
// a span ends where the next begins.
type AlertStateSpan struct {
	State string    `json:"state"`
	From  time.Time `json:"from"`
	// To is the next span's From, or the last span's latest evaluation.
	To time.Time `json:"to"`
	// Value is the span's last evaluated metric value (nil: none).
	Value *int64 `json:"value"`
	// Evaluations counts the passes that found the state.
	Evaluations int `json:"evaluations"`
}

type ruleHistory struct {
	Spans     []AlertStateSpan
	Truncated bool
}

func historyKey(region, id string) string { return region + "/" + id }

// recordAlertStateLocked records one evaluation of a rule. a.alerts.mu must
// be held.
func (a *Engine) recordAlertStateLocked(region string, before, after *AlertRule, now time.Time) {
	if a.alerts.history == nil {
		a.alerts.history = map[string]*ruleHistory{}
	}
	key := historyKey(region, after.ID)
	h := a.alerts.history[key]
	if h == nil {
		from := before.CreatedAt
		if before.Since != nil {
			from = *before.Since
		}
		h = &ruleHistory{Spans: []AlertStateSpan{{State: before.CurrentState, From: from, To: now, Value: before.CurrentValue}}}
		a.alerts.history[key] = h
	}
	value := copyInt64(after.CurrentValue)
	last := &h.Spans[len(h.Spans)-1]
	if last.State == after.CurrentState {
		last.To, last.Value = now, value
		last.Evaluations++
		return
	}
	last.To = now
	h.Spans = append(h.Spans, AlertStateSpan{State: after.CurrentState, From: now, To: now, Value: value, Evaluations: 1})
	if n := len(h.Spans) - maxAlertHistory; n > 0 {
		h.Spans = slices.Delete(h.Spans, 0, n)
		h.Truncated = true
	}
}

// forgetAlertHistoryLocked drops a deleted rule's history. a.alerts.mu
// must be held.
func (a *Engine) forgetAlertHistoryLocked(region, id string) {
	delete(a.alerts.history, historyKey(region, id))
}

func copyInt64(p *int64) *int64 {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// AlertRuleStatus is an alert rule with its state history.
type AlertRuleStatus struct {
	ID              string     `json:"id"`
	Region          string     `json:"region"`
	AccountID       string     `json:"account_id"`
	Name            string     `json:"name"`
	ProjectID       *string    `json:"project_id"`
	Metric          string     `json:"metric"`
	Operator        string     `json:"operator"`
	ThresholdValue  int64      `json:"threshold_value"`
	WindowDuration  string     `json:"window_duration"`
	Enabled         bool       `json:"enabled"`
	State           string     `json:"state"`
	CreatedAt       time.Time  `json:"created_at"`
	Since           *time.Time `json:"since"`
	LastEvaluatedAt *time.Time `json:"last_evaluated_at"`
	CurrentValue    *int64     `json:"current_value"`
	// History is the state over time, oldest first.
	History []AlertStateSpan `json:"history"`
	// Truncated reports that older spans were dropped (maxAlertHistory).
	Truncated bool `json:"truncated"`
}

// AlertRules lists every region's alert rules with their histories.
func (a *Engine) AlertRules() ([]AlertRuleStatus, error) {
	a.alerts.mu.Lock()
	defer a.alerts.mu.Unlock()
	var out []AlertRuleStatus
	for _, region := range scenario.Regions {
		rules, err := a.listAlertRules(region, "")
		if err != nil {
			return nil, err
		}
		for _, r := range rules {
			s := AlertRuleStatus{ID: r.ID, Region: region, AccountID: r.AccountID, Name: r.Name, ProjectID: r.ProjectID,
				Metric: r.Metric, Operator: r.Operator, ThresholdValue: r.ThresholdValue, WindowDuration: r.WindowDuration,
				Enabled: r.Enabled, State: r.CurrentState, CreatedAt: r.CreatedAt, Since: r.Since,
				LastEvaluatedAt: r.LastEvaluatedAt, CurrentValue: r.CurrentValue}
			if h := a.alerts.history[historyKey(region, r.ID)]; h != nil {
				s.History = slices.Clone(h.Spans)
				for i := range s.History {
					s.History[i].Value = copyInt64(s.History[i].Value)
				}
				s.Truncated = h.Truncated
			}
			out = append(out, s)
		}
	}
	return out, nil
}
