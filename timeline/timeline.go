// Package timeline computes when the entries of a scenario's timeline
// fire: a pure schedule over virtual time, with no clock, no HTTP and no
// engine. The platform's runtime executes what it computes: it follows a
// Cursor with one clock timer at a time, and hands FaultRules to
// faults.Set.ReplaceWindowed. Firings are ordered by time, then entry,
// then occurrence, then step. See docs/timeline.md.
//
// Schedule's methods are safe for concurrent use; a Cursor is not.
package timeline

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/scenario"
)

// Step is a step of an entry's occurrence.
type Step string

// Steps, in the order they sort at one instant.
const (
	// StepClose closes a window: a fault window, a webhook receiver's
	// down window.
	StepClose Step = "close"
	// StepOpen opens a window.
	StepOpen Step = "open"
	// StepStart starts a conversation: chat create, a dial, a messaging
	// session opened and joined.
	StepStart Step = "start"
	// StepTurn is the user speaking: Firing.Turn, Firing.Message.
	StepTurn Step = "turn"
	// StepEnd is the user ending: chat close, a hang-up, a session ended.
	StepEnd Step = "end"
	// StepCall places one call of an outbound campaign: Firing.Number.
	StepCall Step = "call"
	// StepDo runs an action that is one operation.
	StepDo Step = "do"
)

var stepRank = map[Step]int{StepClose: 0, StepOpen: 1, StepStart: 2, StepTurn: 3, StepEnd: 4, StepCall: 5, StepDo: 6}

// Firing is one step of an entry, due at At.
type Firing struct {
	At time.Time `json:"at"`
	// Entry is the entry's index in the timeline; ID its id.
	Entry int    `json:"entry"`
	ID    string `json:"id,omitempty"`
	// Kind is the entry's kind (scenario.EntryFault, EntryTraffic,
	// EntryCalls, EntrySessions, EntryAction); Action the action's name
	// for EntryAction.
	Kind   string `json:"kind"`
	Action string `json:"action,omitempty"`
	Step   Step   `json:"step"`
	// Occurrence numbers the entry's repetitions (windows, actions) or
	// its conversations (traffic), from 0.
	Occurrence int64 `json:"occurrence"`
	// Turn is the user's turn, from 1, of a StepTurn.
	Turn int `json:"turn,omitempty"`
	// Call is the call's index in its campaign run, from 0, of a
	// StepCall; Number the number called.
	Call   int    `json:"call,omitempty"`
	Number string `json:"number,omitempty"`
	// Conversation is the plan of the conversation a StepStart, StepTurn
	// or StepEnd belongs to (background traffic and inbound calls),
	// shared by its steps.
	Conversation *Conversation `json:"-"`
}

// Message is what the user says at a StepTurn ("" otherwise).
func (f *Firing) Message() string {
	if f.Step != StepTurn || f.Conversation == nil || f.Turn < 1 || f.Turn > len(f.Conversation.Turns) {
		return ""
	}
	return f.Conversation.Turns[f.Turn-1].Message
}

// Conversation is the plan of one conversation.
type Conversation struct {
	// Start is when it starts; End when the user ends it.
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	// Turns are the user's messages.
	Turns []Turn `json:"turns"`
	// From is the caller's number (calls and inbound calls; "" for chats
	// and sessions).
	From string `json:"from,omitempty"`
}

// Turn is one message of the user.
type Turn struct {
	At      time.Time `json:"at"`
	Message string    `json:"message"`
}

// less orders firings: time, entry, occurrence, step, turn or call.
func less(a, b *Firing) bool {
	if !a.At.Equal(b.At) {
		return a.At.Before(b.At)
	}
	if a.Entry != b.Entry {
		return a.Entry < b.Entry
	}
	if a.Occurrence != b.Occurrence {
		return a.Occurrence < b.Occurrence
	}
	if ra, rb := stepRank[a.Step], stepRank[b.Step]; ra != rb {
		return ra < rb
	}
	return a.Turn+a.Call < b.Turn+b.Call
}

// Schedule is a compiled timeline for one start time and seed.
type Schedule struct {
	start   time.Time
	entries []*entry
}

// entry is a compiled timeline entry.
type entry struct {
	index  int
	id     string
	kind   string
	action string
	src    scenario.TimelineEntry
	// Offsets from the start in nanoseconds: a periodic entry occurs at
	// at+k·every for k < n (n < 0: for ever), its steps within span.
	at, every, span int64
	n               int64
	seed            uint64
	// numbers of an outbound campaign; pace between them.
	numbers []string
	pace    int64
	// traffic of background traffic.
	traffic *traffic
}

