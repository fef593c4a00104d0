package coverage

import (
	"cmp"
	"slices"
	"strconv"
)

// ReportVersion is the version of the report's JSON form.
const ReportVersion = 1

// Report is the coverage of one instance, of a mockd's worlds, or of
// merged reports. Its JSON form is GET /_mock/coverage's answer, and
// merges exactly as the counts it came from.
type Report struct {
	Version  int            `json:"version"`
	Totals   Totals         `json:"totals"`
	Families []FamilyReport `json:"families"`
	// FaultRules are the rules in force and those that fired, by id.
	FaultRules []FaultRuleReport `json:"fault_rules"`
	// Unrouted counts requests no route served; Dropped items beyond the
	// bounds.
	Unrouted uint64 `json:"unrouted"`
	Dropped  uint64 `json:"dropped"`
	// Uncatalogued are transitions, clock events and presets no catalogue
	// entry names.
	Uncatalogued []Uncatalogued `json:"uncatalogued"`
	// NeverExercised lists items never exercised, by Rank.
	NeverExercised []Item `json:"never_exercised"`
}

// Totals are the covered shares of each kind of item.
type Totals struct {
	Operations  Ratio `json:"operations"`
	Statuses    Ratio `json:"statuses"`
	Codes       Ratio `json:"codes"`
	Transitions Ratio `json:"transitions"`
	ClockEvents Ratio `json:"clock_events"`
	Presets     Ratio `json:"presets"`
	FaultRules  Ratio `json:"fault_rules"`
}

// Ratio is how many of Total items were exercised.
type Ratio struct {
	Covered int     `json:"covered"`
	Total   int     `json:"total"`
	Percent float64 `json:"percent"`
}

func (r *Ratio) add(covered bool) {
	r.Total++
	if covered {
		r.Covered++
	}
}

func (r *Ratio) sum(o Ratio) {
	r.Covered += o.Covered
	r.Total += o.Total
}

func (r *Ratio) finish() {
	r.Percent = 0
	if r.Total > 0 {
		r.Percent = float64(int(float64(r.Covered)*1000/float64(r.Total))) / 10 // one decimal, rounded down
	}
}

// FamilyReport is one family's coverage.
type FamilyReport struct {
	Name        string            `json:"name"`
	Totals      Totals            `json:"totals"`
	Operations  []OperationReport `json:"operations"`
	Machines    []MachineReport   `json:"machines"`
	ClockEvents []NamedCount      `json:"clock_events"`
	Presets     []NamedCount      `json:"presets"`
}

// OperationReport is one operation's coverage, every answer counted.
type OperationReport struct {
	ID       string         `json:"id"`
	Method   string         `json:"method"`
	Path     string         `json:"path"`
	Calls    uint64         `json:"calls"`
	Timeline uint64         `json:"timeline,omitempty"`
	Statuses []StatusCount  `json:"statuses"`
	Codes    []CodeCount    `json:"codes"`
	Answers  []AnswerReport `json:"answers"`
}

// StatusCount is a catalogued status and how often it was answered.
type StatusCount struct {
	Status int    `json:"status"`
	Count  uint64 `json:"count"`
}

// CodeCount is a catalogued error code and how often it was answered.
type CodeCount struct {
	Status int    `json:"status"`
	Code   string `json:"code"`
	Count  uint64 `json:"count"`
}

// AnswerReport is one kind of answer as counted: Fault marks a fault
// rule's; Uncatalogued one the catalogue lacks.
type AnswerReport struct {
	Status       int    `json:"status"`
	Code         string `json:"code,omitempty"`
	Fault        bool   `json:"fault,omitempty"`
	Uncatalogued bool   `json:"uncatalogued,omitempty"`
	Count        uint64 `json:"count"`
}

// MachineReport is one state machine's coverage.
type MachineReport struct {
	Name        string             `json:"name"`
	Doc         string             `json:"doc,omitempty"`
	States      []string           `json:"states"`
	Transitions []TransitionReport `json:"transitions"`
}

// TransitionReport is an allowed transition and how often it was taken.
type TransitionReport struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Clock bool   `json:"clock,omitempty"`
	Count
}

// NamedCount is a clock event kind or a preset and how often it ran.
type NamedCount struct {
	Name string `json:"name"`
	Doc  string `json:"doc,omitempty"`
	Count
}

// FaultRuleReport is a fault rule, how often it fired, and whether it is
// in force.
type FaultRuleReport struct {
	ID      string `json:"id"`
	InForce bool   `json:"in_force"`
	Fired   uint64 `json:"fired"`
}

// Uncatalogued is something recorded that no catalogue entry names.
type Uncatalogued struct {
	Kind    string `json:"kind"`
	Machine string `json:"machine,omitempty"`
	From    string `json:"from,omitempty"`
	To      string `json:"to,omitempty"`
	Name    string `json:"name,omitempty"`
	Count
}

