// Package clock is the virtual clock of a platform instance: the only source
// of "now" in mockplatform.
//
// In ModeManual the clock stands still until Advance or Set moves it. In
// ModeReal it follows wall time plus an offset, and Advance adds to the
// offset. Timers sit in a heap; Advance fires every timer that falls due, in
// time order, synchronously, before it returns, with Now set to each timer's
// due time while its callback runs (as tailscale's tstest.Clock does). So a
// test that advances ten minutes and then reads sees every effect.
package clock

import (
	"container/heap"
	"fmt"
	"sync"
	"time"
)

// Mode selects how the clock moves.
type Mode string

const (
	// ModeManual stands still until advanced (default in Start).
	ModeManual Mode = "manual"
	// ModeReal follows wall time; Advance adds an offset (default in mockd).
	ModeReal Mode = "real"
)

// ParseMode parses a mode name.
func ParseMode(s string) (Mode, error) {
	switch Mode(s) {
	case ModeManual, ModeReal:
		return Mode(s), nil
	}
	return "", fmt.Errorf("clock mode %q: want manual or real", s)
}

// DefaultStart is the start time of a manual clock when none is given.
var DefaultStart = time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)

// Clock is a virtual clock. The zero value is not usable; call New.
type Clock struct {
	mode Mode

	mu     sync.Mutex // guards the fields below
	now    time.Time  // manual mode: current time
	offset time.Duration
	timers timerHeap
	seq    uint64
	firing *time.Time // due time of the callback running, if any

	run sync.Mutex // serialises firing of callbacks

	wake   chan struct{} // real mode: the earliest timer changed
	done   chan struct{}
	closed bool
	wg     sync.WaitGroup
}

// New returns a clock in the given mode. start is the time Now returns at
// once; a zero start means DefaultStart in manual mode and wall time in real
// mode.
func New(mode Mode, start time.Time) *Clock {
	if mode == "" {
		mode = ModeManual
	}
	c := &Clock{mode: mode, wake: make(chan struct{}, 1), done: make(chan struct{})}
	c.resetLocked(start)
	if mode == ModeReal {
		c.wg.Add(1)
		go c.loop()
	}
	return c
}

// Mode reports the clock's mode.
func (c *Clock) Mode() Mode { return c.mode }

// wall is the one place that reads the wall clock.
func wall() time.Time { return time.Now().UTC() }

// Stopwatch measures real elapsed time (monotonic wall time), for the
// latency of real I/O such as webhook deliveries; it is not a source of
// "now". The returned function reports the time since Stopwatch was called.
func Stopwatch() func() time.Duration {
	start := time.Now()
	return func() time.Duration { return time.Since(start) }
}

// Now returns the current virtual time (UTC).
func (c *Clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.nowLocked()
}

// nowLocked returns the current time. c.mu must be held.
func (c *Clock) nowLocked() time.Time {
	if c.firing != nil {
		return *c.firing
	}
	if c.mode == ModeReal {
		return wall().Add(c.offset).Round(0)
	}
	return c.now
}

// Reset cancels every timer and sets the time to start (see New).
func (c *Clock) Reset(start time.Time) {
	c.mu.Lock()
	c.resetLocked(start)
	c.mu.Unlock()
	c.poke()
}

func (c *Clock) resetLocked(start time.Time) {
	c.timers = nil
	c.firing = nil
	switch c.mode {
	case ModeReal:
		c.offset = 0
		if !start.IsZero() {
			c.offset = start.Sub(wall())
		}
	default:
		if start.IsZero() {
			start = DefaultStart
		}
		c.now = start.UTC()
	}
}

// Advance moves the clock forward by d (negative values are ignored) and
// fires, in time order and before it returns, every timer that falls due.
// It returns the new time.
func (c *Clock) Advance(d time.Duration) time.Time {
	if d < 0 {
		d = 0
	}
	c.run.Lock()
	defer c.run.Unlock()
	c.mu.Lock()
	target := c.nowLocked().Add(d)
	c.mu.Unlock()
	c.fireUntil(target)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mode == ModeReal {
		c.offset += d
	} else {
		c.now = target
	}
	c.poke()
	return c.nowLocked()
}

// Set moves the clock to t if t is later than now, firing due timers as
// Advance does, and returns the new time.
func (c *Clock) Set(t time.Time) time.Time {
	d := t.Sub(c.Now())
	return c.Advance(d)
}