// New compiles a validated timeline for a start time and a seed (0 means
// 1, as in a scenario). It refuses what would make the schedule endless.
func New(tl []scenario.TimelineEntry, start time.Time, seed int64) (*Schedule, error) {
	if seed == 0 {
		seed = 1
	}
	if len(tl) > scenario.MaxTimelineEntries {
		return nil, fmt.Errorf("timeline: %d entries, more than %d", len(tl), scenario.MaxTimelineEntries)
	}
	s := &Schedule{start: start.UTC()}
	expected := 0.0
	for i := range tl {
		e, err := compile(i, tl[i], seed)
		if err != nil {
			return nil, fmt.Errorf("timeline[%d]: %w", i, err)
		}
		if e.traffic != nil {
			expected += e.traffic.total
		}
		s.entries = append(s.entries, e)
	}
	if expected > scenario.MaxTimelineConversations {
		return nil, fmt.Errorf("timeline: %.0f conversations expected, more than %d", expected, scenario.MaxTimelineConversations)
	}
	return s, nil
}

// Start is the schedule's start time.
func (s *Schedule) Start() time.Time { return s.start }

// Len is the number of entries.
func (s *Schedule) Len() int { return len(s.entries) }

// mix derives a seed from a seed and a number (splitmix64).
func mix(a, b uint64) uint64 {
	z := a + 0x9e3779b97f4a7c15*(b+1)
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

func compile(i int, src scenario.TimelineEntry, seed int64) (*entry, error) {
	e := &entry{index: i, id: src.ID, kind: src.Kind(), src: src, seed: mix(uint64(seed), uint64(i))}
	if e.kind == "" {
		return nil, fmt.Errorf("entry does nothing")
	}
	if src.At < 0 || src.Every < 0 || src.For < 0 || src.From < 0 || src.Until < 0 {
		return nil, fmt.Errorf("negative time")
	}
	switch e.kind {
	case scenario.EntryTraffic, scenario.EntryCalls, scenario.EntrySessions:
		t, err := newTraffic(e, src)
		if err != nil {
			return nil, err
		}
		e.traffic = t
		return e, nil
	}
	e.at, e.n = int64(src.At), 1
	if src.Every > 0 {
		if src.Every.D() < scenario.MinClockSetting {
			return nil, fmt.Errorf("every %s is shorter than %s", src.Every, scenario.MinClockSetting)
		}
		e.every, e.n = int64(src.Every), -1
		if src.Until > src.At {
			e.n = (int64(src.Until) - e.at + e.every - 1) / e.every
		}
	}
	switch e.kind {
	case scenario.EntryFault:
		e.span = int64(src.For)
	case scenario.EntryAction:
		a := src.Do
		e.action = a.Name()
		if e.action == "" {
			return nil, fmt.Errorf("no action")
		}
		switch e.action {
		case scenario.ActionWebhookReceiver:
			e.span = int64(a.For)
		case scenario.ActionInboundCall:
			think := a.InboundCall.Think
			if len(a.InboundCall.Say) > scenario.MaxCallLines || think.Min < 0 || think.Max < think.Min || think.Max.D() > scenario.MaxThink {
				return nil, fmt.Errorf("inbound_call over its bounds")
			}
			e.span = int64(len(a.InboundCall.Say)+1) * int64(think.Max)
		case scenario.ActionOutboundCampaign:
			c := a.OutboundCampaign
			e.numbers, e.pace = c.CampaignNumbers(), int64(c.CampaignPace())
			if len(e.numbers) == 0 || len(e.numbers) > scenario.MaxCampaignCalls || e.pace < 0 || e.pace > int64(scenario.MaxThink) {
				return nil, fmt.Errorf("outbound_campaign over its bounds")
			}
			e.span = int64(max(len(e.numbers)-1, 0)) * e.pace
		}
	}
	if e.every > 0 && e.span >= e.every {
		return nil, fmt.Errorf("an occurrence lasts %s, not shorter than every (%s)", time.Duration(e.span), src.Every)
	}
	return e, nil
}

// occurrences is the number of occurrences (huge for an endless one).
func (e *entry) occurrences() int64 {
	if e.n < 0 {
		return 1 << 62
	}
	return e.n
}

func (e *entry) firing(start time.Time, off int64, step Step, occ int64) Firing {
	return Firing{At: start.Add(time.Duration(off)), Entry: e.index, ID: e.id, Kind: e.kind, Action: e.action, Step: step, Occurrence: occ}
}

// steps appends the firings of occurrence k of a periodic entry, in order.
func (e *entry) steps(start time.Time, k int64, out []Firing) []Firing {
	off := e.at + k*e.every
	switch e.kind {
	case scenario.EntryFault:
		out = append(out, e.firing(start, off, StepOpen, k))
		if e.src.For > 0 {
			out = append(out, e.firing(start, off+int64(e.src.For), StepClose, k))
		}
		return out
	}
	a := e.src.Do
	switch e.action {
	case scenario.ActionWebhookReceiver:
		if a.WebhookReceiver == scenario.ReceiverUp {
			return append(out, e.firing(start, off, StepDo, k))
		}
		out = append(out, e.firing(start, off, StepOpen, k))
		if a.For > 0 {
			out = append(out, e.firing(start, off+int64(a.For), StepClose, k))
		}
		return out
	case scenario.ActionOutboundCampaign:
		for i, n := range e.numbers {
			f := e.firing(start, off+int64(i)*e.pace, StepCall, k)
			f.Call, f.Number = i, n
			out = append(out, f)
		}
		return out
	case scenario.ActionInboundCall:
		c := a.InboundCall
		r := newRand(mix(e.seed, uint64(k)))
		conv := plan(r, start.Add(time.Duration(off)), len(c.Say), c.Think, true, c.From)
		for i := range conv.Turns {
			conv.Turns[i].Message = c.Say[i]
		}
		return conversationSteps(e, conv, k, out)
	}
	return append(out, e.firing(start, off, StepDo, k))
}

// newRand is a generator seeded by one number.
func newRand(seed uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, seed^0x6a09e667f3bcc909)) }

