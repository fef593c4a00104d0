package store

// The concurrency index: per project, the conversations' spans in
// 5-minute intervals, for the concurrency series (docs/api.md#concurrency),
// so that a week's series costs its 2,016 intervals instead of a read of
// every conversation of the week.
//
// A conversation's span is [started_at, ended_at) (an instantaneous one
// lasts 1ns); one in progress, or recorded without an end, is open: its
// span depends on the time of the query (openSpan). The series of a
// window is, per interval [lo, hi), the largest number of spans holding
// an instant of it.
//
// The index keeps two kinds of series per project: one per environment
// (every variant) and one per (environment, variant id, variant name).
// Each holds its finished spans as events in 5-minute buckets: the
// bucket's start and end times, sorted, and, computed on demand, the
// bucket's net change (starts - ends) and its peak relative to the count
// before the bucket (rel); a running sum of the nets gives the count at
// any bucket's start. The open spans are kept as their starts in the
// variant's series (few: the conversations under way). A query sums the
// buckets' nets across the window and takes count + rel as each
// interval's peak; an interval where an open span starts or ends inside
// is swept exactly from its events.
//
// The index is part of the metric aggregates (metrics.go): every
// conversation write updates it in its transaction (the old span out,
// the new one in), generated records enter with their layer and leave by
// retention, a snapshot holds a frozen copy, which the stores that restore
// it share until they change a series, and a store opened on a file
// rebuilds it.
// Times are Unix nanoseconds, as the series has always read them.

import (
	"cmp"
	"iter"
	"slices"
	"time"
)

// concStep is the length of an interval.
const concStep = int64(5 * time.Minute)

// concSpan is what the index keeps of a conversation.
type concSpan struct {
	start, end int64 // end: exclusive, > start; unused when open
	open       bool
	inProgress bool
	env        string
	vid, vname string
}

// seriesKeys returns the keys of the series that hold sp: keys[first:],
// its environment's and its variant's, or its variant's alone for an
// open span (opens are kept by variant only).
func (sp *concSpan) seriesKeys() (keys [2]concKey, first int) {
	keys = [2]concKey{{env: sp.env}, {env: sp.env, vid: sp.vid, vname: sp.vname, variant: true}}
	if sp.open {
		first = 1
	}
	return keys, first
}

func spanOfConv(c *Conversation) concSpan {
	return spanOf(c.StartedAt, c.EndedAt, c.InProgress, c.Environment, c.VariantID, c.VariantName)
}

func spanOf(start, end time.Time, inProgress bool, env, vid, vname string) concSpan {
	s := concSpan{start: start.UnixNano(), inProgress: inProgress, env: env, vid: vid, vname: vname}
	if inProgress || end.IsZero() {
		s.open = true
		return s
	}
	s.end = end.UnixNano()
	if s.end <= s.start {
		s.end = s.start + 1
	}
	return s
}

// concKey names a series: an environment (every variant, all false) or an
// environment and variant.
type concKey struct {
	env, vid, vname string
	variant         bool
}

// concIndex is a project's index.
type concIndex struct {
	series map[concKey]*concSeries
}

func newConcIndex() *concIndex { return &concIndex{series: map[concKey]*concSeries{}} }

func (x *concIndex) empty() bool { return len(x.series) == 0 }

// concSeries holds the spans of one series.
type concSeries struct {
	bks   []concBucket // by n
	cumOK int          // bks[:cumOK] have their cum
	// opens are the starts of the open spans (variant series only), by
	// kind: in progress, or recorded without an end.
	opens, ended []int64
	// frozen: a snapshot's series, prepared (every rel and cum computed,
	// so that queries only read it), shared by the stores that restored
	// it and never changed; a store changes a copy (thawed).
	frozen bool
}

type concBucket struct {
	n            int64   // the bucket's number: floor(time / concStep)
	starts, ends []int64 // sorted
	net, rel     int32
	relOK        bool
	cum          int64 // the nets of the buckets up to this one
	// shared: starts and ends are a frozen series' (copied before a
	// change).
	shared bool
}

