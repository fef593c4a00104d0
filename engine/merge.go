package engine

// Three-way merge of a branch into main (docs/api.md#agents-merge): items
// (behavior, and topics, attributes and variants by id) conflict when both
// sides changed them differently since the branch point. Resolutions
// (docs/fidelity.md M12.17) pick ours (main), theirs, base, or a value.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
)

// Resolution is one validated conflict resolution.
type Resolution struct {
	Index    int // in the request, for error fields
	Strategy string
	Value    json.RawMessage // nil when not given
}

// resolvedValue is the item JSON a resolution gives ("" when deleted).
func (r Resolution) resolvedValue(path, base, ours, theirs string) (string, error) {
	if r.Value == nil {
		switch r.Strategy {
		case "ours":
			return ours, nil
		case "theirs":
			return theirs, nil
		}
		return base, nil
	}
	field := fmt.Sprintf("conflictResolutions/%d/value", r.Index)
	bad := func(want string) error {
		return Invalid(CodeValidation, MsgValidationFailed, FieldError{Field: field, Message: "must be " + want})
	}
	if string(bytes.TrimSpace(r.Value)) == "null" {
		if path == "behavior" {
			return jsonOf(""), nil
		}
		return "", nil
	}
	id := path[strings.LastIndexByte(path, '/')+1:]
	switch {
	case path == "behavior":
		var s string
		if json.Unmarshal(r.Value, &s) != nil {
			return "", bad("a string")
		}
		return jsonOf(s), nil
	case strings.HasPrefix(path, "knowledgeBase/topics/"):
		x := TopicRec{ExampleQueries: ExampleQuries{Queries: []string{}}}
		if json.Unmarshal(r.Value, &x) != nil || x.Name == "" {
			return "", bad("a topic object with a name")
		}
		x.ID = id
		return jsonOf(x), nil
	case strings.HasPrefix(path, "attributes/"):
		var x Attribute
		if json.Unmarshal(r.Value, &x) != nil || x.Name == "" {
			return "", bad("an attribute object with a name")
		}
		x.ID = id
		return jsonOf(x), nil
	default: // variants/
		x := Variant{AttributeValues: AttributeValues{Values: map[string]string{}}}
		if json.Unmarshal(r.Value, &x) != nil || x.Name == "" {
			return "", bad("a variant object with a name")
		}
		x.ID = id
		return jsonOf(x), nil
	}
}

// mergeItems maps each item's path to its JSON ("" when absent).
type mergeItems map[string]string

func itemsOf(c BranchContent) (mergeItems, []string) {
	m := mergeItems{"behavior": jsonOf(c.Behavior)}
	order := []string{"behavior"}
	add := func(path string, v any) {
		m[path] = jsonOf(v)
		order = append(order, path)
	}
	for _, t := range c.Topics {
		add("knowledgeBase/topics/"+t.ID, t)
	}
	for _, a := range c.Attributes {
		add("attributes/"+a.ID, a)
	}
	for _, v := range c.Variants {
		add("variants/"+v.ID, v)
	}
	return m, order
}

func jsonOf(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// mergeContent merges theirs (the branch) into ours (main) against base.
// It returns the merged content, or the conflicting paths (sorted).
func mergeContent(base, ours, theirs BranchContent) (BranchContent, []string) {
	out, conflicts, _, _ := mergeResolve(base, ours, theirs, nil)
	return out, conflicts
}

// mergeResolve is mergeContent with resolutions: it also returns the
// resolutions' paths used, and an error for a badly shaped value.
func mergeResolve(base, ours, theirs BranchContent, res map[string]Resolution) (BranchContent, []string, map[string]bool, error) {
	used := map[string]bool{}
	b, _ := itemsOf(base)
	o, oOrder := itemsOf(ours)
	t, tOrder := itemsOf(theirs)
	result := mergeItems{}
	var conflicts []string
	seen := map[string]bool{}
	var order []string
	for _, p := range append(oOrder, tOrder...) {
		if seen[p] {
			continue
		}
		seen[p] = true
		order = append(order, p)
		bv, ov, tv := b[p], o[p], t[p]
		switch {
		case ov == tv:
			result[p] = ov
		case ov == bv:
			result[p] = tv
		case tv == bv:
			result[p] = ov
		default:
			r, ok := res[p]
			if !ok {
				conflicts = append(conflicts, p)
				continue
			}
			v, err := r.resolvedValue(p, bv, ov, tv)
			if err != nil {
				return BranchContent{}, nil, nil, err
			}
			used[p] = true
			result[p] = v
		}
	}
	// Items deleted on both sides stay deleted.
	if len(conflicts) > 0 {
		sort.Strings(conflicts)
		return BranchContent{}, conflicts, used, nil
	}
	out := emptyContent()
	for _, p := range order {
		v := result[p]
		if v == "" {
			continue // deleted
		}
		switch {
		case p == "behavior":
			_ = json.Unmarshal([]byte(v), &out.Behavior)
		case len(p) > 20 && p[:20] == "knowledgeBase/topics":
			var x TopicRec
			_ = json.Unmarshal([]byte(v), &x)
			out.Topics = append(out.Topics, &x)
		case len(p) > 10 && p[:10] == "attributes":
			var x Attribute
			_ = json.Unmarshal([]byte(v), &x)
			out.Attributes = append(out.Attributes, &x)
		case len(p) > 8 && p[:8] == "variants":
			var x Variant
			_ = json.Unmarshal([]byte(v), &x)
			out.Variants = append(out.Variants, &x)
		}
	}
	return out, nil, used, nil
}
