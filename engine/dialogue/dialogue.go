// Package dialogue is the conversation rules: a scenario's dialogue decides
// what the agent says to a user turn, and ApplyTurn records it. Every text
// and voice family uses it, so an agent answers alike on every channel.
package dialogue

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"text/template"
	"time"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// DefaultLatency is a turn's latency when the rule gives none.
const DefaultLatency = 800 * time.Millisecond

// Default replies.
const (
	DefaultGreeting = "Hi, how can I help you today?"
	DefaultFallback = "Sorry, I didn't understand that."
)

// TurnInput is what a rule sees of a user turn.
type TurnInput struct {
	Message    string
	Turn       int // 1-based number of the user message
	Metadata   map[string]any
	Attributes map[string]any
	State      map[string]any
	Events     []store.Event
	Variables  map[string]any
}

// Outcome is what the agent does in reply.
type Outcome struct {
	Text          string
	Rule          string
	OOD           bool
	End           bool
	Handoff       *Handoff
	Set           map[string]any
	Latency       time.Duration
	Metrics       map[string]string
	FunctionError bool
	Crash         bool
	AwaitEvent    string
	// ruleEnd is the rule's own end action (see WithoutHandoff).
	ruleEnd bool
	// Turn is the number of the user's turn answered (the engine's Converse).
	Turn int
}

// WithoutHandoff drops a handoff for connectors with disableHandoff
// (docs/api.md#agents-inbound): the reply stays, and only the rule's own
// end ends the conversation.
func (o Outcome) WithoutHandoff(state map[string]any) Outcome {
	if o.Handoff == nil || state["disable_handoff"] != true {
		return o
	}
	o.Handoff = nil
	o.End = o.ruleEnd
	return o
}

// Handoff is a rule's transfer: target, reason, data and shared id.
type Handoff struct {
	Destination string
	Reason      string
	Data        map[string]any
	SharedID    string
}

type templateData struct {
	Message    string
	Turn       int
	Metadata   map[string]any
	Attributes map[string]any
	State      map[string]any
	Variables  map[string]any
	Match      []string
}

// Scripts compiles a scenario's dialogues' regexes and templates once and
// runs the dialogues.
type Scripts struct {
	mu   sync.Mutex
	re   map[string]*ruleRegex
	tmpl map[string]*template.Template
}

func (s *Scripts) regex(expr string) (*ruleRegex, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if re, ok := s.re[expr]; ok {
		return re, nil
	}
	re, err := compileRule(expr)
	if err != nil {
		return nil, err
	}
	if s.re == nil {
		s.re = map[string]*ruleRegex{}
	}
	s.re[expr] = re
	return re, nil
}

func (s *Scripts) render(text string, data *templateData) (string, error) {
	if !strings.Contains(text, "{{") {
		return text, nil
	}
	s.mu.Lock()
	t, ok := s.tmpl[text]
	if !ok {
		var err error
		t, err = template.New("reply").Option("missingkey=zero").Parse(text)
		if err != nil {
			s.mu.Unlock()
			return "", err
		}
		if s.tmpl == nil {
			s.tmpl = map[string]*template.Template{}
		}
		s.tmpl[text] = t
	}
	s.mu.Unlock()
	var b strings.Builder
	if err := t.Execute(&b, data); err != nil {
		return "", err
	}
	return strings.ReplaceAll(b.String(), "<no value>", ""), nil
}

// Greeting is the agent's first words in a conversation of a variant.
func (w *Scripts) Greeting(d *scenario.Dialogue, variant string, in TurnInput) (string, error) {
	text := d.Greeting
	if v, ok := d.Variants[variant]; ok && v.Greeting != "" {
		text = v.Greeting
	}
	if text == "" {
		text = DefaultGreeting
	}
	return w.render(text, in.data(nil))
}

func (in TurnInput) data(match []string) *templateData {
	return &templateData{Message: in.Message, Turn: in.Turn, Metadata: in.Metadata,
		Attributes: in.Attributes, State: in.State, Variables: in.Variables, Match: match}
}

