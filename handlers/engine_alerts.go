package handlers

// Alert rule evaluation on the virtual clock (spec 2.3, 3.1, 6.1;
// docs/fidelity.md G6). Every evaluation interval (scenario
// alerts.evaluation_interval, default 1m) each enabled rule computes its
// metric over its window from the world and moves its state; a move into
// alert sends alerts.triggered, alert → ok sends alerts.resolved.

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// DefaultEvaluationInterval is the evaluation cadence unless the scenario
// sets alerts.evaluation_interval.
const DefaultEvaluationInterval = time.Minute

// metricLookback is how far before a window's start conversations are
// read for events inside the window (turns, function errors, crashes of
// conversations that started earlier).
const metricLookback = time.Hour

// EvaluationPath is the path a fault rule of family alerts matches to fail
// an evaluation pass (the rules move to unknown), e.g.
// {match: {family: alerts, path: /_evaluation}, action: {preset: monitoring_backend_failure}, times: 1}.
const EvaluationPath = "/_evaluation"

// evaluationInterval is the cadence of evaluation passes. Scenario files
// are validated to 1s or more; a scenario built in Go skips that check, so
// the floor is applied here too (a nanosecond cadence would never let an
// Advance finish).
func (w *World) evaluationInterval() time.Duration {
	if d := w.sc.Alerts.EvaluationInterval.D(); d > 0 {
		return max(d, scenario.MinClockSetting)
	}
	return DefaultEvaluationInterval
}

// armEvaluation starts the evaluation timer of a reset generation; it
// re-arms itself after each pass and stops once the generation is stale.
func (a *API) armEvaluation(gen uint64) {
	var tick func(now time.Time)
	tick = func(now time.Time) {
		if a.generation() != gen || a.bg.Err() != nil {
			return
		}
		a.evaluateAlertsAt(now)
		a.clock.At(now.Add(a.world().evaluationInterval()), tick)
	}
	a.clock.At(a.clock.Now().Add(a.world().evaluationInterval()), tick)
}

// EvaluateAlerts runs one evaluation pass now (the control plane's
// "evaluate now"), with the webhook attempts it starts, on the clock's
// path: the pass is a timer due now and an Advance of zero fires it (and
// anything else already due). The cadence timer keeps its schedule. The
// error is ctx's when it ended before the pass ran.
func (a *API) EvaluateAlerts(ctx context.Context) error {
	gen := a.generation()
	a.clock.At(a.clock.Now(), func(now time.Time) {
		if a.generation() == gen && a.bg.Err() == nil {
			a.evaluateAlertsAt(now)
		}
	})
	_, err := a.clock.Advance(ctx, 0)
	return err
}

// RecordAPIError records one runtime API error of a project (an input of
// the api_errors metric besides 5xx answers in the journal), at now.
func (a *API) RecordAPIError(accountRef, projectRef string) error {
	acct := a.world().account(accountRef)
	if acct == nil {
		return errors.New("unknown account " + accountRef)
	}
	proj := acct.Project(projectRef)
	if proj == nil {
		return errors.New("unknown project " + projectRef)
	}
	a.alerts.mu.Lock()
	a.alerts.apiErrors = append(a.alerts.apiErrors, apiErrorMark{At: a.clock.Now(), Region: acct.Region, Account: acct.ID, Project: proj.ID})
	a.alerts.mu.Unlock()
	return nil
}

// apiErrorMark is one runtime API error attributed to a project.
type apiErrorMark struct {
	At                       time.Time
	Region, Account, Project string
}

// turnSample is one agent turn: when the user spoke and the latency.
type turnSample struct {
	At time.Time
	MS int64
}

// scopeData is what one project's conversations give the metrics.
type scopeData struct {
	starts   []time.Time
	turns    []turnSample
	funcErrs []time.Time
	crashes  []time.Time
}

// runtimeFamilies are the families whose 5xx answers count as api_errors.
var runtimeFamilies = map[string]bool{"chat": true, "conversations": true, "concurrency": true, "handoff": true,
	"outbound": true, "external_events": true, "dni": true}

