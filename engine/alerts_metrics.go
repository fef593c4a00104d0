package engine

// The inputs of the alert metrics (docs/fidelity.md M12.6): the store's
// per-project conversation aggregates and the recorded runtime API errors.

import (
	"errors"
	"net/http"
	"time"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// RuleValue computes a rule's metric over its window ending at now, and
// whether the window had data (docs/fidelity.md G6, M12.7).
func (a *Engine) RuleValue(region string, r *AlertRule, now time.Time) (int64, bool) {
	q := store.MetricsQuery{Projects: a.ruleScope(region, r), From: now.Add(-WindowOf(r.WindowDuration)), To: now}
	switch r.Metric {
	case "turn_latency_p50":
		q.Percentiles = []int{50}
	case "turn_latency_p95":
		q.Percentiles = []int{95}
	}
	m, err := a.store.QueryMetrics(q)
	if err != nil {
		a.Log.Error("alert evaluation: metrics", "rule", r.ID, "err", err)
		return 0, false
	}
	activity := m.Starts > 0 || m.Turns > 0 || m.FunctionErrors > 0 || m.Crashes > 0
	switch r.Metric {
	case "call_volume":
		return m.Starts, activity
	case "function_errors":
		return m.FunctionErrors, activity
	case "call_crashes":
		return m.Crashes, activity
	case "turn_latency_p50", "turn_latency_p95":
		return m.Percentiles[0], m.Turns > 0
	case "api_errors":
		return m.APIErrors, activity || m.APIErrors > 0
	}
	return 0, false
}

// ruleScope lists a rule's projects: its own, or all of its account's.
func (a *Engine) ruleScope(region string, r *AlertRule) []store.ProjectRef {
	if r.ProjectID != nil {
		return []store.ProjectRef{{Region: region, AccountID: r.AccountID, ProjectID: *r.ProjectID}}
	}
	acct := a.View().Account(r.AccountID)
	if acct == nil {
		return nil
	}
	out := make([]store.ProjectRef, len(acct.Projects))
	for i := range acct.Projects {
		out[i] = store.ProjectRef{Region: region, AccountID: r.AccountID, ProjectID: acct.Projects[i].ID}
	}
	return out
}

// RecordAPIError records a runtime API error of a project now.
func (a *Engine) RecordAPIError(accountRef, projectRef string) error {
	acct := a.View().Account(accountRef)
	if acct == nil {
		return errors.New("unknown account " + accountRef)
	}
	proj := acct.Project(projectRef)
	if proj == nil {
		return errors.New("unknown project " + projectRef)
	}
	a.store.RecordAPIError(acct.Region, acct.ID, proj.ID, a.clock.Now(), longestWindow)
	return nil
}

// RuntimeAnswer is a runtime family's answer as the edge saw it.
type RuntimeAnswer struct {
	Region, Account, Project string
	Status                   int
	At                       time.Time
}

// IsAPIError reports whether an answer's status counts as an API error
// (5xx, M12.6).
func IsAPIError(status int) bool { return status >= http.StatusInternalServerError }

// NoteRuntimeAnswer records a 5xx answer as an API error of the account
// and project it names, when the region is the account's (M12.6).
func (a *Engine) NoteRuntimeAnswer(ans RuntimeAnswer) {
	if !IsAPIError(ans.Status) || ans.Account == "" || ans.Project == "" {
		return
	}
	pair, ok := scenario.RuntimeRegion(ans.Region)
	if !ok {
		return
	}
	acct := a.View().Account(ans.Account)
	if acct == nil || acct.Region != pair {
		return
	}
	proj := acct.Project(ans.Project)
	if proj == nil {
		return
	}
	a.store.RecordAPIError(pair, acct.ID, proj.ID, ans.At, longestWindow)
}
