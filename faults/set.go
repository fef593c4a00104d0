package faults

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Vocabulary is what rules may name: the API's families and their presets.
// The platform's family table supplies it (faults knows no family); it is
// read-only once made.
type Vocabulary struct {
	// Families are the family names, in the order the docs use.
	Families []string
	// Presets are every family's presets, in the order the docs list them.
	Presets []Preset
}

// methods are the HTTP methods a rule may name.
var methods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

// ValidationError is the error Validate, Set.Add and Set.Replace return for
// a bad rule. Field is the rule field in its YAML/JSON spelling
// ("action.status"; "rules[2].action.status" from Replace).
type ValidationError struct {
	Field string
	Msg   string
}

func (e *ValidationError) Error() string { return "faults: " + e.Field + ": " + e.Msg }

func invalid(field, format string, args ...any) error {
	return &ValidationError{Field: field, Msg: fmt.Sprintf(format, args...)}
}

// Validate checks a rule's fields and that it does something; errors are
// *ValidationError naming the field, e.g. "faults: action.status: 42 is
// not an HTTP status".
func (v *Vocabulary) Validate(r Rule) error {
	_, err := v.validate(r)
	return err
}

func (v *Vocabulary) validate(r Rule) (pattern, error) {
	m, a := r.Match, r.Action
	if m.Family != "" && !slices.Contains(v.Families, m.Family) {
		return pattern{}, invalid("match.family", "%q is not a family (want one of %s)", m.Family, strings.Join(v.Families, ", "))
	}
	if m.Method != "" && !slices.Contains(methods, strings.ToUpper(m.Method)) {
		return pattern{}, invalid("match.method", "%q is not one of %s", m.Method, strings.Join(methods, ", "))
	}
	pat, err := compilePattern(m.Path)
	if err != nil {
		return pattern{}, invalid("match.path", "%s", err)
	}
	for k := range m.Headers {
		if strings.TrimSpace(k) == "" {
			return pattern{}, invalid("match.headers", "empty header name")
		}
	}
	for k := range m.Query {
		if k == "" {
			return pattern{}, invalid("match.query", "empty parameter name")
		}
	}
	if a.Status != 0 && (a.Status < 100 || a.Status > 599) {
		return pattern{}, invalid("action.status", "%d is not an HTTP status", a.Status)
	}
	for k := range a.Headers {
		if strings.TrimSpace(k) == "" {
			return pattern{}, invalid("action.headers", "empty header name")
		}
	}
	if a.Delay < 0 {
		return pattern{}, invalid("action.delay", "%s must not be negative", a.Delay)
	}
	switch a.DelayClock {
	case "", "real", "virtual":
	default:
		return pattern{}, invalid("action.delay_clock", "%q is not \"real\" or \"virtual\"", a.DelayClock)
	}
	if a.Status == 0 && a.Body == "" && a.Delay == 0 && !a.Drop && a.Preset == "" {
		return pattern{}, invalid("action", "nothing to do (set status, body, delay, drop or preset)")
	}
	if math.IsNaN(r.Probability) || r.Probability < 0 || r.Probability > 1 {
		return pattern{}, invalid("probability", "%v is not in [0, 1]", r.Probability)
	}
	if r.Times < 0 {
		return pattern{}, invalid("times", "%d must not be negative", r.Times)
	}
	if r.After < 0 {
		return pattern{}, invalid("after", "%d must not be negative", r.After)
	}
	return pat, nil
}

// Set is a concurrency-safe ordered list of rules with counters, one per
// platform instance. Probability draws come from a math/rand/v2 PCG seeded
// by the seed, so the same seed and the same requests give the same
// decisions.
type Set struct {
	voc    *Vocabulary // read-only
	mu     sync.Mutex
	rng    *rand.Rand
	rules  []*entry
	nextID int // last auto-assigned "fault-N"
}

type entry struct {
	rule    Rule
	pat     pattern
	matched int
	fired   int
	// window limits a windowed rule (nil: always). After and Times count
	// per span of the window: spanMatched and spanFired are the counts of
	// span number span (for a rule without window, the totals).
	window      *Window
	span        int64
	spanMatched int
	spanFired   int
}

func newRand(seed int64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), uint64(seed)^0x9e3779b97f4a7c15))
}

// NewSet returns an empty set of rules in voc, its draws seeded by seed.
func NewSet(voc *Vocabulary, seed int64) *Set {
	return &Set{voc: voc, rng: newRand(seed)}
}

// Vocabulary is what the set's rules may name.
func (s *Set) Vocabulary() *Vocabulary { return s.voc }

// Add validates r and appends it, assigning "fault-N" to an empty ID; an ID
// in use is an error. It returns the stored rule.
func (s *Set) Add(r Rule) (Rule, error) { return s.add(r, nil) }

// AddWindowed is Add for a rule that holds only inside the window w.
func (s *Set) AddWindowed(r Rule, w Window) (Rule, error) {
	if err := w.validate(); err != nil {
		return Rule{}, err
	}
	return s.add(r, &w)
}

