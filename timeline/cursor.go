package timeline

// Walking the firings in order: a cursor merges per-entry sources by a heap.

import (
	"container/heap"
	"math/rand/v2"
	"time"

	"github.com/agentplatform/mockplatform/scenario"
)

// source yields an entry's firings in order.
type source interface {
	head() (*Firing, bool)
	pop()
}

// sourceAt is the entry's source positioned at its first firing at or after t.
func (s *Schedule) sourceAt(e *entry, t time.Time) source {
	off := int64(t.Sub(s.start))
	var src source
	if e.traffic != nil {
		src = newTrafficSource(s.start, e, off)
	} else {
		src = newPeriodicSource(s.start, e, off)
	}
	for {
		f, ok := src.head()
		if !ok || !f.At.Before(t) {
			return src
		}
		src.pop()
	}
}

// periodicSource yields the firings of a fault window or an action.
type periodicSource struct {
	e     *entry
	start time.Time
	k     int64 // the next occurrence to expand
	buf   []Firing
	i     int
}

func newPeriodicSource(start time.Time, e *entry, off int64) *periodicSource {
	p := &periodicSource{e: e, start: start}
	if e.every > 0 && off > e.at+e.span {
		// The first occurrence that may have a step at or after off.
		p.k = (off - e.at - e.span) / e.every
	}
	return p
}

func (p *periodicSource) head() (*Firing, bool) {
	for p.i >= len(p.buf) {
		if p.k >= p.e.occurrences() || p.e.every == 0 && p.k > 0 {
			return nil, false
		}
		p.buf, p.i = p.e.steps(p.start, p.k, p.buf[:0]), 0
		p.k++
	}
	return &p.buf[p.i], true
}

func (p *periodicSource) pop() { p.i++ }

// trafficSource yields the firings of background traffic: its
// conversations' steps, in order.
type trafficSource struct {
	e       *entry
	start   time.Time
	arr     *arrivals
	pending stepHeap
	pcg     *rand.PCG
	r       *rand.Rand
	cur     Firing
}

// pendingStep is the next step of a conversation under way.
type pendingStep struct {
	at   time.Time
	ord  int64
	step int // 0 start, 1..n turns, n+1 end
	conv *Conversation
}

func newTrafficSource(start time.Time, e *entry, off int64) *trafficSource {
	t := e.traffic
	pcg := rand.NewPCG(0, 0)
	src := &trafficSource{e: e, start: start, arr: newArrivals(t), pcg: pcg, r: rand.New(pcg)}
	// Conversations that started up to the longest one before off may
	// still have steps at or after it.
	a := src.arr
	at := start.Add(time.Duration(off))
	for a.seek(t.expected(off - t.longest)); !a.done && a.off < off; a.next() {
		c := t.conversation(start, a.off, a.ord, src.r, src.pcg)
		p := pendingStep{at: c.Start, ord: a.ord, conv: c}
		for p.step <= len(c.Turns) && p.at.Before(at) {
			p.step++
			if p.step <= len(c.Turns) {
				p.at = c.Turns[p.step-1].At
			} else {
				p.at = c.End
			}
		}
		if !p.at.Before(at) {
			src.pending.push(p)
		}
	}
	return src
}

func (s *trafficSource) head() (*Firing, bool) {
	a := s.arr
	for !a.done && (len(s.pending) == 0 || !s.start.Add(time.Duration(a.off)).After(s.pending[0].at)) {
		c := s.e.traffic.conversation(s.start, a.off, a.ord, s.r, s.pcg)
		s.pending.push(pendingStep{at: c.Start, ord: a.ord, conv: c})
		a.next()
	}
	if len(s.pending) == 0 {
		return nil, false
	}
	p := s.pending[0]
	f := Firing{At: p.at, Entry: s.e.index, ID: s.e.id, Kind: s.e.kind, Occurrence: p.ord, Conversation: p.conv}
	switch n := len(p.conv.Turns); {
	case p.step == 0:
		f.Step = StepStart
	case p.step <= n:
		f.Step, f.Turn = StepTurn, p.step
	default:
		f.Step = StepEnd
	}
	s.cur = f
	return &s.cur, true
}

