package handlers

import (
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/google/go-cmp/cmp"
)

func int64p(v int64) *int64 { return &v }

// TestAlertHistory: each evaluation pass extends the rule's current span
// or opens a new one at the pass's time; the span before the first pass
// is the state the rule was created in; a reset and a deletion forget it.
func TestAlertHistory(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	created := h.clock.Now()
	id := h.alertCreate(alertVolumeRule(nil))["id"].(string)
	rules, err := h.api.AlertRules()
	if err != nil || len(rules) != 1 || rules[0].History != nil || rules[0].State != "ok" || rules[0].Region != "us" {
		t.Fatalf("before any pass: %+v, %v", rules, err)
	}

	h.advance(time.Minute) // no data
	h.chatCreateN(3)
	h.advance(time.Minute) // 3: alert
	h.advance(time.Minute) // still 3: alert
	at := func(m int) time.Time { return created.Add(time.Duration(m) * time.Minute) }
	rules, err = h.api.AlertRules()
	if err != nil {
		t.Fatal(err)
	}
	want := []engine.AlertStateSpan{
		{State: "ok", From: created, To: at(1)},
		{State: "no_data", From: at(1), To: at(2), Evaluations: 1},
		{State: "alert", From: at(2), To: at(3), Value: int64p(3), Evaluations: 2},
	}
	if diff := cmp.Diff(want, rules[0].History); diff != "" {
		t.Fatalf("history (-want +got):\n%s", diff)
	}
	if rules[0].Truncated || rules[0].State != "alert" || *rules[0].CurrentValue != 3 {
		t.Fatalf("rule: %+v", rules[0])
	}

	// The result is a copy.
	*rules[0].History[2].Value = 99
	again, _ := h.api.AlertRules()
	if *again[0].History[2].Value != 3 {
		t.Fatal("AlertRules shares its history")
	}

	mustStatus(t, h.do("DELETE", builderBase+"/v1/alert-rules/"+id, nil, builderHeaders...), 204)
	h.api.Alerts.Mu.Lock()
	n := len(h.api.Alerts.History)
	h.api.Alerts.Mu.Unlock()
	if n != 0 {
		t.Fatalf("history of a deleted rule kept: %d", n)
	}

	h.alertCreate(alertVolumeRule(nil))
	h.advance(time.Minute)
	if err := h.api.Reset(); err != nil {
		t.Fatal(err)
	}
	h.api.Alerts.Mu.Lock()
	n = len(h.api.Alerts.History)
	h.api.Alerts.Mu.Unlock()
	if n != 0 {
		t.Fatalf("history survives a reset: %d", n)
	}
}

// TestAlertHistoryBounded: a rule that flips at every pass keeps the last
// MaxAlertHistory spans.
func TestAlertHistoryBounded(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	var before, after engine.AlertRule
	before.CurrentState = "ok"
	h.api.Alerts.Mu.Lock()
	for i := range engine.MaxAlertHistory + 10 {
		after.ID = "ar_x"
		after.CurrentState = []string{"alert", "ok"}[i%2]
		h.api.RecordAlertStateLocked("us", &before, &after, h.start.Add(time.Duration(i)*time.Minute))
	}
	got := h.api.Alerts.History[engine.HistoryKey("us", "ar_x")]
	h.api.Alerts.Mu.Unlock()
	if len(got.Spans) != engine.MaxAlertHistory || !got.Truncated {
		t.Fatalf("%d spans, truncated %v", len(got.Spans), got.Truncated)
	}
	if last := got.Spans[len(got.Spans)-1]; !last.From.Equal(h.start.Add(time.Duration(engine.MaxAlertHistory+9) * time.Minute)) {
		t.Fatalf("last span from %v", last.From)
	}
}
