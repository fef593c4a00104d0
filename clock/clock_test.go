package clock

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

var start = time.Date(2030, 6, 1, 12, 0, 0, 0, time.UTC)

func newManual(t *testing.T) *Clock {
	t.Helper()
	c := New(ModeManual, start)
	t.Cleanup(c.Close)
	return c
}

// advance is Advance with a context that never ends.
func advance(c *Clock, d time.Duration) time.Time {
	now, err := c.Advance(context.Background(), d)
	if err != nil {
		panic(err)
	}
	return now
}

// set is Set with a context that never ends.
func set(c *Clock, t time.Time) time.Time {
	now, err := c.Set(context.Background(), t)
	if err != nil {
		panic(err)
	}
	return now
}

func TestParseMode(t *testing.T) {
	for _, s := range []string{"manual", "real"} {
		m, err := ParseMode(s)
		if err != nil || string(m) != s {
			t.Errorf("ParseMode(%q) = %q, %v", s, m, err)
		}
	}
	for _, s := range []string{"", "Manual", "virtual"} {
		if _, err := ParseMode(s); err == nil {
			t.Errorf("ParseMode(%q): no error", s)
		}
	}
}

func TestNewDefaults(t *testing.T) {
	c := New("", time.Time{})
	defer c.Close()
	if c.Mode() != ModeManual {
		t.Errorf("Mode = %q, want manual", c.Mode())
	}
	if got := c.Now(); !got.Equal(DefaultStart) {
		t.Errorf("Now = %v, want DefaultStart %v", got, DefaultStart)
	}

	// A non-UTC start is reported in UTC.
	loc := time.FixedZone("X", 5*3600)
	c2 := New(ModeManual, start.In(loc))
	defer c2.Close()
	if got := c2.Now(); got != start || got.Location() != time.UTC {
		t.Errorf("Now = %v (%v), want %v in UTC", got, got.Location(), start)
	}
}

func TestManualStandsStill(t *testing.T) {
	c := newManual(t)
	first := c.Now()
	// Let the wall clock visibly move.
	for w := time.Now(); !time.Now().After(w); {
	}
	if got := c.Now(); got != first || got != start {
		t.Fatalf("manual clock moved: %v then %v (start %v)", first, got, start)
	}
}

// event is one timer callback as seen by a test.
type event struct {
	Name string
	Due  time.Duration // due time of the callback's argument, from start
	Now  time.Duration // Now() inside the callback, from start
}

type recorder struct {
	c  *Clock
	mu sync.Mutex
	ev []event
}

func (r *recorder) fn(name string) func(time.Time) {
	return func(due time.Time) {
		now := r.c.Now()
		r.mu.Lock()
		r.ev = append(r.ev, event{name, due.Sub(start), now.Sub(start)})
		r.mu.Unlock()
	}
}

func (r *recorder) events() []event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event(nil), r.ev...)
}

func TestAdvanceFiresInOrder(t *testing.T) {
	c := newManual(t)
	r := &recorder{c: c}
	c.AfterFunc(3*time.Minute, r.fn("3m"))
	c.AfterFunc(time.Minute, r.fn("1m-a"))
	c.AfterFunc(2*time.Minute, r.fn("2m"))
	c.AfterFunc(time.Minute, r.fn("1m-b"))
	c.At(start.Add(time.Minute), r.fn("1m-c"))
	c.AfterFunc(5*time.Minute, r.fn("5m")) // exactly at the target
	c.AfterFunc(6*time.Minute, r.fn("6m")) // beyond the target

	if got := advance(c, 5*time.Minute); got != start.Add(5*time.Minute) {
		t.Fatalf("Advance returned %v", got)
	}
	// Synchronous: everything is recorded when Advance returns.
	want := []event{
		{"1m-a", time.Minute, time.Minute},
		{"1m-b", time.Minute, time.Minute},
		{"1m-c", time.Minute, time.Minute},
		{"2m", 2 * time.Minute, 2 * time.Minute},
		{"3m", 3 * time.Minute, 3 * time.Minute},
		{"5m", 5 * time.Minute, 5 * time.Minute},
	}
	if diff := cmp.Diff(want, r.events()); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	if got := c.Now(); got != start.Add(5*time.Minute) {
		t.Errorf("Now after Advance = %v", got)
	}
	if n := c.Pending(); n != 1 {
		t.Errorf("Pending = %d, want 1 (the 6m timer)", n)
	}

	// The pending timer fires on the next Advance that reaches it.
	advance(c, 30*time.Second)
	if n := len(r.events()); n != 6 {
		t.Fatalf("6m timer fired early (%d events)", n)
	}
	advance(c, 30*time.Second)
	if ev := r.events(); len(ev) != 7 || ev[6] != (event{"6m", 6 * time.Minute, 6 * time.Minute}) {
		t.Fatalf("events after reaching 6m: %v", ev)
	}
	if n := c.Pending(); n != 0 {
		t.Errorf("Pending = %d, want 0", n)
	}
}

