package main

// The collector's headroom. Go's collector runs each time the heap has
// grown by GOGC percent (100) of the live heap since the last collection.
// A mockd with a small world has a small live heap (tens of MiB), and
// under load it collects several times a second; with one CPU, each
// collection's marking delays the requests that wait meanwhile. So mockd
// lets the heap grow by about gcHeadroom between collections: it sets
// the GC percent after each collection from what the percent applies to
// (the live heap, the goroutine stacks and the globals), never below Go's
// default. A large world (more live heap than gcHeadroom) is collected as
// Go would by default. The measurements:
// docs/performance.md#the-collectors-headroom.
//
// It is mockd's own, process-wide setting, made in main: a Go test that
// runs the mock in process keeps its own GC settings, and GOGC or
// GOMEMLIMIT in mockd's environment turns it off (the user's choice wins).

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
)

// gcHeadroom is how much the heap may grow between two collections (less
// for a heap under 8 MiB: gcMaxPercent bounds the percent).
const gcHeadroom = 64 << 20

// gcMinHeap is the runtime's least heap goal at GC percent 100 (its
// heapMinimum of a default build, which scales with the percent).
const gcMinHeap = 4 << 20

// gcMaxPercent bounds the percent: a heap that grows fast between a
// collection and the tuning after it (the runtime runs finalizers when
// it can) may grow to at most 9 times its live size meanwhile (or to the
// runtime's least goal at this percent, 32 MiB).
const gcMaxPercent = 800

// gcPercentFor is the GC percent that lets the heap grow by headroom
// bytes before the next collection, given what the percent applies to
// (base: the live heap, the stacks and the globals the last collection
// scanned): never below Go's default 100 (a base larger than headroom),
// and never above gcMaxPercent nor the percent at which the runtime's
// least heap goal is headroom (a near-empty heap).
func gcPercentFor(base, headroom uint64) int {
	most := min(max(headroom*100/gcMinHeap, 100), gcMaxPercent)
	if base == 0 {
		return int(most)
	}
	return int(min(max(headroom*100/base, 100), most))
}

// gcMetrics are the runtime's figures whose sum the GC percent applies to.
var gcMetrics = []string{"/gc/heap/live:bytes", "/gc/scan/stack:bytes", "/gc/scan/globals:bytes"}

// gcTuner sets the GC percent after each collection (gcPercentFor).
type gcTuner struct {
	headroom uint64
	sample   []metrics.Sample
	// tuned, when set (tests), is called with the percent after each
	// tuning, under mu.
	tuned func(percent int)

	mu      sync.Mutex // held while tuning: once stop returns, no tuning runs
	stopped bool
	percent int // the percent last set
}

// gcSentinel is garbage whose finalizer runs once per collection: it
// tunes and makes the next sentinel.
type gcSentinel struct{ t *gcTuner }

// tuneGC starts tuning unless getenv sets GOGC or GOMEMLIMIT (then it
// returns nil). The runtime runs the tuning on its finalizer goroutine,
// after each collection.
func tuneGC(getenv func(string) string, headroom uint64) *gcTuner {
	if getenv("GOGC") != "" || getenv("GOMEMLIMIT") != "" {
		return nil
	}
	t := newGCTuner(headroom)
	t.start()
	return t
}

func newGCTuner(headroom uint64) *gcTuner {
	t := &gcTuner{headroom: headroom, percent: 100}
	for _, name := range gcMetrics {
		t.sample = append(t.sample, metrics.Sample{Name: name})
	}
	return t
}

// start arms the first sentinel: the percent stays Go's until a
// collection has measured the heap. (The first sentinel may outlive the
// collection running meanwhile: one the runtime starts during start-up
// marks what is allocated while it runs.)
func (t *gcTuner) start() {
	t.arm()
}

// stop ends the tuning; the percent last set stays.
func (t *gcTuner) stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stopped = true
}

func (t *gcTuner) arm() {
	runtime.SetFinalizer(&gcSentinel{t: t}, func(s *gcSentinel) {
		if s.t.tune() {
			s.t.arm()
		}
	})
}

// tune sets the percent for what the last collection left; it reports
// false once the tuner is stopped.
func (t *gcTuner) tune() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.stopped {
		return false
	}
	p := t.applyLocked()
	if t.tuned != nil {
		t.tuned(p)
	}
	return true
}

// applyLocked reads the runtime's figures and sets the percent.
func (t *gcTuner) applyLocked() int {
	metrics.Read(t.sample)
	var base uint64
	for _, s := range t.sample {
		if s.Value.Kind() == metrics.KindUint64 {
			base += s.Value.Uint64()
		}
	}
	if p := gcPercentFor(base, t.headroom); p != t.percent {
		t.percent = p
		debug.SetGCPercent(p)
	}
	return t.percent
}
