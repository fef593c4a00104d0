package scenario

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Error is one problem of a scenario document at a position.
type Error struct {
	File   string
	Line   int
	Column int
	Msg    string
}

// Error formats the problem as "file:line:column: message".
func (e Error) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.File, e.Line, e.Column, e.Msg)
}

// Errors is every problem of a document (or of a merge), sorted by position.
type Errors []Error

// Error joins the problems one per line.
func (es Errors) Error() string {
	var b strings.Builder
	for i, e := range es {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(e.Error())
	}
	return b.String()
}

// Parse parses and validates one scenario document; name is used in error
// positions. It returns every problem as Errors, sorted by position.
// Validation fills in defaults (docs/scenarios.md).
func (voc *Vocabulary) Parse(name string, data []byte) (*Scenario, error) {
	s, _, filled, errs := voc.parse(name, data)
	if len(errs) > 0 {
		return nil, errs
	}
	// The node tree is large and not kept: positions asked for later parse
	// the document again.
	remember(s, &lazyLocator{file: name, data: data}, filled)
	return s, nil
}

// Load reads and parses a scenario file.
func (voc *Vocabulary) Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return voc.Parse(path, data)
}

// Merge combines several scenarios (mockd --scenario a --scenario b): lists
// are appended in order, and a later scenario's non-zero settings win. The
// result is validated again, so a slug, id or key defined twice is an
// error at its position. The inputs are not modified (docs/fidelity.md
// section 1.1 for fidelity keys).
func (voc *Vocabulary) Merge(list ...*Scenario) (*Scenario, error) {
	out := &Scenario{}
	ml := &mergeLocator{}
	n := 0
	for _, s := range list {
		if s == nil {
			continue
		}
		n++
		loc := lookupSource(s)
		if loc == nil {
			loc = nullLocator{name: fmt.Sprintf("<scenario %d>", n)}
		}
		ml.parts = append(ml.parts, mergePart{
			loc:         loc,
			accounts:    len(out.Accounts),
			credentials: len(out.Credentials),
			faults:      len(out.Faults),
			timeline:    len(out.Timeline),
		})
		if s.Name != "" {
			out.Name = s.Name
		}
		if s.Seed != 0 {
			out.Seed = s.Seed
		}
		if !s.Clock.Start.IsZero() {
			out.Clock.Start = s.Clock.Start
		}
		for _, a := range s.Accounts {
			out.Accounts = append(out.Accounts, cloneAccount(a))
		}
		out.Credentials = append(out.Credentials, s.Credentials...)
		out.Faults = append(out.Faults, s.Faults...)
		mergeTimeline(out, s)
		mergeLimits(&out.Limits, s.Limits)
		mergeAlerts(out, s)
		mergeMessaging(out, s)
		mergeOutbound(out, s)
		mergeWebhooks(out, s)
		for k, v := range writtenFidelity(s) {
			if out.Fidelity == nil {
				out.Fidelity = make(map[string]string)
			}
			out.Fidelity[k] = v
		}
	}
	v := &validator{voc: voc, loc: ml}
	v.scenario(out)
	if errs := v.result(); len(errs) > 0 {
		return nil, errs
	}
	remember(out, ml, v.filled)
	return out, nil
}

func mergeLimits(dst *Limits, src Limits) {
	if src.AlertRules != 0 {
		dst.AlertRules = src.AlertRules
	}
	if src.WebhookEndpoints != 0 {
		dst.WebhookEndpoints = src.WebhookEndpoints
	}
	if src.MaxBodyBytes != 0 {
		dst.MaxBodyBytes = src.MaxBodyBytes
	}
	if src.JournalSize != 0 {
		dst.JournalSize = src.JournalSize
	}
	if src.JournalBodyBytes != 0 {
		dst.JournalBodyBytes = src.JournalBodyBytes
	}
	if src.SessionIdle != 0 {
		dst.SessionIdle = src.SessionIdle
	}
	if src.ConversationRetention != 0 {
		dst.ConversationRetention = src.ConversationRetention
	}
	if src.WSSendQueueMessages != 0 {
		dst.WSSendQueueMessages = src.WSSendQueueMessages
	}
	if src.WSSendQueueBytes != 0 {
		dst.WSSendQueueBytes = src.WSSendQueueBytes
	}
}

