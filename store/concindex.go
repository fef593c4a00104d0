package store

// The concurrency index (docs/api.md#concurrency): per project, series per
// environment and per variant of the spans [started_at, ended_at), in
// 5-minute buckets with each bucket's net change and relative peak, so a
// series costs its intervals, not a read of the conversations. Open spans
// depend on the query's time and are swept exactly. Part of the metric
// aggregates (metrics.go). Times are Unix nanoseconds.

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
// its environment's and variant's, or only its variant's when open.
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

// concKey names a series: an environment, or an environment and variant.
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
	// frozen: a snapshot's series, prepared and never changed; a store
	// changes a copy (thawed).
	frozen bool
}

type concBucket struct {
	n            int64   // the bucket's number: floor(time / concStep)
	starts, ends []int64 // sorted
	net, rel     int32
	relOK        bool
	cum          int64 // the nets of the buckets up to this one
	// shared: starts and ends are a frozen series' (copied before a change).
	shared bool
}

// thawed is a changeable copy of a frozen series, sharing bucket events
// until own.
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

// writable returns the series k (nil: none), thawed first if frozen.
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

// bucket returns the index of bucket n (-1: absent), created if create.
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

// insertSorted inserts v after the values equal to it, so spans in time
// order append instead of moving the rest.
func insertSorted(s []int64, v int64) []int64 {
	return slices.Insert(s, afterEqual(s, v), v)
}

// removeSorted removes one v, the last of those equal.
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

// change adds (d=+1) or removes (d=-1) a span; false when one to remove
// was missing (drift).
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

// frozenCopy returns a copy of x with its series frozen, for a snapshot.
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

// prepare computes every bucket's rel and cum, for a frozen copy.
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

// sweepBucket is the peak of the interval [lo, lo+concStep) from the count
// before it, its bucket's events (b may be nil) and the open spans' sorted
// starts and ends in it, applying all events at a time before counting.
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

// openEvents returns the series' open spans counted just before ws, and
// their sorted starts and ends in [ws, we).
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
				// An open span lasts up to now, or 1ns if it starts at or
				// after now (one in progress starting after now: not yet).
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

// peaks computes the window [ws, ws+n*concStep) at now from cs's finished
// spans and the open spans of opens.
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
		// Open spans' events in [lo, hi): if only at lo, the count is flat.
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

// bulk adds spans in any order, sorting each bucket once at the end.
func (x *concIndex) bulk(spans iter.Seq[concSpan]) {
	// touched are the series the spans went to, first seen first; few,
	// so searched before the map (hashing keys is costly).
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
