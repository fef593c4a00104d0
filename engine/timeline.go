package engine

// The scenario's timeline at run time (docs/timeline.md#at-run-time):
// package timeline computes when entries fire; the engine arms one clock
// timer at the next firing, whose callback runs every firing due, in order,
// and arms the next. A firing runs the engine operation its request would
// (timeline_steps.go), meets the fault set first, and is reported to the
// edge as an Activity with source "timeline".

import (
	"errors"
	"sync"
	"time"

	"github.com/agentplatform/mockplatform/journal"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/timeline"
)

// SourceTimeline is the source of what a timeline caused (Activity).
const SourceTimeline = journal.SourceTimeline

// Activity is one timeline step the engine ran, described as the request
// it stands for: the edge journals it (OnActivity).
type Activity struct {
	// Source is who caused it: SourceTimeline.
	Source string
	// Time is the virtual time it ran at.
	Time time.Time
	// Family is the request's API family ("" for the control plane).
	Family string
	// Method, Path and Query are the request's; Region its path's region.
	Method, Path, Query, Region string
	// Status is the answer's status (0: a fault rule dropped it).
	Status int
	// Fault is the id of the fault rule that fired, if any; Preset the
	// preset it applied.
	Fault, Preset string
	// Code is the error answer's code (the engine's error), if any.
	Code string
	// Request and Response are the JSON bodies (nil: none).
	Request, Response []byte
	// Step is the timeline's step, with the operation's id.
	Step TimelineStep
}

// TimelineStep is the step of the timeline that ran an operation.
type TimelineStep = journal.TimelineStep

// OnActivity subscribes fn to the timeline's steps, called in order on
// the clock's path. Subscribe before Load.
func (e *Engine) OnActivity(fn func(Activity)) { e.onActivity = append(e.onActivity, fn) }

// Sessions holds messaging sessions for the timeline; the edge owns them.
type Sessions interface {
	// OpenSession opens a project session as a client with an environment's
	// connector token would, lets the agent join, and returns its id.
	OpenSession(acct *scenario.Account, proj *scenario.Project, env string, streaming bool) (string, error)
	// SessionMessage sends the user's message; ended reports the session over.
	SessionMessage(id, text string) (ended bool, err error)
	// EndSession ends the session as the user.
	EndSession(id string) error
	// ExpireSessions expires every live session: their ids.
	ExpireSessions() []string
	// ExpireTokens revokes every access token issued so far.
	ExpireTokens()
}

// SetSessions registers the edge's messaging sessions before Load.
func (e *Engine) SetSessions(s Sessions) { e.sessions = s }

// ErrNoSessions is a session step's error when no edge holds sessions.
var ErrNoSessions = errors.New("no messaging edge: sessions are not served")

// timelineRun is the timeline of one reset generation.
type timelineRun struct {
	sched   *timeline.Schedule
	entries []scenario.TimelineEntry
	gen     uint64

	// The clock's path alone touches these (one callback at a time).
	cur   *timeline.Cursor
	buf   []timeline.Firing
	convs map[convKey]string // the conversations held: chat or call id, session id
	chats []*Principal       // per entry, the chat traffic's principal (made once)

	mu    sync.Mutex // guards stats
	stats []entryRun
}

// convKey names a conversation of the timeline: its entry and occurrence.
type convKey struct {
	entry int
	occ   int64
}

// entryRun is what an entry's steps did since the reset.
type entryRun struct {
	ran, failed int64
	lastError   string
}

// resetTimelineLocked compiles the timeline from the clock's start and
// loads its fault windows; armTimeline arms it. e.loadMu must be held.
func (e *Engine) resetTimelineLocked(sc *scenario.Scenario, seed int64) error {
	sched, err := timeline.New(sc.Timeline, e.clock.Now(), seed)
	if err != nil {
		return err
	}
	if err := e.faults.ReplaceWindowed(sched.FaultRules(), sc.Faults, seed); err != nil {
		return err
	}
	if len(sc.Timeline) == 0 {
		e.timeline.Store(nil)
		return nil
	}
	e.timeline.Store(&timelineRun{sched: sched, entries: sc.Timeline,
		convs: map[convKey]string{}, chats: make([]*Principal, len(sc.Timeline)), stats: make([]entryRun, len(sc.Timeline))})
	return nil
}

