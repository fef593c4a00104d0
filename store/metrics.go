package store

// Per-project metric aggregates for alerts (docs/fidelity.md M12.6):
// events in per-minute buckets, so a window's query costs its minutes,
// not the conversations. Derived, never stored: each conversation write
// applies its difference, Restore shares the snapshot's frozen copy, and
// a store opened on a file rebuilds them on the first query.
// Lock order: the database's lock, then metrics.mu.

import (
	"cmp"
	"slices"
	"sync"
	"time"

	"github.com/tidwall/buntdb"
)

// MetricsLookback bounds the conversations a window reads: an event counts
// in [from, to] only when its conversation started in
// [from-MetricsLookback, to] (docs/fidelity.md M12.6).
const MetricsLookback = time.Hour

// Kinds of metric events.
const (
	evStart uint8 = iota
	evTurn
	evFuncErr
	evCrash
	numKinds
)

// minuteNS is the length of a bucket in nanoseconds.
const minuteNS = int64(time.Minute)

// tpoint is an instant as minute and offset, without UnixNano's overflow.
type tpoint struct{ min, off int64 }

func tp(t time.Time) tpoint {
	sec := t.Unix()
	m := sec / 60
	if sec%60 < 0 {
		m--
	}
	return tpoint{m, (sec-m*60)*int64(time.Second) + int64(t.Nanosecond())}
}

func (a tpoint) cmp(b tpoint) int {
	if a.min != b.min {
		return cmp.Compare(a.min, b.min)
	}
	return cmp.Compare(a.off, b.off)
}

// mevent is one metric event of a conversation.
type mevent struct {
	kind  uint8
	at    tpoint
	ms    int64  // turn latency in milliseconds
	start tpoint // the conversation's start
}

func (a mevent) cmp(b mevent) int {
	return cmp.Or(cmp.Compare(a.kind, b.kind), a.at.cmp(b.at), cmp.Compare(a.ms, b.ms), a.start.cmp(b.start))
}

// regular reports whether the event is within the lookback of its start
// and so sits in the buckets; others are checked one by one.
func (e mevent) regular() bool {
	if e.kind == evStart {
		return true
	}
	lim := e.start
	lim.off += int64(MetricsLookback)
	lim.min += lim.off / minuteNS
	lim.off %= minuteNS
	return e.start.cmp(e.at) <= 0 && e.at.cmp(lim) <= 0
}

// convEvents appends the metric events of c to out, sorted.
func convEvents(c *Conversation, out []mevent) []mevent {
	return convEventsFrom(c, 0, out)
}

// convEventsFrom is convEvents without the turns before turn from.
func convEventsFrom(c *Conversation, from int, out []mevent) []mevent {
	return convEventsAt(c, 0, from, out)
}

// convEventsAt is convEventsFrom for c.Turns starting at turn base.
func convEventsAt(c *Conversation, base, from int, out []mevent) []mevent {
	if c == nil {
		return out
	}
	start := tp(c.StartedAt)
	out = append(out, mevent{kind: evStart, at: start, start: start})
	for i := from; i < len(c.Turns); i++ {
		t := &c.Turns[i]
		if base+i == 0 && isGreeting(t.UserInput, t.IsSilence, t.IsOOD) && t.Latency == 0 {
			continue // the greeting: no user turn, no latency
		}
		out = append(out, mevent{kind: evTurn, at: tp(t.UserInputAt), ms: t.Latency.Milliseconds(), start: start})
	}
	for _, t := range c.FunctionErrors {
		out = append(out, mevent{kind: evFuncErr, at: tp(t), start: start})
	}
	for _, t := range c.Crashes {
		out = append(out, mevent{kind: evCrash, at: tp(t), start: start})
	}
	slices.SortFunc(out, mevent.cmp)
	return out
}

// bucket holds the events of one minute of one series.
type bucket struct {
	ev     []bev // sorted by (off, ms) when sorted is true
	sorted bool
	// hist is the bucket's latency histogram, built on demand; nil when stale.
	hist *hist
	// frozen buckets are shared with a snapshot and never changed (copy on
	// write: see thawed).
	frozen bool
}

// thawed is a copy of b that may be changed.
func (b *bucket) thawed() *bucket {
	return &bucket{ev: slices.Clone(b.ev), sorted: b.sorted, hist: b.hist}
}

type bev struct{ off, ms int64 }

func (a bev) cmp(b bev) int {
	switch { // cmp.Or would compare both fields every time
	case a.off != b.off:
		return cmp.Compare(a.off, b.off)
	case a.ms != b.ms:
		return cmp.Compare(a.ms, b.ms)
	}
	return 0
}