// Item is one thing never exercised.
type Item struct {
	// Rank orders the list, most often got wrong first: clock-driven moves,
	// retryable and conflict errors, other errors, presets, other
	// transitions, operations never called, success statuses.
	Rank      int    `json:"rank"`
	Kind      string `json:"kind"`
	Family    string `json:"family,omitempty"`
	Operation string `json:"operation,omitempty"`
	Machine   string `json:"machine,omitempty"`
	From      string `json:"from,omitempty"`
	To        string `json:"to,omitempty"`
	Status    int    `json:"status,omitempty"`
	Code      string `json:"code,omitempty"`
	Name      string `json:"name,omitempty"`
	Text      string `json:"text"`
}

// Build makes the report of a snapshot; rules are the ids of the fault
// rules in force.
func Build(cat *Catalogue, s Snapshot, rules []string) *Report {
	r := &Report{Version: ReportVersion, Families: []FamilyReport{}, FaultRules: []FaultRuleReport{},
		Uncatalogued: []Uncatalogued{}, NeverExercised: []Item{}, Unrouted: s.Unrouted, Dropped: s.Dropped}
	seenTrans := map[TransitionKey]bool{}
	seenClock := map[string]bool{}
	seenPreset := map[string]bool{}
	for _, f := range cat.Families {
		fr := FamilyReport{Name: f.Name, Operations: []OperationReport{}, Machines: []MachineReport{},
			ClockEvents: []NamedCount{}, Presets: []NamedCount{}}
		for _, op := range f.Operations {
			fr.Operations = append(fr.Operations, buildOperation(&fr, &op, s.Operations[op.ID]))
		}
		for _, m := range f.Machines {
			mr := MachineReport{Name: m.Name, Doc: m.Doc, States: slices.Clone(m.States), Transitions: []TransitionReport{}}
			for _, t := range m.Transitions {
				k := TransitionKey{m.Name, t.From, t.To}
				seenTrans[k] = true
				n := s.Transitions[k]
				mr.Transitions = append(mr.Transitions, TransitionReport{From: t.From, To: t.To, Clock: t.Clock, Count: n})
				fr.Totals.Transitions.add(n.N > 0)
				if n.N == 0 {
					rank := 5
					if t.Clock {
						rank = 1
					}
					r.never(Item{Rank: rank, Kind: "transition", Family: f.Name, Machine: m.Name, From: t.From, To: t.To,
						Text: m.Name + " " + arrow(t.From, t.To)})
				}
			}
			fr.Machines = append(fr.Machines, mr)
		}
		for _, e := range f.ClockEvents {
			seenClock[e.Kind] = true
			n := s.ClockEvents[e.Kind]
			fr.ClockEvents = append(fr.ClockEvents, NamedCount{Name: e.Kind, Doc: e.Doc, Count: n})
			fr.Totals.ClockEvents.add(n.N > 0)
			if n.N == 0 {
				r.never(Item{Rank: 1, Kind: "clock_event", Family: f.Name, Name: e.Kind, Text: "clock event " + e.Kind + " never ran"})
			}
		}
		for _, p := range f.Presets {
			seenPreset[p] = true
			n := s.Presets[p]
			fr.Presets = append(fr.Presets, NamedCount{Name: p, Count: Count{N: n}})
			fr.Totals.Presets.add(n > 0)
			if n == 0 {
				r.never(Item{Rank: 4, Kind: "preset", Family: f.Name, Name: p, Text: "preset " + p + " never fired"})
			}
		}
		for _, op := range fr.Operations {
			if op.Calls == 0 {
				r.never(Item{Rank: 6, Kind: "operation", Family: f.Name, Operation: op.ID,
					Text: op.ID + " (" + op.Method + " " + op.Path + ") never called"})
				continue
			}
			for _, st := range op.Statuses {
				if st.Count > 0 {
					continue
				}
				rank := 7
				switch {
				case retryOrConflict(st.Status):
					rank = 2
				case st.Status >= 400:
					rank = 3
				}
				r.never(Item{Rank: rank, Kind: "status", Family: f.Name, Operation: op.ID, Status: st.Status,
					Text: op.ID + " never answered " + strconv.Itoa(st.Status)})
			}
			for _, c := range op.Codes {
				if c.Count == 0 {
					r.never(Item{Rank: 3, Kind: "code", Family: f.Name, Operation: op.ID, Status: c.Status, Code: c.Code,
						Text: op.ID + " never answered " + strconv.Itoa(c.Status) + " " + c.Code})
				}
			}
		}
		fr.Totals.finish()
		r.Totals.sumFamily(fr.Totals)
		r.Families = append(r.Families, fr)
	}
	for _, k := range sortedKeys(s.Transitions, compareTransitions) {
		if !seenTrans[k] {
			r.Uncatalogued = append(r.Uncatalogued, Uncatalogued{Kind: "transition", Machine: k.Machine, From: k.From, To: k.To, Count: s.Transitions[k]})
		}
	}
	for _, k := range sortedKeys(s.ClockEvents, cmp.Compare[string]) {
		if !seenClock[k] {
			r.Uncatalogued = append(r.Uncatalogued, Uncatalogued{Kind: "clock_event", Name: k, Count: s.ClockEvents[k]})
		}
	}
	for _, k := range sortedKeys(s.Presets, cmp.Compare[string]) {
		if !seenPreset[k] {
			r.Uncatalogued = append(r.Uncatalogued, Uncatalogued{Kind: "preset", Name: k, Count: Count{N: s.Presets[k]}})
		}
	}
	r.buildFaultRules(s.FaultRules, rules)
	r.Totals.finish()
	slices.SortStableFunc(r.NeverExercised, func(a, b Item) int { return cmp.Compare(a.Rank, b.Rank) })
	return r
}

