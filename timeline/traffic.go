package timeline

// Background traffic: arrivals are drawn in the space of the expected
// count u and mapped to time by the ramp's inverse; the Poisson process is
// drawn in seeded blocks so any window starts at its own block
// (docs/timeline.md#timeline-traffic).

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/agentplatform/mockplatform/scenario"
)

// blockSize is the expected arrivals of one block of the Poisson process.
const blockSize = 16

// traffic is a compiled entry of background traffic.
type traffic struct {
	from, until int64
	// r0 and r1 are the rates per minute at from and until.
	r0, r1, span, total float64
	even                bool
	turns               scenario.Range
	think               scenario.DurationSpan
	messages            []string
	call                bool   // calls: each has a caller's number
	caller              string // the caller's number of calls ("" drawn)
	seed                uint64
	// longest is the longest a conversation lasts, in nanoseconds.
	longest int64

	mu sync.Mutex
	// prefix[m] is the number of arrivals before block m, filled lazily.
	prefix []int64
}

func newTraffic(e *entry, src scenario.TimelineEntry) (*traffic, error) {
	var rate float64
	var f scenario.Flow
	t := &traffic{}
	switch {
	case src.Traffic != nil:
		rate, f = src.Traffic.ChatsPerMinute, src.Traffic.Flow
	case src.Calls != nil:
		rate, f, t.call, t.caller = src.Calls.CallsPerMinute, src.Calls.Flow, true, src.Calls.From
	case src.Sessions != nil:
		rate, f = src.Sessions.SessionsPerMinute, src.Sessions.Flow
	}
	t.from, t.until = int64(src.From), int64(src.Until)
	if t.until <= t.from {
		return nil, fmt.Errorf("until %s is not after from %s", src.Until, src.From)
	}
	t.r0, t.r1 = rate, rate
	if f.RampTo != nil {
		t.r1 = *f.RampTo
	}
	for _, r := range []float64{t.r0, t.r1} {
		if !(r >= 0 && r <= scenario.MaxTrafficRate) {
			return nil, fmt.Errorf("rate %v is not from 0 to %d a minute", r, scenario.MaxTrafficRate)
		}
	}
	t.span = time.Duration(t.until - t.from).Minutes()
	t.total = (t.r0 + t.r1) / 2 * t.span
	if t.total <= 0 {
		return nil, fmt.Errorf("no traffic: the rate is 0 throughout")
	}
	// Validation filled in the defaults; zero turns and think are kept.
	t.even = f.Arrivals == scenario.ArrivalsEven
	t.turns, t.think, t.messages = f.Turns, f.Think, f.Messages
	if len(t.messages) == 0 {
		t.messages = scenario.DefaultMessages
	}
	if t.turns.Min < 0 || t.turns.Max < t.turns.Min || t.turns.Max > scenario.MaxTrafficTurns ||
		t.think.Min < 0 || t.think.Max < t.think.Min || t.think.Max.D() > scenario.MaxThink {
		return nil, fmt.Errorf("turns %s or think %s out of range", t.turns, t.think)
	}
	t.seed = e.seed
	if f.Seed != 0 {
		t.seed = mix(uint64(f.Seed), 0)
	}
	t.longest = int64(t.turns.Max+1) * int64(t.think.Max)
	if t.longest > int64(scenario.MaxConversationLength) {
		return nil, fmt.Errorf("a conversation may last %s, more than %s", time.Duration(t.longest), scenario.MaxConversationLength)
	}
	return t, nil
}

// expected is u at an offset from the start.
func (t *traffic) expected(off int64) float64 {
	if off <= t.from {
		return 0
	}
	if off >= t.until {
		return t.total
	}
	m := time.Duration(off - t.from).Minutes()
	return t.r0*m + (t.r1-t.r0)/(2*t.span)*m*m
}

// offsetOf maps u to an offset from the start, the inverse of expected.
func (t *traffic) offsetOf(u float64) int64 {
	if u <= 0 {
		return t.from
	}
	a := (t.r1 - t.r0) / (2 * t.span)
	m := 2 * u / (t.r0 + math.Sqrt(math.Max(0, t.r0*t.r0+4*a*u)))
	off := t.from + int64(math.Round(m*float64(time.Minute)))
	return min(off, t.until-1)
}

