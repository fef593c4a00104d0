package scenario

import (
	"bytes"
	"encoding"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"weak"

	"gopkg.in/yaml.v3"

	"github.com/agentplatform/mockplatform/clock"
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

// Parse parses and validates one scenario document. name is used in error
// positions (a file path or "<bytes>"). When anything is wrong it returns
// nil and an Errors value holding every problem it found, sorted by
// position. Validation fills in defaults (see docs/scenarios.md).
func Parse(name string, data []byte) (*Scenario, error) {
	s, _, errs := parse(name, data)
	if len(errs) > 0 {
		return nil, errs
	}
	// The node tree (about 40 bytes of memory per byte of YAML) is not
	// kept: positions asked for later (Merge, ErrorAt) parse the document
	// again, which only a problem found after loading needs.
	remember(s, &lazyLocator{file: name, data: data})
	return s, nil
}

// Load reads and parses a scenario file.
func Load(path string) (*Scenario, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("scenario: %w", err)
	}
	return Parse(path, data)
}

// Merge combines several scenarios (for mockd --scenario a.yaml --scenario
// b.yaml): accounts, credentials and faults are appended in order; name,
// seed, clock.start, every non-zero limits field and every fidelity key of a
// later scenario win over an earlier one (zero values do not override). The
// result is validated again, so a slug, id or key defined in two scenarios
// is an error, reported at its position in the file that introduced it
// (file:1:1 for a scenario not made by Parse). The inputs are not modified.
func Merge(list ...*Scenario) (*Scenario, error) {
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
		mergeLimits(&out.Limits, s.Limits)
		mergeAlerts(out, s)
		mergeMessaging(out, s)
		mergeOutbound(out, s)
		mergeWebhooks(out, s)
		for k, v := range s.Fidelity {
			if out.Fidelity == nil {
				out.Fidelity = make(map[string]string)
			}
			out.Fidelity[k] = v
		}
	}
	v := &validator{loc: ml}
	v.scenario(out)
	if errs := v.result(); len(errs) > 0 {
		return nil, errs
	}
	remember(out, ml)
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
}

// cloneAccount copies the slices that validation writes defaults into, so
// that merging never modifies its inputs.
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

// parse decodes and validates data; it returns the scenario, the locator of
// its nodes and the problems found.
func parse(name string, data []byte) (*Scenario, *fileLocator, Errors) {
	if len(data) > MaxScenarioBytes {
		return nil, nil, Errors{{File: name, Line: 1, Column: 1, Msg: fmt.Sprintf(
			"the scenario is %d bytes, more than the %d allowed (generate large data sets with generate:)", len(data), MaxScenarioBytes)}}
	}
	loc := &fileLocator{file: name}
	var doc yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, Errors{{File: name, Line: 1, Column: 1, Msg: "empty scenario"}}
		}
		return nil, nil, Errors{syntaxError(name, err)}
	}
	for {
		// Trailing empty documents ("---" at the end) are harmless.
		var extra yaml.Node
		err := dec.Decode(&extra)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, Errors{syntaxError(name, err)}
		}
		if c := deref(&extra); c.Kind == yaml.ScalarNode && c.ShortTag() == "!!null" {
			continue
		}
		l, c := extra.Line, extra.Column
		if l == 0 {
			l, c = 1, 1
		}
		return nil, nil, Errors{{File: name, Line: l, Column: c, Msg: "more than one document (use one file per scenario)"}}
	}
	top := &doc
	if top.Kind == yaml.DocumentNode && len(top.Content) > 0 {
		top = top.Content[0]
	}
	if top.Kind == 0 || top.Kind == yaml.DocumentNode || (top.Kind == yaml.ScalarNode && top.ShortTag() == "!!null") {
		return nil, nil, Errors{{File: name, Line: 1, Column: 1, Msg: "empty scenario"}}
	}
	loc.root = top

	v := &validator{loc: loc}
	w := &walker{v: v, seen: make(map[walkKey]bool)}
	w.walk(top, reflect.TypeFor[Scenario](), nil)

	s := &Scenario{}
	if err := top.Decode(s); err != nil {
		// The walker should have caught (and patched) every decoding
		// problem, unknown fields included (TestWalkerAgreesWithStrictDecoder
		// checks it against yaml.v3's strict decoder); this reports
		// whatever it missed.
		v.decodeError(err)
	}
	v.scenario(s)
	if errs := v.result(); len(errs) > 0 {
		return nil, nil, errs
	}
	return s, loc, nil
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

