package handlers

// Three-way merge of a branch into main (spec 4.3: "409 when state has
// diverged"). Items are the behavior and each topic, attribute and variant
// by id; an item merges cleanly when only one side changed it since the
// branch point, and conflicts when both changed it differently.

import (
	"encoding/json"
	"sort"
)

// mergeItem is one mergeable item: its path and its JSON value ("" when
// absent).
type mergeItems map[string]string

func itemsOf(c branchContent) (mergeItems, []string) {
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
func mergeContent(base, ours, theirs branchContent) (branchContent, []string) {
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
			conflicts = append(conflicts, p)
		}
	}
	// Items deleted on one side and unchanged on the other are absent from
	// both orders only when both deleted them; those stay deleted.
	if len(conflicts) > 0 {
		sort.Strings(conflicts)
		return branchContent{}, conflicts
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
			var x topicRec
			_ = json.Unmarshal([]byte(v), &x)
			out.Topics = append(out.Topics, &x)
		case len(p) > 10 && p[:10] == "attributes":
			var x attribute
			_ = json.Unmarshal([]byte(v), &x)
			out.Attributes = append(out.Attributes, &x)
		case len(p) > 8 && p[:8] == "variants":
			var x variant
			_ = json.Unmarshal([]byte(v), &x)
			out.Variants = append(out.Variants, &x)
		}
	}
	return out, nil
}
