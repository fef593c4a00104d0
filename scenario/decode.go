package scenario

// Decoding with positions: each problem at its own line and column.

import (
	"encoding"
	"errors"
	"fmt"
	"math"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/agentplatform/mockplatform/clock"
)

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
		// A node reached again through an alias or merge key is checked.
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

// mapping walks a mapping's pairs: it reports duplicate and non-scalar
// keys, expands merge keys through merged, and calls pair for the rest.
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
	// yaml.v3 truncates a float into an integer: take only whole numbers,
	// as JSON Schema's integer does.
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

// patch turns a bad node into null so decoding passes it, and keeps
// semantic checks quiet about its path.
func (w *walker) patch(n *yaml.Node, p path) {
	*n = yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Line: n.Line, Column: n.Column}
	w.v.skipPath(p)
}

// wholeNumber reports whether a scalar yaml.v3 reads as a float is a whole
// number within 64 bits, signed or unsigned as t is.
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

// isInteger reports whether yaml.v3 decodes t as an integer.
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

// decodeError reports a yaml.v3 decode error, which knows lines only, at
// the column of the matching node.
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
