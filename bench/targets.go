package main

// The targets: what mockplatform's scale work set out to reach
// (docs/performance.md#targets), checked against one run's figures, so
// that whether they hold is read off the run that measured them. A target
// the run has no figure for (the quick mode has no 1M records) is "not
// measured", never met.

import (
	"fmt"
	"strings"
	"time"
)

// The targets' bounds (KB and GB are decimal, as the targets state them).
const (
	maxRecordBytes     = 1200          // RSS per generated record at 1M records
	maxLoadedBytes     = 1_500_000_000 // RSS with 1M generated records
	maxAddedBytes      = 1000          // RSS per record added over HTTP
	maxReady           = 5 * time.Second
	minRatio           = 0.6 // throughput against the bare server
	maxP99Ratio        = 2.0 // p99 against the bare server's
	maxPageGrowth      = 1.2 // a 100-record page at 1M against the same at 1k
	targetRecords      = 1_000_000
	targetSmallRecords = 1_000
)

// ratioLoads are the loads the throughput and p99 targets name.
var ratioLoads = []string{"v3-page-1", "chat-create", "chat-respond"}

// targetRow is one target: what it asks, what the run measured, and
// whether it holds ("yes", "no" or "not measured").
type targetRow struct {
	target, measured, met string
}

// targets checks every target against the report's worlds.
func (r *report) targets() []targetRow {
	var rows []targetRow
	add := func(target string, measured []string, ok, measuredAny bool) {
		row := targetRow{target: target, measured: strings.Join(measured, "; "), met: "not measured"}
		if measuredAny {
			row.met = yesNo(ok)
		} else {
			row.measured = "—"
		}
		rows = append(rows, row)
	}
	big := r.world(targetRecords)

	// Memory and start with 1M generated records.
	const memTarget, readyTarget = "RSS with 1M generated records ≤ 1.2 KB per record, ≤ 1.5 GB",
		"1M generated records ready in ≤ 5 s"
	if big != nil {
		per := float64(big.loaded.rss-r.baseRSS) / float64(big.records)
		add(memTarget, []string{fmt.Sprintf("%.0f bytes per record, %s", per, mib(big.loaded.rss))},
			per <= maxRecordBytes && big.loaded.rss <= maxLoadedBytes, true)
		add(readyTarget, []string{big.ready.Round(time.Millisecond).String()}, big.ready <= maxReady, true)
	} else {
		add(memTarget, nil, false, false)
		add(readyTarget, nil, false, false)
	}

	// Memory per record added over HTTP, in every world chat create ran in.
	var added []string
	ok := true
	for _, w := range r.worlds {
		if w.created > 0 {
			per := float64(w.grown) / float64(w.created)
			added = append(added, fmt.Sprintf("%.0f bytes (%s)", per, count(w.records)))
			ok = ok && per <= maxAddedBytes
		}
	}
	add("≤ 1 KB RSS per record added over HTTP (chat create)", added, ok, len(added) > 0)

	// Throughput and p99 against the bare server, in every world.
	for _, load := range ratioLoads {
		m, ok := r.eachResult(load, func(w *world, s summary) (string, bool) {
			return fmt.Sprintf("%s (%s)", num(s.ratio, 2), count(w.records)), s.ratio >= minRatio
		})
		add(load+" throughput ≥ 0.6× the bare server's", m, ok, len(m) > 0)
	}
	var p99 []string
	p99OK := true
	for _, load := range ratioLoads {
		m, ok := r.eachResult(load, func(w *world, s summary) (string, bool) {
			return fmt.Sprintf("%s %s (%s)", load, num(s.p99Ratio, 1), count(w.records)), s.p99Ratio <= maxP99Ratio
		})
		p99 = append(p99, m...)
		p99OK = p99OK && ok
	}
	add("p99 ≤ 2× the bare server's (the three loads above)", p99, p99OK, len(p99) > 0)

	// A 100-record page at 1M records against the same at 1k, each as a
	// multiple of the bare server's CPU in the same slices (the pairs
	// cancel the machine's drift between the two worlds, minutes apart).
	small := r.world(targetSmallRecords)
	am, ab := pageCPU(small)
	bm, bb := pageCPU(big)
	if am > 0 && ab > 0 && bm > 0 && bb > 0 {
		g := (float64(bm) / float64(bb)) / (float64(am) / float64(ab))
		add(pageTarget, []string{fmt.Sprintf("%.2f× (mockd %s, bare %s at 1M; mockd %s, bare %s at 1k)",
			g, dur(bm), dur(bb), dur(am), dur(ab))}, g <= maxPageGrowth, true)
	} else {
		add(pageTarget, nil, false, false)
	}
	return rows
}

// world is the report's world of n records, nil if the run had none.
func (r *report) world(n int) *world {
	for _, w := range r.worlds {
		if w.records == n {
			return w
		}
	}
	return nil
}

// eachResult describes the load's result in every world that ran it,
// and reports whether check held in all of them (a comparison with an
// unknown figure, NaN, is false: it never holds).
func (r *report) eachResult(load string, check func(*world, summary) (string, bool)) ([]string, bool) {
	var out []string
	ok := true
	for _, w := range r.worlds {
		for i := range w.results {
			if w.results[i].load != load {
				continue
			}
			s, held := check(w, summarize(&w.results[i]))
			out = append(out, s)
			ok = ok && held
		}
	}
	return out, ok
}

// pageTarget is the page-growth target: mockd's CPU per v3-page-100
// request as a multiple of the bare server's, at 1M against at 1k.
const pageTarget = "v3-page-100 at 1M ≤ 1.2× the same page at 1k (CPU per page, in bare-server units)"

// pageCPU is mockd's and the bare server's CPU per v3-page-100 request in
// w, 0 when unknown.
func pageCPU(w *world) (mockd, bare time.Duration) {
	if w == nil {
		return 0, 0
	}
	for i := range w.results {
		if res := &w.results[i]; res.load == "v3-page-100" {
			return max(cpuPerRequest(res.mockd), 0), max(cpuPerRequest(res.bare), 0)
		}
	}
	return 0, 0
}

func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}
