// Package clock is the virtual clock of a platform instance: the only source
// of "now" in mockplatform. In ModeManual it stands still until Advance or
// Set moves it; in ModeReal it follows wall time plus an offset. Advance
// fires every timer that falls due, in due-time order, synchronously, with
// Now at each timer's due time (as tailscale's tstest.Clock does), so a
// test that advances and then reads sees every effect. Callbacks run one
// at a time; a done context stops Advance at a timer boundary
// (docs/time.md).
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

// ErrClosed is returned by Advance and Set once the clock is closed.
var ErrClosed = errors.New("clock: closed")

// New returns a clock in the given mode starting at start (zero:
// DefaultStart in manual mode, wall time in real mode).
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

// Stopwatch measures real elapsed time, for the latency of real I/O such
// as mockd's request log; nothing the platform records uses it.
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
// for a running Advance, so it must not be called from a callback.
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

// Advance moves the clock forward by d (negative counts as zero) and
// fires, in due-time order and before it returns, every timer due by the
// target, including those the callbacks arm. It returns the new time. Once
// ctx is done it stops before the next timer and returns ctx's error, with
// the clock at the last timer fired.
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

// fireUntil runs every timer due by target, checking ctx before each, and
// returns the due time of the last one fired. c.run must be held.
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

// AfterFunc calls fn once the clock has moved d past now, with its due
// time (also Now while fn runs); stop cancels it. fn must not call
// Advance, Set or Reset: callbacks run with the firing lock held.
func (c *Clock) AfterFunc(d time.Duration, fn func(now time.Time)) (stop func() bool) {
	return c.At(c.Now().Add(d), fn)
}

// At calls fn once the clock reaches t (see AfterFunc); a time not after
// now fires at the next Advance.
func (c *Clock) At(t time.Time, fn func(now time.Time)) (stop func() bool) {
	c.mu.Lock()
	c.seq++
	tm := &timer{due: t.UTC(), seq: c.seq, fn: fn}
	heap.Push(&c.timers, tm)
	head := tm.index == 0
	c.mu.Unlock()
	if head {
		// Only a new earliest timer changes the real-mode loop's wait.
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

// Close stops the real-mode goroutine and drops every timer; idempotent.
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

// loop is the real-mode goroutine: every callback runs here.
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

// Duration is a time.Duration written as a Go duration string ("5m").
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
