package engine

// The cadence of alert evaluation (docs/time.md): passes fall on the grid
// reset time + k × interval, and the timer runs only while an enabled rule
// exists, so an idle world advances without passes.

import (
	"time"

	"github.com/agentplatform/mockplatform/scenario"
)

// evalSchedule is the evaluation timer's state (alertsState.schedMu).
type evalSchedule struct {
	base  time.Time // the grid's origin: the clock at the last reset
	armed bool      // a pass is pending on the clock
}

// armEvaluation starts a generation's cadence at now.
func (a *Engine) armEvaluation() {
	a.alerts.schedMu.Lock()
	a.alerts.sched = evalSchedule{base: a.clock.Now()}
	a.alerts.schedMu.Unlock()
	a.wakeEvaluation()
}

// wakeEvaluation arms a pass at the next grid point unless one is pending
// or no rule is enabled; rule writes call it.
func (a *Engine) wakeEvaluation() {
	if !a.hasEnabledRule() {
		return
	}
	interval := a.View().evaluationInterval()
	al := &a.alerts
	al.schedMu.Lock()
	if al.sched.armed {
		al.schedMu.Unlock()
		return
	}
	al.sched.armed = true
	gen := a.Generation()
	now := a.clock.Now()
	next := al.sched.base.Add(interval)
	if !next.After(now) {
		next = al.sched.base.Add((now.Sub(al.sched.base)/interval + 1) * interval)
	}
	al.schedMu.Unlock()
	a.clock.At(next, func(t time.Time) { a.evaluationTick(gen, t) })
}

// evaluationTick is one pass; it arms the next while rules exist.
func (a *Engine) evaluationTick(gen uint64, now time.Time) {
	if a.Generation() != gen || a.bg.Err() != nil {
		return
	}
	if a.evaluateAlertsAt(now) {
		a.clock.At(now.Add(a.View().evaluationInterval()), func(t time.Time) { a.evaluationTick(gen, t) })
		return
	}
	a.alerts.schedMu.Lock()
	stale := a.Generation() != gen
	if !stale {
		a.alerts.sched.armed = false
	}
	a.alerts.schedMu.Unlock()
	if !stale {
		// A rule created while this pass listed none left the arming to us.
		a.wakeEvaluation()
	}
}

func (a *Engine) hasEnabledRule() bool {
	for _, region := range scenario.Regions {
		rules, err := a.listAlertRules(region, "")
		if err != nil {
			a.Log.Error("alert evaluation: list rules", "err", err)
			return true // evaluate: the pass reports what is wrong
		}
		for _, r := range rules {
			if r.Enabled {
				return true
			}
		}
	}
	return false
}
