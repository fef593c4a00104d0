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
		Responses: []Response{ok(200, branchList{})}, Errors: []int{404}}
	opBranchCreate = &Op{ID: "branchCreate", Summary: "Create a branch",
		Doc:  "A branch off main: a copy of main's content (docs/api.md#agents-branches).",
		Body: branchCreateBody{}, Responses: []Response{ok(201, branchCreated{})}, Errors: []int{400, 404}}
	opBranchDelete = &Op{ID: "branchDelete", Summary: "Delete a branch",
		Doc: "main cannot be deleted.", Responses: []Response{ok(200, branchChanged{})}, Errors: []int{400, 404}}
	opBranchMerge = &Op{ID: "branchMerge", Summary: "Merge a branch into main",
		Doc: "A three-way merge into main; conflicts answer 409 with one error per conflicting path, unless " +
			"conflictResolutions settle them (docs/api.md#agents-merge).",
		Body: branchMergeBody{}, BodyOptional: true, Responses: []Response{ok(200, branchMerged{})},
		Errors: []int{400, 404, 409}}
	opBehaviorGet = &Op{ID: "behaviorGet", Summary: "Read a branch's behavior",
		Responses: []Response{ok(200, behaviorText{})}, Errors: []int{404}}
	opBehaviorUpdate = &Op{ID: "behaviorUpdate", Summary: "Replace a branch's behavior",
		Body: behaviorText{}, Responses: []Response{ok(200, behaviorText{})}, Errors: []int{400, 404, 422}}
)

// --- branches ---

// branchView is a branch as the API shows it.
type branchView struct {
	BranchID  string `json:"branchId"`
	Name      string `json:"name"`
	CreatedAt string `json:"createdAt"`
}

func (b *branchDoc) view() branchView {
	return branchView{BranchID: b.ID, Name: b.Name, CreatedAt: fmtAgentTime(b.CreatedAt)}
}

type (
	branchList struct {
		Branches []branchView `json:"branches"`
	}
	branchCreated struct {
		BranchID   string `json:"branchId"`
		SequenceID string `json:"sequenceId"`
	}
	branchChanged struct {
		Sequence string `json:"sequence"`
		Message  string `json:"message"`
	}
	branchMerged struct {
		Sequence   string   `json:"sequence"`
		Message    string   `json:"message"`
		TestRunIDs []string `json:"testRunIds"`
	}
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

func (branchCreateBody) FieldRules() map[string]FieldRule { return branchCreateRules }

var branchCreateRules = map[string]FieldRule{
	"name":       {MinLen: 1, MaxLen: 100, Doc: "Required unless branchName is given."},
	"branchName": {MinLen: 1, MaxLen: 100, Doc: "The real service's name of the field.", Fidelity: &Fidelity{ID: "D3", Note: "accepted side by side with name"}},
}

func (behaviorText) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"behavior": {Required: true, MinLen: 1, MaxLen: behaviorMaxLen}}
}

// behaviorMaxLen bounds a behavior text.
const behaviorMaxLen = 1 << 20

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

func (branchMergeBody) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"conflictResolutions": {Nullable: true}}
}

func (conflictResolution) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{
		"path":     {Required: true, MinItems: 1, Doc: "The conflicting path, e.g. [\"knowledgeBase\", \"topics\", \"TOPICS-1\"]."},
		"strategy": {Required: true, Enum: mergeStrategies},
		"value":    {Doc: "An item (or behavior text) that replaces the strategy's choice; null deletes it."},
	}
}

// mergeStrategies are the strategies of a conflict resolution.
var mergeStrategies = []string{"ours", "theirs", "base"}

// handleBranchList handles "GET .../branches" → {"branches": [...]}.
func (a *API) handleBranchList(c *gin.Context) error {
	d, err := a.loadAgent(c)
	if err != nil {
		return err
	}
	out := []branchView{}
	for _, b := range d.Branches {
		out = append(out, b.view())
	}
	c.JSON(http.StatusOK, branchList{Branches: out})
	return nil
}

