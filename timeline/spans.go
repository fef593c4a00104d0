package timeline

// Spans of the entries over a stretch of time, for the console's time axis.

import (
	"time"

	"github.com/agentplatform/mockplatform/scenario"
)

// Span is when an entry's occurrence holds: a window, a traffic run, an
// action from its first step to its last.
type Span struct {
	Entry      int   `json:"entry"`
	Occurrence int64 `json:"occurrence"`
	// Open marks a window without end (End is then the stretch's end).
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	Open  bool      `json:"open,omitempty"`
}

// Spans lists, entry by entry in timeline order, the spans that meet
// [from, to], at most limit of each entry (limit < 1: 1), in order.
func (s *Schedule) Spans(from, to time.Time, limit int) []Span {
	if to.Before(from) {
		return nil
	}
	limit = max(limit, 1)
	var out []Span
	for _, e := range s.entries {
		if t := e.traffic; t != nil {
			sp := Span{Entry: e.index, Start: s.start.Add(time.Duration(t.from)), End: s.start.Add(time.Duration(t.until))}
			if !sp.End.Before(from) && !sp.Start.After(to) {
				out = append(out, sp)
			}
			continue
		}
		out = s.periodicSpans(e, from, to, limit, out)
	}
	return out
}

// periodicSpans appends the spans of a fault window or an action.
func (s *Schedule) periodicSpans(e *entry, from, to time.Time, limit int, out []Span) []Span {
	open := e.kind == scenario.EntryFault && e.src.For == 0 ||
		e.action == scenario.ActionWebhookReceiver && e.src.Do.WebhookReceiver == scenario.ReceiverDown && e.src.Do.For == 0
	k := int64(0)
	if off := int64(from.Sub(s.start)); e.every > 0 && off > e.at+e.span {
		k = (off - e.at - e.span) / e.every
	}
	var buf []Firing
	for n := 0; n < limit && k < e.occurrences() && (e.every > 0 || k == 0); k++ {
		buf = e.steps(s.start, k, buf[:0])
		if len(buf) == 0 {
			break
		}
		sp := Span{Entry: e.index, Occurrence: k, Start: buf[0].At, End: buf[len(buf)-1].At}
		if sp.Start.After(to) {
			break
		}
		if open {
			sp.End, sp.Open = to, true
		}
		if sp.End.Before(from) {
			continue
		}
		out = append(out, sp)
		n++
	}
	return out
}
