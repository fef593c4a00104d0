package engine

// Branches of an agent: list, create, delete, merge into main
// (engine_merge.go), and a branch's behavior text. Every sub-resource edit
// of a branch (behavior, topics, attributes, variants) goes through
// editBranch; main is written directly unless the main_branch switch says
// read_only.

// --- branches ---

// branchView is a branch as the API shows it.
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

// behaviorMaxLen bounds a behavior text.
const BehaviorMaxLen = 1 << 20

// mergeStrategies are the strategies of a conflict resolution.
var MergeStrategies = []string{"ours", "theirs", "base"}
