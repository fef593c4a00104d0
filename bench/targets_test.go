package main

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
)

// runOf is one measured load: mockd at mockdRPS requests per second and
// cpu of CPU per request, the bare server at 1000 and 10 µs; paced at half
// mockd's rate, mockd's p99 is p99 µs and the bare server's 100 µs. In
// the closed loop both p99s are ten times as long (which no target reads).
func runOf(load string, mockdRPS, p99 int64, cpu time.Duration) result {
	sl := func(rps, p99 int64, cpu time.Duration) []slice {
		return []slice{{Requests: rps, DurationUS: 1e6, P50US: p99 / 2, P99US: p99, CPU: time.Duration(rps) * cpu}}
	}
	paced := &result{load: load + " (paced)", mockd: sl(mockdRPS/2, p99, cpu), bare: sl(mockdRPS/2, 100, 10*time.Microsecond)}
	return result{load: load, mockd: sl(mockdRPS, 10*p99, cpu), bare: sl(1000, 1000, 10*time.Microsecond),
		paced: paced}
}

const mebi = 1 << 20

// fullRun is a report of the full mode's three worlds in which every
// target holds, most of them at their bound exactly.
func fullRun() *report {
	return &report{baseRSS: 20 * mebi, worlds: []*world{
		{records: 1_000, loaded: memory{rss: 21 * mebi}, created: 1000, grown: 900_000,
			results: []result{runOf("v3-page-100", 100, 1000, 500*time.Microsecond)}},
		{records: 100_000, loaded: memory{rss: 80 * mebi}, created: 2000, grown: 2_000_000, results: []result{
			runOf("v3-page-1", 600, 200, 20*time.Microsecond),
			runOf("chat-create", 650, 150, 30*time.Microsecond),
			runOf("chat-respond", 700, 150, 20*time.Microsecond)}},
		{records: 1_000_000, ready: 5 * time.Second, loaded: memory{rss: 20*mebi + 1_200_000_000}, results: []result{
			runOf("v3-page-1", 650, 190, 20*time.Microsecond),
			runOf("chat-create", 610, 200, 30*time.Microsecond),
			runOf("chat-respond", 600, 120, 20*time.Microsecond),
			runOf("v3-page-100", 90, 1100, 600*time.Microsecond)}},
	}}
}

func TestTargets(t *testing.T) {
	want := []targetRow{
		{"RSS with 1M generated records ≤ 1.2 KB per record, ≤ 1.5 GB", "1200 bytes per record, 1.22 GB (1164 MiB)", "yes"},
		{"1M generated records ready in ≤ 5s", "5s", "yes"},
		{"≤ 1 KB RSS per record added over HTTP (chat create)", "900 bytes (1k, 1000 records); 1000 bytes (100k, 2000 records)", "yes"},
		{"v3-page-1 throughput ≥ 0.6× the bare server's", "0.60 (100k); 0.65 (1M)", "yes"},
		{"chat-create throughput ≥ 0.6× the bare server's", "0.65 (100k); 0.61 (1M)", "yes"},
		{"chat-respond throughput ≥ 0.6× the bare server's", "0.70 (100k); 0.60 (1M)", "yes"},
		{"p99 ≤ 2× the bare server's at a fixed rate, 0.5× mockd's throughput (v3-page-1, chat-create, chat-respond)",
			"v3-page-1 2.0 (100k); v3-page-1 1.9 (1M); chat-create 1.5 (100k); chat-create 2.0 (1M); chat-respond 1.5 (100k); chat-respond 1.2 (1M)", "yes"},
		{"v3-page-100 at 1M ≤ 1.2× the same page at 1k (CPU per page, in bare-server units)",
			"1.20× (mockd 600µs, bare 10µs at 1M; mockd 500µs, bare 10µs at 1k)", "yes"},
	}
	if got := fullRun().targets(); !slices.Equal(got, want) {
		t.Errorf("targets:\n%s\nwant:\n%s", rowsText(got), rowsText(want))
	}
}