// evaluationFails reports whether a fault rule fails this pass: only
// consulted when some rule targets EvaluationPath.
func (a *API) evaluationFails() bool {
	targeted := false
	for _, st := range a.faults.List() {
		if st.Match.Path == EvaluationPath && !st.Exhausted {
			targeted = true
		}
	}
	if !targeted {
		return false
	}
	_, ok := a.faults.Match(faults.Request{Family: famAlerts.name, Method: "POST", Path: EvaluationPath})
	return ok
}

// alertEvent is a state move to announce.
type alertEvent struct {
	region, account string
	payload         alertEventPayload
}

// alertEventPayload is the body of alerts.triggered and alerts.resolved
// (spec 6.1).
type alertEventPayload struct {
	EventType string         `json:"event_type"`
	Alert     alertEventBody `json:"alert"`
}

type alertEventBody struct {
	ID             string  `json:"id"`
	Name           string  `json:"name"`
	ProjectID      *string `json:"project_id"`
	Metric         string  `json:"metric"`
	Operator       string  `json:"operator"`
	ThresholdValue int64   `json:"threshold_value"`
	CurrentValue   *int64  `json:"current_value"`
	PreviousState  string  `json:"previous_state"`
	TriggeredAt    string  `json:"triggered_at,omitempty"`
	ResolvedAt     string  `json:"resolved_at,omitempty"`
}

var errSkipRule = errors.New("rule changed during evaluation")

// evaluateAlertsAt runs one evaluation pass at now.
func (a *API) evaluateAlertsAt(now time.Time) {
	a.alerts.mu.Lock()
	defer a.alerts.mu.Unlock()
	failed := a.evaluationFails()
	var events []alertEvent
	for _, region := range scenario.Regions {
		rules, err := a.listAlertRules(region, "")
		if err != nil {
			a.log.Error("alert evaluation: list rules", "err", err)
			continue
		}
		rules = slices.DeleteFunc(rules, func(r *alertRule) bool { return !r.Enabled })
		if len(rules) == 0 {
			continue
		}
		ev := a.newEvaluatorLocked(region, now, rules)
		for _, r := range rules {
			value, hasData := int64(0), false
			if !failed {
				value, hasData = ev.value(r)
			}
			if e := a.applyEvaluation(region, r, now, failed, value, hasData); e != nil {
				events = append(events, *e)
			}
		}
	}
	for _, e := range events {
		a.announce(e, now)
	}
}

// evaluator holds one region's metric inputs for a pass.
type evaluator struct {
	a      *API
	region string
	now    time.Time
	scopes map[string]*scopeData // account/project
	apiErr []apiErrorMark
}

func (a *API) newEvaluatorLocked(region string, now time.Time, rules []*alertRule) *evaluator {
	ev := &evaluator{a: a, region: region, now: now, scopes: map[string]*scopeData{}}
	// One scan per project, over the longest window any rule needs.
	maxWin := map[string]time.Duration{}
	needAPI := false
	w := a.world()
	for _, r := range rules {
		win := windowOf(r.WindowDuration)
		var projects []string
		if r.ProjectID != nil {
			projects = []string{*r.ProjectID}
		} else if acct := w.account(r.AccountID); acct != nil {
			for i := range acct.Projects {
				projects = append(projects, acct.Projects[i].ID)
			}
		}
		for _, p := range projects {
			k := r.AccountID + "/" + p
			maxWin[k] = max(maxWin[k], win)
		}
		if r.Metric == "api_errors" {
			needAPI = true
		}
	}
	keys := make([]string, 0, len(maxWin))
	for k := range maxWin {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		acct, proj, _ := strings.Cut(k, "/")
		ev.scopes[k] = a.scanScope(region, acct, proj, now.Add(-maxWin[k]-metricLookback), now)
	}
	if needAPI {
		ev.apiErr = a.apiErrorMarksLocked(region, now.Add(-time.Hour), now)
	}
	return ev
}

func windowOf(s string) time.Duration {
	switch s {
	case "5m":
		return 5 * time.Minute
	case "10m":
		return 10 * time.Minute
	case "60m":
		return time.Hour
	}
	return 5 * time.Minute
}