// armTimeline starts the current generation's run at its first firing.
func (e *Engine) armTimeline() {
	run := e.timeline.Load()
	if run == nil {
		return
	}
	run.gen = e.Generation()
	run.cur = run.sched.Cursor()
	e.armNext(run)
}

// armNext arms the timer at the run's next firing.
func (e *Engine) armNext(run *timelineRun) {
	if at, ok := run.cur.Next(); ok {
		e.clock.At(at, func(now time.Time) { e.fireTimeline(run, now) })
	}
}

// fireTimeline runs every firing due at now, in order, and arms the next.
func (e *Engine) fireTimeline(run *timelineRun, now time.Time) {
	if e.Generation() != run.gen || e.bg.Err() != nil {
		return // a reset or Close came in between
	}
	run.buf = run.cur.Take(now, run.buf[:0])
	for i := range run.buf {
		e.runFiring(run, &run.buf[i])
	}
	clear(run.buf) // the conversations' plans may go
	e.armNext(run)
}

func (run *timelineRun) note(entry int, errText string) {
	run.mu.Lock()
	defer run.mu.Unlock()
	st := &run.stats[entry]
	st.ran++
	if errText != "" {
		st.failed++
		st.lastError = errText
	}
}

// TimelineStatus is the timeline at a time (GET /_mock/timeline).
type TimelineStatus struct {
	// Start is when the timeline counts from (clock start or last reset).
	Start time.Time `json:"start"`
	Now   time.Time `json:"now"`
	// Entries are the entries, in timeline order.
	Entries []TimelineEntryStatus `json:"entries"`
}

// TimelineEntryStatus is one entry at a time.
type TimelineEntryStatus struct {
	// Entry is the entry's index; ID its id.
	Entry int    `json:"entry"`
	ID    string `json:"id,omitempty"`
	// Kind is the entry's kind; Action the action's name.
	Kind   string `json:"kind"`
	Action string `json:"action,omitempty"`
	// Last is the latest firing at or before now; Next the first after.
	Last time.Time `json:"last,omitzero"`
	Next time.Time `json:"next,omitzero"`
	// Occurrences counts repetitions or conversations begun by now.
	Occurrences int64 `json:"occurrences"`
	// Active reports a window, traffic or action under way now.
	Active bool `json:"active"`
	// Ran counts the steps run since the reset; Failed those that failed,
	// LastError why the latest did.
	Ran       int64  `json:"ran"`
	Failed    int64  `json:"failed"`
	LastError string `json:"last_error,omitempty"`
}

// Timeline is the timeline's status now.
func (e *Engine) Timeline() TimelineStatus {
	now := e.clock.Now()
	run := e.timeline.Load()
	if run == nil {
		return TimelineStatus{Start: now, Now: now, Entries: []TimelineEntryStatus{}}
	}
	out := TimelineStatus{Start: run.sched.Start(), Now: now}
	list := run.sched.Status(now)
	run.mu.Lock()
	defer run.mu.Unlock()
	out.Entries = make([]TimelineEntryStatus, len(list))
	for i, st := range list {
		r := run.stats[i]
		out.Entries[i] = TimelineEntryStatus{Entry: st.Entry, ID: st.ID, Kind: st.Kind, Action: st.Action,
			Last: st.Last, Next: st.Next, Occurrences: st.Occurrences, Active: st.Active,
			Ran: r.ran, Failed: r.failed, LastError: r.lastError}
	}
	return out
}

// TimelineSpans are the entries' spans meeting [from, to], at most limit
// per entry (the console's time axis).
func (e *Engine) TimelineSpans(from, to time.Time, limit int) []timeline.Span {
	run := e.timeline.Load()
	if run == nil {
		return nil
	}
	return run.sched.Spans(from, to, limit)
}

// receiverDown reports whether the timeline has a webhook receiver down at
// t, and the status it answers.
func (e *Engine) receiverDown(t time.Time, ep *EndpointRecord) (int, bool) {
	run := e.timeline.Load()
	if run == nil {
		return 0, false
	}
	return run.sched.Receiver(t, ep.ID, ep.Name)
}