// blockDraws seeds r for block m of the Poisson process.
func (t *traffic) blockDraws(pcg *rand.PCG, m int64) {
	pcg.Seed(mix(t.seed, uint64(m)), 0x5851f42d4c957f2d)
}

// countBefore is the number of arrivals in the blocks before m.
func (t *traffic) countBefore(m int64) int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.prefix == nil {
		t.prefix = []int64{0}
	}
	if n := int64(len(t.prefix)); m >= n {
		pcg := rand.NewPCG(0, 0)
		r := rand.New(pcg)
		for b := n - 1; b < m; b++ {
			t.blockDraws(pcg, b)
			end := math.Min(float64(b+1)*blockSize, t.total)
			c := int64(0)
			for u := float64(b) * blockSize; ; c++ {
				if u += r.ExpFloat64(); u >= end {
					break
				}
			}
			t.prefix = append(t.prefix, t.prefix[b]+c)
		}
	}
	return t.prefix[m]
}

// conversation is the plan of conversation ord, arriving at off.
func (t *traffic) conversation(start time.Time, off, ord int64, r *rand.Rand, pcg *rand.PCG) *Conversation {
	pcg.Seed(mix(t.seed^0xd1b54a32d192ed03, uint64(ord)), 0x2545f4914f6cdd1d)
	n := t.turns.Min
	if t.turns.Max > t.turns.Min {
		n += r.IntN(t.turns.Max - t.turns.Min + 1)
	}
	c := plan(r, start.Add(time.Duration(off)), n, t.think, t.call, t.caller)
	for i := range c.Turns {
		c.Turns[i].Message = t.messages[r.IntN(len(t.messages))]
	}
	return c
}

// arrivals walks the arrivals of a traffic entry in order.
type arrivals struct {
	t    *traffic
	pcg  *rand.PCG
	r    *rand.Rand
	done bool
	// ord is the next arrival's number, u its expected count.
	ord int64
	u   float64
	off int64
	// block is the Poisson block being drawn; end its end in u.
	block int64
	end   float64
}

func newArrivals(t *traffic) *arrivals {
	pcg := rand.NewPCG(0, 0)
	return &arrivals{t: t, pcg: pcg, r: rand.New(pcg)}
}

// slack is how far before the asked position seek starts: expected and
// offsetOf are inverses only up to rounding.
const slack = 1e-6

// seek positions a at the first arrival whose expected count is at least u0.
func (a *arrivals) seek(u0 float64) {
	t := a.t
	a.done = false
	u0 = math.Max(u0-slack, 0)
	if t.even {
		a.ord = int64(math.Ceil(u0))
		a.setEven()
		return
	}
	a.block = int64(u0 / blockSize)
	a.ord = t.countBefore(a.block)
	a.startBlock()
	for !a.done && a.u < u0 {
		a.next()
	}
}

func (a *arrivals) setEven() {
	if float64(a.ord) >= a.t.total {
		a.done = true
		return
	}
	a.u = float64(a.ord)
	a.off = a.t.offsetOf(a.u)
}

// startBlock draws the first arrival of a.block (or of a later block).
func (a *arrivals) startBlock() {
	t := a.t
	for {
		base := float64(a.block) * blockSize
		if base >= t.total {
			a.done = true
			return
		}
		t.blockDraws(a.pcg, a.block)
		a.end = math.Min(base+blockSize, t.total)
		a.u = base + a.r.ExpFloat64()
		if a.u < a.end {
			a.off = t.offsetOf(a.u)
			return
		}
		a.block++
	}
}

// next moves to the following arrival.
func (a *arrivals) next() {
	a.ord++
	if a.t.even {
		a.setEven()
		return
	}
	if a.u += a.r.ExpFloat64(); a.u < a.end {
		a.off = a.t.offsetOf(a.u)
		return
	}
	a.block++
	a.startBlock()
}