// scanScope reads a project's conversations started in [from, now] and
// keeps what the metrics need.
func (a *API) scanScope(region, account, project string, from, now time.Time) *scopeData {
	d := &scopeData{}
	list, _, err := a.store.ListConversations(store.ConversationQuery{Region: region, AccountID: account, ProjectID: project,
		From: from, To: now.Add(time.Nanosecond)})
	if err != nil {
		a.log.Error("alert evaluation: list conversations", "err", err)
		return d
	}
	for _, c := range list {
		d.starts = append(d.starts, c.StartedAt)
		for i, t := range c.Turns {
			if i == 0 && t.UserInput == "" && !t.IsSilence && !t.IsOOD && t.Latency == 0 {
				continue // the greeting: no user turn, no latency
			}
			d.turns = append(d.turns, turnSample{At: t.UserInputAt, MS: t.Latency.Milliseconds()})
		}
		d.funcErrs = append(d.funcErrs, c.FunctionErrors...)
		d.crashes = append(d.crashes, c.Crashes...)
	}
	return d
}

// apiErrorMarks collects the runtime API errors of a region in [from, now]:
// 5xx answers of runtime families in the journal whose path names the
// account and project, and the recorded ones. a.alerts.mu must be held.
func (a *API) apiErrorMarksLocked(region string, from, now time.Time) []apiErrorMark {
	w := a.world()
	var out []apiErrorMark
	for _, e := range a.journal.List(Filter{}) {
		if e.Status < 500 || !runtimeFamilies[e.Family] || e.Time.Before(from) || e.Time.After(now) {
			continue
		}
		if pair, _ := regionPair("runtime", e.Region); pair != region {
			continue
		}
		segs := strings.Split(strings.Trim(subPath(e.Path), "/"), "/")
		if len(segs) < 3 {
			continue
		}
		acct := w.account(segs[1])
		if acct == nil || acct.Region != region {
			continue
		}
		proj := acct.Project(segs[2])
		if proj == nil {
			continue
		}
		out = append(out, apiErrorMark{At: e.Time, Region: region, Account: acct.ID, Project: proj.ID})
	}
	for _, m := range a.alerts.apiErrors {
		if m.Region == region && !m.At.Before(from) && !m.At.After(now) {
			out = append(out, m)
		}
	}
	return out
}

// value computes a rule's metric over its window and whether the window
// had data (docs/fidelity.md G6): conversation activity in the scope, or,
// for api_errors, at least one API error.
func (ev *evaluator) value(r *alertRule) (int64, bool) {
	from := ev.now.Add(-windowOf(r.WindowDuration))
	in := func(t time.Time) bool { return !t.Before(from) && !t.After(ev.now) }
	var scopes []*scopeData
	projects := map[string]bool{}
	for k, d := range ev.scopes {
		acct, proj, _ := strings.Cut(k, "/")
		if acct != r.AccountID || r.ProjectID != nil && *r.ProjectID != proj {
			continue
		}
		scopes = append(scopes, d)
		projects[proj] = true
	}
	var starts, funcErrs, crashes int64
	var lat []int64
	for _, d := range scopes {
		for _, t := range d.starts {
			if in(t) {
				starts++
			}
		}
		for _, t := range d.turns {
			if in(t.At) {
				lat = append(lat, t.MS)
			}
		}
		for _, t := range d.funcErrs {
			if in(t) {
				funcErrs++
			}
		}
		for _, t := range d.crashes {
			if in(t) {
				crashes++
			}
		}
	}
	activity := starts > 0 || len(lat) > 0 || funcErrs > 0 || crashes > 0
	switch r.Metric {
	case "call_volume":
		return starts, activity
	case "function_errors":
		return funcErrs, activity
	case "call_crashes":
		return crashes, activity
	case "turn_latency_p50":
		return percentile(lat, 50), len(lat) > 0
	case "turn_latency_p95":
		return percentile(lat, 95), len(lat) > 0
	case "api_errors":
		var n int64
		for _, m := range ev.apiErr {
			if m.Account == r.AccountID && projects[m.Project] && in(m.At) {
				n++
			}
		}
		return n, activity || n > 0
	}
	return 0, false
}

