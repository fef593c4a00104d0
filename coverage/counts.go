package coverage

import (
	"strings"
	"sync"
)

// Recorder is what the engine reports to: transitions and clock-driven
// work, by the catalogue's names (others are kept as uncatalogued).
type Recorder interface {
	// Transition records a move; from is "" for a new resource.
	Transition(machine, from, to string)
	ClockEvent(kind string)
}

// Discard is a Recorder that records nothing.
func Discard() Recorder { return discard{} }

type discard struct{}

func (discard) Transition(string, string, string) {}
func (discard) ClockEvent(string)                 {}

// Source says who caused what is recorded: a client or the timeline.
type Source uint8

// Sources.
const (
	SourceClient Source = iota
	SourceTimeline
)

// Bounds of what falls outside the catalogue; beyond them an item only
// counts in Snapshot.Dropped.
const (
	maxAnswersPerOp = 64
	maxFaultRules   = 1000
	maxExtra        = 256
)

// Counts is one instance's coverage: counts only, bounded, safe for
// concurrent use. mu is a leaf lock.
type Counts struct {
	cat *Catalogue

	mu       sync.Mutex
	ops      []opCount // by operation index
	trans    []Count   // by transition index
	clock    []Count   // by clock event index
	presets  []uint64  // by preset index
	faults   map[string]uint64
	unrouted uint64
	dropped  uint64
	// Outside the catalogue.
	extraTrans   map[TransitionKey]Count
	extraClock   map[string]Count
	extraPresets map[string]uint64
}

type opCount struct {
	calls, timeline uint64
	answers         map[Answer]uint64
}

// Answer is what an operation answered, and whether a fault decided it.
type Answer struct {
	Status int
	Code   string
	Fault  bool
}

// Count is how many times something happened, and how many of those the
// timeline caused.
type Count struct {
	N        uint64 `json:"count"`
	Timeline uint64 `json:"timeline,omitempty"`
}

func (c *Count) add(src Source) {
	c.N++
	if src == SourceTimeline {
		c.Timeline++
	}
}

// NewCounts returns empty counts over an indexed catalogue.
func NewCounts(cat *Catalogue) *Counts {
	c := &Counts{cat: cat}
	c.clearLocked()
	return c
}

// Catalogue is the catalogue the counts are over.
func (c *Counts) Catalogue() *Catalogue { return c.cat }

func (c *Counts) clearLocked() {
	c.ops = make([]opCount, len(c.cat.ops))
	c.trans = make([]Count, len(c.cat.transitions))
	c.clock = make([]Count, len(c.cat.clock))
	c.presets = make([]uint64, len(c.cat.presets))
	c.faults = map[string]uint64{}
	c.unrouted, c.dropped = 0, 0
	c.extraTrans = map[TransitionKey]Count{}
	c.extraClock = map[string]Count{}
	c.extraPresets = map[string]uint64{}
}

// Clear forgets everything counted.
func (c *Counts) Clear() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.clearLocked()
}

// Request records one answered request: its operation index (-1:
// unrouted), status (0: dropped), error code, and the fault rule and
// preset that fired ("" for none).
func (c *Counts) Request(op, status int, code, fault, preset string, src Source) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if op >= 0 && op < len(c.ops) {
		o := &c.ops[op]
		o.calls++
		if src == SourceTimeline {
			o.timeline++
		}
		k := Answer{Status: status, Code: code, Fault: fault != ""}
		if _, ok := o.answers[k]; ok || len(o.answers) < maxAnswersPerOp {
			if o.answers == nil {
				o.answers = make(map[Answer]uint64, 4)
			}
			o.answers[k]++
		} else {
			c.dropped++
		}
	} else {
		c.unrouted++
	}
	if fault != "" {
		if _, ok := c.faults[fault]; ok || len(c.faults) < maxFaultRules {
			c.faults[fault]++
		} else {
			c.dropped++
		}
	}
	if preset != "" {
		c.presetLocked(preset)
	}
}

// presetLocked counts a preset by its catalogue name: the whole name when
// listed, else the name before its argument.
func (c *Counts) presetLocked(preset string) {
	if i, ok := c.cat.presetIndex[preset]; ok {
		c.presets[i]++
		return
	}
	name, _, _ := strings.Cut(preset, ":")
	if i, ok := c.cat.presetIndex[name]; ok {
		c.presets[i]++
		return
	}
	if _, ok := c.extraPresets[preset]; ok || len(c.extraPresets) < maxExtra {
		c.extraPresets[preset]++
		return
	}
	c.dropped++
}

// Transition records a transition caused by a client (Recorder).
func (c *Counts) Transition(machine, from, to string) {
	c.transition(TransitionKey{machine, from, to}, SourceClient)
}

// ClockEvent records a clock event caused by a client (Recorder).
func (c *Counts) ClockEvent(kind string) { c.clockEvent(kind, SourceClient) }

