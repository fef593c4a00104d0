package main

import (
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"testing"
	"time"
)

func TestGCPercentFor(t *testing.T) {
	const mib = 1 << 20
	for _, tc := range []struct {
		base, headroom uint64
		want           int
	}{
		{0, 64 * mib, 800},          // an empty heap: the bound
		{1 * mib, 64 * mib, 800},    // a near-empty heap: to the runtime's least goal at 800%, 32 MiB
		{8 * mib, 64 * mib, 800},    // 8 MiB may grow by 64
		{16 * mib, 64 * mib, 400},   // 16 MiB too
		{32 * mib, 64 * mib, 200},   // by 64, twice its size
		{64 * mib, 64 * mib, 100},   // Go's default from here on
		{512 * mib, 64 * mib, 100},  // never below it
		{0, 1 * mib, 100},           // a headroom below the runtime's least goal changes nothing
		{0, 16 * mib, 400},          // the least goal's bound of a smaller headroom
		{100 * mib, 150 * mib, 150}, // a base between the two bounds
	} {
		if got := gcPercentFor(tc.base, tc.headroom); got != tc.want {
			t.Errorf("gcPercentFor(%d MiB, %d MiB) = %d, want %d", tc.base/mib, tc.headroom/mib, got, tc.want)
		}
	}
}

// gcPercent reads the GC percent (without setting it: a tuner may be
// setting it meanwhile).
func gcPercent() int {
	s := []metrics.Sample{{Name: "/gc/gogc:percent"}}
	metrics.Read(s)
	return int(s[0].Value.Uint64())
}

// TestTuneGCStarts: with neither GOGC nor GOMEMLIMIT set, tuneGC starts a
// tuner with mockd's headroom.
func TestTuneGCStarts(t *testing.T) {
	before := gcPercent()
	t.Cleanup(func() { debug.SetGCPercent(before) })
	tn := tuneGC(func(string) string { return "" }, gcHeadroom)
	if tn == nil {
		t.Fatal("no tuner")
	}
	tn.stop()
	if tn.headroom != gcHeadroom || len(tn.sample) != len(gcMetrics) {
		t.Errorf("tuner headroom %d, %d samples; want %d, %d", tn.headroom, len(tn.sample), gcHeadroom, len(gcMetrics))
	}
}

// TestTuneGCLeavesUsersSetting: GOGC or GOMEMLIMIT in the environment
// turns the tuning off.
func TestTuneGCLeavesUsersSetting(t *testing.T) {
	before := gcPercent()
	for _, env := range []map[string]string{{"GOGC": "100"}, {"GOMEMLIMIT": "1GiB"}, {"GOGC": "off", "GOMEMLIMIT": "1GiB"}} {
		if tn := tuneGC(func(k string) string { return env[k] }, 1<<30); tn != nil {
			tn.stop()
			t.Errorf("env %v: tuning started", env)
		}
		if got := gcPercent(); got != before {
			t.Errorf("env %v: GC percent %d, want %d", env, got, before)
		}
	}
}

// finalizerBarrier returns once the finalizers of a collection it runs
// have run (the runtime runs them in turn on one goroutine).
func finalizerBarrier(t *testing.T) {
	t.Helper()
	done := make(chan struct{})
	runtime.SetFinalizer(&gcSentinel{}, func(*gcSentinel) { close(done) })
	runtime.GC()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("no finalizer ran after a collection")
	}
}

// TestTuneGC: the tuner leaves Go's percent until a collection, sets it
// after each collection, and never once stopped.
func TestTuneGC(t *testing.T) {
	before := gcPercent()
	t.Cleanup(func() { debug.SetGCPercent(before) })
	tuned := make(chan int, 64)
	const headroom = 256 << 20 // far more than this test binary's live heap
	tn := newGCTuner(headroom)
	tn.tuned = func(p int) { tuned <- p }
	tn.start()
	t.Cleanup(tn.stop)
	if got := gcPercent(); got != before {
		t.Fatalf("GC percent %d before a collection, want %d (Go's until one measured the heap)", got, before)
	}
	// Each collection runs the sentinel's finalizer, which tunes.
	for range 2 {
		runtime.GC()
		select {
		case p := <-tuned:
			if most := gcPercentFor(0, headroom); p <= 100 || p > most {
				t.Fatalf("tuning set %d, want within (100, %d]", p, most)
			}
			if got := gcPercent(); got != p {
				t.Fatalf("GC percent %d, want %d", got, p)
			}
		case <-time.After(time.Minute):
			t.Fatal("no tuning after a collection")
		}
	}
	tn.stop()
	debug.SetGCPercent(before)
	for len(tuned) > 0 {
		<-tuned
	}
	finalizerBarrier(t)
	finalizerBarrier(t)
	if n := len(tuned); n > 0 {
		t.Errorf("%d tunings after stop", n)
	}
	if got := gcPercent(); got != before {
		t.Errorf("GC percent %d after stop, want %d (left as it was)", got, before)
	}
}