func TestAdvanceChainedTimers(t *testing.T) {
	c := newManual(t)
	r := &recorder{c: c}
	c.AfterFunc(time.Minute, func(now time.Time) {
		r.fn("1m")(now)
		// Falls inside the window: fires in this Advance.
		c.AfterFunc(time.Minute, func(now time.Time) {
			r.fn("1m+1m")(now)
			c.AfterFunc(30*time.Second, r.fn("1m+1m+30s"))
		})
		// Same due time as now: fires after the timers already due then.
		c.AfterFunc(0, r.fn("1m+0"))
		// Beyond the window: stays pending.
		c.AfterFunc(10*time.Minute, r.fn("1m+10m"))
	})
	c.AfterFunc(time.Minute, r.fn("1m-second"))
	c.AfterFunc(4*time.Minute, r.fn("4m"))

	advance(c, 5*time.Minute)
	want := []event{
		{"1m", time.Minute, time.Minute},
		{"1m-second", time.Minute, time.Minute},
		{"1m+0", time.Minute, time.Minute},
		{"1m+1m", 2 * time.Minute, 2 * time.Minute},
		{"1m+1m+30s", 150 * time.Second, 150 * time.Second},
		{"4m", 4 * time.Minute, 4 * time.Minute},
	}
	if diff := cmp.Diff(want, r.events()); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	if n := c.Pending(); n != 1 {
		t.Fatalf("Pending = %d, want 1", n)
	}
	advance(c, 6*time.Minute)
	if ev := r.events(); ev[len(ev)-1] != (event{"1m+10m", 11 * time.Minute, 11 * time.Minute}) {
		t.Fatalf("last event %v", ev[len(ev)-1])
	}
}

func TestAdvanceNegativeAndZero(t *testing.T) {
	c := newManual(t)
	if got := advance(c, -time.Hour); got != start {
		t.Errorf("Advance(-1h) = %v, want %v", got, start)
	}
	// A timer in the past fires at the next Advance, at its due time, and
	// the clock does not go back.
	r := &recorder{c: c}
	c.At(start.Add(-time.Hour), r.fn("past"))
	c.AfterFunc(0, r.fn("now"))
	if got := advance(c, 0); got != start {
		t.Errorf("Advance(0) = %v", got)
	}
	want := []event{{"past", -time.Hour, -time.Hour}, {"now", 0, 0}}
	if diff := cmp.Diff(want, r.events()); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	if got := c.Now(); got != start {
		t.Errorf("Now = %v, want %v", got, start)
	}
}

func TestStop(t *testing.T) {
	c := newManual(t)
	var fired atomic.Int32
	stop := c.AfterFunc(time.Minute, func(time.Time) { fired.Add(1) })
	if !stop() {
		t.Fatal("first stop = false")
	}
	if stop() {
		t.Fatal("second stop = true")
	}
	advance(c, time.Hour)
	if fired.Load() != 0 {
		t.Fatal("stopped timer fired")
	}

	stop2 := c.AfterFunc(time.Minute, func(time.Time) { fired.Add(1) })
	advance(c, time.Minute)
	if fired.Load() != 1 {
		t.Fatal("timer did not fire")
	}
	if stop2() {
		t.Fatal("stop after firing = true")
	}

	// Stopping one timer leaves the others (heap indices stay right).
	r := &recorder{c: c}
	var stops []func() bool
	for i := range 10 {
		stops = append(stops, c.AfterFunc(time.Duration(i+1)*time.Second, r.fn(fmt.Sprint(i))))
	}
	for _, i := range []int{7, 0, 4} {
		if !stops[i]() {
			t.Fatalf("stop %d = false", i)
		}
	}
	advance(c, time.Minute)
	var names []string
	for _, e := range r.events() {
		names = append(names, e.Name)
	}
	if diff := cmp.Diff([]string{"1", "2", "3", "5", "6", "8", "9"}, names); diff != "" {
		t.Fatalf("fired (-want +got):\n%s", diff)
	}
	for i, s := range stops {
		if s() {
			t.Errorf("stop %d after firing/stopping = true", i)
		}
	}
}

