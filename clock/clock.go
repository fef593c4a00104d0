// Package clock is the virtual clock of a platform instance: the only source
// of "now" in mockplatform.
//
// In ModeManual the clock stands still until Advance or Set moves it. In
// ModeReal it follows wall time plus an offset, and Advance adds to the
// offset. Timers sit in a heap; Advance fires every timer that falls due, in
// due-time order (timers due at the same instant in the order they were
// armed), synchronously, before it returns, with Now set to each timer's due
// time while its callback runs (as tailscale's tstest.Clock does). A timer
// that a callback arms fires in the same Advance when it falls due by the
// target too. So a test that advances ten minutes and then reads sees every
// effect.
//
// Callbacks run on one goroutine at a time: in manual mode on the goroutine
// that calls Advance or Set, in real mode always on the clock's own
// goroutine (an Advance from any other goroutine hands its work over to it
// and waits).
//
// Advance takes a context. It is checked at every timer boundary: once it
// is done, Advance fires no further timer and returns the context's error,
// with the clock at the due time of the last timer it fired (where it
// started if none fired). The callback that is running when the context
// ends finishes first.
package clock

import (
	"container/heap"
	"context"
	"errors"
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

	mu     sync.Mutex // guards the fields below; never held while a callback runs
	now    time.Time  // manual mode: current time
	offset time.Duration
	timers timerHeap
	seq    uint64
	firing *time.Time // due time of the callback running, if any
	closed bool

	// run serialises firing (Advance, Set, the real-mode loop) and Reset.
	// Lock order: run before mu.
	run sync.Mutex

	wake     chan struct{}    // real mode: the earliest timer changed
	advances chan *advanceReq // real mode: Advance calls handed to the loop
	done     chan struct{}
	wg       sync.WaitGroup
}

// ErrClosed is returned by Advance and Set once the clock is closed (an
// Advance in progress stops at its next timer boundary).
var ErrClosed = errors.New("clock: closed")

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
		c.advances = make(chan *advanceReq)
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
// latency of real I/O such as mockd's request log; it is not a source of
// "now", and nothing the platform records (journal, delivery log, data)
// uses it. The returned function reports the time since Stopwatch was
// called.
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

