package scenario

// The generate block of a project: generators of conversation records.

import (
	"slices"
	"sort"
	"time"
)

// Limits of a generator.
const (
	MaxGeneratedConversations = 2_000_000
	MaxGeneratedTurns         = 100
)

// Generator asks for Count conversation records started uniformly at
// random in [From, To), with a seeded mix of channels, variants,
// environments, languages, durations, turns and handoffs. The same seed
// gives the same records.
type Generator struct {
	// Count is the number of conversations (1 to 2,000,000).
	Count int `yaml:"count" json:"count"`
	// From and To bound started_at (required, From before To).
	From time.Time `yaml:"from" json:"from"`
	To   time.Time `yaml:"to" json:"to"`
	// Seed of this generator; 0 derives one from the scenario's seed and
	// the generator's position.
	Seed int64 `yaml:"seed" json:"seed,omitempty"`
	// Channels, Variants (id or name), Environments and Languages are
	// weights: a key is picked with probability weight/sum. Defaults:
	// VOICE-SIP; every variant of the project equally (none if it has no
	// variants); live; en-GB.
	Channels     map[string]int `yaml:"channels" json:"channels,omitempty"`
	Variants     map[string]int `yaml:"variants" json:"variants,omitempty"`
	Environments map[string]int `yaml:"environments" json:"environments,omitempty"`
	Languages    map[string]int `yaml:"languages" json:"languages,omitempty"`
	// Duration bounds each conversation's total duration (default 30s to
	// 10m). A conversation whose end is after the clock's start is in
	// progress.
	Duration DurationRange `yaml:"duration" json:"duration"`
	// Turns bounds the number of turns, greeting included (default 2 to 8).
	Turns IntRange `yaml:"turns" json:"turns"`
	// Handoff is the fraction of conversations handed off (0 to 1, default
	// 0.1); each writes a handoff state.
	Handoff *float64 `yaml:"handoff" json:"handoff,omitempty"`
	// OOD is the fraction of user turns that are out of domain (default 0.05).
	OOD *float64 `yaml:"ood" json:"ood,omitempty"`
}

// DurationRange is a closed range of durations.
type DurationRange struct {
	Min Duration `yaml:"min" json:"min"`
	Max Duration `yaml:"max" json:"max"`
}

// IntRange is a closed range of integers.
type IntRange struct {
	Min int `yaml:"min" json:"min"`
	Max int `yaml:"max" json:"max"`
}

// Generator defaults.
const (
	DefaultGenHandoff = 0.1
	DefaultGenOOD     = 0.05
)

// SortedWeights returns a weight map's keys, sorted, with their weights.
func SortedWeights(m map[string]int) (keys []string, weights []int) {
	keys = make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	weights = make([]int, len(keys))
	for i, k := range keys {
		weights[i] = m[k]
	}
	return keys, weights
}

// generators validates the generators and fills in their defaults.
func (v *validator) generators(s *Scenario) {
	for i := range s.Accounts {
		a := &s.Accounts[i]
		for j := range a.Projects {
			pr := &a.Projects[j]
			for k := range pr.Generate {
				v.generator(pr, &pr.Generate[k], path{"accounts", i, "projects", j, "generate", k})
			}
		}
	}
}

func (v *validator) generator(pr *Project, g *Generator, p path) {
	if g.Count < 1 || g.Count > MaxGeneratedConversations {
		v.reportf(p.with("count"), "must be 1 to %d", MaxGeneratedConversations)
	}
	if g.From.IsZero() {
		v.reportf(p.with("from"), "required")
	}
	if g.To.IsZero() {
		v.reportf(p.with("to"), "required")
	}
	if !g.From.IsZero() && !g.To.IsZero() && !g.From.Before(g.To) {
		v.reportf(p.with("to"), "must be after from")
	}
	v.weights(p.with("channels"), g.Channels, nil)
	v.weights(p.with("environments"), g.Environments, Environments)
	v.weights(p.with("languages"), g.Languages, nil)
	if len(g.Variants) > 0 {
		norm := make(map[string]int, len(g.Variants))
		keys, _ := SortedWeights(g.Variants)
		for _, k := range keys {
			id := v.variant(pr, p.with("variants", k), k)
			norm[id] += g.Variants[k]
		}
		v.weights(p.with("variants"), g.Variants, nil)
		g.Variants = norm
	}
	if len(g.Channels) == 0 {
		g.Channels = map[string]int{"VOICE-SIP": 1}
	}
	if len(g.Environments) == 0 {
		g.Environments = map[string]int{"live": 1}
	}
	if len(g.Languages) == 0 {
		g.Languages = map[string]int{"en-GB": 1}
	}
	if len(g.Variants) == 0 && len(pr.Variants) > 0 {
		g.Variants = make(map[string]int, len(pr.Variants))
		for _, vr := range pr.Variants {
			g.Variants[vr.ID] = 1
		}
	}
	d := &g.Duration
	if d.Min == 0 && d.Max == 0 {
		d.Min, d.Max = Duration(30*time.Second), Duration(10*time.Minute)
	}
	if d.Min < 0 {
		v.reportf(p.with("duration", "min"), "must not be negative")
	}
	if d.Max < d.Min {
		v.reportf(p.with("duration", "max"), "%s is less than min %s", d.Max, d.Min)
	}
	t := &g.Turns
	if t.Min == 0 && t.Max == 0 {
		t.Min, t.Max = 2, 8
	}
	if t.Min < 1 || t.Max > MaxGeneratedTurns || t.Max < t.Min {
		v.reportf(p.with("turns"), "want 1 <= min <= max <= %d (got %d to %d)", MaxGeneratedTurns, t.Min, t.Max)
	}
	for _, f := range []struct {
		name string
		val  **float64
		def  float64
	}{{"handoff", &g.Handoff, DefaultGenHandoff}, {"ood", &g.OOD, DefaultGenOOD}} {
		if *f.val == nil {
			x := f.def
			*f.val = &x
			continue
		}
		if x := **f.val; x < 0 || x > 1 {
			v.reportf(p.with(f.name), "must be a fraction from 0 to 1 (got %v)", x)
		}
	}
}

// weights checks a weight map: non-negative, positive sum, allowed keys.
func (v *validator) weights(p path, m map[string]int, allowed []string) {
	if len(m) == 0 {
		return
	}
	sum := 0
	keys, _ := SortedWeights(m)
	for _, k := range keys {
		w := m[k]
		if w < 0 {
			v.reportf(p.with(k), "weight must not be negative")
		}
		sum += max(w, 0)
		if allowed != nil && !slices.Contains(allowed, k) {
			v.reportf(p.with(k), "unknown value %q (want %s)", k, oneOf(allowed))
		}
	}
	if sum == 0 {
		v.reportf(p, "weights sum to 0 (give at least one positive weight)")
	}
}
