package handlers

// Branches of an agent: list, create, delete, merge into main
// (engine_merge.go), and a branch's behavior text. Every sub-resource edit
// of a branch (behavior, topics, attributes, variants) goes through
// editBranch; main is written directly unless the main_branch switch says
// read_only.

import (
	"maps"
	"net/http"
	"slices"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"
)

// agentBranchesRoutes are the routes of AgentBranches.
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

// branchCreateBody is the body of a branch create: name, or its alias
// branchName (the same value if both).
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
	d, err := a.loadAgent(c)
	if err != nil {
		return err
	}
	out := []engine.BranchView{}
	for _, b := range d.Branches {
		out = append(out, b.View())
	}
	c.JSON(http.StatusOK, engine.BranchList{Branches: out})
	return nil
}

// handleBranchCreate handles "POST .../branches" with name (spec) or
// branchName (OAS), D3: a copy of main; 201 {branchId, sequenceId}.
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
	now := a.Clock().Now()
	id := a.NewID("BRANCH-", engine.UpperAlnum, 8)
	var seq string
	if _, err := a.updateAgent(c, func(d *engine.AgentDoc) error {
		main := d.Branch(engine.MainBranch)
		d.Branches = append(d.Branches, &engine.BranchDoc{ID: id, Name: name, CreatedAt: now, Content: main.Content.Clone(), Base: main.Content.Clone()})
		seq = d.NextSeq()
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusCreated, engine.BranchCreated{BranchID: id, SequenceID: seq})
	return nil
}

// handleBranchDelete handles "DELETE .../branches/{branchId}".
func (a *API) handleBranchDelete(c *gin.Context) error {
	ref := c.Param("branch")
	if ref == engine.MainBranch {
		return engine.Invalid(engine.CodeValidation, "The main branch cannot be deleted.")
	}
	var seq string
	if _, err := a.updateAgent(c, func(d *engine.AgentDoc) error {
		i := slices.IndexFunc(d.Branches, func(b *engine.BranchDoc) bool { return b.ID == ref })
		if i < 0 {
			return engine.Errf(engine.KindNotFound, engine.CodeBranchNotFound, engine.MsgBranchNotFound)
		}
		d.Branches = slices.Delete(d.Branches, i, i+1)
		seq = d.NextSeq()
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, engine.BranchChanged{Sequence: seq, Message: "Branch deleted"})
	return nil
}

// handleBranchMerge handles "POST .../branches/{branchId}/merge": a
// three-way merge of the branch into main against the branch point
// (engine_merge.go); 409 with the conflicting paths when both changed an item
// and no conflictResolutions entry settles it. Under merge_deploy:
// sandbox (D22) a successful merge also publishes main to sandbox.
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
	ref := c.Param("branch")
	if ref == engine.MainBranch {
		return engine.Invalid(engine.CodeValidation, engine.MsgMergeMain)
	}
	deploy := a.World().Fidelity(engine.SwitchMergeDeploy) == "sandbox"
	p := principal(c)
	a.Agents.Mu.Lock()
	defer a.Agents.Mu.Unlock()
	now := a.Clock().Now()
	var dep *engine.Deployment
	var seq string
	var merged engine.BranchContent
	var used map[string]bool
	d, err := a.updateAgent(c, func(d *engine.AgentDoc) error {
		b := d.Branch(ref)
		if b == nil {
			return engine.Errf(engine.KindNotFound, engine.CodeBranchNotFound, engine.MsgBranchNotFound)
		}
		main := d.Branch(engine.MainBranch)
		var conflicts []string
		var err error
		merged, conflicts, used, err = engine.MergeResolve(b.Base, main.Content, b.Content, res)
		if err != nil {
			return err
		}
		if len(conflicts) > 0 {
			e := &engine.Error{Kind: engine.KindConflict, Code: engine.CodeMergeConflict, Message: engine.MsgMergeConflict}
			if a.World().Fidelity(engine.SwitchMergeConflict) == "400" {
				e.Kind = engine.KindInvalid
			}
			for _, p := range conflicts {
				e.Fields = append(e.Fields, engine.FieldError{Field: p, Message: "changed on both main and the branch"})
			}
			return e
		}
		main.Content = merged
		b.Content, b.Base = merged.Clone(), merged.Clone()
		seq = d.NextSeq()
		if deploy {
			dep = &engine.Deployment{ID: a.NewUUIDv7(now), AccountID: d.AccountID, AgentID: d.AgentID, Environment: "sandbox",
				ArtifactVersion: engine.FmtAgentTime(now), Version: a.NewID("", engine.HexDigits, 32), CreatedBy: "api", CreatedAt: engine.FmtAgentTime(now),
				Metadata: map[string]any{"deployment_message": msg, "deployment_type": "merge"}}
			d.Deployments = append(d.Deployments, dep)
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, path := range slices.Sorted(maps.Keys(res)) {
		if !used[path] {
			addWarning(c, "conflictResolutions: %q is not a conflicting path (ignored)", path)
		}
	}
	message := "Branch merged to main"
	if dep != nil {
		// The deployment is recorded; its snapshot follows (agents.mu is
		// held, so nothing reads it in between).
		if err := a.Store().PutDoc(engine.DocSnapshot, p.Region, dep.Version, &merged); err != nil {
			return err
		}
		a.SetRuntimeDeploymentLocked(p.Region, d.AgentID, "sandbox", merged.Topics)
		message = "Branch merged to main and deployed to sandbox"
	}
	c.JSON(http.StatusOK, engine.BranchMerged{Sequence: seq, Message: message, TestRunIDs: []string{}})
	return nil
}

// editBranch applies fn to the content of the path's branch. Writes to
// main give 422 under main_branch: read_only (D4).
func (a *API) editBranch(c *gin.Context, fn func(cont *engine.BranchContent) error) (*engine.AgentDoc, error) {
	ref := c.Param("branch")
	if ref == engine.MainBranch && a.World().Fidelity(engine.SwitchMainBranch) == "read_only" {
		return nil, engine.Errf(engine.KindUnprocessable, engine.CodeMainReadOnly, engine.MsgMainReadOnly)
	}
	return a.updateAgent(c, func(d *engine.AgentDoc) error {
		b := d.Branch(ref)
		if b == nil {
			return engine.Errf(engine.KindNotFound, engine.CodeBranchNotFound, engine.MsgBranchNotFound)
		}
		return fn(&b.Content)
	})
}

// readBranch returns the content of the path's branch.
func (a *API) readBranch(c *gin.Context) (*engine.BranchContent, error) {
	d, err := a.loadAgent(c)
	if err != nil {
		return nil, err
	}
	b := d.Branch(c.Param("branch"))
	if b == nil {
		return nil, engine.Errf(engine.KindNotFound, engine.CodeBranchNotFound, engine.MsgBranchNotFound)
	}
	return &b.Content, nil
}

// handleBehaviorGet handles "GET .../branches/{branch}/behavior".
func (a *API) handleBehaviorGet(c *gin.Context) error {
	cont, err := a.readBranch(c)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, behaviorText{Behavior: cont.Behavior})
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
	if _, err := a.editBranch(c, func(cont *engine.BranchContent) error { cont.Behavior = text; return nil }); err != nil {
		return err
	}
	c.JSON(http.StatusOK, behaviorText{Behavior: text})
	return nil
}