func TestStopFromCallback(t *testing.T) {
	c := newManual(t)
	var fired atomic.Bool
	var stopB func() bool
	var stoppedB bool
	c.AfterFunc(time.Minute, func(time.Time) { stoppedB = stopB() })
	stopB = c.AfterFunc(2*time.Minute, func(time.Time) { fired.Store(true) })
	advance(c, time.Hour)
	if !stoppedB || fired.Load() {
		t.Fatalf("stop from callback: stopped=%v fired=%v", stoppedB, fired.Load())
	}
}

func TestReset(t *testing.T) {
	c := newManual(t)
	var fired atomic.Bool
	stop := c.AfterFunc(time.Minute, func(time.Time) { fired.Store(true) })
	c.AfterFunc(time.Hour, func(time.Time) { fired.Store(true) })
	advance(c, 10*time.Second)

	earlier := start.Add(-24 * time.Hour)
	c.Reset(earlier)
	if n := c.Pending(); n != 0 {
		t.Fatalf("Pending after Reset = %d", n)
	}
	if got := c.Now(); got != earlier {
		t.Fatalf("Now after Reset = %v, want %v", got, earlier)
	}
	if stop() {
		t.Fatal("stop of a timer dropped by Reset = true")
	}
	// New timers after Reset work, and an old stop does not touch them.
	r := &recorder{c: c}
	c.AfterFunc(time.Minute, r.fn("new"))
	if stop() {
		t.Fatal("old stop = true after a new timer")
	}
	advance(c, 48*time.Hour)
	if fired.Load() {
		t.Fatal("timer dropped by Reset fired")
	}
	if n := len(r.events()); n != 1 {
		t.Fatalf("new timer fired %d times", n)
	}

	c.Reset(time.Time{})
	if got := c.Now(); got != DefaultStart {
		t.Fatalf("Now after Reset(zero) = %v, want DefaultStart", got)
	}
}

func TestSet(t *testing.T) {
	c := newManual(t)
	r := &recorder{c: c}
	c.AfterFunc(time.Minute, r.fn("1m"))
	c.AfterFunc(time.Hour, r.fn("1h"))

	if got := set(c, start.Add(-time.Hour)); got != start {
		t.Fatalf("Set(past) = %v, want %v", got, start)
	}
	if got := c.Now(); got != start {
		t.Fatalf("Now after Set(past) = %v", got)
	}
	target := start.Add(30 * time.Minute)
	if got := set(c, target); got != target {
		t.Fatalf("Set(+30m) = %v, want %v", got, target)
	}
	want := []event{{"1m", time.Minute, time.Minute}}
	if diff := cmp.Diff(want, r.events()); diff != "" {
		t.Fatalf("events (-want +got):\n%s", diff)
	}
	if got := set(c, target); got != target {
		t.Fatalf("Set(same) = %v", got)
	}
	if n := c.Pending(); n != 1 {
		t.Fatalf("Pending = %d, want 1", n)
	}
}

func TestNowDuringCallbackFromOtherGoroutine(t *testing.T) {
	c := newManual(t)
	seen := make(chan time.Time, 1)
	c.AfterFunc(time.Minute, func(time.Time) {
		// Another goroutine reading Now while the callback runs sees the
		// callback's due time.
		done := make(chan time.Time)
		go func() { done <- c.Now() }()
		seen <- <-done
	})
	advance(c, time.Hour)
	if got := <-seen; got != start.Add(time.Minute) {
		t.Fatalf("Now from another goroutine during callback = %v", got)
	}
}

func TestConcurrentUse(t *testing.T) {
	c := newManual(t)
	var fired, stopped atomic.Int64
	const goroutines, per = 16, 200
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range per {
				stop := c.AfterFunc(time.Duration(i%7)*time.Second, func(now time.Time) {
					if c.Now() != now {
						t.Errorf("Now in callback %v, due %v", c.Now(), now)
					}
					fired.Add(1)
				})
				if (g+i)%5 == 0 && stop() {
					stopped.Add(1)
				}
				switch i % 3 {
				case 0:
					advance(c, time.Second)
				case 1:
					_ = c.Now()
				case 2:
					_ = c.Pending()
				}
			}
		})
	}
	wg.Wait()
	advance(c, time.Hour)
	if got := fired.Load() + stopped.Load(); got != goroutines*per {
		t.Fatalf("fired %d + stopped %d = %d, want %d", fired.Load(), stopped.Load(), got, goroutines*per)
	}
	if n := c.Pending(); n != 0 {
		t.Fatalf("Pending = %d", n)
	}
}