// ---- source positions ----

// pos is a position in a file.
type pos struct {
	file      string
	line, col int
}

// path is a path into a scenario: string elements are mapping keys, int
// elements sequence indexes.
type path []any

func (p path) with(elems ...any) path {
	q := make(path, len(p), len(p)+len(elems))
	copy(q, p)
	return append(q, elems...)
}

// plainKey reports whether a key is written bare in a path
// ([A-Za-z0-9_-]+); others are quoted.
func plainKey(k string) bool {
	if k == "" {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// String formats p as accounts[0].projects[1].slug.
func (p path) String() string {
	var b strings.Builder
	p.write(&b, nil)
	return b.String()
}

// prefixes returns the strings of p[:0], p[:1], ..., p (one formatting
// pass).
func (p path) prefixes() []string {
	out := make([]string, 0, len(p)+1)
	var b strings.Builder
	out = append(out, "")
	p.write(&b, func() { out = append(out, b.String()) })
	return out
}

// write formats p into b, calling each (when not nil) after every element.
func (p path) write(b *strings.Builder, each func()) {
	for _, e := range p {
		switch e := e.(type) {
		case int:
			b.WriteByte('[')
			b.WriteString(strconv.Itoa(e))
			b.WriteByte(']')
		case string:
			if !plainKey(e) {
				b.WriteByte('[')
				b.WriteString(strconv.Quote(e))
				b.WriteByte(']')
				break
			}
			if b.Len() > 0 {
				b.WriteByte('.')
			}
			b.WriteString(e)
		}
		if each != nil {
			each()
		}
	}
}

// locator maps paths of a scenario to source positions.
type locator interface {
	// locate returns the position of the node at p (of its mapping key
	// when key is set), or of the nearest existing parent, together with
	// p as written in that file.
	locate(p path, key bool) (pos, path)
	// has reports whether p exists in the source.
	has(p path) bool
	// files lists the files in order.
	files() []string
}

// fileLocator locates paths in one parsed document.
type fileLocator struct {
	file string
	root *yaml.Node
}

func (l *fileLocator) files() []string { return []string{l.file} }

func (l *fileLocator) has(p path) bool {
	_, _, exact := lookup(l.root, p)
	return exact
}

func (l *fileLocator) locate(p path, key bool) (pos, path) {
	val, k, exact := lookup(l.root, p)
	n := val
	if exact && key && k != nil {
		n = k
	}
	if n == nil || n.Line == 0 {
		return pos{l.file, 1, 1}, p
	}
	return pos{l.file, n.Line, n.Column}, p
}

// lookup walks p from n. It returns the node at p and its mapping key node,
// or the deepest existing node and exact false.
func lookup(n *yaml.Node, p path) (val, key *yaml.Node, exact bool) {
	if n == nil {
		return nil, nil, false
	}
	cur := deref(n)
	for _, e := range p {
		next, k := child(cur, e)
		if next == nil {
			return cur, nil, false
		}
		cur, key = deref(next), k
	}
	return cur, key, true
}

func deref(n *yaml.Node) *yaml.Node {
	for i := 0; n != nil && i < 100; i++ {
		switch {
		case n.Kind == yaml.AliasNode && n.Alias != nil:
			n = n.Alias
		case n.Kind == yaml.DocumentNode && len(n.Content) > 0:
			n = n.Content[0]
		default:
			return n
		}
	}
	return n
}

func child(n *yaml.Node, e any) (val, key *yaml.Node) {
	switch e := e.(type) {
	case int:
		if n.Kind == yaml.SequenceNode && e >= 0 && e < len(n.Content) {
			return n.Content[e], nil
		}
	case string:
		if n.Kind != yaml.MappingNode {
			return nil, nil
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if k := n.Content[i]; k.Kind == yaml.ScalarNode && k.Value == e && !isMergeKey(k) {
				return n.Content[i+1], k
			}
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if isMergeKey(n.Content[i]) {
				for _, m := range mergeSources(n.Content[i+1]) {
					if v, k := child(m, e); v != nil {
						return v, k
					}
				}
			}
		}
	}
	return nil, nil
}

func isMergeKey(k *yaml.Node) bool {
	return k.Kind == yaml.ScalarNode && k.Value == "<<" && (k.Tag == "" || k.Tag == "!" || k.ShortTag() == "!!merge")
}

// mergeSources returns the mappings a merge key's value names, or nil when
// it names anything else.
func mergeSources(v *yaml.Node) []*yaml.Node {
	v = deref(v)
	switch v.Kind {
	case yaml.MappingNode:
		return []*yaml.Node{v}
	case yaml.SequenceNode:
		var out []*yaml.Node
		for _, c := range v.Content {
			c = deref(c)
			if c.Kind != yaml.MappingNode {
				return nil
			}
			out = append(out, c)
		}
		return out
	}
	return nil
}

// lazyLocator locates paths of a document parsed earlier: it parses the
// document again on first use (a scenario made by Parse keeps its bytes,
// not its node tree). A document Parse accepted parses again the same.
type lazyLocator struct {
	file string
	data []byte
	once sync.Once
	fl   *fileLocator
}

func (l *lazyLocator) get() *fileLocator {
	l.once.Do(func() {
		l.fl = &fileLocator{file: l.file}
		var doc yaml.Node
		if yaml.Unmarshal(l.data, &doc) == nil {
			l.fl.root = &doc
			if doc.Kind == yaml.DocumentNode && len(doc.Content) > 0 {
				l.fl.root = doc.Content[0]
			}
		}
		l.data = nil
	})
	return l.fl
}

func (l *lazyLocator) files() []string                     { return []string{l.file} }
func (l *lazyLocator) has(p path) bool                     { return l.get().has(p) }
func (l *lazyLocator) locate(p path, key bool) (pos, path) { return l.get().locate(p, key) }

// nullLocator stands for a scenario that was not made by Parse.
type nullLocator struct{ name string }

func (l nullLocator) locate(p path, _ bool) (pos, path) { return pos{l.name, 1, 1}, p }
func (l nullLocator) has(path) bool                     { return false }
func (l nullLocator) files() []string                   { return []string{l.name} }

// mergeLocator locates paths of a merged scenario in its parts.
type mergeLocator struct{ parts []mergePart }

type mergePart struct {
	loc locator
	// offsets of the part's first account, credential and fault
	accounts, credentials, faults int
}

func (m *mergeLocator) files() []string {
	var out []string
	for _, p := range m.parts {
		for _, f := range p.loc.files() {
			if !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// route finds the part that introduced an account, credential or fault.
func (m *mergeLocator) route(p path) (locator, path, bool) {
	if len(p) < 2 {
		return nil, nil, false
	}
	idx, ok := p[1].(int)
	if !ok {
		return nil, nil, false
	}
	offset := func(mp mergePart) int {
		switch p[0] {
		case "accounts":
			return mp.accounts
		case "credentials":
			return mp.credentials
		case "faults":
			return mp.faults
		}
		return -1
	}
	for i := len(m.parts) - 1; i >= 0; i-- {
		if o := offset(m.parts[i]); o >= 0 && idx >= o {
			local := p.with()
			local[1] = idx - o
			return m.parts[i].loc, local, true
		}
	}
	return nil, nil, false
}

func (m *mergeLocator) has(p path) bool {
	if l, local, ok := m.route(p); ok {
		return l.has(local)
	}
	for _, part := range m.parts {
		if part.loc.has(p) {
			return true
		}
	}
	return false
}

func (m *mergeLocator) locate(p path, key bool) (pos, path) {
	if l, local, ok := m.route(p); ok {
		return l.locate(local, key)
	}
	for i := len(m.parts) - 1; i >= 0; i-- {
		if m.parts[i].loc.has(p) {
			return m.parts[i].loc.locate(p, key)
		}
	}
	if len(m.parts) == 0 {
		return pos{"<merged>", 1, 1}, p
	}
	return m.parts[len(m.parts)-1].loc.locate(p, key)
}

// sources remembers the locator of every scenario made by Parse or Merge,
// keyed weakly so that it never keeps a scenario alive. Scenario values
// themselves carry no source data, so that tests can compare them.
var sources sync.Map // weak.Pointer[Scenario] -> locator

func remember(s *Scenario, l locator) {
	wp := weak.Make(s)
	sources.Store(wp, l)
	runtime.AddCleanup(s, func(wp weak.Pointer[Scenario]) { sources.Delete(wp) }, wp)
}

func lookupSource(s *Scenario) locator {
	if l, ok := sources.Load(weak.Make(s)); ok {
		return l.(locator)
	}
	return nil
}

// ---- decoding with positions ----

// walker checks a document against the Go types before it is decoded, so
// that every unknown key, duplicate key and unreadable value is reported at
// its own line and column (yaml.v3 gives only lines, and stops at the first
// value a TextUnmarshaler refuses). It patches the tree so that the decode
// that follows succeeds: bad values become null, duplicate keys are dropped.
type walker struct {
	v    *validator
	seen map[walkKey]bool
}

type walkKey struct {
	n *yaml.Node
	t reflect.Type
}

var (
	textUnmarshalerType = reflect.TypeFor[encoding.TextUnmarshaler]()
	timeType            = reflect.TypeFor[time.Time]()
	durationType        = reflect.TypeFor[clock.Duration]()
)

func (w *walker) walk(n *yaml.Node, t reflect.Type, p path) {
	n = deref(n)
	if n.Kind == yaml.MappingNode || n.Kind == yaml.SequenceNode {
		// A node reached again through an alias or a merge key has been
		// checked (and its problems reported) already.
		k := walkKey{n, t}
		if w.seen[k] {
			return
		}
		w.seen[k] = true
	}
	if n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" {
		return
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if reflect.PointerTo(t).Implements(textUnmarshalerType) {
		w.leaf(n, t, p)
		return
	}
	switch t.Kind() {
	case reflect.Struct:
		if !w.want(n, yaml.MappingNode, t, p) {
			return
		}
		fields := structFields(t)
		w.mapping(n, p, func(k *yaml.Node, val *yaml.Node) {
			ft, ok := fields.types[k.Value]
			if !ok {
				w.v.report(p.with(k.Value), true, unknownField(k.Value, fields.names))
				return
			}
			w.walk(val, ft, p.with(k.Value))
		}, func(m *yaml.Node) { w.walk(m, t, p) })
	case reflect.Map:
		if !w.want(n, yaml.MappingNode, t, p) {
			return
		}
		et := t.Elem()
		w.mapping(n, p, func(k *yaml.Node, val *yaml.Node) {
			w.walk(val, et, p.with(k.Value))
		}, func(m *yaml.Node) { w.walk(m, t, p) })
	case reflect.Slice:
		if !w.want(n, yaml.SequenceNode, t, p) {
			return
		}
		for i, c := range n.Content {
			w.walk(c, t.Elem(), p.with(i))
		}
	case reflect.Interface:
		// Anything goes, but mappings must not repeat keys.
		switch n.Kind {
		case yaml.MappingNode:
			w.mapping(n, p, func(k *yaml.Node, val *yaml.Node) {
				w.walk(val, t, p.with(k.Value))
			}, func(m *yaml.Node) { w.walk(m, t, p) })
		case yaml.SequenceNode:
			for i, c := range n.Content {
				w.walk(c, t, p.with(i))
			}
		}
	default:
		w.leaf(n, t, p)
	}
}

// want checks that n is of kind k, else reports and patches it.
func (w *walker) want(n *yaml.Node, k yaml.Kind, t reflect.Type, p path) bool {
	if n.Kind == k {
		return true
	}
	w.v.report(p, false, fmt.Sprintf("want %s, got %s", describeType(t), describeNode(n)))
	w.patch(n, p)
	return false
}

// mapping walks the pairs of a mapping node: it reports duplicate and
// non-scalar keys, expands merge keys (<<) through merged, and calls pair
// for every other pair.
func (w *walker) mapping(n *yaml.Node, p path, pair func(k, v *yaml.Node), merged func(m *yaml.Node)) {
	first := make(map[string]*yaml.Node)
	var drop []int
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, val := n.Content[i], n.Content[i+1]
		if k.Kind != yaml.ScalarNode {
			w.v.reportAt(k, p, "mapping keys must be plain values")
			drop = append(drop, i)
			continue
		}
		if f, ok := first[k.Value]; ok {
			w.v.reportAt(k, p.with(k.Value), fmt.Sprintf("duplicate key (first at line %d)", f.Line))
			drop = append(drop, i)
			continue
		}
		first[k.Value] = k
		if isMergeKey(k) {
			ms := mergeSources(val)
			if ms == nil {
				w.v.reportAt(k, p, "merge key << wants a mapping or a list of mappings")
				drop = append(drop, i)
				continue
			}
			for _, m := range ms {
				merged(m)
			}
			continue
		}
		pair(k, val)
	}
	if len(drop) > 0 { // one pass: deleting pair by pair is quadratic in a mapping of many duplicates
		kept := n.Content[:0]
		for i := 0; i+1 < len(n.Content); i += 2 {
			if len(drop) > 0 && drop[0] == i {
				drop = drop[1:]
				continue
			}
			kept = append(kept, n.Content[i], n.Content[i+1])
		}
		n.Content = kept
	}
}

// leaf decodes a scalar on its own to find out whether t accepts it.
func (w *walker) leaf(n *yaml.Node, t reflect.Type, p path) {
	// yaml.v3 decodes a float into an integer by truncating it (1.5 is 1):
	// an integer field takes a float only when it is a whole number (2.0,
	// 2e9), as JSON Schema's integer does.
	if n.Kind != yaml.ScalarNode || isInteger(t) && !wholeNumber(n, t) {
		w.v.report(p, false, fmt.Sprintf("want %s, got %s", describeType(t), describeNode(n)))
		w.patch(n, p)
		return
	}
	err := n.Decode(reflect.New(t).Interface())
	if err == nil {
		return
	}
	var msg string
	var te *yaml.TypeError
	switch {
	case errors.As(err, &te):
		msg = fmt.Sprintf("want %s, got %s", describeType(t), describeNode(n))
	case t == timeType:
		msg = fmt.Sprintf("want a timestamp (RFC 3339, e.g. 2026-01-01T00:00:00Z), got %s", describeNode(n))
	default:
		msg = strings.TrimPrefix(err.Error(), "yaml: ")
	}
	w.v.report(p, false, msg)
	w.patch(n, p)
}

// patch turns a bad node into null so that decoding passes it, and keeps
// semantic checks quiet about the path (its problem is already reported).
func (w *walker) patch(n *yaml.Node, p path) {
	*n = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: n.Line, Column: n.Column}
	w.v.skipPath(p)
}

// wholeNumber reports whether a scalar that yaml.v3 reads as a float
// (1.5, 2.0, 1e3, .inf) is a whole number within 64 bits, signed or
// unsigned as t is: yaml.v3 converts such a float exactly and reports one
// too large for a narrower t. A scalar that is not a float is left to the
// decoder.
func wholeNumber(n *yaml.Node, t reflect.Type) bool {
	if n.ShortTag() != "!!float" {
		return true
	}
	var f float64
	if n.Decode(&f) != nil || math.IsInf(f, 0) || math.IsNaN(f) || math.Trunc(f) != f {
		return false
	}
	switch t.Kind() {
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return f >= 0 && f < 1<<64
	}
	return f >= -(1<<63) && f < 1<<63
}

// isInteger reports whether yaml.v3 decodes t as an integer (a type that
// reads its own text, such as clock.Duration, does not count).
func isInteger(t reflect.Type) bool {
	if reflect.PointerTo(t).Implements(textUnmarshalerType) {
		return false
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return true
	}
	return false
}

func describeType(t reflect.Type) string {
	switch t {
	case timeType:
		return "a timestamp"
	case durationType:
		return "a duration"
	}
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Struct, reflect.Map:
		return "a mapping"
	case reflect.Slice, reflect.Array:
		return "a list"
	}
	return "a value"
}

func describeNode(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		v := n.Value
		if r := []rune(v); len(r) > 40 {
			v = string(r[:37]) + "..."
		}
		return strconv.Quote(v)
	}
	return "a value"
}

type fieldSet struct {
	types map[string]reflect.Type
	names []string // in declaration order
}

var fieldCache sync.Map // reflect.Type -> *fieldSet

// structFields lists the yaml keys of a struct type as yaml.v3 sees them.
func structFields(t reflect.Type) *fieldSet {
	if fs, ok := fieldCache.Load(t); ok {
		return fs.(*fieldSet)
	}
	fs := &fieldSet{types: make(map[string]reflect.Type)}
	var add func(t reflect.Type)
	add = func(t reflect.Type) {
		for f := range t.Fields() {
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("yaml")
			if tag == "-" {
				continue
			}
			name, opts, _ := strings.Cut(tag, ",")
			if slices.Contains(strings.Split(opts, ","), "inline") && f.Type.Kind() == reflect.Struct {
				add(f.Type)
				continue
			}
			if name == "" {
				name = strings.ToLower(f.Name)
			}
			fs.types[name] = f.Type
			fs.names = append(fs.names, name)
		}
	}
	add(t)
	fieldCache.Store(t, fs)
	return fs
}

func unknownField(name string, known []string) string {
	best, bestD := "", 3
	for _, k := range known {
		if strings.EqualFold(k, name) {
			best, bestD = k, 0
			break
		}
		if d := editDistance(name, k); d < bestD {
			best, bestD = k, d
		}
	}
	if best != "" {
		return fmt.Sprintf("unknown field (did you mean %s?)", best)
	}
	return "unknown field (want " + oneOf(known) + ")"
}

func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// oneOf formats a list as "a, b or c".
func oneOf(list []string) string {
	switch len(list) {
	case 0:
		return ""
	case 1:
		return list[0]
	}
	return strings.Join(list[:len(list)-1], ", ") + " or " + list[len(list)-1]
}

var (
	notFoundRE = regexp.MustCompile("^line (\\d+): field (.+) not found in type \\S+$")
	cannotRE   = regexp.MustCompile("^line (\\d+): cannot unmarshal (\\S+)(?: `(.*)`)? into (\\S+)$")
)

// decodeError reports an error of yaml.v3's decoder, which knows lines
// only; the column is that of the matching node on the line.
func (v *validator) decodeError(err error) {
	fl, _ := v.loc.(*fileLocator)
	var te *yaml.TypeError
	if !errors.As(err, &te) || fl == nil {
		v.errs = append(v.errs, Error{File: v.loc.files()[0], Line: 1, Column: 1, Msg: strings.TrimPrefix(err.Error(), "yaml: ")})
		return
	}
	for _, msg := range te.Errors {
		e := Error{File: fl.file, Line: 1, Column: 1, Msg: msg}
		m := lineRE.FindStringSubmatch(msg)
		if m == nil {
			v.errs = append(v.errs, e)
			continue
		}
		e.Line, _ = strconv.Atoi(m[1])
		e.Msg = m[2]
		var hit *nodeAt
		nodes := nodesOnLine(fl.root, e.Line)
		if nf := notFoundRE.FindStringSubmatch(msg); nf != nil {
			for i := range nodes {
				if nodes[i].key && nodes[i].n.Value == nf[2] {
					hit = &nodes[i]
					e.Msg = "unknown field"
					break
				}
			}
		} else if cu := cannotRE.FindStringSubmatch(msg); cu != nil {
			prefix := strings.TrimSuffix(cu[3], "...")
			for i := range nodes {
				if !nodes[i].key && strings.HasPrefix(nodes[i].n.Value, prefix) {
					hit = &nodes[i]
					break
				}
			}
		}
		if hit == nil && len(nodes) > 0 {
			hit = &nodes[0]
		}
		if hit != nil {
			e.Column = hit.n.Column
			if s := hit.p.String(); s != "" {
				e.Msg = s + ": " + e.Msg
			}
		}
		v.errs = append(v.errs, e)
	}
}

type nodeAt struct {
	n   *yaml.Node
	p   path
	key bool
}

// nodesOnLine lists the nodes that start on a line, in document order.
func nodesOnLine(root *yaml.Node, line int) []nodeAt {
	var out []nodeAt
	var visit func(n *yaml.Node, p path)
	visit = func(n *yaml.Node, p path) {
		if n == nil {
			return
		}
		if n.Line == line {
			out = append(out, nodeAt{n: n, p: p})
		}
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				k := n.Content[i]
				if k.Line == line {
					out = append(out, nodeAt{n: k, p: p.with(k.Value), key: true})
				}
				visit(n.Content[i+1], p.with(k.Value))
			}
		case yaml.SequenceNode:
			for i, c := range n.Content {
				visit(c, p.with(i))
			}
		}
	}
	visit(root, nil)
	slices.SortStableFunc(out, func(a, b nodeAt) int { return a.n.Column - b.n.Column })
	return out
}

// ErrorAt is an Error at the position of the element p of a scenario made by
// Parse, Load or Merge (e.g. "faults", 2, "action", "preset"), for checks
// made outside this package; its message is prefixed with the path, as
// validation messages are. Positions are unknown (1:1) for scenarios built
// in Go.
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