// Respond runs a user turn: the first matching rule (variant's first)
// gives the outcome, else the fallback, out-of-domain. A failing template
// counts a function error and answers the fallback.
func (w *Scripts) Respond(d *scenario.Dialogue, variant string, in TurnInput) Outcome {
	var variantRules []scenario.Rule
	fallback := d.Fallback
	if v, ok := d.Variants[variant]; ok {
		variantRules = v.Rules
		if v.Fallback != "" {
			fallback = v.Fallback
		}
	}
	if fallback == "" {
		fallback = DefaultFallback
	}
	lower := lowerOnce{s: in.Message}
	for _, rules := range [2][]scenario.Rule{variantRules, d.Rules} {
		for i := range rules {
			r := &rules[i]
			match, ok := w.matches(r.When, in, &lower)
			if !ok {
				continue
			}
			out, err := w.act(*r, in.data(match))
			if err != nil {
				fb, _ := w.render(fallback, in.data(nil))
				return Outcome{Text: fb, Rule: r.Name, FunctionError: true, Latency: DefaultLatency}
			}
			return out
		}
	}
	text, err := w.render(fallback, in.data(nil))
	if err != nil {
		text = DefaultFallback
	}
	return Outcome{Text: text, OOD: true, Latency: DefaultLatency}
}

type lowerOnce struct {
	s    string
	done bool
}

func (l *lowerOnce) get() string {
	if !l.done {
		l.s, l.done = strings.ToLower(l.s), true
	}
	return l.s
}

// matches reports whether a rule's match holds, with the submatches.
func (w *Scripts) matches(m scenario.Match, in TurnInput, lower *lowerOnce) ([]string, bool) {
	var sub []string
	if m.Contains != "" && !strings.Contains(lower.get(), strings.ToLower(m.Contains)) {
		return nil, false
	}
	if m.Regex != "" {
		re, err := w.regex(m.Regex)
		if err != nil {
			return nil, false
		}
		// The prefilter first: most rules do not match.
		if re.ruledOut(in.Message, lower) || !re.re.MatchString(in.Message) {
			return nil, false
		}
		if sub = re.re.FindStringSubmatch(in.Message); sub == nil {
			return nil, false
		}
	}
	if m.Turn != 0 && m.Turn != in.Turn {
		return nil, false
	}
	for k, v := range m.Metadata {
		got, ok := in.Metadata[k]
		if !ok || fmt.Sprint(got) != v {
			return nil, false
		}
	}
	for k, v := range m.State {
		got, ok := in.State[k]
		if !ok || got == nil || v != "*" && fmt.Sprint(got) != v {
			return nil, false
		}
	}
	if m.Event != "" {
		found := false
		for _, e := range in.Events {
			if m.Event == "*" || e.ID == m.Event {
				found = true
			}
		}
		if !found {
			return nil, false
		}
	}
	return sub, true
}

func (w *Scripts) act(r scenario.Rule, data *templateData) (Outcome, error) {
	t := r.Then
	out := Outcome{Rule: r.Name, End: t.End, ruleEnd: t.End, Latency: t.Latency.D(), FunctionError: t.FunctionError, Crash: t.Crash}
	if out.Latency <= 0 {
		out.Latency = DefaultLatency
	}
	var err error
	if out.Text, err = w.render(t.Reply, data); err != nil {
		return Outcome{}, err
	}
	if len(t.Set) > 0 {
		out.Set = make(map[string]any, len(t.Set))
		for _, k := range slices.Sorted(maps.Keys(t.Set)) { // sorted: the same failing key every run
			v := t.Set[k]
			if s, ok := v.(string); ok {
				if v, err = w.render(s, data); err != nil {
					return Outcome{}, err
				}
			}
			out.Set[k] = v
		}
	}
	if len(t.Metric) > 0 {
		out.Metrics = make(map[string]string, len(t.Metric))
		for _, k := range slices.Sorted(maps.Keys(t.Metric)) {
			v := t.Metric[k]
			if out.Metrics[k], err = w.render(v, data); err != nil {
				return Outcome{}, err
			}
		}
	}
	if t.AwaitEvent != "" {
		if out.AwaitEvent, err = w.render(t.AwaitEvent, data); err != nil {
			return Outcome{}, err
		}
	}
	if h := t.Handoff; h != nil {
		ho := &Handoff{Destination: h.Destination, Reason: h.Reason, Data: map[string]any{}}
		if ho.SharedID, err = w.render(h.SharedID, data); err != nil {
			return Outcome{}, err
		}
		if ho.Data, err = w.renderData(h.Data, data); err != nil {
			return Outcome{}, err
		}
		out.Handoff = ho
		out.End = true
	}
	return out, nil
}