// plan draws a conversation of n turns starting at start, and for a call a
// caller's number.
func plan(r *rand.Rand, start time.Time, n int, think scenario.DurationSpan, call bool, from string) *Conversation {
	c := &Conversation{Start: start, Turns: make([]Turn, n), From: from}
	pause := func() time.Duration {
		lo, hi := int64(think.Min), int64(think.Max)
		if hi <= lo {
			return time.Duration(lo)
		}
		return time.Duration(lo + r.Int64N(hi-lo+1))
	}
	if call && from == "" {
		c.From = fmt.Sprintf("+1555%07d", r.IntN(10_000_000))
	}
	at := start
	for i := range c.Turns {
		at = at.Add(pause())
		c.Turns[i].At = at
	}
	c.End = at.Add(pause())
	return c
}

// conversationSteps appends the steps of a planned conversation.
func conversationSteps(e *entry, c *Conversation, occ int64, out []Firing) []Firing {
	f := Firing{Entry: e.index, ID: e.id, Kind: e.kind, Action: e.action, Occurrence: occ, Conversation: c}
	f.At, f.Step = c.Start, StepStart
	out = append(out, f)
	for i, t := range c.Turns {
		f.At, f.Step, f.Turn = t.At, StepTurn, i+1
		out = append(out, f)
	}
	f.At, f.Step, f.Turn = c.End, StepEnd, 0
	return append(out, f)
}

// FaultRules are the fault windows' rules with their windows, in timeline
// order, for faults.Set.ReplaceWindowed.
func (s *Schedule) FaultRules() []faults.Windowed {
	var out []faults.Windowed
	for _, e := range s.entries {
		if e.kind != scenario.EntryFault {
			continue
		}
		r := *e.src.Fault
		r.ID = e.src.FaultRuleID()
		out = append(out, faults.Windowed{Rule: r, Window: e.window(s.start)})
	}
	return out
}

// window is a fault window entry's window.
func (e *entry) window(start time.Time) faults.Window {
	w := faults.Window{Start: start.Add(time.Duration(e.at)), For: e.src.For, Every: e.src.Every}
	if e.every > 0 && e.src.Until > 0 {
		w.Stop = start.Add(e.src.Until.D())
	}
	return w
}

// ActiveFaults are the fault windows' rules that hold at t.
func (s *Schedule) ActiveFaults(t time.Time) []faults.Windowed {
	var out []faults.Windowed
	for _, w := range s.FaultRules() {
		if _, ok := w.Window.Span(t); ok {
			out = append(out, w)
		}
	}
	return out
}