// thawed is a copy of a frozen series that may be changed: its buckets'
// events stay shared until a change of the bucket (own).
func (cs *concSeries) thawed() *concSeries {
	n := &concSeries{bks: slices.Clone(cs.bks), cumOK: cs.cumOK, opens: slices.Clone(cs.opens), ended: slices.Clone(cs.ended)}
	for i := range n.bks {
		n.bks[i].shared = true
	}
	return n
}

// own gives the bucket events of its own, before a change.
func (b *concBucket) own() {
	if b.shared {
		b.starts, b.ends, b.shared = slices.Clone(b.starts), slices.Clone(b.ends), false
	}
}

// writable returns the series k (nil: none), replaced by a copy first
// when it is frozen.
func (x *concIndex) writable(k concKey) *concSeries {
	cs := x.series[k]
	if cs != nil && cs.frozen {
		cs = cs.thawed()
		x.series[k] = cs
	}
	return cs
}

func (cs *concSeries) empty() bool {
	return len(cs.bks) == 0 && len(cs.opens) == 0 && len(cs.ended) == 0
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if a%b < 0 {
		q--
	}
	return q
}

// bucket returns the index of bucket n, creating it when create is set
// (-1: absent).
func (cs *concSeries) bucket(n int64, create bool) int {
	i, ok := slices.BinarySearchFunc(cs.bks, n, func(b concBucket, n int64) int { return cmp.Compare(b.n, n) })
	if ok {
		return i
	}
	if !create {
		return -1
	}
	cs.bks = slices.Insert(cs.bks, i, concBucket{n: n, relOK: true})
	cs.cumOK = min(cs.cumOK, i)
	return i
}

// insertSorted inserts v after the values equal to it: many spans of the
// same instant (a clock that stands still) or in the order of time (a
// clock that runs) append instead of moving the rest of the list.
func insertSorted(s []int64, v int64) []int64 {
	return slices.Insert(s, afterEqual(s, v), v)
}

// removeSorted removes one v (the last of the equal values, for the same
// reason).
func removeSorted(s []int64, v int64) ([]int64, bool) {
	i := afterEqual(s, v) - 1
	if i < 0 || s[i] != v {
		return s, false
	}
	return slices.Delete(s, i, i+1), true
}

// afterEqual is the index of the first value of the sorted s above v.
func afterEqual(s []int64, v int64) int {
	i, _ := slices.BinarySearchFunc(s, v, func(e, v int64) int {
		if e <= v {
			return -1
		}
		return 1
	})
	return i
}

// event adds (d=+1) or removes (d=-1) a start or an end at t.
func (cs *concSeries) event(t int64, isStart bool, d int) bool {
	i := cs.bucket(floorDiv(t, concStep), d > 0)
	if i < 0 {
		return false
	}
	b := &cs.bks[i]
	b.own()
	ok := true
	list := &b.ends
	if isStart {
		list = &b.starts
	}
	if d > 0 {
		*list = insertSorted(*list, t)
	} else {
		*list, ok = removeSorted(*list, t)
	}
	if !ok {
		return false
	}
	if isStart {
		b.net += int32(d)
	} else {
		b.net -= int32(d)
	}
	b.relOK = false
	cs.cumOK = min(cs.cumOK, i)
	if len(b.starts) == 0 && len(b.ends) == 0 {
		cs.bks = slices.Delete(cs.bks, i, i+1)
	}
	return true
}