func buildOperation(fr *FamilyReport, op *Operation, oc OperationCount) OperationReport {
	or := OperationReport{ID: op.ID, Method: op.Method, Path: op.Path, Calls: oc.Calls, Timeline: oc.Timeline,
		Statuses: []StatusCount{}, Codes: []CodeCount{}, Answers: []AnswerReport{}}
	byStatus := map[int]uint64{}
	byCode := map[Code]uint64{}
	for _, k := range sortedKeys(oc.Answers, compareAnswers) {
		n := oc.Answers[k]
		byStatus[k.Status] += n
		if k.Code != "" {
			byCode[Code{k.Status, k.Code}] += n
		}
		out := !op.hasStatus(k.Status) || k.Code != "" && !op.hasCode(k.Status, k.Code)
		or.Answers = append(or.Answers, AnswerReport{Status: k.Status, Code: k.Code, Fault: k.Fault, Uncatalogued: out, Count: n})
	}
	fr.Totals.Operations.add(oc.Calls > 0)
	for _, st := range op.Statuses {
		n := byStatus[st]
		or.Statuses = append(or.Statuses, StatusCount{Status: st, Count: n})
		fr.Totals.Statuses.add(n > 0)
	}
	for _, c := range op.Codes {
		n := byCode[c]
		or.Codes = append(or.Codes, CodeCount{Status: c.Status, Code: c.Code, Count: n})
		fr.Totals.Codes.add(n > 0)
	}
	return or
}

func (r *Report) buildFaultRules(fired map[string]uint64, rules []string) {
	ids := map[string]bool{}
	var inForce []string // rules without repeats (worlds' rules share ids)
	for _, id := range rules {
		if !ids[id] {
			ids[id] = true
			inForce = append(inForce, id)
		}
	}
	all := slices.Sorted(func(yield func(string) bool) {
		for id := range fired {
			if !ids[id] && !yield(id) {
				return
			}
		}
	})
	for _, id := range inForce {
		n := fired[id]
		r.FaultRules = append(r.FaultRules, FaultRuleReport{ID: id, InForce: true, Fired: n})
		r.Totals.FaultRules.add(n > 0)
		if n == 0 {
			r.never(Item{Rank: 4, Kind: "fault_rule", Name: id, Text: "fault rule " + id + " never fired"})
		}
	}
	for _, id := range all {
		r.FaultRules = append(r.FaultRules, FaultRuleReport{ID: id, Fired: fired[id]})
	}
}

func (r *Report) never(it Item) { r.NeverExercised = append(r.NeverExercised, it) }

func (t *Totals) sumFamily(f Totals) {
	t.Operations.sum(f.Operations)
	t.Statuses.sum(f.Statuses)
	t.Codes.sum(f.Codes)
	t.Transitions.sum(f.Transitions)
	t.ClockEvents.sum(f.ClockEvents)
	t.Presets.sum(f.Presets)
}

func (t *Totals) finish() {
	for _, r := range []*Ratio{&t.Operations, &t.Statuses, &t.Codes, &t.Transitions, &t.ClockEvents, &t.Presets, &t.FaultRules} {
		r.finish()
	}
}

// retryOrConflict are the error statuses integrations most often handle
// wrong.
func retryOrConflict(status int) bool {
	switch status {
	case 409, 410, 412, 429:
		return true
	}
	return status >= 500
}

// arrow writes a transition: "calling → busy", "new → queued".
func arrow(from, to string) string {
	if from == "" {
		from = "new"
	}
	return from + " → " + to
}

func compareTransitions(a, b TransitionKey) int {
	return cmp.Or(cmp.Compare(a.Machine, b.Machine), cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To))
}

func compareAnswers(a, b Answer) int {
	fa, fb := 0, 0
	if a.Fault {
		fa = 1
	}
	if b.Fault {
		fb = 1
	}
	return cmp.Or(cmp.Compare(a.Status, b.Status), cmp.Compare(a.Code, b.Code), cmp.Compare(fa, fb))
}

func sortedKeys[K comparable, V any](m map[K]V, compare func(a, b K) int) []K {
	out := make([]K, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.SortFunc(out, compare)
	return out
}
