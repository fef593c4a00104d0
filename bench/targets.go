package main

// The targets: what mockplatform's scale work set out to reach
// (docs/performance.md#targets), checked against one run's figures, so
// that whether they hold is read off the run that measured them. A target
// the run has no figure for (the quick mode has no 1M records) is "not
// measured", and a figure from a load that failed (a failed request, a
// slice without an answer) meets no target.

import (
	"fmt"
	"slices"
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

// The targets as the table names them, from the bounds above.
var (
	memTarget = fmt.Sprintf("RSS with %s generated records ≤ %g KB per record, ≤ %g GB",
		count(targetRecords), maxRecordBytes/1e3, maxLoadedBytes/1e9)
	readyTarget = fmt.Sprintf("%s generated records ready in ≤ %v", count(targetRecords), maxReady)
	addedTarget = fmt.Sprintf("≤ %g KB RSS per record added over HTTP (chat create)", maxAddedBytes/1e3)
	p99Target   = fmt.Sprintf("p99 ≤ %g× the bare server's at a fixed rate, %g× mockd's throughput (%s)",
		maxP99Ratio, pacedShare, strings.Join(ratioLoads, ", "))
	pageTarget = fmt.Sprintf("v3-page-100 at %s ≤ %g× the same page at %s (CPU per page, in bare-server units)",
		count(targetRecords), maxPageGrowth, count(targetSmallRecords))
)

// ratioTarget names the throughput target of a load.
func ratioTarget(load string) string {
	return fmt.Sprintf("%s throughput ≥ %g× the bare server's", load, minRatio)
}

// targetRow is one target: what it asks, what the run measured, and
// whether it holds ("yes", "no" or "not measured").
type targetRow struct {
	target, measured, met string
}

// targets checks every target against the report's worlds.
func (r *report) targets() []targetRow {
	var rows []targetRow
	// add adds a target; with nothing measured it is "not measured".
	add := func(target string, measured []string, ok bool) {
		row := targetRow{target: target, measured: "—", met: "not measured"}
		if len(measured) > 0 {
			row.measured, row.met = strings.Join(measured, "; "), yesNo(ok)
		}
		rows = append(rows, row)
	}
	big := r.world(targetRecords)

	// Memory and start with 1M generated records.
	if big != nil {
		per := float64(big.loaded.rss-r.baseRSS) / float64(big.records)
		add(memTarget, []string{fmt.Sprintf("%.0f bytes per record, %.2f GB (%s)", per, float64(big.loaded.rss)/1e9, mib(big.loaded.rss))},
			per <= maxRecordBytes && big.loaded.rss <= maxLoadedBytes)
		add(readyTarget, []string{big.ready.Round(time.Millisecond).String()}, big.ready <= maxReady)
	} else {
		add(memTarget, nil, false)
		add(readyTarget, nil, false)
	}

	// Memory per record added over HTTP, in every world whose chat create
	// added records (created counts the captured answer too).
	var added []string
	addedOK := true
	for _, w := range r.worlds {
		if w.created <= 1 {
			continue
		}
		per := float64(w.grown) / float64(w.created)
		s := fmt.Sprintf("%.0f bytes (%s, %d records)", per, count(w.records), w.created)
		held := per >= 0 && per <= maxAddedBytes
		if res := w.result("chat-create"); res != nil {
			s, held = withFailures(s, held, res)
		}
		added = append(added, s)
		addedOK = addedOK && held
	}
	add(addedTarget, added, addedOK)

	// Throughput against the bare server, in every world, and p99 at a
	// fixed rate (paced.go), in every world that paced the load.
	var p99 []string
	p99OK := true
	for _, load := range ratioLoads {
		var ratios []string
		ratioOK := true
		for _, w := range r.worlds {
			res := w.result(load)
			if res == nil {
				continue
			}
			s := summarize(res)
			m, held := withFailures(fmt.Sprintf("%s (%s)", num(s.ratio, 2), count(w.records)), s.ratio >= minRatio, res)
			ratios, ratioOK = append(ratios, m), ratioOK && held
			// A load not paced (it failed, or offered nothing) has no
			// figure and does not pass.
			m, held = fmt.Sprintf("%s not paced (%s)", load, count(w.records)), false
			if res.paced != nil {
				ps := summarize(res.paced)
				m, held = withFailures(fmt.Sprintf("%s %s (%s)", load, num(ps.p99Ratio, 1), count(w.records)), ps.p99Ratio <= maxP99Ratio, res.paced)
			}
			m, held = withFailures(m, held, res)
			p99, p99OK = append(p99, m), p99OK && held
		}
		add(ratioTarget(load), ratios, ratioOK)
	}
	add(p99Target, p99, p99OK)

	// A 100-record page at 1M records against the same at 1k, each as a
	// multiple of the bare server's CPU in the same slices (the pairs
	// cancel the machine's drift between the two worlds, minutes apart).
	var small, large *result
	if w := r.world(targetSmallRecords); w != nil {
		small = w.result("v3-page-100")
	}
	if big != nil {
		large = big.result("v3-page-100")
	}
	if small != nil && large != nil {
		a, b := summarize(small), summarize(large)
		g := a.cpuRatio / b.cpuRatio // (mockd ÷ bare at 1M) ÷ (mockd ÷ bare at 1k)
		m := fmt.Sprintf("%s× (mockd %s, bare %s at %s; mockd %s, bare %s at %s)", num(g, 2),
			dur(b.mockdCPU), dur(b.bareCPU), count(targetRecords), dur(a.mockdCPU), dur(a.bareCPU), count(targetSmallRecords))
		held := g <= maxPageGrowth
		m, held = withFailures(m, held, small)
		m, held = withFailures(m, held, large)
		add(pageTarget, []string{m}, held)
	} else {
		add(pageTarget, nil, false)
	}
	return rows
}

// world is the report's world of n records (the first, if the run had
// the count twice), nil if it had none.
func (r *report) world(n int) *world {
	for _, w := range r.worlds {
		if w.records == n {
			return w
		}
	}
	return nil
}

// result is the world's result of a load, nil if the load did not run.
func (w *world) result(load string) *result {
	for i := range w.results {
		if w.results[i].load == load {
			return &w.results[i]
		}
	}
	return nil
}

// withFailures is a figure's text and whether it meets its target, given
// the load's failures (result.fail): any fails the target and is added to
// the text.
func withFailures(s string, held bool, res *result) (string, bool) {
	if len(res.failures) == 0 {
		return s, held
	}
	failed := slices.Sorted(slices.Values(res.failures))
	return s + " [" + strings.Join(failed, "; ") + "]", false
}

// yesNo is the table's word for whether a target holds.
func yesNo(ok bool) string {
	if ok {
		return "yes"
	}
	return "no"
}
