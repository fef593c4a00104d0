package scenario

// Overlaps: timeline entries that cannot both hold, such as two down
// windows of one receiver or two changes of one thing at one instant,
// whose result would hang on the order of the file
// (docs/timeline.md#timeline-overlaps).

import (
	"fmt"
	"slices"
	"time"
)

// spans are the spans of an entry, as offsets from the start in
// nanoseconds: [start+k·every, start+k·every+length) for k < n (n < 0:
// for ever).
type spans struct {
	start, every, length, n int64
}

// endless is the length of a span that never closes (no overflow).
const endless = int64(1) << 61

// horizon is where the enumeration of a repetition stops.
const horizon = 200 * int64(MaxClockSetting)

func (s spans) count() int64 {
	if s.n < 0 {
		return 1 << 62
	}
	return s.n
}

// entrySpans are the spans of an entry whose occurrences last length.
func entrySpans(e *TimelineEntry, length int64) spans {
	s := spans{start: int64(e.At), length: max(length, 1), n: 1}
	if e.Every > 0 {
		s.every = int64(e.Every)
		s.n = -1
		if e.Until > e.At {
			s.n = (int64(e.Until) - int64(e.At) + s.every - 1) / s.every
		}
	}
	return s
}

// overlapAt finds a time both series hold by walking the shorter one (at
// most budget occurrences, up to horizon); endless repetitions left
// undecided are settled by the gcd of their periods. It returns the time
// (-1 when only the arithmetic found it) and whether one exists.
func overlapAt(a, b spans, budget int64) (int64, bool) {
	if a.count() > b.count() {
		a, b = b, a
	}
	s := a.start
	for i := int64(0); i < a.count() && i < budget && s <= horizon; i++ {
		e := s + a.length
		var j int64
		if b.every > 0 {
			if x := s - b.start - b.length; x >= 0 {
				j = x/b.every + 1
			}
		}
		if j < b.count() && j <= horizon/max(b.every, 1) {
			bs := b.start + j*b.every
			if bs < e && bs+b.length > s {
				return max(s, bs), true
			}
		}
		if a.every == 0 {
			return 0, false
		}
		s += a.every
	}
	if a.n >= 0 || b.n >= 0 || a.every == 0 || b.every == 0 {
		return 0, false // a walked to its end (or its cap): no overlap found
	}
	g := gcd(a.every, b.every)
	// Spans overlap when -b.length < (a.start-b.start) + m·g < a.length for
	// some integer m.
	d := a.start - b.start
	lo, hi := -b.length-d, a.length-d
	if m := floorDiv(hi-1, g); m*g > lo {
		return -1, true
	}
	return 0, false
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b != 0 && (a < 0) != (b < 0) {
		q--
	}
	return q
}

// timelineOverlaps reports entries that cannot both hold; bad entries are
// left out.
func (v *validator) timelineOverlaps(s *Scenario, bad map[int]bool) {
	type item struct {
		i     int
		sp    spans
		key   string // what it changes (one receiver, one agent, ...)
		scope string // a receiver's endpoint ("" every endpoint)
		what  string // in messages
	}
	var downs, ups, points []item
	tl := s.Timeline
	for i := range tl {
		e := &tl[i]
		a := e.Do
		if a == nil || bad[i] {
			continue
		}
		switch a.Name() {
		case ActionWebhookReceiver:
			switch a.WebhookReceiver {
			case ReceiverDown:
				if e.Every > 0 && a.For == 0 {
					v.reportf(path{"timeline", i, "do", "for"}, "a repeated webhook_receiver: down needs for (how long it stays down)")
					continue
				}
				downs = append(downs, item{i: i, scope: a.Endpoint, what: "webhook_receiver down"})
			case ReceiverUp:
				ups = append(ups, item{i: i, sp: entrySpans(e, 1), scope: a.Endpoint, what: "webhook_receiver up"})
			}
		case ActionPublish:
			points = append(points, item{i: i, sp: entrySpans(e, 1), key: "deploy " + a.Publish.Account + "/" + a.Publish.Agent,
				what: "a deployment of agent " + a.Publish.Agent})
		case ActionPromote:
			points = append(points, item{i: i, sp: entrySpans(e, 1), key: "deploy " + a.Promote.Account + "/" + a.Promote.Agent,
				what: "a deployment of agent " + a.Promote.Agent})
		case ActionRealTimeConfig:
			c := a.RealTimeConfig
			keys := make([]string, 0, len(c.Variables))
			for k := range c.Variables {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			for _, k := range keys {
				points = append(points, item{i: i, sp: entrySpans(e, 1), key: "config " + c.Account + "/" + c.Agent + "/" + c.Environment + "/" + k,
					what: fmt.Sprintf("a change of %s's %s variable %s", c.Agent, c.Environment, k)})
			}
		}
	}
	sameScope := func(a, b string) bool { return a == "" || b == "" || a == b }
	// A down window without for lasts until the first up of its receiver.
	for k := range downs {
		d := &downs[k]
		e := &tl[d.i]
		length := int64(e.Do.For)
		if length == 0 {
			length = endless
			for _, u := range ups {
				if !sameScope(d.scope, u.scope) {
					continue
				}
				us := u.sp
				at := us.start
				if us.every > 0 && at < int64(e.At) {
					at += (int64(e.At) - at + us.every - 1) / us.every * us.every
				}
				if at >= int64(e.At) && (at-us.start)/max(us.every, 1) < us.count() && at-int64(e.At) < length {
					length = max(at-int64(e.At), 1)
				}
			}
		}
		d.sp = entrySpans(e, length)
	}
	pairs := int64(len(downs)*len(downs) + len(downs)*len(ups) + len(points)*len(points))
	budget := max(100, 1_000_000/max(pairs, 1))
	report := func(later, earlier item, at int64, msg string) {
		when := ""
		if at >= 0 {
			when = " at " + time.Duration(at).String()
		}
		p := path{"timeline", later.i, "do"}
		v.reportf(p, "%s%s %s timeline[%d] (%s)", later.what, when, msg, earlier.i,
			v.firstAt(p, path{"timeline", earlier.i, "do"}))
	}
	for x := range downs {
		for y := x + 1; y < len(downs); y++ {
			if !sameScope(downs[x].scope, downs[y].scope) {
				continue
			}
			if at, ok := overlapAt(downs[x].sp, downs[y].sp, budget); ok {
				report(downs[y], downs[x], at, "overlaps the down window of")
			}
		}
		for _, u := range ups {
			if !sameScope(downs[x].scope, u.scope) || tl[downs[x].i].Do.For == 0 {
				continue
			}
			if at, ok := overlapAt(downs[x].sp, u.sp, budget); ok {
				report(u, downs[x], at, "falls inside the down window of")
			}
		}
		for _, u := range ups {
			if sameScope(downs[x].scope, u.scope) && tl[downs[x].i].Do.For == 0 {
				if at, ok := overlapAt(spans{start: downs[x].sp.start, length: 1, n: 1}, u.sp, budget); ok {
					report(u, downs[x], at, "is at the same time as the down of")
				}
			}
		}
	}
	for x := range points {
		for y := x + 1; y < len(points); y++ {
			if points[x].key != points[y].key || points[x].i == points[y].i {
				continue
			}
			if at, ok := overlapAt(points[x].sp, points[y].sp, budget); ok {
				report(points[y], points[x], at, "is at the same time as the one of")
			}
		}
	}
}