func (b *bucket) add(e bev) {
	switch n := len(b.ev); {
	case n == 0:
		b.sorted = true
	case b.sorted && b.ev[n-1].cmp(e) > 0:
		b.sorted = false
	}
	b.ev = append(b.ev, e)
	b.hist = nil
}

func (b *bucket) sort() {
	if !b.sorted {
		slices.SortFunc(b.ev, bev.cmp)
		b.sorted = true
	}
}

// remove drops one event equal to e and reports whether there was one.
func (b *bucket) remove(e bev) bool {
	b.sort()
	i, ok := slices.BinarySearchFunc(b.ev, e, bev.cmp)
	if !ok {
		return false
	}
	b.ev = slices.Delete(b.ev, i, i+1)
	b.hist = nil
	return true
}

// span returns the index range of events with off in [lo, hi].
func (b *bucket) span(lo, hi int64) (int, int) {
	b.sort()
	i, _ := slices.BinarySearchFunc(b.ev, lo, func(e bev, t int64) int { return cmp.Compare(e.off, t) })
	j, _ := slices.BinarySearchFunc(b.ev, hi+1, func(e bev, t int64) int { return cmp.Compare(e.off, t) })
	return i, j
}

func (b *bucket) histogram() *hist {
	if b.hist == nil {
		if b.frozen {
			return newHist(histValues(b.ev)) // never (a frozen bucket has one), but not cached
		}
		b.hist = newHist(histValues(b.ev))
	}
	return b.hist
}

// histValues are the latencies of events.
func histValues(ev []bev) []int64 {
	ms := make([]int64, len(ev))
	for i, e := range ev {
		ms[i] = e.ms
	}
	return ms
}

// hist is a multiset: sorted distinct values with cumulative counts.
type hist struct {
	vals []int64
	cum  []int64
}

// newHist builds a histogram of values (which it sorts in place).
func newHist(values []int64) *hist {
	slices.Sort(values)
	h := &hist{}
	for i, v := range values {
		if n := len(h.vals); n > 0 && h.vals[n-1] == v {
			h.cum[n-1] = int64(i + 1)
			continue
		}
		h.vals = append(h.vals, v)
		h.cum = append(h.cum, int64(i+1))
	}
	return h
}

// countLE is the number of values <= v.
func (h *hist) countLE(v int64) int64 {
	i, found := slices.BinarySearch(h.vals, v)
	if found {
		return h.cum[i]
	}
	if i == 0 {
		return 0
	}
	return h.cum[i-1]
}

// series is one kind of event of one project, bucketed by minute.
type series map[int64]*bucket

func (s series) add(at tpoint, ms int64) {
	b := s[at.min]
	if b == nil {
		b = &bucket{}
		s[at.min] = b
	}
	s.writable(at.min, b).add(bev{at.off, ms})
}

// writable returns b, minute m's bucket, copied first if frozen.
func (s series) writable(m int64, b *bucket) *bucket {
	if b.frozen {
		b = b.thawed()
		s[m] = b
	}
	return b
}

func (s series) remove(at tpoint, ms int64) bool {
	b := s[at.min]
	if b == nil {
		return false
	}
	if b = s.writable(at.min, b); !b.remove(bev{at.off, ms}) {
		return false
	}
	if len(b.ev) == 0 {
		delete(s, at.min)
	}
	return true
}

// each calls fn for every bucket with events in [from, to], with their
// index range and whether that is the whole bucket.
func (s series) each(from, to tpoint, fn func(b *bucket, i, j int, whole bool)) {
	if len(s) == 0 || to.cmp(from) < 0 {
		return
	}
	visit := func(m int64, b *bucket) {
		lo, hi := int64(0), minuteNS-1
		if m == from.min {
			lo = from.off
		}
		if m == to.min {
			hi = to.off
		}
		if lo == 0 && hi == minuteNS-1 {
			fn(b, 0, len(b.ev), true)
			return
		}
		i, j := b.span(lo, hi)
		if i < j {
			fn(b, i, j, false)
		}
	}
	if to.min-from.min+1 > int64(len(s)) {
		// A range longer than the data: walk the buckets instead.
		for m, b := range s {
			if m >= from.min && m <= to.min {
				visit(m, b)
			}
		}
		return
	}
	for m := from.min; m <= to.min; m++ {
		if b := s[m]; b != nil {
			visit(m, b)
		}
	}
}

func (s series) count(from, to tpoint) int64 {
	var n int64
	s.each(from, to, func(_ *bucket, i, j int, _ bool) { n += int64(j - i) })
	return n
}

// projMetrics are the aggregates of one project.
type projMetrics struct {
	kinds [numKinds]series
	// odd are the events that are not regular (rare).
	odd []mevent
	// conc is the concurrency index (concindex.go).
	conc *concIndex
	// frozen: a snapshot's aggregates, never changed; a store's first write
	// to the project changes a copy (thawed).
	frozen bool
}