// Reset cancels every timer and sets the time to start (see New). It waits
// for a running Advance to finish, so it must not be called from a
// callback.
func (c *Clock) Reset(start time.Time) {
	c.run.Lock()
	c.mu.Lock()
	c.resetLocked(start)
	c.mu.Unlock()
	c.run.Unlock()
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

// Advance moves the clock forward by d (negative values count as zero) and
// fires, in due-time order and before it returns, every timer that falls
// due by the target, including the timers those callbacks arm. It returns
// the new time.
//
// ctx is checked before each timer fires and before the final move to the
// target: once it is done, Advance stops there and returns ctx's error with
// the clock at the due time of the last timer fired (unchanged when none
// was). In real mode the clock keeps following wall time from there.
func (c *Clock) Advance(ctx context.Context, d time.Duration) (time.Time, error) {
	if d < 0 {
		d = 0
	}
	if c.mode == ModeReal {
		return c.handOver(ctx, d)
	}
	c.run.Lock()
	defer c.run.Unlock()
	return c.advanceRun(ctx, d)
}

// Set moves the clock to t if t is later than now, firing due timers as
// Advance does, and returns the new time.
func (c *Clock) Set(ctx context.Context, t time.Time) (time.Time, error) {
	return c.Advance(ctx, t.Sub(c.Now()))
}

// advanceReq is an Advance handed to the real-mode loop.
type advanceReq struct {
	ctx   context.Context
	d     time.Duration
	reply chan advanceResult
}

type advanceResult struct {
	now time.Time
	err error
}

// handOver runs an Advance on the real-mode loop's goroutine and waits.
func (c *Clock) handOver(ctx context.Context, d time.Duration) (time.Time, error) {
	r := &advanceReq{ctx: ctx, d: d, reply: make(chan advanceResult, 1)}
	select {
	case c.advances <- r:
	case <-c.done:
		return c.stoppedAt(ErrClosed)
	case <-ctx.Done():
		return c.stoppedAt(ctx.Err())
	}
	select {
	case res := <-r.reply:
		return res.now, res.err
	case <-c.done:
		return c.stoppedAt(ErrClosed)
	}
}

// stoppedAt is the answer of an Advance that fired nothing.
func (c *Clock) stoppedAt(err error) (time.Time, error) {
	now := c.Now()
	return now, fmt.Errorf("clock: advance stopped at %s: %w", now.Format(time.RFC3339Nano), err)
}

// advanceRun is Advance's work. c.run must be held.
func (c *Clock) advanceRun(ctx context.Context, d time.Duration) (time.Time, error) {
	c.mu.Lock()
	from := c.nowLocked()
	c.mu.Unlock()
	target := from.Add(d)
	last, err := c.fireUntil(ctx, target)
	if err == nil {
		err = ctx.Err()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	reached := target
	if err != nil {
		reached = last
	}
	switch {
	case c.mode == ModeReal:
		if reached.After(from) {
			c.offset += reached.Sub(from)
		}
	case reached.After(c.now):
		c.now = reached
	}
	c.poke()
	if err != nil {
		return c.nowLocked(), fmt.Errorf("clock: advance stopped at %s: %w", reached.Format(time.RFC3339Nano), err)
	}
	return c.nowLocked(), nil
}

// fireUntil runs every timer due at or before target, checking ctx before
// each. It returns the due time of the last timer fired (the time it
// started from when none fired) and ctx's error if ctx ended first. c.run
// must be held.
func (c *Clock) fireUntil(ctx context.Context, target time.Time) (time.Time, error) {
	c.mu.Lock()
	last := c.nowLocked()
	c.mu.Unlock()
	for {
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			return last, ErrClosed
		}
		if len(c.timers) == 0 || c.timers[0].due.After(target) {
			c.mu.Unlock()
			return last, nil
		}
		if err := ctx.Err(); err != nil {
			c.mu.Unlock()
			return last, err
		}
		t := heap.Pop(&c.timers).(*timer)
		due := t.due
		if c.mode == ModeManual && due.After(c.now) {
			c.now = due
		}
		if due.After(last) {
			last = due
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
// call Advance, Set or Reset (directly or through something that waits on
// them): callbacks run with the firing lock held, so that would deadlock.
func (c *Clock) AfterFunc(d time.Duration, fn func(now time.Time)) (stop func() bool) {
	return c.At(c.Now().Add(d), fn)
}

// At calls fn once the clock reaches t (see AfterFunc). A time not after
// now fires at the next Advance (at once in real mode); armed from a
// callback, it fires in the Advance that runs the callback.
func (c *Clock) At(t time.Time, fn func(now time.Time)) (stop func() bool) {
	c.mu.Lock()
	c.seq++
	tm := &timer{due: t.UTC(), seq: c.seq, fn: fn}
	heap.Push(&c.timers, tm)
	head := tm.index == 0
	c.mu.Unlock()
	if head {
		// The real-mode loop waits for the earliest timer: only a new
		// earliest one changes its wait (a later one would wake it for
		// nothing, once per timer armed).
		c.poke()
	}
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
// idempotent. An Advance in progress stops at its next timer boundary.
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

// loop is the real-mode goroutine: it fires timers as wall time passes and
// runs the Advance calls handed to it, so that every callback runs here.
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
			_, _ = c.fireUntil(context.Background(), c.Now())
			c.run.Unlock()
			select {
			case <-c.done:
				return
			default:
			}
			continue
		}
		t.Reset(wait)
		select {
		case <-c.done:
			return
		case r := <-c.advances:
			c.run.Lock()
			now, err := c.advanceRun(r.ctx, r.d)
			c.run.Unlock()
			r.reply <- advanceResult{now, err}
		case <-c.wake:
		case <-t.C:
		}
		if !t.Stop() {
			select {
			case <-t.C:
			default:
			}
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
