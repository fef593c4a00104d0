package handlers

// Alert rule evaluation on the virtual clock (docs/api.md#alert-evaluation;
// docs/fidelity.md G6, M12.6; docs/time.md). Every evaluation interval
// (scenario alerts.evaluation_interval, default 1m) each enabled rule
// computes its metric over its window and moves its state; a move into
// alert sends alerts.triggered, alert → ok sends alerts.resolved. The
// metrics come from the store's per-project aggregates (store/metrics.go),
// so a pass costs O(rules × minutes in the window), not O(conversations).
// The cadence timer runs only while an enabled rule exists
// (engine_alerts_schedule.go).

import (
	"context"
	"time"
)

// EvaluateAlerts runs one evaluation pass now (the control plane's
// "evaluate now"), with the webhook attempts it starts, on the clock's
// path: the pass is a timer due now and an Advance of zero fires it (and
// anything else already due). The cadence timer keeps its schedule. The
// error is ctx's when it ended before the pass ran.
func (a *API) EvaluateAlerts(ctx context.Context) error {
	gen := a.Generation()
	a.Clock().At(a.Clock().Now(), func(now time.Time) {
		if a.Generation() == gen && a.bg.Err() == nil {
			a.EvaluateAlertsAt(now)
		}
	})
	_, err := a.Clock().Advance(ctx, 0)
	return err
}
