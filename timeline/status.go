package timeline

// What the timeline says at a time: GET /_mock/timeline, receivers down.

import (
	"slices"
	"time"

	"github.com/agentplatform/mockplatform/scenario"
)

// EntryStatus is an entry at a time.
type EntryStatus struct {
	Entry  int    `json:"entry"`
	ID     string `json:"id,omitempty"`
	Kind   string `json:"kind"`
	Action string `json:"action,omitempty"`
	// Last is its latest firing at or before the time; Next its first
	// after it (zero: none).
	Last time.Time `json:"last,omitzero"`
	Next time.Time `json:"next,omitzero"`
	// Occurrences counts the repetitions or conversations begun by then.
	Occurrences int64 `json:"occurrences"`
	// Active reports a window that holds, traffic that runs, or an action
	// under way.
	Active bool `json:"active"`
}

// Status is every entry at now, in timeline order.
func (s *Schedule) Status(now time.Time) []EntryStatus {
	out := make([]EntryStatus, 0, len(s.entries))
	off := int64(now.Sub(s.start))
	for _, e := range s.entries {
		st := EntryStatus{Entry: e.index, ID: e.id, Kind: e.kind, Action: e.action}
		if e.traffic != nil {
			s.trafficStatus(e, off, &st)
		} else {
			if f, ok := s.sourceAt(e, now.Add(time.Nanosecond)).head(); ok {
				st.Next = f.At
			}
			s.periodicStatus(e, now, off, &st)
		}
		out = append(out, st)
	}
	return out
}

// lastOccurrence is the last occurrence of a periodic entry begun by off.
func (e *entry) lastOccurrence(off int64) (int64, bool) {
	if off < e.at {
		return 0, false
	}
	var k int64
	if e.every > 0 {
		k = (off - e.at) / e.every
	}
	return min(k, e.occurrences()-1), true
}

func (s *Schedule) periodicStatus(e *entry, now time.Time, off int64, st *EntryStatus) {
	k, ok := e.lastOccurrence(off)
	if !ok {
		return
	}
	st.Occurrences = k + 1
	steps := e.steps(s.start, k, nil)
	for _, f := range steps {
		if !f.At.After(now) {
			st.Last = f.At
		}
	}
	switch {
	case e.action == scenario.ActionWebhookReceiver:
		st.Active = s.receiverDownBy(e, now)
	case e.span > 0 || e.kind == scenario.EntryFault && e.src.For == 0:
		last := steps[len(steps)-1].At
		st.Active = e.kind == scenario.EntryFault && e.src.For == 0 || now.Before(last)
	}
}

// trafficStatus fills in the status of background traffic from its
// arrivals alone.
func (s *Schedule) trafficStatus(e *entry, off int64, st *EntryStatus) {
	t := e.traffic
	st.Active = off >= t.from && off < t.until
	a := newArrivals(t)
	a.seek(t.expected(off))
	for !a.done && a.off <= off {
		a.next()
	}
	st.Occurrences = a.ord
	if !a.done {
		st.Next = s.start.Add(time.Duration(a.off))
	}
	if last, ok := lastArrivalBefore(t, off+1); ok {
		st.Last = s.start.Add(time.Duration(last))
	}
}

// lastArrivalBefore is the offset of the last arrival before off.
func lastArrivalBefore(t *traffic, off int64) (int64, bool) {
	if off <= t.from {
		return 0, false
	}
	a := newArrivals(t)
	for from := t.expected(off); ; from -= blockSize {
		a.seek(max(from-blockSize, 0))
		at, found := int64(0), false
		for !a.done && a.off < off {
			at, found = a.off, true
			a.next()
		}
		if found {
			return at, true
		}
		if from-blockSize <= 0 {
			return 0, false
		}
	}
}

// Receiver reports whether a webhook receiver is down at t, and the status
// it answers. names are the endpoint's id and name; the latest
// webhook_receiver event at or before t decides (a down wins a tie).
func (s *Schedule) Receiver(t time.Time, names ...string) (status int, down bool) {
	var best struct {
		at    time.Time
		down  bool
		rank  int
		index int
		found bool
		st    int
	}
	for _, e := range s.entries {
		if e.action != scenario.ActionWebhookReceiver {
			continue
		}
		if ep := e.src.Do.Endpoint; ep != "" && !slices.Contains(names, ep) {
			continue
		}
		at, isDown, ok := s.receiverEvent(e, t)
		if !ok {
			continue
		}
		rank := 0
		if isDown {
			rank = 1
		}
		if !best.found || at.After(best.at) || at.Equal(best.at) && (rank > best.rank || rank == best.rank && e.index > best.index) {
			best.at, best.down, best.rank, best.index, best.found, best.st = at, isDown, rank, e.index, true, e.src.Do.Status
		}
	}
	if !best.found || !best.down {
		return 0, false
	}
	if best.st == 0 {
		best.st = scenario.DefaultReceiverStatus
	}
	return best.st, true
}

// receiverEvent is a webhook_receiver entry's latest event at or before
// t: when, and whether it takes the receiver down.
func (s *Schedule) receiverEvent(e *entry, t time.Time) (time.Time, bool, bool) {
	k, ok := e.lastOccurrence(int64(t.Sub(s.start)))
	if !ok {
		return time.Time{}, false, false
	}
	a := e.src.Do
	begin := s.start.Add(time.Duration(e.at + k*e.every))
	if a.WebhookReceiver == scenario.ReceiverUp {
		return begin, false, true
	}
	if a.For > 0 {
		if end := begin.Add(a.For.D()); !t.Before(end) {
			return end, false, true
		}
	}
	return begin, true, true
}

// receiverDownBy reports whether receiver entry e's down window holds at t.
func (s *Schedule) receiverDownBy(e *entry, t time.Time) bool {
	at, isDown, ok := s.receiverEvent(e, t)
	if !ok || !isDown {
		return false
	}
	for _, o := range s.entries {
		if o == e || o.action != scenario.ActionWebhookReceiver {
			continue
		}
		if ep := o.src.Do.Endpoint; ep != "" && ep != e.src.Do.Endpoint {
			continue
		}
		if oat, oDown, ok := s.receiverEvent(o, t); ok && !oDown && oat.After(at) {
			return false
		}
	}
	return true
}
