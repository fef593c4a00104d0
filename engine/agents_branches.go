package engine

// Branches of an agent. Sub-resource edits go through editBranch; main is
// written directly unless main_branch: read_only.

import (
	"maps"
	"slices"
)

// BranchView is a branch as the API shows it.
type BranchView struct {
	BranchID  string `json:"branchId"`
	Name      string `json:"name"`
	CreatedAt string `json:"createdAt"`
}

func (b *BranchDoc) View() BranchView {
	return BranchView{BranchID: b.ID, Name: b.Name, CreatedAt: FmtAgentTime(b.CreatedAt)}
}

type (
	BranchList struct {
		Branches []BranchView `json:"branches"`
	}
	BranchCreated struct {
		BranchID   string `json:"branchId"`
		SequenceID string `json:"sequenceId"`
	}
	BranchChanged struct {
		Sequence string `json:"sequence"`
		Message  string `json:"message"`
	}
	BranchMerged struct {
		Sequence   string   `json:"sequence"`
		Message    string   `json:"message"`
		TestRunIDs []string `json:"testRunIds"`
	}
)

var BranchCreateRules = map[string]FieldRule{
	"name":       {MinLen: 1, MaxLen: 100, Doc: "Required unless branchName is given."},
	"branchName": {MinLen: 1, MaxLen: 100, Doc: "The real service's name of the field.", Fidelity: &Fidelity{ID: "D3", Note: "accepted side by side with name"}},
}

// BehaviorMaxLen bounds a behavior text.
const BehaviorMaxLen = 1 << 20

// MergeStrategies are the strategies of a conflict resolution.
var MergeStrategies = []string{"ours", "theirs", "base"}

func errBranchNotFound() error { return Errf(KindNotFound, CodeBranchNotFound, MsgBranchNotFound) }

// Branches lists an agent's branches.
func (a *Engine) Branches(p *Principal, agent string) ([]BranchView, error) {
	d, err := a.Agent(p, agent)
	if err != nil {
		return nil, err
	}
	out := []BranchView{}
	for _, b := range d.Branches {
		out = append(out, b.View())
	}
	return out, nil
}

// CreateBranch adds a branch off main, whose copy is its merge base (D3).
func (a *Engine) CreateBranch(p *Principal, agent, name string) (BranchCreated, error) {
	now := a.clock.Now()
	id := a.NewID("BRANCH-", upperAlnum, 8)
	var seq string
	if _, err := a.updateAgent(p, agent, func(d *AgentDoc) error {
		main := d.Branch(MainBranch)
		d.Branches = append(d.Branches, &BranchDoc{ID: id, Name: name, CreatedAt: now, Content: main.Content.clone(), Base: main.Content.clone()})
		seq = d.nextSeq()
		return nil
	}); err != nil {
		return BranchCreated{}, err
	}
	a.RecordTransition(MachineBranch, "", "created")
	return BranchCreated{BranchID: id, SequenceID: seq}, nil
}

// DeleteBranch deletes a branch other than main; it returns the new
// sequence.
func (a *Engine) DeleteBranch(p *Principal, agent, ref string) (string, error) {
	if ref == MainBranch {
		return "", Invalid(CodeValidation, "The main branch cannot be deleted.")
	}
	var seq string
	if _, err := a.updateAgent(p, agent, func(d *AgentDoc) error {
		i := slices.IndexFunc(d.Branches, func(b *BranchDoc) bool { return b.ID == ref })
		if i < 0 {
			return errBranchNotFound()
		}
		d.Branches = slices.Delete(d.Branches, i, i+1)
		seq = d.nextSeq()
		return nil
	}); err != nil {
		return "", err
	}
	a.RecordTransition(MachineBranch, "created", "deleted")
	return seq, nil
}

// Merged is a merge's outcome: the new sequence, whether main went to
// sandbox, and the resolutions' paths that named no conflict.
type Merged struct {
	Sequence string
	Deployed bool
	Unused   []string
}

