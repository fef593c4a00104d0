package faults

// Windows of virtual time: a rule that holds only for a while. Match
// compares the request's virtual time with the window, so no timer is needed.

import (
	"fmt"
	"time"

	"github.com/agentplatform/mockplatform/clock"
)

// Window is a span of virtual time, [Start, Start+For), repeated every
// Every when Every is set: span k is [Start+k·Every, Start+k·Every+For),
// for every k whose span starts before Stop (a zero Stop: for ever). For
// zero is a span without end (Every must then be zero).
type Window struct {
	// Start is when the first span opens.
	Start time.Time `json:"start"`
	// For is how long each span stays open (0: it never closes).
	For clock.Duration `json:"for,omitempty"`
	// Every repeats the span; it must be longer than For.
	Every clock.Duration `json:"every,omitempty"`
	// Stop ends the repetitions: no span opens at or after it.
	Stop time.Time `json:"stop,omitzero"`
}

// Windowed is a rule that holds only inside a window.
type Windowed struct {
	Rule   Rule
	Window Window
}

func (w Window) validate() error {
	switch {
	case w.Start.IsZero():
		return invalid("window.start", "required")
	case w.For < 0:
		return invalid("window.for", "%s must not be negative", w.For)
	case w.Every < 0:
		return invalid("window.every", "%s must not be negative", w.Every)
	case w.Every > 0 && w.For == 0:
		return invalid("window.every", "a repeated window needs a length (for)")
	case w.Every > 0 && w.For >= w.Every:
		return invalid("window.for", "%s must be shorter than every (%s)", w.For, w.Every)
	case !w.Stop.IsZero() && !w.Stop.After(w.Start):
		return invalid("window.stop", "must be after start")
	}
	return nil
}

// Span reports the span that holds t, numbered from 0, and whether one does.
func (w Window) Span(t time.Time) (int64, bool) {
	if t.IsZero() || t.Before(w.Start) {
		return 0, false
	}
	d := t.Sub(w.Start)
	var k int64
	if w.Every > 0 {
		k = int64(d / w.Every.D())
		if !w.Stop.IsZero() && !w.Start.Add(time.Duration(k)*w.Every.D()).Before(w.Stop) {
			return 0, false
		}
		d -= time.Duration(k) * w.Every.D()
	}
	if w.For > 0 && d >= w.For.D() {
		return 0, false
	}
	return k, true
}

// String describes the window.
func (w Window) String() string {
	s := "from " + w.Start.Format(time.RFC3339Nano)
	if w.For > 0 {
		s += " for " + w.For.String()
	}
	if w.Every > 0 {
		s += fmt.Sprintf(", every %s", w.Every)
		if !w.Stop.IsZero() {
			s += " until " + w.Stop.Format(time.RFC3339Nano)
		}
	}
	return s
}