// cloneAccount copies the slices validation writes defaults into.
func cloneAccount(a Account) Account {
	a.Projects = slices.Clone(a.Projects)
	for i := range a.Projects {
		p := &a.Projects[i]
		p.Variants = slices.Clone(p.Variants)
		p.Conversations = slices.Clone(p.Conversations)
		p.HandoffStates = slices.Clone(p.HandoffStates)
	}
	return a
}

// parse decodes and validates data, returning the scenario, its locator,
// the switches its profile filled in and the problems found.
func (voc *Vocabulary) parse(name string, data []byte) (*Scenario, *fileLocator, []string, Errors) {
	if len(data) > MaxScenarioBytes {
		return nil, nil, nil, Errors{{File: name, Line: 1, Column: 1, Msg: fmt.Sprintf(
			"the scenario is %d bytes, more than the %d allowed (generate large data sets with generate:)", len(data), MaxScenarioBytes)}}
	}
	loc := &fileLocator{file: name}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, nil, Errors{{File: name, Line: 1, Column: 1, Msg: "empty scenario"}}
		}
		return nil, nil, nil, Errors{syntaxError(name, err)}
	}
	for {
		var extra yaml.Node
		err := dec.Decode(&extra)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, nil, Errors{syntaxError(name, err)}
		}
		if c := deref(&extra); c.Kind == yaml.ScalarNode && c.ShortTag() == "!!null" {
			continue
		}
		l, c := extra.Line, extra.Column
		if l == 0 {
			l, c = 1, 1
		}
		return nil, nil, nil, Errors{{File: name, Line: l, Column: c, Msg: "more than one document (use one file per scenario)"}}
	}
	top := &doc
	if top.Kind == yaml.DocumentNode && len(top.Content) > 0 {
		top = top.Content[0]
	}
	if top.Kind == 0 || top.Kind == yaml.DocumentNode || (top.Kind == yaml.ScalarNode && top.ShortTag() == "!!null") {
		return nil, nil, nil, Errors{{File: name, Line: 1, Column: 1, Msg: "empty scenario"}}
	}
	loc.root = top

	v := &validator{voc: voc, loc: loc}
	w := &walker{v: v, seen: make(map[walkKey]bool)}
	w.walk(top, reflect.TypeFor[Scenario](), nil)

	s := &Scenario{}
	if err := top.Decode(s); err != nil {
		// The walker should have caught every decoding problem
		// (TestWalkerAgreesWithStrictDecoder); this reports what it missed.
		v.decodeError(err)
	}
	v.scenario(s)
	if errs := v.result(); len(errs) > 0 {
		return nil, nil, nil, errs
	}
	return s, loc, v.filled, nil
}

var lineRE = regexp.MustCompile(`^(?:yaml: )?line (\d+): (.*)$`)

// syntaxError converts a yaml syntax error; the library knows only lines.
func syntaxError(file string, err error) Error {
	e := Error{File: file, Line: 1, Column: 1, Msg: "syntax error: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	if m := lineRE.FindStringSubmatch(err.Error()); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Msg = "syntax error: " + m[2]
	}
	return e
}

// ErrorAt is an Error at the position of element p of a scenario made by
// Parse, Load or Merge (1:1 for one built in Go), for checks made outside
// this package.
func (s *Scenario) ErrorAt(msg string, p ...any) Error {
	l := lookupSource(s)
	if l == nil {
		l = nullLocator{name: "<scenario>"}
	}
	at, local := l.locate(path(p), false)
	if str := local.String(); str != "" {
		msg = str + ": " + msg
	}
	return Error{File: at.file, Line: at.line, Column: at.col, Msg: msg}
}