func (s *trafficSource) pop() {
	p := &s.pending[0]
	n := len(p.conv.Turns)
	if p.step > n {
		s.pending.popTop()
		return
	}
	p.step++
	if p.step <= n {
		p.at = p.conv.Turns[p.step-1].At
	} else {
		p.at = p.conv.End
	}
	s.pending.down(0)
}

// stepHeap is a binary heap of pending steps (container/heap would
// allocate for every step it boxes).
type stepHeap []pendingStep

func (h stepHeap) less(i, j int) bool {
	if !h[i].at.Equal(h[j].at) {
		return h[i].at.Before(h[j].at)
	}
	if h[i].ord != h[j].ord {
		return h[i].ord < h[j].ord
	}
	return h[i].step < h[j].step
}

func (h *stepHeap) push(p pendingStep) {
	*h = append(*h, p)
	for i := len(*h) - 1; i > 0; {
		up := (i - 1) / 2
		if !h.less(i, up) {
			break
		}
		(*h)[i], (*h)[up] = (*h)[up], (*h)[i]
		i = up
	}
}

func (h *stepHeap) popTop() {
	last := len(*h) - 1
	(*h)[0] = (*h)[last]
	(*h)[last] = pendingStep{}
	*h = (*h)[:last]
	h.down(0)
}

func (h stepHeap) down(i int) {
	for {
		l := 2*i + 1
		if l >= len(h) {
			return
		}
		m := l
		if r := l + 1; r < len(h) && h.less(r, l) {
			m = r
		}
		if !h.less(m, i) {
			return
		}
		h[i], h[m] = h[m], h[i]
		i = m
	}
}

// Cursor walks the firings of a schedule in order, for one goroutine.
type Cursor struct {
	srcs sourceHeap
}

// Cursor walks the firings from the start, inclusive.
func (s *Schedule) Cursor() *Cursor { return s.cursorAt(s.start) }

// cursorAt walks the firings at or after t.
func (s *Schedule) cursorAt(t time.Time) *Cursor {
	c := &Cursor{}
	for _, e := range s.entries {
		src := s.sourceAt(e, t)
		if f, ok := src.head(); ok {
			c.srcs = append(c.srcs, headed{src, f})
		}
	}
	heap.Init(&c.srcs)
	return c
}

// Next is the due time of the next firing not taken, false when none is left.
func (c *Cursor) Next() (time.Time, bool) {
	if len(c.srcs) == 0 {
		return time.Time{}, false
	}
	return c.srcs[0].f.At, true
}

// Take appends to buf every firing due at or before now not taken yet.
func (c *Cursor) Take(now time.Time, buf []Firing) []Firing {
	for len(c.srcs) > 0 && !c.srcs[0].f.At.After(now) {
		top := &c.srcs[0]
		buf = append(buf, *top.f)
		top.src.pop()
		if f, ok := top.src.head(); ok {
			top.f = f
			heap.Fix(&c.srcs, 0)
		} else {
			heap.Pop(&c.srcs)
		}
	}
	return buf
}

type headed struct {
	src source
	f   *Firing
}

type sourceHeap []headed

func (h sourceHeap) Len() int           { return len(h) }
func (h sourceHeap) Less(i, j int) bool { return less(h[i].f, h[j].f) }
func (h sourceHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *sourceHeap) Push(x any)        { *h = append(*h, x.(headed)) }
func (h *sourceHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// Between lists the firings due in (from, to], in order.
func (s *Schedule) Between(from, to time.Time) []Firing {
	if !to.After(from) {
		return nil
	}
	return s.cursorAt(from.Add(time.Nanosecond)).Take(to, nil)
}

// isTrafficKind reports whether a kind is background traffic.
func isTrafficKind(k string) bool {
	return k == scenario.EntryTraffic || k == scenario.EntryCalls || k == scenario.EntrySessions
}
