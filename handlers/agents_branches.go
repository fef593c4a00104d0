package handlers

// Branches of an agent and their behavior text; merges are the engine's
// (merge.go).

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"
)

var agentBranchesRoutes = []Route{
	route("GET /v1/agents/:agent/branches", (*API).handleBranchList, opBranchList),
	route("POST /v1/agents/:agent/branches", (*API).handleBranchCreate, opBranchCreate),
	route("DELETE /v1/agents/:agent/branches/:branch", (*API).handleBranchDelete, opBranchDelete),
	route("POST /v1/agents/:agent/branches/:branch/merge", (*API).handleBranchMerge, opBranchMerge),
	route("GET /v1/agents/:agent/branches/:branch/behavior", (*API).handleBehaviorGet, opBehaviorGet),
	route("PATCH /v1/agents/:agent/branches/:branch/behavior", (*API).handleBehaviorUpdate, opBehaviorUpdate),
}

var (
	opBranchList = &Op{ID: "branchList", Summary: "List branches",
		Responses: []Response{ok(200, engine.BranchList{})}, Errors: []int{404}}
	opBranchCreate = &Op{ID: "branchCreate", Summary: "Create a branch",
		Doc:  "A branch off main: a copy of main's content (docs/api.md#agents-branches).",
		Body: branchCreateBody{}, Responses: []Response{ok(201, engine.BranchCreated{})}, Errors: []int{400, 404}}
	opBranchDelete = &Op{ID: "branchDelete", Summary: "Delete a branch",
		Doc: "main cannot be deleted.", Responses: []Response{ok(200, engine.BranchChanged{})}, Errors: []int{400, 404}}
	opBranchMerge = &Op{ID: "branchMerge", Summary: "Merge a branch into main",
		Doc: "A three-way merge into main; conflicts answer 409 with one error per conflicting path, unless " +
			"conflictResolutions settle them (docs/api.md#agents-merge).",
		Body: branchMergeBody{}, BodyOptional: true, Responses: []Response{ok(200, engine.BranchMerged{})},
		Errors: []int{400, 404, 409}}
	opBehaviorGet = &Op{ID: "behaviorGet", Summary: "Read a branch's behavior",
		Responses: []Response{ok(200, behaviorText{})}, Errors: []int{404}}
	opBehaviorUpdate = &Op{ID: "behaviorUpdate", Summary: "Replace a branch's behavior",
		Body: behaviorText{}, Responses: []Response{ok(200, behaviorText{})}, Errors: []int{400, 404, 422}}
)

type (
	behaviorText struct {
		Behavior string `json:"behavior"`
	}
)

// branchCreateBody is the body of a branch create; branchName is name's alias.
type branchCreateBody struct {
	Name       string `json:"name"`
	BranchName string `json:"branchName"`
}

func (branchCreateBody) FieldRules() map[string]engine.FieldRule { return engine.BranchCreateRules }

func (behaviorText) FieldRules() map[string]engine.FieldRule {
	return map[string]engine.FieldRule{"behavior": {Required: true, MinLen: 1, MaxLen: engine.BehaviorMaxLen}}
}

// branchMergeBody is the body of a merge.
type branchMergeBody struct {
	DeploymentMessage   string               `json:"deploymentMessage"`
	ConflictResolutions []conflictResolution `json:"conflictResolutions"`
}

// conflictResolution settles one conflicting path.
type conflictResolution struct {
	Path     []string `json:"path"`
	Strategy string   `json:"strategy"`
	Value    any      `json:"value"`
}

func (branchMergeBody) FieldRules() map[string]engine.FieldRule {
	return map[string]engine.FieldRule{"conflictResolutions": {Nullable: true}}
}

func (conflictResolution) FieldRules() map[string]engine.FieldRule {
	return map[string]engine.FieldRule{
		"path":     {Required: true, MinItems: 1, Doc: "The conflicting path, e.g. [\"knowledgeBase\", \"topics\", \"TOPICS-1\"]."},
		"strategy": {Required: true, Enum: engine.MergeStrategies},
		"value":    {Doc: "An item (or behavior text) that replaces the strategy's choice; null deletes it."},
	}
}

// handleBranchList handles "GET .../branches" → {"branches": [...]}.
func (a *API) handleBranchList(c *gin.Context) error {
	out, err := a.Branches(principal(c), c.Param("agent"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, engine.BranchList{Branches: out})
	return nil
}

// handleBranchCreate handles "POST .../branches" (D3): a copy of main.
func (a *API) handleBranchCreate(c *gin.Context) error {
	f, err := readFields(c, false, engine.BodyFields(branchCreateBody{})...)
	if err != nil {
		return err
	}
	name, ok1 := f.text("name", engine.BranchCreateRules["name"])
	bn, ok2 := f.text("branchName", engine.BranchCreateRules["branchName"])
	switch {
	case !f.has("name") && !f.has("branchName"):
		f.fail("name", "is required")
	case ok1 && ok2 && name != bn:
		f.fail("branchName", "conflicts with name")
	case ok2:
		name = bn
	}
	if err := f.err(); err != nil {
		return err
	}
	out, err := a.CreateBranch(principal(c), c.Param("agent"), name)
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, out)
	return nil
}

// handleBranchDelete handles "DELETE .../branches/{branchId}".
func (a *API) handleBranchDelete(c *gin.Context) error {
	seq, err := a.DeleteBranch(principal(c), c.Param("agent"), c.Param("branch"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, engine.BranchChanged{Sequence: seq, Message: "Branch deleted"})
	return nil
}

// handleBranchMerge handles "POST .../branches/{branchId}/merge": a
// three-way merge into main; a conflict is 409, or 400 by a switch (D5).
func (a *API) handleBranchMerge(c *gin.Context) error {
	f, err := readFields(c, true, engine.BodyFields(branchMergeBody{})...)
	if err != nil {
		return err
	}
	msg, _ := deploymentMessage(f)
	res := readResolutions(f)
	if err := f.err(); err != nil {
		return err
	}
	out, err := a.MergeBranch(principal(c), c.Param("agent"), c.Param("branch"), msg, res)
	var e *engine.Error
	if errors.As(err, &e) && e.Code == engine.CodeMergeConflict && a.View().Fidelity(engine.SwitchMergeConflict) == "400" {
		e.Kind = engine.KindInvalid
	}
	if err != nil {
		return err
	}
	for _, path := range out.Unused {
		addWarning(c, "conflictResolutions: %q is not a conflicting path (ignored)", path)
	}
	message := "Branch merged to main"
	if out.Deployed {
		message = "Branch merged to main and deployed to sandbox"
	}
	c.JSON(http.StatusOK, engine.BranchMerged{Sequence: out.Sequence, Message: message, TestRunIDs: []string{}})
	return nil
}

// readResolutions validates conflictResolutions (docs/fidelity.md
// M12.17), keyed by joined path; a later one of the same path wins.
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

// handleBehaviorGet handles "GET .../branches/{branch}/behavior".
func (a *API) handleBehaviorGet(c *gin.Context) error {
	text, err := a.Behavior(principal(c), c.Param("agent"), c.Param("branch"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, behaviorText{Behavior: text})
	return nil
}

// handleBehaviorUpdate handles "PATCH .../branches/{branch}/behavior".
func (a *API) handleBehaviorUpdate(c *gin.Context) error {
	f, err := readFields(c, false, engine.BodyFields(behaviorText{})...)
	if err != nil {
		return err
	}
	f.requireAll(behaviorText{})
	text, _ := f.text("behavior", behaviorText{}.FieldRules()["behavior"])
	if err := f.err(); err != nil {
		return err
	}
	if err := a.SetBehavior(principal(c), c.Param("agent"), c.Param("branch"), text); err != nil {
		return err
	}
	c.JSON(http.StatusOK, behaviorText{Behavior: text})
	return nil
}