// fireUntil runs every timer due at or before target. c.run must be held.
func (c *Clock) fireUntil(target time.Time) {
	for {
		c.mu.Lock()
		if len(c.timers) == 0 || c.timers[0].due.After(target) {
			c.mu.Unlock()
			return
		}
		t := heap.Pop(&c.timers).(*timer)
		due := t.due
		if c.mode == ModeManual && due.After(c.now) {
			c.now = due
		}
		c.firing = &due
		c.mu.Unlock()

		t.fn(due)

		c.mu.Lock()
		c.firing = nil
		c.mu.Unlock()
	}
}

// AfterFunc calls fn once the clock has moved d past now. fn receives its
// due time, which is also what Now returns while fn runs. The returned stop
// function cancels the timer and reports whether it was still pending.
// fn may call Now, AfterFunc, At, Pending and stop functions, but must not
// call Advance or Set (directly or through something that waits on them):
// callbacks run with the firing lock held, so that would deadlock.
func (c *Clock) AfterFunc(d time.Duration, fn func(now time.Time)) (stop func() bool) {
	return c.At(c.Now().Add(d), fn)
}

// At calls fn once the clock reaches t (see AfterFunc). A time in the past
// fires at the next Advance (or at once in real mode).
func (c *Clock) At(t time.Time, fn func(now time.Time)) (stop func() bool) {
	c.mu.Lock()
	c.seq++
	tm := &timer{due: t.UTC(), seq: c.seq, fn: fn}
	heap.Push(&c.timers, tm)
	c.mu.Unlock()
	c.poke()
	return func() bool {
		c.mu.Lock()
		defer c.mu.Unlock()
		if tm.index < 0 || tm.index >= len(c.timers) || c.timers[tm.index] != tm {
			return false
		}
		heap.Remove(&c.timers, tm.index)
		return true
	}
}

// Pending reports how many timers are waiting.
func (c *Clock) Pending() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.timers)
}

// Close stops the real-mode goroutine and drops every timer. It is
// idempotent.
func (c *Clock) Close() {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return
	}
	c.closed = true
	c.timers = nil
	close(c.done)
	c.mu.Unlock()
	c.wg.Wait()
}

func (c *Clock) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// loop fires timers as wall time passes (real mode only).
func (c *Clock) loop() {
	defer c.wg.Done()
	t := time.NewTimer(time.Hour)
	defer t.Stop()
	for {
		c.mu.Lock()
		wait := time.Hour
		if len(c.timers) > 0 {
			wait = c.timers[0].due.Sub(c.nowLocked())
		}
		c.mu.Unlock()
		if wait <= 0 {
			c.run.Lock()
			c.fireUntil(c.Now())
			c.run.Unlock()
			continue
		}
		t.Reset(wait)
		select {
		case <-c.done:
			return
		case <-c.wake:
			if !t.Stop() {
				select {
				case <-t.C:
				default:
				}
			}
		case <-t.C:
		}
	}
}

type timer struct {
	due   time.Time
	seq   uint64
	index int
	fn    func(time.Time)
}

type timerHeap []*timer

func (h timerHeap) Len() int { return len(h) }
func (h timerHeap) Less(i, j int) bool {
	if h[i].due.Equal(h[j].due) {
		return h[i].seq < h[j].seq
	}
	return h[i].due.Before(h[j].due)
}
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].index = i
	h[j].index = j
}
func (h *timerHeap) Push(x any) {
	t := x.(*timer)
	t.index = len(*h)
	*h = append(*h, t)
}
func (h *timerHeap) Pop() any {
	old := *h
	n := len(old)
	t := old[n-1]
	old[n-1] = nil
	t.index = -1
	*h = old[:n-1]
	return t
}

// Duration is a time.Duration that reads and writes as a Go duration string
// ("5m", "1h30m") in YAML and JSON.
type Duration time.Duration

// D returns the value as a time.Duration.
func (d Duration) D() time.Duration { return time.Duration(d) }

// String formats the duration as Go does.
func (d Duration) String() string { return time.Duration(d).String() }

// MarshalText writes the duration as a Go duration string.
func (d Duration) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("invalid duration %q (want e.g. 500ms, 5m, 1h)", b)
	}
	if v < 0 {
		return fmt.Errorf("invalid duration %q: must not be negative", b)
	}
	*d = Duration(v)
	return nil
}