// change adds (d=+1) or removes (d=-1) a span; false when a span to
// remove was not there (the index drifted from the data).
func (x *concIndex) change(sp *concSpan, d int) bool {
	ok := true
	keys, first := sp.seriesKeys()
	for _, k := range keys[first:] {
		cs := x.writable(k)
		if cs == nil {
			if d < 0 {
				ok = false
				continue
			}
			cs = &concSeries{}
			x.series[k] = cs
		}
		switch {
		case !sp.open:
			ok = cs.event(sp.start, true, d) && ok
			ok = cs.event(sp.end, false, d) && ok
		case d > 0 && sp.inProgress:
			cs.opens = insertSorted(cs.opens, sp.start)
		case d > 0:
			cs.ended = insertSorted(cs.ended, sp.start)
		case sp.inProgress:
			var found bool
			cs.opens, found = removeSorted(cs.opens, sp.start)
			ok = found && ok
		default:
			var found bool
			cs.ended, found = removeSorted(cs.ended, sp.start)
			ok = found && ok
		}
		if cs.empty() {
			delete(x.series, k)
		}
	}
	return ok
}

// merge adds the spans of o (which it may take over).
func (x *concIndex) merge(o *concIndex) {
	for k, os := range o.series {
		cs := x.writable(k)
		if cs == nil {
			x.series[k] = os
			continue
		}
		for _, ob := range os.bks {
			i := cs.bucket(ob.n, true)
			b := &cs.bks[i]
			b.own()
			b.starts = append(b.starts, ob.starts...)
			b.ends = append(b.ends, ob.ends...)
			slices.Sort(b.starts)
			slices.Sort(b.ends)
			b.net += ob.net
			b.relOK = false
			cs.cumOK = min(cs.cumOK, i)
		}
		cs.opens = append(cs.opens, os.opens...)
		cs.ended = append(cs.ended, os.ended...)
		slices.Sort(cs.opens)
		slices.Sort(cs.ended)
	}
}

// frozenCopy returns a copy of x for a snapshot: its series are frozen
// (prepared first), copies of x's that are not (x keeps its own), the
// frozen ones shared.
func (x *concIndex) frozenCopy() *concIndex {
	c := &concIndex{series: make(map[concKey]*concSeries, len(x.series))}
	for k, cs := range x.series {
		if cs.frozen {
			c.series[k] = cs
			continue
		}
		cs.prepare()
		n := &concSeries{bks: slices.Clone(cs.bks), cumOK: cs.cumOK, opens: slices.Clone(cs.opens), ended: slices.Clone(cs.ended), frozen: true}
		for i := range n.bks {
			b := &n.bks[i]
			if !b.shared {
				b.starts, b.ends = slices.Clone(b.starts), slices.Clone(b.ends)
			}
			b.shared = false // the frozen series' own (no store changes them)
		}
		c.series[k] = n
	}
	return c
}

// prepare computes every bucket's rel and cum (so that a frozen copy is
// ready for queries).
func (cs *concSeries) prepare() {
	for i := range cs.bks {
		cs.bks[i].relative()
	}
	cs.cumUpTo(len(cs.bks) - 1)
}

// relative computes the bucket's peak relative to the count before it.
func (b *concBucket) relative() int32 {
	if b.relOK {
		return b.rel
	}
	lo := b.n * concStep
	best := int32(0)
	if (len(b.starts) > 0 && b.starts[0] == lo) || (len(b.ends) > 0 && b.ends[0] == lo) {
		best = -1 << 30 // the count at lo includes the events at lo
	}
	var cur int32
	i, j := 0, 0
	for i < len(b.starts) || j < len(b.ends) {
		t := int64(1<<63 - 1)
		if i < len(b.starts) {
			t = b.starts[i]
		}
		if j < len(b.ends) && b.ends[j] < t {
			t = b.ends[j]
		}
		for i < len(b.starts) && b.starts[i] == t {
			cur++
			i++
		}
		for j < len(b.ends) && b.ends[j] == t {
			cur--
			j++
		}
		best = max(best, cur)
	}
	b.rel, b.relOK = best, true
	return best
}

// cumUpTo makes the running sums valid up to bucket i.
func (cs *concSeries) cumUpTo(i int) {
	for ; cs.cumOK <= i; cs.cumOK++ {
		var prev int64
		if cs.cumOK > 0 {
			prev = cs.bks[cs.cumOK-1].cum
		}
		cs.bks[cs.cumOK].cum = prev + int64(cs.bks[cs.cumOK].net)
	}
}

