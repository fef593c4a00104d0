package engine

// The dialogue engine: a scenario's script decides what the agent says.
// Every text family (chat, messaging sessions) and the voice families use it,
// so an agent answers the same way on every channel.

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

// turnInput is what a rule sees of a user turn.
type turnInput struct {
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
	Handoff       *handoffOutcome
	Set           map[string]any
	Latency       time.Duration
	Metrics       map[string]string
	FunctionError bool
	Crash         bool
	AwaitEvent    string
	// ruleEnd is the rule's own end action (a handoff ends the
	// conversation too; see withoutHandoff).
	ruleEnd bool
	// turn is the number of the user's turn answered (Converse).
	turn int
}

// withoutHandoff drops a handoff from an outcome, for conversations whose
// connector disables handoff (disableHandoff, docs/api.md#agents-inbound):
// the agent still says the rule's reply, and the conversation ends only if
// the rule itself ends it.
func (o Outcome) withoutHandoff(state map[string]any) Outcome {
	if o.Handoff == nil || state["disable_handoff"] != true {
		return o
	}
	o.Handoff = nil
	o.End = o.ruleEnd
	return o
}

type handoffOutcome struct {
	Destination string
	Reason      string
	Data        map[string]any
	SharedID    string
}

// templateData is what reply templates see.
type templateData struct {
	Message    string
	Turn       int
	Metadata   map[string]any
	Attributes map[string]any
	State      map[string]any
	Variables  map[string]any
	Match      []string
}

// scriptCache compiles regular expressions and templates once per world.
type scriptCache struct {
	mu   sync.Mutex
	re   map[string]*ruleRegex
	tmpl map[string]*template.Template
}

func (s *scriptCache) regex(expr string) (*ruleRegex, error) {
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

// render executes a template text (plain text without "{{" is returned as is).
func (s *scriptCache) render(text string, data *templateData) (string, error) {
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

// greeting is the agent's first words in a conversation of a variant.
func (w *View) greeting(d *scenario.Dialogue, variant string, in turnInput) (string, error) {
	text := d.Greeting
	if v, ok := d.Variants[variant]; ok && v.Greeting != "" {
		text = v.Greeting
	}
	if text == "" {
		text = DefaultGreeting
	}
	return w.scripts.render(text, in.data(nil))
}

func (in turnInput) data(match []string) *templateData {
	return &templateData{Message: in.Message, Turn: in.Turn, Metadata: in.Metadata,
		Attributes: in.Attributes, State: in.State, Variables: in.Variables, Match: match}
}

// respond runs a script over one user turn: the first matching rule (the
// variant's rules first) gives the outcome; no match gives the fallback and
// marks the turn out-of-domain. A template that fails counts as a function
// error and the agent answers with the fallback.
func (w *View) respond(d *scenario.Dialogue, variant string, in turnInput) Outcome {
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
				fb, _ := w.scripts.render(fallback, in.data(nil))
				return Outcome{Text: fb, Rule: r.Name, FunctionError: true, Latency: DefaultLatency}
			}
			return out
		}
	}
	text, err := w.scripts.render(fallback, in.data(nil))
	if err != nil {
		text = DefaultFallback
	}
	return Outcome{Text: text, OOD: true, Latency: DefaultLatency}
}

// lowerOnce is a message in lower case, made when first needed.
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

// matches reports whether a rule's match holds, with the regex submatches;
// lower is the message in lower case.
func (w *View) matches(m scenario.Match, in turnInput, lower *lowerOnce) ([]string, bool) {
	var sub []string
	if m.Contains != "" && !strings.Contains(lower.get(), strings.ToLower(m.Contains)) {
		return nil, false
	}
	if m.Regex != "" {
		re, err := w.scripts.regex(m.Regex)
		if err != nil {
			return nil, false
		}
		// The prefilter, then MatchString: most rules do not match, and
		// a match without submatches costs less.
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

// act renders a rule's actions.
func (w *View) act(r scenario.Rule, data *templateData) (Outcome, error) {
	t := r.Then
	out := Outcome{Rule: r.Name, End: t.End, ruleEnd: t.End, Latency: t.Latency.D(), FunctionError: t.FunctionError, Crash: t.Crash}
	if out.Latency <= 0 {
		out.Latency = DefaultLatency
	}
	var err error
	if out.Text, err = w.scripts.render(t.Reply, data); err != nil {
		return Outcome{}, err
	}
	if len(t.Set) > 0 {
		out.Set = make(map[string]any, len(t.Set))
		for _, k := range slices.Sorted(maps.Keys(t.Set)) { // sorted: the same failing key every run
			v := t.Set[k]
			if s, ok := v.(string); ok {
				if v, err = w.scripts.render(s, data); err != nil {
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
			if out.Metrics[k], err = w.scripts.render(v, data); err != nil {
				return Outcome{}, err
			}
		}
	}
	if t.AwaitEvent != "" {
		if out.AwaitEvent, err = w.scripts.render(t.AwaitEvent, data); err != nil {
			return Outcome{}, err
		}
	}
	if h := t.Handoff; h != nil {
		ho := &handoffOutcome{Destination: h.Destination, Reason: h.Reason, Data: map[string]any{}}
		if ho.SharedID, err = w.scripts.render(h.SharedID, data); err != nil {
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

// renderData renders the string leaves of a data map as templates.
func (w *View) renderData(in map[string]any, data *templateData) (map[string]any, error) {
	out := make(map[string]any, len(in))
	for _, k := range slices.Sorted(maps.Keys(in)) { // sorted: the same failing key every run
		v := in[k]
		switch t := v.(type) {
		case string:
			s, err := w.scripts.render(t, data)
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

// applyTurn records a user turn and the agent's outcome on a conversation:
// the turn with its timestamps and latency, state, metrics, counters, the
// awaited event, and the end or handoff.
func applyTurn(conv *store.Conversation, now time.Time, in turnInput, out Outcome, meta map[string]any) {
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
		addMetric(conv, k, v)
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

// addMetric logs a custom metric: a string, or a list of strings once
// written several times (docs/api.md#conversations-record).
func addMetric(conv *store.Conversation, k, v string) {
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

// emptyDialogue answers with the defaults.
var emptyDialogue = scenario.Dialogue{}