// TestTargetsFail: each target fails on its own, one figure past its
// bound, in whichever world that figure is.
func TestTargetsFail(t *testing.T) {
	for _, tc := range []struct {
		name   string
		change func(*report)
		rows   []int  // the targets that fail (a failed load fails every target that reads it)
		text   string // in the first one's measured text
	}{
		{"bytes per generated record", func(r *report) { r.worlds[2].loaded.rss += 1000 }, []int{0}, "1200 bytes per record"},
		{"total RSS", func(r *report) { r.baseRSS = 400 * mebi; r.worlds[2].loaded.rss = 1_500_000_001 }, []int{0}, "1.50 GB"},
		{"ready", func(r *report) { r.worlds[2].ready += time.Millisecond }, []int{1}, "5.001s"},
		{"bytes per added record, first world", func(r *report) { r.worlds[0].grown = 1_010_000 }, []int{2}, "1010 bytes (1k"},
		{"bytes per added record, negative", func(r *report) { r.worlds[0].grown = -1 }, []int{2}, "-0 bytes (1k"},
		{"throughput, first world", func(r *report) { r.worlds[1].results[0] = runOf("v3-page-1", 599, 200, 20*time.Microsecond) },
			[]int{3}, "0.60 (100k)"},
		{"throughput, no bare answer", func(r *report) { r.worlds[2].results[1].bare[0].Requests = 0 }, []int{4}, "— (1M)"},
		{"throughput, a failed request", func(r *report) { r.worlds[2].results[2].fail("mockd: socket errors") },
			[]int{5, 6}, "0.60 (1M) [mockd: socket errors]"},
		{"p99, first world", func(r *report) { r.worlds[1].results[1] = runOf("chat-create", 650, 201, 30*time.Microsecond) },
			[]int{6}, "chat-create 2.0 (100k)"},
		{"no mockd answer", func(r *report) { r.worlds[2].results[2].mockd[0] = slice{DurationUS: 1e6} }, []int{5}, "0.00 (1M)"},
		{"p99 of a paced slice", func(r *report) { r.worlds[2].results[0].paced.mockd[0].P99US = 201 },
			[]int{6}, "v3-page-1 2.0 (1M)"},
		{"p99, a failed paced request", func(r *report) { r.worlds[1].results[2].paced.fail("bare: socket errors") },
			[]int{6}, "chat-respond 1.5 (100k) [bare: socket errors]"},
		{"p99, not paced after a failure", func(r *report) {
			res := &r.worlds[1].results[1]
			res.fail("mockd: answers with a status above 399")
			res.paced = nil
		}, []int{4, 2, 6}, "0.65 (100k) [mockd: answers with a status above 399]"},
		{"p99, not paced", func(r *report) { r.worlds[2].results[1].paced = nil }, []int{6}, "chat-create not paced (1M)"},
		{"page growth", func(r *report) { r.worlds[2].results[3] = runOf("v3-page-100", 90, 1100, 601*time.Microsecond) },
			[]int{7}, "1.20× (mockd 601µs"},
		{"page growth, a failed request", func(r *report) { r.worlds[0].results[0].fail("bare: answers slower than 10 s") },
			[]int{7}, "[bare: answers slower than 10 s]"},
	} {
		r := fullRun()
		tc.change(r)
		got := r.targets()
		for i, row := range got {
			if wantMet := yesNo(!slices.Contains(tc.rows, i)); row.met != wantMet {
				t.Errorf("%s: target %d met %q, want %q\n%s", tc.name, i, row.met, wantMet, rowsText(got))
			}
		}
		if m := got[tc.rows[0]].measured; !strings.Contains(m, tc.text) {
			t.Errorf("%s: target %d measured %q, want it to hold %q", tc.name, tc.rows[0], m, tc.text)
		}
	}
}

// TestTargetsIgnoreBusyAndDrift: a server still busy after its slice only
// delays the CPU reading, and a machine slower in the 1M world's slices
// (the bare server's page costs 20% more there too) is not mockd's page
// growing.
func TestTargetsIgnoreBusyAndDrift(t *testing.T) {
	r := fullRun()
	r.worlds[1].results[0].notes = []string{"mockd: still busy after 2m0s"}
	slower := runOf("v3-page-100", 90, 1100, 660*time.Microsecond)
	slower.bare[0].CPU = slower.bare[0].CPU * 12 / 10
	r.worlds[2].results[3] = slower
	got := r.targets()
	if got[3].met != "yes" || got[7] != (targetRow{pageTarget, "1.10× (mockd 660µs, bare 12µs at 1M; mockd 500µs, bare 10µs at 1k)", "yes"}) {
		t.Errorf("targets:\n%s", rowsText(got))
	}
}

// TestTargetsNotMeasured: a run without the 1M and 1k worlds (the quick
// mode) measures no memory, start or page-growth target and meets none;
// a chat create that completed nothing added no records to measure.
func TestTargetsNotMeasured(t *testing.T) {
	rep := &report{baseRSS: 20 * mebi, worlds: []*world{{records: 10_000, loaded: memory{rss: 40 * mebi},
		created: 1, grown: 0,
		results: []result{runOf("v3-page-1", 700, 150, 15*time.Microsecond), runOf("chat-create", 0, 0, 0)}}}}
	got := rep.targets()
	var met []string
	for _, r := range got {
		met = append(met, r.met)
	}
	want := []string{"not measured", "not measured", "not measured", "yes", "no", "not measured", "no", "not measured"}
	if !slices.Equal(met, want) {
		t.Errorf("met %q, want %q\n%s", met, want, rowsText(got))
	}
	for _, i := range []int{0, 1, 2, 5, 7} {
		if got[i].measured != "—" {
			t.Errorf("target %d measured %q, want —", i, got[i].measured)
		}
	}
}

func rowsText(rows []targetRow) string {
	var b strings.Builder
	for _, r := range rows {
		fmt.Fprintf(&b, "  %q | %q | %q\n", r.target, r.measured, r.met)
	}
	return b.String()
}