func TestDuration(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want time.Duration
		out  string
	}{
		{"5m", 5 * time.Minute, "5m0s"},
		{"1h30m", 90 * time.Minute, "1h30m0s"},
		{"500ms", 500 * time.Millisecond, "500ms"},
		{"0s", 0, "0s"},
		{"0", 0, "0s"},
	} {
		var d Duration
		if err := d.UnmarshalText([]byte(tt.in)); err != nil {
			t.Fatalf("UnmarshalText(%q): %v", tt.in, err)
		}
		if d.D() != tt.want {
			t.Errorf("UnmarshalText(%q) = %v, want %v", tt.in, d.D(), tt.want)
		}
		b, err := d.MarshalText()
		if err != nil || string(b) != tt.out || d.String() != tt.out {
			t.Errorf("MarshalText(%v) = %q, %v; String %q; want %q", tt.want, b, err, d.String(), tt.out)
		}
		var back Duration
		if err := back.UnmarshalText(b); err != nil || back != d {
			t.Errorf("round trip of %q: %v, %v", b, back, err)
		}
	}

	// JSON through the text methods.
	type doc struct {
		Delay Duration `json:"delay"`
	}
	b, err := json.Marshal(doc{Duration(90 * time.Second)})
	if err != nil || string(b) != `{"delay":"1m30s"}` {
		t.Fatalf("json.Marshal = %s, %v", b, err)
	}
	var got doc
	if err := json.Unmarshal(b, &got); err != nil || got.Delay.D() != 90*time.Second {
		t.Fatalf("json.Unmarshal = %+v, %v", got, err)
	}

	for _, tt := range []struct{ in, want string }{
		{"abc", `invalid duration "abc" (want e.g. 500ms, 5m, 1h)`},
		{"", `invalid duration "" (want e.g. 500ms, 5m, 1h)`},
		{"5", `invalid duration "5" (want e.g. 500ms, 5m, 1h)`},
		{"-5s", `invalid duration "-5s": must not be negative`},
	} {
		d := Duration(7)
		err := d.UnmarshalText([]byte(tt.in))
		if err == nil || err.Error() != tt.want {
			t.Errorf("UnmarshalText(%q) error = %v, want %q", tt.in, err, tt.want)
		}
		if d != 7 {
			t.Errorf("UnmarshalText(%q) changed the value on error: %v", tt.in, d)
		}
	}
	if err := json.Unmarshal([]byte(`{"delay":"soon"}`), &got); err == nil ||
		!strings.Contains(err.Error(), `invalid duration "soon"`) {
		t.Errorf("json.Unmarshal of a bad duration: %v", err)
	}
}

func TestRealNowFollowsWall(t *testing.T) {
	c := New(ModeReal, time.Time{})
	defer c.Close()
	if c.Mode() != ModeReal {
		t.Fatalf("Mode = %q", c.Mode())
	}
	before := time.Now().UTC().Round(0)
	a := c.Now()
	b := c.Now()
	after := time.Now().UTC().Round(0)
	if b.Before(a) {
		t.Fatalf("Now went back: %v then %v", a, b)
	}
	if a.Before(before) || b.After(after) {
		t.Fatalf("Now %v..%v outside wall %v..%v", a, b, before, after)
	}
	if a.Location() != time.UTC {
		t.Errorf("Now not UTC: %v", a.Location())
	}
}

func TestRealStart(t *testing.T) {
	c := New(ModeReal, start)
	defer c.Close()
	if got := c.Now(); got.Before(start) || got.Sub(start) > time.Minute {
		t.Fatalf("Now = %v, want about %v", got, start)
	}
	c.Reset(time.Time{})
	if got := c.Now(); got.Sub(time.Now()).Abs() > time.Minute {
		t.Fatalf("Now after Reset(zero) = %v, want about wall time", got)
	}
}

func TestRealAdvanceAddsOffset(t *testing.T) {
	c := New(ModeReal, time.Time{})
	defer c.Close()
	before := c.Now()
	ret := advance(c, time.Hour)
	after := c.Now()
	if d := ret.Sub(before); d < time.Hour || d > time.Hour+time.Minute {
		t.Fatalf("Advance returned now+%v, want about 1h", d)
	}
	if d := after.Sub(before); d < time.Hour || d > time.Hour+time.Minute {
		t.Fatalf("Now jumped by %v, want about 1h", d)
	}
	if after.Before(ret) {
		t.Fatalf("Now %v before Advance's result %v", after, ret)
	}
}

