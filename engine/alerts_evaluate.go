package engine

// Alert rule evaluation on the virtual clock (docs/api.md#alert-evaluation;
// docs/fidelity.md G6, M12.6; docs/time.md): each interval every enabled
// rule computes its metric from the store's per-project aggregates and
// moves its state, announcing alerts.triggered and alerts.resolved.

import (
	"context"
	"errors"
	"slices"
	"time"

	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

const defaultEvaluationInterval = time.Minute

// EvaluationPath is the path a fault rule of family alerts matches to fail
// an evaluation pass (the rules move to unknown).
const EvaluationPath = "/_evaluation"

// evaluationInterval is the pass cadence, floored at 1s also for
// scenarios built in Go (a tiny cadence would never let Advance finish).
func (w *View) evaluationInterval() time.Duration {
	if d := w.sc.Alerts.EvaluationInterval.D(); d > 0 {
		return max(d, scenario.MinClockSetting)
	}
	return defaultEvaluationInterval
}

// evaluationFails reports whether a fault rule fails the pass at now.
func (a *Engine) evaluationFails(now time.Time) bool {
	targeted := false
	for _, st := range a.faults.List() {
		if st.Match.Path == EvaluationPath && !st.Exhausted {
			targeted = true
		}
	}
	if !targeted {
		return false
	}
	_, ok := a.faults.Match(faults.Request{Family: NameAlerts, Method: "POST", Path: EvaluationPath, Time: now})
	return ok
}

type alertEvent struct {
	region, account string
	payload         AlertEventPayload
}

// AlertEventPayload is the body of alerts.triggered and alerts.resolved.
type AlertEventPayload struct {
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

// EvaluateAlerts runs one evaluation pass now, on the clock's path (a timer
// due now fired by a zero Advance); the cadence keeps its schedule. The
// error is ctx's when it ended first.
func (a *Engine) EvaluateAlerts(ctx context.Context) error {
	gen := a.Generation()
	a.clock.At(a.clock.Now(), func(now time.Time) {
		if a.Generation() == gen && a.bg.Err() == nil {
			a.evaluateAlertsAt(now)
		}
	})
	_, err := a.clock.Advance(ctx, 0)
	return err
}

// evaluateAlertsAt runs a pass at now over every region's enabled rules,
// reporting whether there were any.
func (a *Engine) evaluateAlertsAt(now time.Time) bool {
	a.alerts.mu.Lock()
	defer a.alerts.mu.Unlock()
	type regionRules struct {
		region string
		rules  []*AlertRule
	}
	var work []regionRules
	for _, region := range scenario.Regions {
		rules, err := a.listAlertRules(region, "")
		if err != nil {
			a.Log.Error("alert evaluation: list rules", "err", err)
			continue
		}
		rules = slices.DeleteFunc(rules, func(r *AlertRule) bool { return !r.Enabled })
		if len(rules) > 0 {
			work = append(work, regionRules{region, rules})
		}
	}
	if len(work) == 0 {
		return false
	}
	a.RecordClockEvent(ClockAlertsEvaluation)
	failed := a.evaluationFails(now)
	a.store.PruneAPIErrors(now.Add(-longestWindow))
	var events []alertEvent
	for _, rr := range work {
		for _, r := range rr.rules {
			value, hasData := int64(0), false
			if !failed {
				value, hasData = a.RuleValue(rr.region, r, now)
			}
			if e := a.applyEvaluation(rr.region, r, now, failed, value, hasData); e != nil {
				events = append(events, *e)
			}
		}
	}
	for _, e := range events {
		a.announce(e, now)
	}
	return true
}

// longestWindow is the longest window_duration: older errors never count.
const longestWindow = time.Hour

// WindowOf is the span of a window_duration value.
func WindowOf(s string) time.Duration {
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

// applyEvaluation stores one rule's result, records its history and
// returns the event it causes, if any (G6). a.alerts.mu must be held.
func (a *Engine) applyEvaluation(region string, listed *AlertRule, now time.Time, failed bool, value int64, hasData bool) *alertEvent {
	var ev *alertEvent
	triggerFromOKOnly := a.View().Fidelity(switchAlertTriggerFrom) == stateOK
	var r, before AlertRule
	err := a.store.UpdateDoc(DocAlertRule, region, listed.ID, &r, func() error {
		before = r
		if !r.Enabled || r.Metric != listed.Metric || r.WindowDuration != listed.WindowDuration ||
			!sameProject(r.ProjectID, listed.ProjectID) {
			return errSkipRule // changed since the metric was computed: next pass
		}
		prev := r.CurrentState
		next := prev
		switch {
		case failed:
			// The evaluation did not complete: unknown, other fields kept.
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
			body.TriggeredAt = FmtAlertTime(now)
			ev = &alertEvent{region: region, account: r.AccountID, payload: AlertEventPayload{EventType: EventAlertsTriggered, Alert: body}}
		case prev == stateAlert && next == stateOK:
			body.ResolvedAt = FmtAlertTime(now)
			ev = &alertEvent{region: region, account: r.AccountID, payload: AlertEventPayload{EventType: EventAlertsResolved, Alert: body}}
		}
		return nil
	})
	if err != nil {
		if !errors.Is(err, errSkipRule) && !errors.Is(err, store.ErrNotFound) {
			a.Log.Error("alert evaluation: update rule", "rule", listed.ID, "err", err)
		}
		return nil
	}
	if before.CurrentState != r.CurrentState {
		a.RecordTransition(MachineAlertRule, before.CurrentState, r.CurrentState)
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

// RecordConversationEvent records a "function_error" or a "crash" (which
// ends the conversation) on a conversation now, for the alert metrics.
func (a *Engine) RecordConversationEvent(id, kind string) error {
	if kind != "function_error" && kind != "crash" {
		return errors.New(`kind must be "function_error" or "crash"`)
	}
	now := a.clock.Now()
	for _, region := range scenario.Regions {
		_, err := a.store.UpdateConversation(region, id, func(c *store.Conversation) error {
			if kind == "crash" {
				c.Crashes = append(c.Crashes, now)
				EndConversation(c, now)
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