func newProjMetrics() *projMetrics {
	pm := &projMetrics{conc: newConcIndex()}
	for k := range pm.kinds {
		pm.kinds[k] = series{}
	}
	return pm
}

func (pm *projMetrics) empty() bool {
	for _, s := range pm.kinds {
		if len(s) > 0 {
			return false
		}
	}
	return len(pm.odd) == 0 && pm.conc.empty()
}

func (pm *projMetrics) add(e mevent) {
	if !e.regular() {
		pm.odd = append(pm.odd, e)
		return
	}
	pm.kinds[e.kind].add(e.at, e.ms)
}

// bulkMetrics adds a generator's many events to a projMetrics, finding
// the buckets of the generator's range in a slice instead of the map.
type bulkMetrics struct {
	pm    *projMetrics
	base  int64 // the range's first minute
	dense [numKinds][]*bucket
}

// maxBulkMinutes bounds a bulkMetrics' slices; other events use the map.
const maxBulkMinutes = 200_000

// bulk returns an adder for events mostly in [from, to].
func (pm *projMetrics) bulk(from, to time.Time) *bulkMetrics {
	b := &bulkMetrics{pm: pm, base: tp(from).min}
	n := tp(to).min - b.base + 1
	if n < 1 || n > maxBulkMinutes {
		n = 0
	}
	for k := range b.dense {
		b.dense[k] = make([]*bucket, n)
	}
	return b
}

// add is pm.add(e).
func (b *bulkMetrics) add(e mevent) {
	if !e.regular() {
		b.pm.odd = append(b.pm.odd, e)
		return
	}
	d := b.dense[e.kind]
	i := e.at.min - b.base
	if i < 0 || i >= int64(len(d)) {
		b.pm.kinds[e.kind].add(e.at, e.ms)
		return
	}
	bk := d[i]
	if bk == nil {
		s := b.pm.kinds[e.kind]
		if bk = s[e.at.min]; bk == nil {
			bk = &bucket{}
			s[e.at.min] = bk
		}
		bk = s.writable(e.at.min, bk)
		d[i] = bk
	}
	bk.add(bev{e.at.off, e.ms})
}

func (pm *projMetrics) remove(e mevent) bool {
	if !e.regular() {
		i := slices.IndexFunc(pm.odd, func(o mevent) bool { return o.cmp(e) == 0 })
		if i < 0 {
			return false
		}
		pm.odd = slices.Delete(pm.odd, i, i+1)
		return true
	}
	return pm.kinds[e.kind].remove(e.at, e.ms)
}

// merge adds the events of o (which it may take over).
func (pm *projMetrics) merge(o *projMetrics) {
	for k, s := range o.kinds {
		for m, b := range s {
			tb := pm.kinds[k][m]
			if tb == nil {
				pm.kinds[k][m] = b
				continue
			}
			tb = pm.kinds[k].writable(m, tb)
			for _, e := range b.ev {
				tb.add(e)
			}
		}
	}
	pm.odd = append(pm.odd, o.odd...)
	pm.conc.merge(o.conc)
}

// metrics are the store's aggregates (see the top of this file).
type metrics struct {
	mu sync.Mutex
	// valid is false until a rebuild when the aggregates may not match
	// the data (a store opened on a file, a failed commit).
	valid    bool
	projects map[ProjectRef]*projMetrics
	// apiErrors are the runtime API errors recorded per project, in
	// memory only.
	apiErrors map[ProjectRef]*points
}

// projLocked returns ref's aggregates to change (created, or thawed).
func (m *metrics) projLocked(ref ProjectRef) *projMetrics {
	pm := m.projects[ref]
	switch {
	case pm == nil:
		pm = newProjMetrics()
		m.projects[ref] = pm
	case pm.frozen:
		pm = pm.thawed()
		m.projects[ref] = pm
	}
	return pm
}