func TestRealTimerFiresInBackground(t *testing.T) {
	c := New(ModeReal, time.Time{})
	defer c.Close()
	scheduled := c.Now()
	ch := make(chan [2]time.Time, 1)
	c.AfterFunc(20*time.Millisecond, func(due time.Time) { ch <- [2]time.Time{due, c.Now()} })
	select {
	case got := <-ch:
		due, now := got[0], got[1]
		if d := due.Sub(scheduled); d < 20*time.Millisecond || d > 20*time.Millisecond+time.Second {
			t.Errorf("due = scheduled+%v, want about +20ms", d)
		}
		if now != due {
			t.Errorf("Now in callback %v, want due %v", now, due)
		}
		if wall := time.Now().UTC(); wall.Before(due) {
			t.Errorf("fired at wall %v before due %v", wall, due)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("real-mode timer did not fire within 10s")
	}
	if n := c.Pending(); n != 0 {
		t.Errorf("Pending = %d", n)
	}
}

// TestWakeOnlyForEarliest: arming a timer wakes the real-mode loop only
// when it is the new earliest one (the loop's wait changes); a later one,
// such as each session's idle timer, does not. Manual mode has no loop,
// so the wake channel shows what was sent.
func TestWakeOnlyForEarliest(t *testing.T) {
	c := New(ModeManual, time.Time{})
	defer c.Close()
	woken := func() bool {
		select {
		case <-c.wake:
			return true
		default:
			return false
		}
	}
	now := c.Now()
	for _, tc := range []struct {
		in   time.Duration
		wake bool
	}{{time.Hour, true}, {2 * time.Hour, false}, {time.Hour, false}, {time.Minute, true}, {3 * time.Hour, false}} {
		c.At(now.Add(tc.in), func(time.Time) {})
		if got := woken(); got != tc.wake {
			t.Errorf("timer in %v: woken %v, want %v", tc.in, got, tc.wake)
		}
	}
}

// TestRealEarlierTimerFiresFirst: a timer armed after a later one, and due
// before it, fires at its own time.
func TestRealEarlierTimerFiresFirst(t *testing.T) {
	c := New(ModeReal, time.Time{})
	defer c.Close()
	c.AfterFunc(time.Hour, func(time.Time) {})
	ch := make(chan struct{})
	c.AfterFunc(10*time.Millisecond, func(time.Time) { close(ch) })
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("the earlier timer did not fire within 10s")
	}
}

func TestRealPastTimerFiresAtOnce(t *testing.T) {
	c := New(ModeReal, time.Time{})
	defer c.Close()
	ch := make(chan struct{})
	c.At(c.Now().Add(-time.Hour), func(time.Time) { close(ch) })
	select {
	case <-ch:
	case <-time.After(10 * time.Second):
		t.Fatal("past timer did not fire")
	}
}

func TestRealAdvanceFiresSynchronously(t *testing.T) {
	c := New(ModeReal, time.Time{})
	defer c.Close()
	base := c.Now()
	var mu sync.Mutex
	var got []time.Duration
	var nowOK atomic.Bool
	nowOK.Store(true)
	for _, d := range []time.Duration{2 * time.Hour, time.Hour, 3 * time.Hour} {
		c.AfterFunc(d, func(due time.Time) {
			if c.Now() != due {
				nowOK.Store(false)
			}
			mu.Lock()
			got = append(got, due.Sub(base).Round(time.Minute))
			mu.Unlock()
		})
	}
	advance(c, 150*time.Minute)
	mu.Lock()
	fired := append([]time.Duration(nil), got...)
	mu.Unlock()
	if diff := cmp.Diff([]time.Duration{time.Hour, 2 * time.Hour}, fired); diff != "" {
		t.Fatalf("fired when Advance returned (-want +got):\n%s", diff)
	}
	if !nowOK.Load() {
		t.Error("Now in a callback differed from its due time")
	}
	if n := c.Pending(); n != 1 {
		t.Fatalf("Pending = %d, want 1", n)
	}
}

func TestCloseIdempotent(t *testing.T) {
	for _, mode := range []Mode{ModeManual, ModeReal} {
		t.Run(string(mode), func(t *testing.T) {
			c := New(mode, time.Time{})
			c.AfterFunc(time.Hour, func(time.Time) { t.Error("timer fired after Close") })
			c.Close()
			c.Close()
			if n := c.Pending(); n != 0 {
				t.Errorf("Pending after Close = %d", n)
			}
			goleak.VerifyNone(t)
		})
	}
	// Closing concurrently is safe too.
	c := New(ModeReal, time.Time{})
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(c.Close)
	}
	wg.Wait()
	goleak.VerifyNone(t)
}
