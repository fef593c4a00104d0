package coverage

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Merge adds up reports (CI shards, mockds) as one run that made every
// shard's requests would report.
func Merge(reports ...*Report) *Report {
	cat := &Catalogue{}
	s := NewSnapshot()
	var rules []string
	inForce := map[string]bool{}
	for _, r := range reports {
		if r == nil {
			continue
		}
		cat.union(r.Catalogue())
		s.Add(r.Snapshot())
		for _, fr := range r.FaultRules {
			if fr.InForce && !inForce[fr.ID] {
				inForce[fr.ID] = true
				rules = append(rules, fr.ID)
			}
		}
	}
	return Build(cat.Index(), s, rules)
}

// Catalogue is the catalogue the report is over.
func (r *Report) Catalogue() *Catalogue {
	cat := &Catalogue{}
	for _, fr := range r.Families {
		f := Family{Name: fr.Name}
		for _, or := range fr.Operations {
			op := Operation{ID: or.ID, Method: or.Method, Path: or.Path}
			for _, s := range or.Statuses {
				op.Statuses = append(op.Statuses, s.Status)
			}
			for _, c := range or.Codes {
				op.Codes = append(op.Codes, Code{c.Status, c.Code})
			}
			op.Normalize()
			f.Operations = append(f.Operations, op)
		}
		for _, mr := range fr.Machines {
			m := Machine{Name: mr.Name, Doc: mr.Doc, States: slices.Clone(mr.States)}
			for _, t := range mr.Transitions {
				m.Transitions = append(m.Transitions, Transition{From: t.From, To: t.To, Clock: t.Clock})
			}
			f.Machines = append(f.Machines, m)
		}
		for _, e := range fr.ClockEvents {
			f.ClockEvents = append(f.ClockEvents, ClockEvent{Kind: e.Name, Doc: e.Doc})
		}
		for _, p := range fr.Presets {
			f.Presets = append(f.Presets, p.Name)
		}
		cat.Families = append(cat.Families, f)
	}
	return cat.Index()
}

// Snapshot is the counts the report was built from.
func (r *Report) Snapshot() Snapshot {
	s := NewSnapshot()
	for _, fr := range r.Families {
		for _, or := range fr.Operations {
			if or.Calls == 0 {
				continue
			}
			oc := OperationCount{Calls: or.Calls, Timeline: or.Timeline, Answers: map[Answer]uint64{}}
			for _, a := range or.Answers {
				oc.Answers[Answer{Status: a.Status, Code: a.Code, Fault: a.Fault}] += a.Count
			}
			s.Operations[or.ID] = oc
		}
		for _, mr := range fr.Machines {
			for _, t := range mr.Transitions {
				if t.N > 0 {
					s.Transitions[TransitionKey{mr.Name, t.From, t.To}] = t.Count
				}
			}
		}
		for _, e := range fr.ClockEvents {
			if e.N > 0 {
				s.ClockEvents[e.Name] = e.Count
			}
		}
		for _, p := range fr.Presets {
			if p.N > 0 {
				s.Presets[p.Name] = p.N
			}
		}
	}
	for _, u := range r.Uncatalogued {
		switch u.Kind {
		case "transition":
			s.Transitions[TransitionKey{u.Machine, u.From, u.To}] = u.Count
		case "clock_event":
			s.ClockEvents[u.Name] = u.Count
		case "preset":
			s.Presets[u.Name] = u.N
		}
	}
	for _, fr := range r.FaultRules {
		if fr.Fired > 0 {
			s.FaultRules[fr.ID] = fr.Fired
		}
	}
	s.Unrouted, s.Dropped = r.Unrouted, r.Dropped
	return s
}

