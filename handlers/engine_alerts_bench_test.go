package handlers

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/store"
)

// BenchmarkAlertEvaluation10Rules100k: one evaluation pass of 10 rules over
// 100k stored conversations of the project, spread over 7 days (about 10
// a minute), each with 3 turns.
func BenchmarkAlertEvaluation10Rules100k(b *testing.B) {
	h := newHarness(b)
	now := h.clock.Now()
	const n = 100_000
	span := 7 * 24 * time.Hour
	for i := range n {
		start := now.Add(-span + span/n*time.Duration(i))
		c := &store.Conversation{ID: fmt.Sprintf("CONV-%010d", i), Region: "us", AccountID: "1001", ProjectID: "2001",
			Environment: "live", Channel: "CHAT", StartedAt: start, EndedAt: start.Add(time.Minute), Metrics: map[string]any{}, State: map[string]any{}}
		for j := range 3 {
			at := start.Add(time.Duration(j) * 10 * time.Second)
			c.Turns = append(c.Turns, store.Turn{UserInput: "hi", UserInputAt: at, AgentResponse: "hello", AgentResponseAt: at.Add(800 * time.Millisecond),
				Intents: []string{}, Entities: map[string]string{}, Latency: 800 * time.Millisecond})
		}
		if err := h.store.PutConversation(c); err != nil {
			b.Fatal(err)
		}
	}
	metrics := []string{"turn_latency_p50", "turn_latency_p95", "api_errors", "function_errors", "call_crashes", "call_volume"}
	windows := []string{"5m", "10m", "60m"}
	for i := range 10 {
		body := map[string]any{"name": fmt.Sprint("r", i), "metric": metrics[i%len(metrics)], "operator": ">",
			"threshold_value": 100, "window_duration": windows[i%len(windows)]}
		if i%2 == 0 {
			body["project_id"] = "support"
		}
		r := h.do("POST", builderBase+"/v1/alert-rules", body, builderHeaders...)
		mustStatus(b, r, 201)
	}
	h.evaluate()
	rules, _ := h.api.listAlertRules("us", "1001")
	for _, r := range rules {
		if r.CurrentValue == nil {
			b.Fatalf("rule %s %s: no value (%s)", r.Metric, r.WindowDuration, r.CurrentState)
		}
	}
	runtime.GC()
	b.ResetTimer()
	for b.Loop() {
		h.evaluate()
	}
}
