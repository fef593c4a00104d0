package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// runOf is one measured load: mockd at mockdRPS requests per second with
// a p99 of p99 µs and cpu of CPU per request, the bare server at 1000 and
// a p99 of 100 µs.
func runOf(load string, mockdRPS, p99 int64, cpu time.Duration) result {
	sl := func(rps, p99 int64, cpu time.Duration) []slice {
		return []slice{{Requests: rps, DurationUS: 1e6, P50US: p99 / 2, P99US: p99, CPU: time.Duration(rps) * cpu}}
	}
	return result{load: load, mockd: sl(mockdRPS, p99, cpu), bare: sl(1000, 100, 10*time.Microsecond)}
}

func TestTargets(t *testing.T) {
	const mb = 1 << 20
	rep := &report{baseRSS: 20 * mb, worlds: []*world{
		{records: 1_000, loaded: memory{rss: 21 * mb}, created: 1000, grown: 900_000,
			results: []result{runOf("v3-page-100", 100, 1000, 500*time.Microsecond)}},
		{records: 100_000, loaded: memory{rss: 80 * mb}, created: 2000, grown: 2_100_000, results: []result{
			runOf("v3-page-1", 600, 200, 20*time.Microsecond),
			runOf("chat-create", 400, 300, 30*time.Microsecond),
			runOf("chat-respond", 700, 150, 20*time.Microsecond)}},
		{records: 1_000_000, ready: 2100 * time.Millisecond, loaded: memory{rss: 20*mb + 450_000_000}, results: []result{
			runOf("v3-page-1", 650, 190, 20*time.Microsecond),
			runOf("v3-page-100", 90, 1100, 550*time.Microsecond)}},
	}}
	want := []targetRow{
		{"RSS with 1M generated records ≤ 1.2 KB per record, ≤ 1.5 GB", "450 bytes per record, 449 MiB", "yes"},
		{"1M generated records ready in ≤ 5 s", "2.1s", "yes"},
		// 1050 bytes per record in the 100k world: over the bound.
		{"≤ 1 KB RSS per record added over HTTP (chat create)", "900 bytes (1k); 1050 bytes (100k)", "no"},
		{"v3-page-1 throughput ≥ 0.6× the bare server's", "0.60 (100k); 0.65 (1M)", "yes"},
		{"chat-create throughput ≥ 0.6× the bare server's", "0.40 (100k)", "no"},
		{"chat-respond throughput ≥ 0.6× the bare server's", "0.70 (100k)", "yes"},
		{"p99 ≤ 2× the bare server's (the three loads above)",
			"v3-page-1 2.0 (100k); v3-page-1 1.9 (1M); chat-create 3.0 (100k); chat-respond 1.5 (100k)", "no"},
		{pageTarget, "1.10× (mockd 550µs, bare 10µs at 1M; mockd 500µs, bare 10µs at 1k)", "yes"},
	}
	if got := rep.targets(); !slices.Equal(got, want) {
		t.Errorf("targets:\n%s\nwant:\n%s", rowsText(got), rowsText(want))
	}

	// The page growth over its bound, and a slower start.
	rep.worlds[2].results[1] = runOf("v3-page-100", 90, 1100, 601*time.Microsecond)
	rep.worlds[2].ready = 5001 * time.Millisecond
	got := rep.targets()
	if got[1].met != "no" || got[7].met != "no" || got[7].measured != "1.20× (mockd 601µs, bare 10µs at 1M; mockd 500µs, bare 10µs at 1k)" {
		t.Errorf("targets:\n%s", rowsText(got))
	}

	// The page growth is in units of the bare server's CPU in the same
	// slices: a machine 20% slower in the 1M world's slices is not
	// mockd's page growing.
	slower := runOf("v3-page-100", 90, 1100, 660*time.Microsecond)
	slower.bare[0].CPU = slower.bare[0].CPU * 12 / 10
	rep.worlds[2].results[1] = slower
	if got := rep.targets()[7]; got != (targetRow{pageTarget, "1.10× (mockd 660µs, bare 12µs at 1M; mockd 500µs, bare 10µs at 1k)", "yes"}) {
		t.Errorf("page target %+v", got)
	}

	// A load that completed nothing has no ratio to meet a target with.
	rep.worlds[1].results[2] = runOf("chat-respond", 0, 0, 0)
	got = rep.targets()
	if got[5] != (targetRow{"chat-respond throughput ≥ 0.6× the bare server's", "0.00 (100k)", "no"}) ||
		!strings.Contains(got[6].measured, "chat-respond — (100k)") || got[6].met != "no" {
		t.Errorf("targets:\n%s", rowsText(got))
	}
}

// TestTargetsNotMeasured: a run without the 1M and 1k worlds (the quick
// mode) measures no memory, start or page-growth target, and meets none.
func TestTargetsNotMeasured(t *testing.T) {
	rep := &report{baseRSS: 20 << 20, worlds: []*world{{records: 10_000, loaded: memory{rss: 40 << 20},
		results: []result{runOf("v3-page-1", 700, 150, 15*time.Microsecond)}}}}
	got := rep.targets()
	var met []string
	for _, r := range got {
		met = append(met, r.met)
	}
	want := []string{"not measured", "not measured", "not measured", "yes", "not measured", "not measured", "yes", "not measured"}
	if !slices.Equal(met, want) {
		t.Errorf("met %q, want %q\n%s", met, want, rowsText(got))
	}
	if got[0].measured != "—" || got[7].measured != "—" {
		t.Errorf("targets:\n%s", rowsText(got))
	}
}

func rowsText(rows []targetRow) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "  %q | %q | %q\n", r.target, r.measured, r.met)
	}
	return b.String()
}
