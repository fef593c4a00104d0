package console

// The overview's time axis of the scenario's timeline.

import (
	"fmt"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/scenario"
	tl "github.com/agentplatform/mockplatform/timeline"
)

// horizons are the axis lengths: the shortest holding every entry's next
// firing.
var horizons = []time.Duration{time.Hour, 6 * time.Hour, 24 * time.Hour, 7 * 24 * time.Hour}

const maxBars = 200

// upcoming is the time axis: from now to now+horizon.
type upcoming struct {
	From, To time.Time
	Horizon  string
	Ticks    []tick
	Rows     []upcomingRow
}

// tick labels the axis: the time of day, with the date over days.
type tick struct {
	At    time.Time
	Label string
}

// upcomingRow is one entry on the axis.
type upcomingRow struct {
	engine.TimelineEntryStatus
	Name, What string
	Bars       []bar
	Summary    string
}

// bar is a span of an entry on the axis, in the drawing's units.
type bar struct {
	X, W     float64
	From, To time.Time
	Instant  bool
	Open     bool
}

// newUpcoming lays the timeline out from now; nil without a timeline.
func newUpcoming(b Backend, sc *scenario.Scenario) *upcoming {
	st := b.Timeline()
	if len(st.Entries) == 0 {
		return nil
	}
	h := horizons[len(horizons)-1]
	for _, d := range horizons {
		fits := true
		for _, e := range st.Entries {
			if !e.Next.IsZero() && e.Next.Sub(st.Now) > d {
				fits = false
			}
		}
		if fits {
			h = d
			break
		}
	}
	u := &upcoming{From: st.Now, To: st.Now.Add(h), Horizon: fmtHorizon(h)}
	layout := "15:04:05"
	if h >= 24*time.Hour {
		layout = "Jan 2 15:04"
	}
	for q := range 5 {
		at := st.Now.Add(h * time.Duration(q) / 4).UTC()
		u.Ticks = append(u.Ticks, tick{At: at, Label: at.Format(layout)})
	}
	spans := b.TimelineSpans(u.From, u.To, maxBars)
	for _, e := range st.Entries {
		row := upcomingRow{TimelineEntryStatus: e, Name: e.ID, What: describeEntry(sc, e.Entry)}
		if row.Name == "" {
			row.Name = fmt.Sprintf("#%d", e.Entry)
		}
		var words []string
		for _, s := range spans {
			if s.Entry == e.Entry {
				br := u.bar(s)
				row.Bars = append(row.Bars, br)
				if br.Instant {
					words = append(words, "at "+fmtClock(br.From))
				} else {
					words = append(words, "from "+fmtClock(br.From)+" to "+fmtClock(br.To))
				}
			}
		}
		row.Summary = row.Name + ": " + strings.Join(words, ", ")
		if words == nil {
			row.Summary = row.Name + ": nothing before " + fmtClock(u.To)
		}
		u.Rows = append(u.Rows, row)
	}
	return u
}

// bar places a span on the axis, at least minSegment wide.
func (u *upcoming) bar(s tl.Span) bar {
	from, to := s.Start, s.End
	if from.Before(u.From) {
		from = u.From
	}
	if to.After(u.To) {
		to = u.To
	}
	total := float64(u.To.Sub(u.From))
	br := bar{From: s.Start, To: s.End, Open: s.Open, Instant: s.Start.Equal(s.End)}
	br.X = float64(from.Sub(u.From)) / total * timelineWidth
	br.W = float64(to.Sub(from)) / total * timelineWidth
	if br.Instant {
		br.W = 3
	}
	br.W = max(br.W, 3)
	br.X = min(br.X, timelineWidth-br.W)
	return br
}

func describeEntry(sc *scenario.Scenario, i int) string {
	if sc == nil || i >= len(sc.Timeline) {
		return ""
	}
	e := &sc.Timeline[i]
	switch {
	case e.Fault != nil:
		m, a := e.Fault.Match, e.Fault.Action
		what := "every request"
		if m.Family != "" {
			what = m.Family
		}
		if m.Path != "" {
			what += " " + m.Path
		}
		switch {
		case a.Drop:
			return what + " dropped"
		case a.Preset != "":
			return what + ": " + a.Preset
		case a.Status != 0:
			return fmt.Sprintf("%s answers %d", what, a.Status)
		}
		return what + " delayed"
	case e.Traffic != nil:
		return fmt.Sprintf("chats on %s, %s a minute", e.Traffic.Project, rate(e.Traffic.ChatsPerMinute, e.Traffic.RampTo))
	case e.Calls != nil:
		return fmt.Sprintf("calls to %s, %s a minute", e.Calls.Number, rate(e.Calls.CallsPerMinute, e.Calls.RampTo))
	case e.Sessions != nil:
		return fmt.Sprintf("messaging sessions on %s, %s a minute", e.Sessions.Project, rate(e.Sessions.SessionsPerMinute, e.Sessions.RampTo))
	case e.Do != nil:
		name := e.Do.Name()
		if name == scenario.ActionWebhookReceiver {
			name += " " + e.Do.WebhookReceiver
			if e.Do.Endpoint != "" {
				name += " (" + e.Do.Endpoint + ")"
			}
		}
		return name
	}
	return ""
}

func rate(r float64, rampTo *float64) string {
	if rampTo == nil || *rampTo == r {
		return fmt.Sprintf("%g", r)
	}
	return fmt.Sprintf("%g to %g", r, *rampTo)
}

func fmtHorizon(d time.Duration) string {
	if d >= 48*time.Hour {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return fmt.Sprintf("%dh", d/time.Hour)
}