// sweepBucket is the peak of an interval [lo, lo+concStep) from the count
// before it, its bucket's events (b may be nil) and the open spans'
// starts and ends in it (sorted): a merge of the four, all events at a
// time applied before the count is taken.
func sweepBucket(b *concBucket, ostarts, oends []int64, lo, cur int64) int64 {
	var starts, ends []int64
	if b != nil {
		starts, ends = b.starts, b.ends
	}
	best := cur
	first := true
	i, j, p, q := 0, 0, 0, 0
	for i < len(starts) || j < len(ends) || p < len(ostarts) || q < len(oends) {
		t := int64(1<<63 - 1)
		if i < len(starts) {
			t = starts[i]
		}
		if j < len(ends) && ends[j] < t {
			t = ends[j]
		}
		if p < len(ostarts) && ostarts[p] < t {
			t = ostarts[p]
		}
		if q < len(oends) && oends[q] < t {
			t = oends[q]
		}
		for ; i < len(starts) && starts[i] == t; i++ {
			cur++
		}
		for ; p < len(ostarts) && ostarts[p] == t; p++ {
			cur++
		}
		for ; j < len(ends) && ends[j] == t; j++ {
			cur--
		}
		for ; q < len(oends) && oends[q] == t; q++ {
			cur--
		}
		if first && t == lo {
			best = cur // the count at lo includes the events at lo
		}
		first = false
		best = max(best, cur)
	}
	return best
}

// openEvents returns the count of open spans (of the series given) at
// the instant before ws, and their starts and ends in [ws, we), sorted.
func openEvents(series []*concSeries, ws, we, now int64) (before int64, starts, ends []int64) {
	add := func(s, e int64) {
		if e <= ws {
			return
		}
		if s < ws {
			before++
		} else {
			starts = append(starts, s)
		}
		if e < we {
			ends = append(ends, e)
		}
	}
	for _, cs := range series {
		for k, list := range [2][]int64{cs.opens, cs.ended} {
			inProgress := k == 0
			for _, s := range list {
				if s >= we {
					break
				}
				// As the series has always read an open span: up to now; one
				// that starts at now lasts 1ns; one in progress that starts
				// after now does not count yet, one recorded without an end
				// lasts 1ns.
				switch {
				case now > s:
					add(s, now)
				case inProgress && now < s:
				default:
					add(s, s+1)
				}
			}
		}
	}
	slices.Sort(starts)
	slices.Sort(ends)
	return before, starts, ends
}

// peaks computes the series of the window [ws, ws+n*concStep) at now:
// cs holds the finished spans, opens the series whose open spans count.
func (cs *concSeries) peaks(ws int64, n int, now int64, opens []*concSeries) []int {
	out := make([]int, n)
	we := ws + int64(n)*concStep
	b0 := floorDiv(ws, concStep)
	var fin int64
	i := 0
	if cs != nil {
		i, _ = slices.BinarySearchFunc(cs.bks, b0, func(b concBucket, n int64) int { return cmp.Compare(b.n, n) })
		if i > 0 {
			cs.cumUpTo(i - 1)
			fin = cs.bks[i-1].cum
		}
	}
	open, ostarts, oends := openEvents(opens, ws, we, now)
	p, q := 0, 0
	for k := range n {
		lo := ws + int64(k)*concStep
		hi := lo + concStep
		var b *concBucket
		if cs != nil && i < len(cs.bks) && cs.bks[i].n == b0+int64(k) {
			b = &cs.bks[i]
			i++
		}
		// The open spans' starts and ends in [lo, hi): at lo only, the
		// count is constant over the interval.
		p0, q0 := p, q
		var atLo int64
		inside := false
		for ; p < len(ostarts) && ostarts[p] < hi; p++ {
			if ostarts[p] == lo {
				atLo++
			} else {
				inside = true
			}
		}
		for ; q < len(oends) && oends[q] < hi; q++ {
			if oends[q] == lo {
				atLo--
			} else {
				inside = true
			}
		}
		switch {
		case !inside && b == nil:
			out[k] = int(fin + open + atLo)
		case !inside:
			out[k] = int(fin + int64(b.relative()) + open + atLo)
		default:
			out[k] = int(sweepBucket(b, ostarts[p0:p], oends[q0:q], lo, fin+open))
		}
		if b != nil {
			fin += int64(b.net)
		}
		open += int64(p-p0) - int64(q-q0)
	}
	return out
}