func (w *Scripts) renderData(in map[string]any, data *templateData) (map[string]any, error) {
	out := make(map[string]any, len(in))
	for _, k := range slices.Sorted(maps.Keys(in)) { // sorted: the same failing key every run
		v := in[k]
		switch t := v.(type) {
		case string:
			s, err := w.render(t, data)
			if err != nil {
				return nil, err
			}
			out[k] = s
		case map[string]any:
			m, err := w.renderData(t, data)
			if err != nil {
				return nil, err
			}
			out[k] = m
		default:
			out[k] = v
		}
	}
	return out, nil
}

// ApplyTurn records a user turn and the agent's outcome on a conversation.
func ApplyTurn(conv *store.Conversation, now time.Time, in TurnInput, out Outcome, meta map[string]any) {
	turn := store.Turn{
		UserInput:       in.Message,
		UserInputAt:     now,
		AgentResponse:   out.Text,
		AgentResponseAt: now.Add(out.Latency),
		Intents:         []string{},
		Entities:        map[string]string{},
		IsOOD:           out.OOD,
		IsSilence:       in.Message == "" && in.Turn > 0,
		Latency:         out.Latency,
		Metadata:        meta,
	}
	if out.Rule != "" {
		turn.Intents = []string{out.Rule}
	}
	conv.Turns = append(conv.Turns, turn)
	if turn.IsOOD {
		conv.NumOOD++
	}
	if turn.IsSilence {
		conv.NumSilences++
	}
	if conv.State == nil {
		conv.State = map[string]any{}
	}
	maps.Copy(conv.State, out.Set)
	for k, v := range out.Metrics {
		AddMetric(conv, k, v)
	}
	if out.FunctionError {
		conv.FunctionErrors = append(conv.FunctionErrors, now)
	}
	if out.Crash {
		conv.Crashes = append(conv.Crashes, now)
	}
	if out.AwaitEvent != "" {
		conv.AwaitedEvents = append(conv.AwaitedEvents, out.AwaitEvent)
	}
	if h := out.Handoff; h != nil {
		conv.Handoff = true
		conv.HandoffDestination = h.Destination
		conv.HandoffReason = h.Reason
		if h.SharedID != "" {
			conv.SharedID = h.SharedID
		}
	}
	if out.End || out.Crash {
		EndConversation(conv, now.Add(out.Latency))
	}
}

// AddMetric logs a custom metric: a string, or a list once written more
// than once (docs/api.md#conversations-record).
func AddMetric(conv *store.Conversation, k, v string) {
	if conv.Metrics == nil {
		conv.Metrics = map[string]any{}
	}
	switch old := conv.Metrics[k].(type) {
	case nil:
		conv.Metrics[k] = v
	case string:
		conv.Metrics[k] = []any{old, v}
	case []any:
		conv.Metrics[k] = append(old, v)
	default:
		conv.Metrics[k] = v
	}
}

// EndConversation marks a conversation finished at t.
func EndConversation(conv *store.Conversation, t time.Time) {
	if !conv.InProgress {
		return
	}
	conv.InProgress = false
	conv.EndedAt = t
}
