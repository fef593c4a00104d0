package scenario

// Source positions: where an element of a scenario was written.

import (
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"weak"

	"gopkg.in/yaml.v3"
)

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

// plainKey reports whether a key is written bare in a path.
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

// prefixes returns the strings of every prefix of p.
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
	// locate returns the position of the node at p (of its key when key
	// is set), or of its nearest parent, with p as written in that file.
	locate(p path, key bool) (pos, path)
	has(p path) bool
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

// lookup walks p from n; exact is false when it stopped short.
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

// mergeSources returns the mappings a merge key's value names, or nil.
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
	// offsets of the part's first account, credential, fault and
	// timeline entry
	accounts, credentials, faults, timeline int
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

// route finds the part that introduced an element.
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
		case "timeline":
			return mp.timeline
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

// sources remembers the source of every scenario made by Parse or Merge,
// keyed weakly; Scenario values carry none so tests can compare them.
var sources sync.Map // weak.Pointer[Scenario] -> source

// source is what a scenario was made from: where its elements were
// written, and the fidelity switches that its profile filled in
// (fidelity.go).
type source struct {
	loc    locator
	filled []string
}

func remember(s *Scenario, l locator, filled []string) {
	wp := weak.Make(s)
	sources.Store(wp, source{loc: l, filled: filled})
	runtime.AddCleanup(s, func(wp weak.Pointer[Scenario]) { sources.Delete(wp) }, wp)
}

func lookupSource(s *Scenario) locator {
	if src, ok := sources.Load(weak.Make(s)); ok {
		return src.(source).loc
	}
	return nil
}

// writtenFidelity is the fidelity map of s without the switches its
// profile filled in: the keys the scenario set itself, which Merge combines.
func writtenFidelity(s *Scenario) map[string]string {
	src, ok := sources.Load(weak.Make(s))
	if !ok || len(src.(source).filled) == 0 || s.Profile() != ProfileReal {
		return s.Fidelity
	}
	filled := src.(source).filled
	out := make(map[string]string, len(s.Fidelity))
	for k, v := range s.Fidelity {
		if slices.Contains(filled, k) && v == RealValues[k] {
			continue
		}
		out[k] = v
	}
	return out
}