// handleBranchCreate handles "POST .../branches" with name (spec) or
// branchName (OAS), D3: a copy of main; 201 {branchId, sequenceId}.
func (a *API) handleBranchCreate(c *gin.Context) error {
	f, err := readFields(c, false, bodyFields(branchCreateBody{})...)
	if err != nil {
		return err
	}
	name, ok1 := f.text("name", branchCreateRules["name"])
	bn, ok2 := f.text("branchName", branchCreateRules["branchName"])
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
	now := a.clock.Now()
	id := a.newID("BRANCH-", upperAlnum, 8)
	var seq string
	if _, err := a.updateAgent(c, func(d *agentDoc) error {
		main := d.branch(mainBranch)
		d.Branches = append(d.Branches, &branchDoc{ID: id, Name: name, CreatedAt: now, Content: main.Content.clone(), Base: main.Content.clone()})
		seq = d.nextSeq()
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusCreated, branchCreated{BranchID: id, SequenceID: seq})
	return nil
}

// handleBranchDelete handles "DELETE .../branches/{branchId}".
func (a *API) handleBranchDelete(c *gin.Context) error {
	ref := c.Param("branch")
	if ref == mainBranch {
		return invalid(CodeValidation, "The main branch cannot be deleted.")
	}
	var seq string
	if _, err := a.updateAgent(c, func(d *agentDoc) error {
		i := slices.IndexFunc(d.Branches, func(b *branchDoc) bool { return b.ID == ref })
		if i < 0 {
			return errf(KindNotFound, CodeBranchNotFound, MsgBranchNotFound)
		}
		d.Branches = slices.Delete(d.Branches, i, i+1)
		seq = d.nextSeq()
		return nil
	}); err != nil {
		return err
	}
	c.JSON(http.StatusOK, branchChanged{Sequence: seq, Message: "Branch deleted"})
	return nil
}

// handleBranchMerge handles "POST .../branches/{branchId}/merge": a
// three-way merge of the branch into main against the branch point
// (engine_merge.go); 409 with the conflicting paths when both changed an item
// and no conflictResolutions entry settles it. Under merge_deploy:
// sandbox (D22) a successful merge also publishes main to sandbox.
func (a *API) handleBranchMerge(c *gin.Context) error {
	f, err := readFields(c, true, bodyFields(branchMergeBody{})...)
	if err != nil {
		return err
	}
	msg, _ := deploymentMessage(f)
	res := readResolutions(f)
	if err := f.err(); err != nil {
		return err
	}
	ref := c.Param("branch")
	if ref == mainBranch {
		return invalid(CodeValidation, MsgMergeMain)
	}
	deploy := a.world().fidelity(switchMergeDeploy) == "sandbox"
	p := principal(c)
	a.agents.mu.Lock()
	defer a.agents.mu.Unlock()
	now := a.clock.Now()
	var dep *deployment
	var seq string
	var merged branchContent
	var used map[string]bool
	d, err := a.updateAgent(c, func(d *agentDoc) error {
		b := d.branch(ref)
		if b == nil {
			return errf(KindNotFound, CodeBranchNotFound, MsgBranchNotFound)
		}
		main := d.branch(mainBranch)
		var conflicts []string
		var err error
		merged, conflicts, used, err = mergeResolve(b.Base, main.Content, b.Content, res)
		if err != nil {
			return err
		}
		if len(conflicts) > 0 {
			e := &Error{Kind: KindConflict, Code: CodeMergeConflict, Message: MsgMergeConflict}
			if a.world().fidelity(switchMergeConflict) == "400" {
				e.Kind = KindInvalid
			}
			for _, p := range conflicts {
				e.Fields = append(e.Fields, FieldError{Field: p, Message: "changed on both main and the branch"})
			}
			return e
		}
		main.Content = merged
		b.Content, b.Base = merged.clone(), merged.clone()
		seq = d.nextSeq()
		if deploy {
			dep = &deployment{ID: a.newUUIDv7(now), AccountID: d.AccountID, AgentID: d.AgentID, Environment: "sandbox",
				ArtifactVersion: fmtAgentTime(now), Version: a.newID("", hexDigits, 32), CreatedBy: "api", CreatedAt: fmtAgentTime(now),
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
		if err := a.store.PutDoc(docSnapshot, p.Region, dep.Version, &merged); err != nil {
			return err
		}
		a.setRuntimeDeploymentLocked(p.Region, d.AgentID, "sandbox", merged.Topics)
		message = "Branch merged to main and deployed to sandbox"
	}
	c.JSON(http.StatusOK, branchMerged{Sequence: seq, Message: message, TestRunIDs: []string{}})
	return nil
}

// editBranch applies fn to the content of the path's branch. Writes to
// main give 422 under main_branch: read_only (D4).
func (a *API) editBranch(c *gin.Context, fn func(cont *branchContent) error) (*agentDoc, error) {
	ref := c.Param("branch")
	if ref == mainBranch && a.world().fidelity(switchMainBranch) == "read_only" {
		return nil, errf(KindUnprocessable, CodeMainReadOnly, MsgMainReadOnly)
	}
	return a.updateAgent(c, func(d *agentDoc) error {
		b := d.branch(ref)
		if b == nil {
			return errf(KindNotFound, CodeBranchNotFound, MsgBranchNotFound)
		}
		return fn(&b.Content)
	})
}

// readBranch returns the content of the path's branch.
func (a *API) readBranch(c *gin.Context) (*branchContent, error) {
	d, err := a.loadAgent(c)
	if err != nil {
		return nil, err
	}
	b := d.branch(c.Param("branch"))
	if b == nil {
		return nil, errf(KindNotFound, CodeBranchNotFound, MsgBranchNotFound)
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
	f, err := readFields(c, false, bodyFields(behaviorText{})...)
	if err != nil {
		return err
	}
	f.requireAll(behaviorText{})
	text, _ := f.text("behavior", behaviorText{}.FieldRules()["behavior"])
	if err := f.err(); err != nil {
		return err
	}
	if _, err := a.editBranch(c, func(cont *branchContent) error { cont.Behavior = text; return nil }); err != nil {
		return err
	}
	c.JSON(http.StatusOK, behaviorText{Behavior: text})
	return nil
}