func (c *Counts) transition(k TransitionKey, src Source) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i, ok := c.cat.transIndex[k]; ok {
		c.trans[i].add(src)
		return
	}
	if n, ok := c.extraTrans[k]; ok || len(c.extraTrans) < maxExtra {
		n.add(src)
		c.extraTrans[k] = n
		return
	}
	c.dropped++
}

func (c *Counts) clockEvent(kind string, src Source) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if i, ok := c.cat.clockIndex[kind]; ok {
		c.clock[i].add(src)
		return
	}
	if n, ok := c.extraClock[kind]; ok || len(c.extraClock) < maxExtra {
		n.add(src)
		c.extraClock[kind] = n
		return
	}
	c.dropped++
}

// From is a Recorder that attributes what it records to src.
func (c *Counts) From(src Source) Recorder { return sourced{c, src} }

type sourced struct {
	c   *Counts
	src Source
}

func (s sourced) Transition(machine, from, to string) {
	s.c.transition(TransitionKey{machine, from, to}, s.src)
}
func (s sourced) ClockEvent(kind string) { s.c.clockEvent(kind, s.src) }

// Snapshot is a copy of counts keyed by name, so snapshots of several
// instances add up.
type Snapshot struct {
	Operations  map[string]OperationCount
	Transitions map[TransitionKey]Count
	ClockEvents map[string]Count
	Presets     map[string]uint64
	FaultRules  map[string]uint64
	// Unrouted counts requests no route served; Dropped items beyond the
	// bounds.
	Unrouted, Dropped uint64
}

// OperationCount is one operation's calls and answers.
type OperationCount struct {
	Calls, Timeline uint64
	Answers         map[Answer]uint64
}

// NewSnapshot returns an empty snapshot.
func NewSnapshot() Snapshot {
	return Snapshot{Operations: map[string]OperationCount{}, Transitions: map[TransitionKey]Count{},
		ClockEvents: map[string]Count{}, Presets: map[string]uint64{}, FaultRules: map[string]uint64{}}
}

// Snapshot copies the counts (only what happened at least once).
func (c *Counts) Snapshot() Snapshot {
	s := NewSnapshot()
	c.AddTo(&s)
	return s
}

// AddTo adds the counts to s.
func (c *Counts) AddTo(s *Snapshot) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i := range c.ops {
		o := &c.ops[i]
		if o.calls == 0 {
			continue
		}
		id := c.cat.ops[i].ID
		cur := s.Operations[id]
		cur.Calls += o.calls
		cur.Timeline += o.timeline
		if cur.Answers == nil {
			cur.Answers = make(map[Answer]uint64, len(o.answers))
		}
		for k, n := range o.answers {
			cur.Answers[k] += n
		}
		s.Operations[id] = cur
	}
	for i, n := range c.trans {
		if n.N > 0 {
			s.Transitions[c.cat.transitions[i]] = s.Transitions[c.cat.transitions[i]].plus(n)
		}
	}
	for k, n := range c.extraTrans {
		s.Transitions[k] = s.Transitions[k].plus(n)
	}
	for i, n := range c.clock {
		if n.N > 0 {
			s.ClockEvents[c.cat.clock[i]] = s.ClockEvents[c.cat.clock[i]].plus(n)
		}
	}
	for k, n := range c.extraClock {
		s.ClockEvents[k] = s.ClockEvents[k].plus(n)
	}
	for i, n := range c.presets {
		if n > 0 {
			s.Presets[c.cat.presets[i]] += n
		}
	}
	for k, n := range c.extraPresets {
		s.Presets[k] += n
	}
	for k, n := range c.faults {
		s.FaultRules[k] += n
	}
	s.Unrouted += c.unrouted
	s.Dropped += c.dropped
}

func (c Count) plus(o Count) Count { return Count{N: c.N + o.N, Timeline: c.Timeline + o.Timeline} }

// Add adds o's counts to s.
func (s *Snapshot) Add(o Snapshot) {
	for id, oc := range o.Operations {
		cur := s.Operations[id]
		cur.Calls += oc.Calls
		cur.Timeline += oc.Timeline
		if cur.Answers == nil {
			cur.Answers = map[Answer]uint64{}
		}
		for k, n := range oc.Answers {
			cur.Answers[k] += n
		}
		s.Operations[id] = cur
	}
	for k, n := range o.Transitions {
		s.Transitions[k] = s.Transitions[k].plus(n)
	}
	for k, n := range o.ClockEvents {
		s.ClockEvents[k] = s.ClockEvents[k].plus(n)
	}
	for k, n := range o.Presets {
		s.Presets[k] += n
	}
	for k, n := range o.FaultRules {
		s.FaultRules[k] += n
	}
	s.Unrouted += o.Unrouted
	s.Dropped += o.Dropped
}
