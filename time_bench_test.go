package mockplatform

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"
)

// Benchmarks of the time model (docs/performance.md):
//
//	go test -run xxx -bench 'Advance' -benchtime 5x .
//
// Targets: BenchmarkAdvance60m/50k at most 250 ms, /500k at most twice the
// 50k figure; BenchmarkAdvance24h/50k at most 2 s; BenchmarkAdvanceIdleYear
// at most 200 ms.

// benchRules are ten alert rules of mixed metrics over 5m, 10m and 60m
// windows, account-wide and per project.
const benchRules = `
    alert_rules:
      - {name: r0, project: support, metric: turn_latency_p50, operator: ">", threshold_value: 1000, window_duration: 5m}
      - {name: r1, project: support, metric: turn_latency_p95, operator: ">", threshold_value: 1400, window_duration: 10m}
      - {name: r2, metric: call_volume, operator: ">", threshold_value: 100, window_duration: 60m}
      - {name: r3, project: support, metric: function_errors, operator: ">", threshold_value: 0, window_duration: 5m}
      - {name: r4, metric: call_crashes, operator: ">", threshold_value: 0, window_duration: 10m}
      - {name: r5, project: support, metric: api_errors, operator: ">", threshold_value: 0, window_duration: 60m}
      - {name: r6, metric: turn_latency_p95, operator: ">", threshold_value: 1200, window_duration: 60m}
      - {name: r7, project: support, metric: call_volume, operator: "<", threshold_value: 10, window_duration: 5m}
      - {name: r8, metric: turn_latency_p50, operator: ">=", threshold_value: 900, window_duration: 10m}
      - {name: r9, project: support, metric: call_volume, operator: ">", threshold_value: 500, window_duration: 60m}
`

// benchWorld is a scenario whose project has n generated conversations
// started in the hour before the clock's start, with the ten rules (or
// none).
func benchWorld(n int, rules bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, `name: bench
clock: {start: 2026-01-01T00:00:00Z}
accounts:
  - slug: acme
    id: "1001"
    region: us
    projects:
      - slug: support
        id: "2001"
        generate:
          - {count: %d, from: 2025-12-31T23:00:00Z, to: 2026-01-01T00:00:00Z}
      - slug: sales
        id: "2002"
`, n)
	if rules {
		b.WriteString(benchRules)
	}
	return b.String()
}

// benchAdvance measures one Advance(d) from the scenario's start: each
// iteration starts from a reset (not measured).
func benchAdvance(b *testing.B, yaml string, d time.Duration) {
	p, cleanup := benchStart(b, WithScenarioYAML([]byte(yaml)), WithoutListener())
	defer cleanup()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		if err := p.Reset(); err != nil {
			b.Fatal(err)
		}
		runtime.GC() // the reset's garbage, not the Advance's
		b.StartTimer()
		p.Advance(d)
	}
}

// BenchmarkAdvance60m: Advance(60m) with 10 rules (60 passes) over 50k and
// 500k conversations started in the last hour.
func BenchmarkAdvance60m(b *testing.B) {
	for _, n := range []int{50_000, 500_000} {
		b.Run(fmt.Sprintf("%dk", n/1000), func(b *testing.B) { benchAdvance(b, benchWorld(n, true), time.Hour) })
	}
}

// BenchmarkAdvance24h: Advance(24h) with 10 rules (1,440 passes) over the
// same 50k conversations, and over 100k without rules.
func BenchmarkAdvance24h(b *testing.B) {
	b.Run("50k", func(b *testing.B) { benchAdvance(b, benchWorld(50_000, true), 24*time.Hour) })
	b.Run("100k-norules", func(b *testing.B) { benchAdvance(b, benchWorld(100_000, false), 24*time.Hour) })
}

// BenchmarkAdvanceIdleYear: Advance(8760h) over the default scenario.
func BenchmarkAdvanceIdleYear(b *testing.B) {
	p, cleanup := benchStart(b, WithoutListener())
	defer cleanup()
	for b.Loop() {
		p.Advance(8760 * time.Hour)
	}
}