// union adds what o's catalogue has and c lacks.
func (c *Catalogue) union(o *Catalogue) {
	for _, of := range o.Families {
		i := slices.IndexFunc(c.Families, func(f Family) bool { return f.Name == of.Name })
		if i < 0 {
			c.Families = append(c.Families, Family{Name: of.Name})
			i = len(c.Families) - 1
		}
		f := &c.Families[i]
		for _, op := range of.Operations {
			j := slices.IndexFunc(f.Operations, func(x Operation) bool { return x.ID == op.ID })
			if j < 0 {
				f.Operations = append(f.Operations, Operation{ID: op.ID, Method: op.Method, Path: op.Path})
				j = len(f.Operations) - 1
			}
			cur := &f.Operations[j]
			cur.Statuses = append(cur.Statuses, op.Statuses...)
			cur.Codes = append(cur.Codes, op.Codes...)
			cur.Normalize()
		}
		for _, m := range of.Machines {
			j := slices.IndexFunc(f.Machines, func(x Machine) bool { return x.Name == m.Name })
			if j < 0 {
				f.Machines = append(f.Machines, Machine{Name: m.Name, Doc: m.Doc})
				j = len(f.Machines) - 1
			}
			cur := &f.Machines[j]
			for _, s := range m.States {
				if !slices.Contains(cur.States, s) {
					cur.States = append(cur.States, s)
				}
			}
			for _, t := range m.Transitions {
				if !slices.ContainsFunc(cur.Transitions, func(x Transition) bool { return x.From == t.From && x.To == t.To }) {
					cur.Transitions = append(cur.Transitions, t)
				}
			}
		}
		for _, e := range of.ClockEvents {
			if !slices.ContainsFunc(f.ClockEvents, func(x ClockEvent) bool { return x.Kind == e.Kind }) {
				f.ClockEvents = append(f.ClockEvents, e)
			}
		}
		for _, p := range of.Presets {
			if !slices.Contains(f.Presets, p) {
				f.Presets = append(f.Presets, p)
			}
		}
	}
}

// Requirement is a condition a report must meet (Check).
type Requirement struct {
	kind  string // a Totals field's JSON name, or "transition"
	min   float64
	trans TransitionKey
}

// MinOperations requires at least pct percent of the operations called.
func MinOperations(pct float64) Requirement { return Requirement{kind: "operations", min: pct} }

// MinStatuses requires at least pct percent of the statuses answered.
func MinStatuses(pct float64) Requirement { return Requirement{kind: "statuses", min: pct} }

// MinCodes requires at least pct percent of the error codes answered.
func MinCodes(pct float64) Requirement { return Requirement{kind: "codes", min: pct} }

// MinTransitions requires at least pct percent of the transitions taken.
func MinTransitions(pct float64) Requirement { return Requirement{kind: "transitions", min: pct} }

// MinClockEvents requires at least pct percent of the clock event kinds run.
func MinClockEvents(pct float64) Requirement { return Requirement{kind: "clock_events", min: pct} }

// TransitionTaken requires a transition taken at least once.
func TransitionTaken(machine, from, to string) Requirement {
	return Requirement{kind: "transition", trans: TransitionKey{machine, from, to}}
}

// ParseTransition reads "machine:from->to" (from "" or "new") as
// TransitionTaken.
func ParseTransition(s string) (Requirement, error) {
	machine, move, ok := strings.Cut(s, ":")
	from, to, ok2 := strings.Cut(move, "->")
	if !ok || !ok2 || machine == "" || to == "" {
		return Requirement{}, fmt.Errorf("transition %q: want machine:from->to (e.g. outbound_call:calling->busy)", s)
	}
	if from == "new" {
		from = ""
	}
	return TransitionTaken(machine, from, to), nil
}

// Check returns what of reqs the report fails, one line each.
func (r *Report) Check(reqs ...Requirement) []string {
	var out []string
	for _, q := range reqs {
		if q.kind == "transition" {
			if !r.taken(q.trans) {
				out = append(out, fmt.Sprintf("transition %s %s never happened", q.trans.Machine, arrow(q.trans.From, q.trans.To)))
			}
			continue
		}
		ratio := r.Totals.ratio(q.kind)
		name := strings.ReplaceAll(q.kind, "_", " ")
		switch {
		case ratio.Total == 0:
			out = append(out, fmt.Sprintf("%s: the catalogue has none to cover (wanted %s%%)", name, fmtPct(q.min)))
		case ratio.Percent < q.min:
			out = append(out, fmt.Sprintf("%s: %s%% covered (%d of %d), below %s%%", name, fmtPct(ratio.Percent), ratio.Covered, ratio.Total, fmtPct(q.min)))
		}
	}
	return out
}

func (r *Report) taken(k TransitionKey) bool {
	for _, f := range r.Families {
		for _, m := range f.Machines {
			if m.Name != k.Machine {
				continue
			}
			for _, t := range m.Transitions {
				if t.From == k.From && t.To == k.To && t.N > 0 {
					return true
				}
			}
		}
	}
	for _, u := range r.Uncatalogued {
		if u.Kind == "transition" && u.Machine == k.Machine && u.From == k.From && u.To == k.To && u.N > 0 {
			return true
		}
	}
	return false
}

func (t Totals) ratio(kind string) Ratio {
	switch kind {
	case "operations":
		return t.Operations
	case "statuses":
		return t.Statuses
	case "codes":
		return t.Codes
	case "transitions":
		return t.Transitions
	case "clock_events":
		return t.ClockEvents
	}
	return Ratio{}
}

func fmtPct(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }
