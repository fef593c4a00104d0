package handlers

// Three-way merge of a branch into main (docs/api.md#agents-merge: 409 when
// main and the branch have both changed an item). Items are the behavior and
// each topic, attribute and variant by id; an item merges cleanly when only
// one side changed it since the branch point, and conflicts when both changed
// it differently.
//
// conflictResolutions (docs/fidelity.md M12.17, OAS MergeBranchBody) resolve
// conflicts item by item: path is the item's path split at "/" (or the
// whole path as one element), strategy "ours" keeps main's value (the
// target, as in git on main), "theirs" the branch's, "base" the value at
// the branch point; a given value replaces the item (null deletes it).

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/agentplatform/mockplatform/engine"
)

// readResolutions validates conflictResolutions: path (array of strings,
// at least one) and strategy (ours, theirs, base) are required. Keys are
// the joined paths; a later resolution of the same path wins.
func readResolutions(f *fieldBody) map[string]engine.Resolution {
	if !f.has("conflictResolutions") || f.isNull("conflictResolutions") {
		return nil
	}
	var items []map[string]json.RawMessage
	if err := json.Unmarshal(f.raw["conflictResolutions"], &items); err != nil || items == nil {
		f.fail("conflictResolutions", "must be an array of objects")
		return nil
	}
	out := map[string]engine.Resolution{}
	for i, item := range items {
		at := fmt.Sprintf("conflictResolutions/%d", i)
		if item == nil {
			f.fail(at, "must be an object")
			continue
		}
		var path []string
		if err := json.Unmarshal(item["path"], &path); err != nil || len(path) == 0 {
			f.fail(at+"/path", "must be a non-empty array of strings")
		}
		sub := &fieldBody{raw: item}
		strategy, ok := sub.enum("strategy", engine.MergeStrategies)
		if !sub.has("strategy") {
			f.fail(at+"/strategy", "is required")
		} else if !ok {
			f.fail(at+"/strategy", "must be one of: %s", strings.Join(engine.MergeStrategies, ", "))
		}
		for k := range item {
			if k != "path" && k != "strategy" && k != "value" {
				f.fail(at+"/"+k, "is not allowed")
			}
		}
		r := engine.Resolution{Index: i, Strategy: strategy}
		if v, ok := item["value"]; ok {
			r.Value = v
		}
		out[strings.Join(path, "/")] = r
	}
	return out
}
