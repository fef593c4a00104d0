package clock

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestAdvanceCancelStopsAtTimerBoundary: a context that ends during a
// callback lets that callback finish, fires nothing more and leaves the
// clock at the callback's due time.
func TestAdvanceCancelStopsAtTimerBoundary(t *testing.T) {
	c := newManual(t)
	ctx, cancel := context.WithCancel(context.Background())
	r := &recorder{c: c}
	c.AfterFunc(time.Minute, r.fn("a"))
	c.AfterFunc(2*time.Minute, func(due time.Time) {
		r.fn("b")(due)
		cancel()
	})
	c.AfterFunc(3*time.Minute, r.fn("c"))
	got, err := c.Advance(ctx, time.Hour)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Advance error = %v, want context.Canceled", err)
	}
	if want := start.Add(2 * time.Minute); got != want || c.Now() != want {
		t.Fatalf("Advance = %v, Now = %v; want both %v", got, c.Now(), want)
	}
	want := []event{{"a", time.Minute, time.Minute}, {"b", 2 * time.Minute, 2 * time.Minute}}
	if diff := cmp.Diff(want, r.events()); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	if n := c.Pending(); n != 1 {
		t.Fatalf("Pending = %d, want 1 (c)", n)
	}
	// The next Advance picks up where the cancelled one stopped.
	if got := advance(c, time.Minute); got != start.Add(3*time.Minute) {
		t.Fatalf("next Advance = %v", got)
	}
	if n := len(r.events()); n != 3 {
		t.Fatalf("%d events after the next Advance, want 3", n)
	}
}

// TestAdvanceCancelledBefore: an Advance whose context has already ended
// fires nothing and does not move the clock.
func TestAdvanceCancelledBefore(t *testing.T) {
	c := newManual(t)
	var fired atomic.Bool
	c.AfterFunc(time.Second, func(time.Time) { fired.Store(true) })
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got, err := c.Advance(ctx, time.Hour)
	if !errors.Is(err, context.Canceled) || got != start || fired.Load() {
		t.Fatalf("Advance = %v, %v, fired %v; want %v, context.Canceled, false", got, err, fired.Load(), start)
	}
	if !strings.Contains(err.Error(), "advance stopped at "+start.Format(time.RFC3339Nano)) {
		t.Errorf("error %q does not say where the clock stopped", err)
	}
	if _, err := c.Set(ctx, start.Add(time.Hour)); !errors.Is(err, context.Canceled) || c.Now() != start {
		t.Fatalf("Set with a done context: %v, Now %v", err, c.Now())
	}
}

// TestAdvanceEndlessScheduleCancels: a timer that re-arms itself every
// second makes a year's Advance long; cancelling it returns at a timer
// boundary.
func TestAdvanceEndlessScheduleCancels(t *testing.T) {
	c := newManual(t)
	ctx, cancel := context.WithCancel(context.Background())
	var n atomic.Int64
	var tick func(time.Time)
	tick = func(now time.Time) {
		if n.Add(1) == 5000 {
			cancel()
		}
		c.At(now.Add(time.Second), tick)
	}
	c.AfterFunc(time.Second, tick)
	got, err := c.Advance(ctx, 365*24*time.Hour)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Advance error = %v", err)
	}
	if want := start.Add(5000 * time.Second); got != want {
		t.Fatalf("stopped at %v, want %v (the 5000th tick)", got, want)
	}
}

// TestRealAdvanceRunsOnClockGoroutine: in real mode, callbacks fired by an
// Advance run on the clock's goroutine, not the caller's.
func TestRealAdvanceRunsOnClockGoroutine(t *testing.T) {
	c := New(ModeReal, time.Time{})
	defer c.Close()
	caller := goroutineID()
	var ran atomic.Uint64
	c.AfterFunc(time.Hour, func(time.Time) { ran.Store(goroutineID()) })
	if _, err := c.Advance(context.Background(), 2*time.Hour); err != nil {
		t.Fatal(err)
	}
	if id := ran.Load(); id == 0 || id == caller {
		t.Fatalf("callback ran on goroutine %d, caller is %d", id, caller)
	}
}

// TestRealAdvanceCancel: a cancelled real-mode Advance stops at a timer
// boundary too, and the offset grows only by what was reached.
func TestRealAdvanceCancel(t *testing.T) {
	c := New(ModeReal, time.Time{})
	defer c.Close()
	before := c.Now()
	ctx, cancel := context.WithCancel(context.Background())
	c.AfterFunc(time.Hour, func(time.Time) { cancel() })
	var late atomic.Bool
	c.AfterFunc(2*time.Hour, func(time.Time) { late.Store(true) })
	got, err := c.Advance(ctx, 3*time.Hour)
	if !errors.Is(err, context.Canceled) || late.Load() {
		t.Fatalf("Advance = %v, %v; late timer fired %v", got, err, late.Load())
	}
	if d := got.Sub(before); d < time.Hour || d > time.Hour+time.Minute {
		t.Fatalf("stopped %v after the start, want about 1h", d)
	}
}

// TestRealAdvanceAfterClose: Advance on a closed real-mode clock fails.
func TestRealAdvanceAfterClose(t *testing.T) {
	c := New(ModeReal, time.Time{})
	c.Close()
	if _, err := c.Advance(context.Background(), time.Minute); !errors.Is(err, ErrClosed) {
		t.Fatalf("Advance after Close = %v, want ErrClosed", err)
	}
}

// goroutineID reads the current goroutine's id from its stack header
// ("goroutine 7 [running]:"); tests only.
func goroutineID() uint64 {
	var buf [64]byte
	s := string(buf[:runtime.Stack(buf[:], false)])
	s = strings.TrimPrefix(s, "goroutine ")
	var id uint64
	for _, r := range s {
		if r < '0' || r > '9' {
			break
		}
		id = id*10 + uint64(r-'0')
	}
	return id
}

// TestCloseStopsAdvance: an Advance in progress stops at the next timer
// boundary once the clock is closed (here by a callback).
func TestCloseStopsAdvance(t *testing.T) {
	c := New(ModeManual, start)
	var tick func(time.Time)
	n := 0
	tick = func(now time.Time) {
		if n++; n == 3 {
			c.Close()
		}
		c.At(now.Add(time.Second), tick)
	}
	c.AfterFunc(time.Second, tick)
	got, err := c.Advance(context.Background(), time.Hour)
	if !errors.Is(err, ErrClosed) || got != start.Add(3*time.Second) {
		t.Fatalf("Advance = %v, %v; want %v, ErrClosed", got, err, start.Add(3*time.Second))
	}
}