// percentile is the nearest-rank percentile of values (0 for none).
func percentile(values []int64, p int) int64 {
	if len(values) == 0 {
		return 0
	}
	s := slices.Clone(values)
	slices.Sort(s)
	rank := (p*len(s) + 99) / 100 // ceil(p/100 * n)
	if rank < 1 {
		rank = 1
	}
	return s[rank-1]
}

// breaches applies a rule's operator.
func breaches(value int64, op string, threshold int64) bool {
	switch op {
	case ">":
		return value > threshold
	case "<":
		return value < threshold
	case ">=":
		return value >= threshold
	case "<=":
		return value <= threshold
	}
	return false
}

// applyEvaluation stores one rule's evaluation result, records it in the
// rule's state history and returns the event it causes, if any
// (docs/fidelity.md G6). a.alerts.mu must be held.
func (a *API) applyEvaluation(region string, listed *alertRule, now time.Time, failed bool, value int64, hasData bool) *alertEvent {
	var ev *alertEvent
	triggerFromOKOnly := a.world().fidelity(switchAlertTriggerFrom) == stateOK
	var r, before alertRule
	err := a.store.UpdateDoc(docAlertRule, region, listed.ID, &r, func() error {
		before = r
		if !r.Enabled || r.Metric != listed.Metric || r.WindowDuration != listed.WindowDuration ||
			!sameProject(r.ProjectID, listed.ProjectID) {
			return errSkipRule // changed since the metric was computed: next pass
		}
		prev := r.CurrentState
		next := prev
		switch {
		case failed:
			// The evaluation did not complete: the state is unknown,
			// last_evaluated_at and current_value stay as they were.
			next = stateUnknown
		case !hasData:
			next = stateNoData
			r.CurrentValue = nil
			r.LastEvaluatedAt = &now
		default:
			v := value
			r.CurrentValue = &v
			r.LastEvaluatedAt = &now
			if breaches(value, r.Operator, r.ThresholdValue) {
				next = stateAlert
			} else {
				next = stateOK
			}
		}
		if next == prev {
			return nil
		}
		r.CurrentState = next
		since := now
		r.Since = &since
		body := alertEventBody{ID: r.ID, Name: r.Name, ProjectID: r.ProjectID, Metric: r.Metric, Operator: r.Operator,
			ThresholdValue: r.ThresholdValue, CurrentValue: r.CurrentValue, PreviousState: prev}
		switch {
		case next == stateAlert && (prev == stateOK || !triggerFromOKOnly):
			body.TriggeredAt = fmtAlertTime(now)
			ev = &alertEvent{region: region, account: r.AccountID, payload: alertEventPayload{EventType: EventAlertsTriggered, Alert: body}}
		case prev == stateAlert && next == stateOK:
			body.ResolvedAt = fmtAlertTime(now)
			ev = &alertEvent{region: region, account: r.AccountID, payload: alertEventPayload{EventType: EventAlertsResolved, Alert: body}}
		}
		return nil
	})
	if err != nil {
		if !errors.Is(err, errSkipRule) && !errors.Is(err, store.ErrNotFound) {
			a.log.Error("alert evaluation: update rule", "rule", listed.ID, "err", err)
		}
		return nil
	}
	a.recordAlertStateLocked(region, &before, &r, now)
	return ev
}

func sameProject(x, y *string) bool {
	if x == nil || y == nil {
		return x == nil && y == nil
	}
	return *x == *y
}

// RecordConversationEvent records a function error ("function_error") or a
// call crash ("crash", which also ends the conversation) on a conversation
// at now: inputs of the function_errors and call_crashes metrics from
// Go and the control plane.
func (a *API) RecordConversationEvent(id, kind string) error {
	if kind != "function_error" && kind != "crash" {
		return errors.New(`kind must be "function_error" or "crash"`)
	}
	now := a.clock.Now()
	for _, region := range scenario.Regions {
		_, err := a.store.UpdateConversation(region, id, func(c *store.Conversation) error {
			if kind == "crash" {
				c.Crashes = append(c.Crashes, now)
				endConversation(c, now)
			} else {
				c.FunctionErrors = append(c.FunctionErrors, now)
			}
			return nil
		})
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		return err
	}
	return store.ErrNotFound
}
