package handlers

import (
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"
)

// TestEvaluationTimerFollowsRules: the evaluation timer runs only while an
// enabled rule exists, and its passes fall on the grid reset time + k ×
// interval whenever it starts again.
func TestEvaluationTimerFollowsRules(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	if n := h.clock.Pending(); n != 0 {
		t.Fatalf("%d timers with no rule, want none", n)
	}
	h.advance(365 * 24 * time.Hour) // an idle year: nothing to fire
	if n := h.clock.Pending(); n != 0 {
		t.Fatalf("%d timers after an idle year", n)
	}
	// The grid's origin is the reset time.
	if err := h.api.Reset(); err != nil {
		t.Fatal(err)
	}
	base := h.clock.Now()

	h.advance(150 * time.Second)
	id := h.alertCreate(alertVolumeRule(nil))["id"].(string)
	if n := h.clock.Pending(); n != 1 {
		t.Fatalf("%d timers after creating a rule, want 1", n)
	}
	h.advance(30 * time.Second)
	if got := h.alertGet(id)["last_evaluated_at"]; got != engine.FmtAlertTime(base.Add(3*time.Minute)) {
		t.Fatalf("first pass at %v, want the grid point +3m", got)
	}

	// Disabled: the next pass finds no rule and the timer stops.
	mustStatus(t, h.do("PATCH", builderBase+"/v1/alert-rules/"+id, map[string]any{"enabled": false}, builderHeaders...), 200)
	h.advance(time.Minute)
	if n := h.clock.Pending(); n != 0 {
		t.Fatalf("%d timers with the only rule disabled", n)
	}
	h.advance(24 * time.Hour)
	if got := h.alertGet(id)["last_evaluated_at"]; got != engine.FmtAlertTime(base.Add(3*time.Minute)) {
		t.Fatalf("a disabled rule was evaluated: %v", got)
	}

	// Enabled again off the grid: the next pass is the next grid point.
	h.advance(20 * time.Second)
	mustStatus(t, h.do("PATCH", builderBase+"/v1/alert-rules/"+id, map[string]any{"enabled": true}, builderHeaders...), 200)
	want := base.Add(24*time.Hour + 5*time.Minute)
	h.advance(want.Sub(h.clock.Now()) - time.Nanosecond)
	if got := h.alertGet(id)["last_evaluated_at"]; got != engine.FmtAlertTime(base.Add(3*time.Minute)) {
		t.Fatalf("evaluated before the grid point: %v", got)
	}
	h.advance(time.Nanosecond)
	if got := h.alertGet(id)["last_evaluated_at"]; got != engine.FmtAlertTime(want) {
		t.Fatalf("pass at %v, want %v", got, engine.FmtAlertTime(want))
	}
	if n := h.clock.Pending(); n != 1 {
		t.Fatalf("%d timers while a rule is enabled, want 1", n)
	}
}