// replaceLocked moves the aggregates from a conversation's old version to
// its new one (either may be absent); false when they had drifted.
func (m *metrics) replaceLocked(oldRef ProjectRef, oldEv []mevent, oldSp *concSpan, newRef ProjectRef, newEv []mevent, newSp *concSpan) bool {
	if !m.valid {
		return true // a rebuild will read the data
	}
	ok := true
	if oldRef != newRef {
		if len(oldEv) > 0 || oldSp != nil {
			pm := m.projLocked(oldRef)
			for _, e := range oldEv {
				ok = pm.remove(e) && ok
			}
			if oldSp != nil {
				ok = pm.conc.change(oldSp, -1) && ok
			}
			if pm.empty() {
				delete(m.projects, oldRef)
			}
		}
		if len(newEv) > 0 || newSp != nil {
			pm := m.projLocked(newRef)
			for _, e := range newEv {
				pm.add(e)
			}
			if newSp != nil {
				pm.conc.change(newSp, 1)
			}
		}
		return ok
	}
	pm := m.projLocked(newRef)
	// Both lists are sorted: apply the difference only.
	i, j := 0, 0
	for i < len(oldEv) || j < len(newEv) {
		switch {
		case j == len(newEv) || i < len(oldEv) && oldEv[i].cmp(newEv[j]) < 0:
			ok = pm.remove(oldEv[i]) && ok
			i++
		case i == len(oldEv) || oldEv[i].cmp(newEv[j]) > 0:
			pm.add(newEv[j])
			j++
		default:
			i++
			j++
		}
	}
	if oldSp == nil || newSp == nil || *oldSp != *newSp {
		if oldSp != nil {
			ok = pm.conc.change(oldSp, -1) && ok
		}
		if newSp != nil {
			pm.conc.change(newSp, 1)
		}
	}
	if pm.empty() {
		delete(m.projects, newRef)
	}
	return ok
}

// convReplaced updates the aggregates for a write from old (nil: new) to
// c, inside the write transaction; a drift marks them for a rebuild.
func (s *Store) convReplaced(old, c *Conversation) {
	var oldRef, newRef ProjectRef
	var oldSp, newSp *concSpan
	if old != nil {
		oldRef = projectOf(old)
		sp := spanOfConv(old)
		oldSp = &sp
	}
	if c != nil {
		newRef = projectOf(c)
		sp := spanOfConv(c)
		newSp = &sp
	}
	oldEv := convEvents(old, nil)
	newEv := convEvents(c, nil)
	s.metrics.mu.Lock()
	defer s.metrics.mu.Unlock()
	if !s.metrics.replaceLocked(oldRef, oldEv, oldSp, newRef, newEv, newSp) {
		s.metrics.valid = false
	}
}

// metricsInvalid marks the aggregates for a rebuild (after a failed commit).
func (s *Store) metricsInvalid() {
	s.metrics.mu.Lock()
	s.metrics.valid = false
	s.metrics.mu.Unlock()
}

// resetLocked empties the aggregates; valid false: a rebuild is due.
// metrics.mu must be held.
func (m *metrics) resetLocked(valid bool) {
	m.valid = valid
	m.projects = map[ProjectRef]*projMetrics{}
	m.apiErrors = map[ProjectRef]*points{}
}

// ensureMetrics rebuilds the aggregates from the data when not valid.
func (s *Store) ensureMetrics() error {
	s.metrics.mu.Lock()
	valid := s.metrics.valid
	s.metrics.mu.Unlock()
	if valid {
		return nil
	}
	return s.view(func(tx *buntdb.Tx) error {
		s.metrics.mu.Lock()
		defer s.metrics.mu.Unlock()
		if s.metrics.valid {
			return nil
		}
		projects := map[ProjectRef]*projMetrics{}
		spans := map[ProjectRef][]concSpan{}
		var buf []mevent
		var decErr error
		for _, ls := range s.gen {
			pm := projects[ls.ref]
			if pm == nil {
				pm = newProjMetrics()
				projects[ls.ref] = pm
			}
			for p := range ls.recs {
				if ls.shadowed(p) {
					continue
				}
				var err error
				if buf, err = ls.events(p, buf[:0]); err != nil {
					return err
				}
				for _, e := range buf {
					pm.add(e)
				}
				spans[ls.ref] = append(spans[ls.ref], ls.concSpan(p))
			}
		}
		tab := s.tab.load()
		err := scanPrefix(tx, pfxConv, func(k, v string) bool {
			c, err := decodeConv(k, v, tab)
			if err != nil {
				decErr = err
				return false
			}
			ref := projectOf(c)
			pm := projects[ref]
			if pm == nil {
				pm = newProjMetrics()
				projects[ref] = pm
			}
			buf = convEvents(c, buf[:0])
			for _, e := range buf {
				pm.add(e)
			}
			spans[ref] = append(spans[ref], spanOfConv(c))
			return true
		})
		if err == nil {
			err = decErr
		}
		if err != nil {
			return err
		}
		for ref, sp := range spans {
			projects[ref].conc.bulk(slices.Values(sp))
		}
		s.metrics.projects, s.metrics.valid = projects, true
		return nil
	})
}

// oldConv returns the conversation under pk, for reading only (cached or
// decoded). The caller must hold the database's write lock.
func (s *Store) oldConv(pk, raw string) (*Conversation, error) {
	if c := s.convs.peek(pk, raw); c != nil {
		return c, nil
	}
	return decodeConv(pk, raw, s.tab.load())
}