// MergeBranch merges a branch into main three-way (merge.go): 409 when
// a conflict is unresolved. Under merge_deploy: sandbox (D22) it also
// publishes main to sandbox with message msg.
func (a *Engine) MergeBranch(p *Principal, agent, ref, msg string, res map[string]Resolution) (Merged, error) {
	if ref == MainBranch {
		return Merged{}, Invalid(CodeValidation, MsgMergeMain)
	}
	deploy := a.View().Fidelity(SwitchMergeDeploy) == "sandbox"
	a.agents.mu.Lock()
	defer a.agents.mu.Unlock()
	now := a.clock.Now()
	var dep *Deployment
	var out Merged
	var merged BranchContent
	var used map[string]bool
	d, err := a.updateAgent(p, agent, func(d *AgentDoc) error {
		b := d.Branch(ref)
		if b == nil {
			return errBranchNotFound()
		}
		main := d.Branch(MainBranch)
		var conflicts []string
		var err error
		merged, conflicts, used, err = mergeResolve(b.Base, main.Content, b.Content, res)
		if err != nil {
			return err
		}
		if len(conflicts) > 0 {
			e := &Error{Kind: KindConflict, Code: CodeMergeConflict, Message: MsgMergeConflict}
			for _, p := range conflicts {
				e.Fields = append(e.Fields, FieldError{Field: p, Message: "changed on both main and the branch"})
			}
			a.RecordTransition(MachineBranch, "created", "conflicted")
			return e
		}
		main.Content = merged
		b.Content, b.Base = merged.clone(), merged.clone()
		out.Sequence = d.nextSeq()
		if deploy {
			dep = &Deployment{ID: a.newUUIDv7(now), AccountID: d.AccountID, AgentID: d.AgentID, Environment: "sandbox",
				ArtifactVersion: FmtAgentTime(now), Version: a.NewID("", hexDigits, 32), CreatedBy: "api", CreatedAt: FmtAgentTime(now),
				Metadata: map[string]any{"deployment_message": msg, "deployment_type": "merge"}}
			d.Deployments = append(d.Deployments, dep)
		}
		return nil
	})
	if err != nil {
		return Merged{}, err
	}
	a.RecordTransition(MachineBranch, "created", "merged")
	for _, path := range slices.Sorted(maps.Keys(res)) {
		if !used[path] {
			out.Unused = append(out.Unused, path)
		}
	}
	if dep != nil {
		// The snapshot follows the deployment; agents.mu keeps readers out.
		if err := a.store.PutDoc(DocSnapshot, p.Region, dep.Version, &merged); err != nil {
			return Merged{}, err
		}
		a.setRuntimeDeploymentLocked(p.Region, d.AgentID, "sandbox", merged.Topics)
		a.RecordTransition(MachineDeployment, "", "published")
		out.Deployed = true
	}
	return out, nil
}

// editBranch applies fn to a branch's content in one store update; main
// is 422 under main_branch: read_only (D4).
func (a *Engine) editBranch(p *Principal, agent, ref string, fn func(cont *BranchContent) error) error {
	if ref == MainBranch && a.View().Fidelity(SwitchMainBranch) == "read_only" {
		return Errf(KindUnprocessable, CodeMainReadOnly, MsgMainReadOnly)
	}
	_, err := a.updateAgent(p, agent, func(d *AgentDoc) error {
		b := d.Branch(ref)
		if b == nil {
			return errBranchNotFound()
		}
		return fn(&b.Content)
	})
	return err
}

func (a *Engine) readBranch(p *Principal, agent, ref string) (*BranchContent, error) {
	d, err := a.Agent(p, agent)
	if err != nil {
		return nil, err
	}
	b := d.Branch(ref)
	if b == nil {
		return nil, errBranchNotFound()
	}
	return &b.Content, nil
}

// Behavior reads a branch's behavior text.
func (a *Engine) Behavior(p *Principal, agent, branch string) (string, error) {
	cont, err := a.readBranch(p, agent, branch)
	if err != nil {
		return "", err
	}
	return cont.Behavior, nil
}

// SetBehavior replaces a branch's behavior text.
func (a *Engine) SetBehavior(p *Principal, agent, branch, text string) error {
	return a.editBranch(p, agent, branch, func(cont *BranchContent) error { cont.Behavior = text; return nil })
}