// bulk adds spans in any order: events are appended and each bucket
// sorted (and trimmed) once at the end (the generated records of a layer,
// a rebuild).
func (x *concIndex) bulk(spans iter.Seq[concSpan]) {
	// touched are the series the spans went to, in the order first seen;
	// a project has few (environments and variants), so they are looked
	// for in this list before the map (hashing the key's strings for
	// every span was most of the cost).
	type entry struct {
		k  concKey
		cs *concSeries
	}
	var touched []entry
	var many map[concKey]*concSeries // touched by key, once it is longer than a few
	find := func(k concKey) *concSeries {
		if many != nil {
			if cs, ok := many[k]; ok {
				return cs
			}
		} else {
			for _, t := range touched {
				if t.k == k {
					return t.cs
				}
			}
		}
		cs := x.writable(k)
		if cs == nil {
			cs = &concSeries{}
			x.series[k] = cs
		}
		touched = append(touched, entry{k, cs})
		if many == nil && len(touched) > 16 {
			many = make(map[concKey]*concSeries, len(touched))
			for _, t := range touched {
				many[t.k] = t.cs
			}
		} else if many != nil {
			many[k] = cs
		}
		return cs
	}
	for span := range spans {
		sp := &span
		keys, first := sp.seriesKeys()
		for _, k := range keys[first:] {
			cs := find(k)
			switch {
			case !sp.open:
				cs.appendEvent(sp.start, true)
				cs.appendEvent(sp.end, false)
			case sp.inProgress:
				cs.opens = append(cs.opens, sp.start)
			default:
				cs.ended = append(cs.ended, sp.start)
			}
		}
	}
	for _, t := range touched {
		cs := t.cs
		for i := range cs.bks {
			b := &cs.bks[i]
			if b.shared {
				continue // no span went to it: sorted and trimmed
			}
			b.starts, b.ends = trimmed(b.starts), trimmed(b.ends)
			slices.Sort(b.starts)
			slices.Sort(b.ends)
			b.relOK = false
		}
		slices.Sort(cs.opens)
		slices.Sort(cs.ended)
		cs.cumOK = 0
	}
}

// trimmed is s without much spare capacity.
func trimmed(s []int64) []int64 {
	if cap(s)-len(s) > len(s)/8 {
		return slices.Clone(s)
	}
	return s
}

// bks0 is the number of the first bucket (0 with none).
func (cs *concSeries) bks0() int64 {
	if len(cs.bks) == 0 {
		return 0
	}
	return cs.bks[0].n
}

// appendEvent adds an event without keeping its bucket sorted (bulk).
func (cs *concSeries) appendEvent(t int64, isStart bool) {
	n := floorDiv(t, concStep)
	var i int
	k := len(cs.bks)
	switch g := n - cs.bks0(); {
	case k > 0 && cs.bks[k-1].n == n:
		i = k - 1
	case g >= 0 && g < int64(k) && cs.bks[g].n == n:
		i = int(g) // buckets with no gap before n (a busy series): the end of a span
	default:
		i = cs.bucket(n, true)
	}
	b := &cs.bks[i]
	b.own()
	if isStart {
		b.starts = append(b.starts, t)
		b.net++
	} else {
		b.ends = append(b.ends, t)
		b.net--
	}
}