func (s *Set) add(r Rule, w *Window) (Rule, error) {
	pat, err := s.voc.validate(r)
	if err != nil {
		return Rule{}, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	r = cloneRule(r)
	if r.ID == "" {
		r.ID = s.autoIDLocked(s.hasIDLocked)
	} else if s.hasIDLocked(r.ID) {
		return Rule{}, invalid("id", "%q is already in use", r.ID)
	}
	s.rules = append(s.rules, &entry{rule: r, pat: pat, window: w})
	return cloneRule(r), nil
}

func (s *Set) hasIDLocked(id string) bool {
	return slices.ContainsFunc(s.rules, func(e *entry) bool { return e.rule.ID == id })
}

// autoIDLocked returns the next "fault-N" for which taken is false.
func (s *Set) autoIDLocked(taken func(string) bool) string {
	for {
		s.nextID++
		id := "fault-" + strconv.Itoa(s.nextID)
		if !taken(id) {
			return id
		}
	}
}

// Remove deletes the rule with this ID and reports whether it was there.
func (s *Set) Remove(id string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.rules, func(e *entry) bool { return e.rule.ID == id })
	if i < 0 {
		return false
	}
	s.rules = slices.Delete(s.rules, i, i+1)
	return true
}

// Len is the number of rules.
func (s *Set) Len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.rules)
}

// Clear removes every rule; the ID counter and random sequence go on.
func (s *Set) Clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.rules = nil
}

// Replace resets the set to exactly these rules with fresh counters, the ID
// counter restarted and the draws reseeded. On error the set is unchanged.
func (s *Set) Replace(rules []Rule, seed int64) error { return s.ReplaceWindowed(nil, rules, seed) }

// ReplaceWindowed is Replace with windowed rules as well, first.
func (s *Set) ReplaceWindowed(windowed []Windowed, rules []Rule, seed int64) error {
	entries := make([]*entry, 0, len(windowed)+len(rules))
	explicit := make(map[string]bool, len(windowed)+len(rules))
	add := func(list string, i int, r Rule, w *Window) error {
		pat, err := s.voc.validate(r)
		if err == nil && w != nil {
			err = w.validate()
		}
		if err != nil {
			var ve *ValidationError
			if errors.As(err, &ve) {
				return invalid(fmt.Sprintf("%s[%d].%s", list, i, ve.Field), "%s", ve.Msg)
			}
			return err
		}
		if r.ID != "" {
			if explicit[r.ID] {
				return invalid(fmt.Sprintf("%s[%d].id", list, i), "%q is used twice", r.ID)
			}
			explicit[r.ID] = true
		}
		entries = append(entries, &entry{rule: cloneRule(r), pat: pat, window: w})
		return nil
	}
	for i, wr := range windowed {
		w := wr.Window
		if err := add("windowed", i, wr.Rule, &w); err != nil {
			return err
		}
	}
	for i, r := range rules {
		if err := add("rules", i, r, nil); err != nil {
			return err
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.nextID = 0
	for _, e := range entries {
		if e.rule.ID == "" {
			id := s.autoIDLocked(func(id string) bool { return explicit[id] })
			explicit[id] = true
			e.rule.ID = id
		}
	}
	s.rules = entries
	s.rng = newRand(seed)
	return nil
}

// List returns copies of the rules with their counters, in insertion order.
func (s *Set) List() []Status {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Status, len(s.rules))
	for i, e := range s.rules {
		out[i] = e.status()
	}
	return out
}

func (e *entry) status() Status {
	st := Status{
		Rule:      cloneRule(e.rule),
		Matched:   e.matched,
		Fired:     e.fired,
		Exhausted: e.exhausted(),
	}
	if e.window != nil {
		w := *e.window
		st.Window = &w
	}
	return st
}

func (e *entry) exhausted() bool { return e.rule.Times > 0 && e.spanFired >= e.rule.Times }

// Match walks the rules in order. Each rule whose match holds counts the
// request and fires once After requests passed, while Fired < Times, and
// when the seeded draw is below Probability. It returns a copy of the
// first rule that fires; later rules do not see the request. A windowed
// rule takes part only inside its window, counting afresh in each span.
func (s *Set) Match(req Request) (Rule, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, e := range s.rules {
		var span int64
		if e.window != nil {
			k, ok := e.window.Span(req.Time)
			if !ok {
				continue
			}
			span = k
		}
		if !e.matches(req) {
			continue
		}
		if span != e.span {
			e.span, e.spanMatched, e.spanFired = span, 0, 0
		}
		e.matched++
		e.spanMatched++
		if e.spanMatched <= e.rule.After || e.exhausted() {
			continue
		}
		if p := e.rule.Probability; p > 0 && p < 1 && s.rng.Float64() >= p {
			continue
		}
		e.fired++
		e.spanFired++
		return cloneRule(e.rule), true
	}
	return Rule{}, false
}

func (e *entry) matches(req Request) bool {
	m := e.rule.Match
	if m.Family != "" && m.Family != req.Family {
		return false
	}
	if m.Method != "" && !strings.EqualFold(m.Method, req.Method) {
		return false
	}
	if m.Region != "" && m.Region != req.Region {
		return false
	}
	if !e.pat.match(req.Path) {
		return false
	}
	for name, want := range m.Headers {
		got := ""
		if req.Header != nil {
			got = req.Header(name)
		}
		if want == "*" {
			if got == "" {
				return false
			}
		} else if got != want {
			return false
		}
	}
	for name, want := range m.Query {
		got, ok := "", false
		if req.Query != nil {
			got, ok = req.Query(name)
		}
		if !ok || (want != "*" && got != want) {
			return false
		}
	}
	return true
}

// cloneRule copies r with its maps, so the copy shares nothing mutable.
func cloneRule(r Rule) Rule {
	r.Match.Headers = maps.Clone(r.Match.Headers)
	r.Match.Query = maps.Clone(r.Match.Query)
	r.Action.Headers = maps.Clone(r.Action.Headers)
	return r
}
