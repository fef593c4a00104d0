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
// is the state the rule was created in.
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

	// A deletion and a reset forget the history: TestAlertHistoryForgotten
	// (engine).
	mustStatus(t, h.do("DELETE", builderBase+"/v1/alert-rules/"+id, nil, builderHeaders...), 204)
}
