package handlers

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/store"
)

// BenchmarkAlertEvaluationPass: one evaluation pass of 10 rules (mixed
// metrics, 5m/10m/60m windows, per project and account-wide) over 1k and
// 1M stored conversations of the project spread over the 7 days before
// now, each with 3 turns. The pass reads the store's aggregates, so both
// cost the same (target: within 1.5x; docs/performance.md).
func BenchmarkAlertEvaluationPass(b *testing.B) {
	for _, n := range []int{1_000, 1_000_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) { benchEvaluationPass(b, n) })
	}
}

func benchEvaluationPass(b *testing.B, n int) {
	h := newHarness(b)
	now := h.clock.Now()
	span := 7 * 24 * time.Hour
	batch := make([]*store.Conversation, 0, 10_000)
	for i := range n {
		start := now.Add(-span + span/time.Duration(n)*time.Duration(i))
		c := &store.Conversation{ID: fmt.Sprintf("CONV-%010d", i), Region: "us", AccountID: "1001", ProjectID: "2001",
			Environment: "live", Channel: "CHAT", StartedAt: start, EndedAt: start.Add(time.Minute), Metrics: map[string]any{}, State: map[string]any{}}
		for j := range 3 {
			at := start.Add(time.Duration(j) * 10 * time.Second)
			c.Turns = append(c.Turns, store.Turn{UserInput: "hi", UserInputAt: at, AgentResponse: "hello", AgentResponseAt: at.Add(800 * time.Millisecond),
				Intents: []string{}, Entities: map[string]string{}, Latency: time.Duration(400+i%1100) * time.Millisecond})
		}
		if batch = append(batch, c); len(batch) == cap(batch) || i == n-1 {
			if err := h.store.PutConversations(batch); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	metrics := []string{"turn_latency_p50", "turn_latency_p95", "api_errors", "function_errors", "call_crashes", "call_volume"}
	windows := []string{"5m", "10m", "60m"}
	for i := range 10 {
		body := map[string]any{"name": fmt.Sprint("r", i), "metric": metrics[i%len(metrics)], "operator": ">",
			"threshold_value": 100_000, "window_duration": windows[i%len(windows)]}
		if i%2 == 0 {
			body["project_id"] = "support"
		}
		r := h.do("POST", builderBase+"/v1/alert-rules", body, builderHeaders...)
		mustStatus(b, r, 201)
	}
	h.evaluate()
	rules, _ := h.api.ListAlertRules(&engine.Principal{Region: "us", Account: h.api.View().Account("1001")}, engine.AlertQuery{})
	for _, r := range rules {
		if r.CurrentValue == nil && n >= 10_000 {
			b.Fatalf("rule %s %s: no value (%s)", r.Metric, r.WindowDuration, r.CurrentState)
		}
	}
	runtime.GC()
	b.ResetTimer()
	for b.Loop() {
		h.evaluate()
	}
}
