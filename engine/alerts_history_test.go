package engine

import (
	"context"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/scenario"
)

// testVocabulary is what the default scenario names (the family table's
// vocabulary lives in handlers).
var testVocabulary = &scenario.Vocabulary{
	Kinds:        []string{"chat", "connector", "builder", "conversations", "outbound", "external_events", "dni", "handoff"},
	ProjectKinds: []string{"chat", "connector", "dni"},
	Faults:       &faults.Vocabulary{Families: []string{NameAlerts, "webhooks"}},
}

// openTestEngine opens an engine of the default scenario on the manual
// clock.
func openTestEngine(t *testing.T) *Engine {
	t.Helper()
	e, err := OpenEngine(Config{Vocabulary: testVocabulary})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(e.Close)
	if err := e.Load(); err != nil {
		t.Fatal(err)
	}
	return e
}

// historyLen counts the rules with a recorded history.
func (a *Engine) historyLen() int {
	a.alerts.mu.Lock()
	defer a.alerts.mu.Unlock()
	return len(a.alerts.history)
}

// TestAlertHistoryForgotten: a deletion and a reset forget a rule's state
// history.
func TestAlertHistoryForgotten(t *testing.T) {
	t.Parallel()
	e := openTestEngine(t)
	acct := e.View().Account("1001")
	p := &Principal{Account: acct, Region: acct.Region}
	name, metric, op, window := "volume", "call_volume", ">", "5m"
	var threshold int64 = 2
	in := AlertRuleInput{Name: &name, Metric: &metric, Operator: &op, ThresholdValue: &threshold, WindowDuration: &window}
	advance := func() {
		t.Helper()
		if _, err := e.clock.Advance(context.Background(), time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	r, err := e.CreateAlertRule(p, in)
	if err != nil {
		t.Fatal(err)
	}
	advance()
	if n := e.historyLen(); n != 1 {
		t.Fatalf("histories after a pass: %d", n)
	}
	if err := e.DeleteAlertRule(p, r.ID); err != nil {
		t.Fatal(err)
	}
	if n := e.historyLen(); n != 0 {
		t.Fatalf("history of a deleted rule kept: %d", n)
	}

	if _, err := e.CreateAlertRule(p, in); err != nil {
		t.Fatal(err)
	}
	advance()
	if err := e.Reset(); err != nil {
		t.Fatal(err)
	}
	if n := e.historyLen(); n != 0 {
		t.Fatalf("history survives a reset: %d", n)
	}
}

// TestAlertHistoryBounded: a rule that flips at every pass keeps the last
// maxAlertHistory spans.
func TestAlertHistoryBounded(t *testing.T) {
	t.Parallel()
	var e Engine
	start := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var before, after AlertRule
	before.CurrentState = "ok"
	e.alerts.mu.Lock()
	for i := range maxAlertHistory + 10 {
		after.ID = "ar_x"
		after.CurrentState = []string{"alert", "ok"}[i%2]
		e.recordAlertStateLocked("us", &before, &after, start.Add(time.Duration(i)*time.Minute))
	}
	got := e.alerts.history[historyKey("us", "ar_x")]
	e.alerts.mu.Unlock()
	if len(got.Spans) != maxAlertHistory || !got.Truncated {
		t.Fatalf("%d spans, truncated %v", len(got.Spans), got.Truncated)
	}
	if last := got.Spans[len(got.Spans)-1]; !last.From.Equal(start.Add(time.Duration(maxAlertHistory+9) * time.Minute)) {
		t.Fatalf("last span from %v", last.From)
	}
}
