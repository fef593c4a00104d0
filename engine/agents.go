package engine

// Agents API (docs/api.md#agents; docs/fidelity.md G4, G8, G13, D1–D6, D21,
// D22). Agent ID = project ID (M12.1): every scenario project is an agent;
// API-created agents exist on the build side only. An agent is one "agent"
// document; each published content is an "agent_snapshot" by version.

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/agentplatform/mockplatform/engine/core"
	"github.com/agentplatform/mockplatform/engine/telephony"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

var (
	// AccountScoped marks the account-scoped paths of the Agents API.
	AccountScoped = &Fidelity{ID: "D1", Note: "the account-scoped path of the same operation; the account segment must be the key's account"}
)

var AgentCreateRules = map[string]FieldRule{
	"name": {Required: true, MinLen: 1, MaxLen: 128,
		Fidelity: &Fidelity{ID: "D2", Switch: SwitchAgentCreate, Value: "oas", Note: "1 to 100 characters"}},
	"agentId": {Pattern: AgentIDRE, Doc: "The new agent's id (default PROJECT- and 8 letters or digits)."},
	"responseSettings": {Doc: "Accepted; under agent_create: oas required, with greeting.",
		Fidelity: &Fidelity{ID: "D2", Switch: SwitchAgentCreate, Value: "oas", Note: "required: {greeting, languageCode?}"}},
}

// AgentCreated is the spec's create answer: the agent and its main branch.
type AgentCreated struct {
	AgentView
	Branch BranchView `json:"branch"`
}

var AgentDuplicateRules = map[string]FieldRule{
	"newAgentName": {Required: true, MinLen: 1, MaxLen: 100},
	"newAgentId":   {Pattern: AgentIDRE},
}

// agentsState is the runtime index (script.go).
type agentsState struct {
	// mu serialises the Agents API writes (telephony included) and is held
	// across store calls. The index is replaced whole under mu and read without
	// it: script runs inside store transactions and must not wait on a writer.
	mu  sync.Mutex
	idx atomic.Pointer[runtimeIndex]
	// snapIdx is the index of the snapshot a reset restores.
	snapIdx struct {
		snap *store.Snapshot
		idx  *runtimeIndex
	}
}

// resetAgents rebuilds the runtime index; when restored, the snapshot's
// remembered index serves without reading the agents.
func (a *Engine) resetAgents(restored bool) {
	if !restored {
		a.RebuildRuntimeIndex()
		return
	}
	if d := defaultsOf(a.cfg.Vocabulary); a.snap == d.snap {
		d.idxOnce.Do(func() {
			a.RebuildRuntimeIndex()
			d.idx = a.agents.idx.Load()
		})
		a.agents.idx.Store(d.idx)
		return
	}
	if a.agents.snapIdx.snap == a.snap && a.agents.snapIdx.idx != nil {
		a.agents.idx.Store(a.agents.snapIdx.idx)
		return
	}
	a.RebuildRuntimeIndex()
	a.agents.snapIdx.snap, a.agents.snapIdx.idx = a.snap, a.agents.idx.Load()
}

// Agents error codes (docs/api.md#agents-errors; docs/fidelity.md G13) and
// messages. Under builder_errors: spec (D10) only the message is shown.
const (
	CodeAgentNotFound      = "AGENT_NOT_FOUND"
	CodeBranchNotFound     = "BRANCH_NOT_FOUND"
	CodeTopicNotFound      = "KNOWLEDGE_BASE_TOPIC_NOT_FOUND"
	CodeTopicExists        = "KNOWLEDGE_BASE_TOPIC_ALREADY_EXISTS"
	CodeMergeConflict      = "MERGE_BRANCH_CONFLICT"
	CodeMainReadOnly       = "MAIN_BRANCH_READ_ONLY"
	CodeDeploymentNotFound = "DEPLOYMENT_NOT_FOUND"
	CodeDeployInvalidEnv   = "DEPLOYMENTS_INVALID_ENVIRONMENT"
	CodeDeployTarget       = "DEPLOYMENTS_INVALID_TARGET"
	CodePreReleaseNotReady = "DEPLOYMENTS_PRE_RELEASE_NOT_READY"
	CodeConfigUnknownEnv   = "REAL_TIME_CONFIG_UNKNOWN_CLIENT_ENVIRONMENT"
	CodeConfigInvalid      = "REAL_TIME_CONFIG_INVALID_FOR_SCHEMA"
	CodeConfigBadSchema    = "REAL_TIME_CONFIG_INVALID_SCHEMA"
	CodeItemNotFound       = "NOT_FOUND"
	CodeVariantDefault     = "VARIANTS_REMOVE_DEFAULT_ERROR"
	CodeVariantDuplicate   = "VARIANTS_DUPLICATE_NAME_ERROR"
	CodeAttributeDuplicate = "ATTRIBUTES_DUPLICATE_NAME_ERROR"
	CodeAlreadyPublished   = "DEPLOYMENTS_ALREADY_PUBLISHED"
	CodeAgentExists        = "AGENT_ALREADY_EXISTS"

	MsgAgentNotFound      = "Agent not found."
	MsgBranchNotFound     = "Branch not found."
	MsgTopicNotFound      = "Knowledge base topic not found."
	MsgTopicExists        = "A knowledge base topic with this name already exists."
	MsgMergeConflict      = "Merge conflict: the branch and main both changed the same items."
	MsgMergeMain          = "The main branch cannot be merged into itself."
	MsgMainReadOnly       = "Cannot directly update main branch"
	MsgDeploymentNotFound = "Deployment not found."
	MsgDeployInvalidEnv   = "environment must be one of: sandbox, pre-release, live"
	MsgPublishSandbox     = "Publishing goes to sandbox: environment must be sandbox."
	MsgPreReleaseNotReady = "must deploy to pre-release before promoting to live"
	MsgConfigUnknownEnv   = "Unknown client environment: want sandbox, pre-release or live."
	MsgConfigInvalid      = "Config values fail JSON Schema validation."
	MsgConfigBadSchema    = "The schema is not a valid JSON Schema."
	MsgVariantDefault     = "The default variant cannot be removed."
	MsgVariantDuplicate   = "A variant with this name already exists."
	MsgAttributeDuplicate = "An attribute with this name already exists."
	MsgItemNotFound       = "Not found."
	MsgAlreadyPublished   = "Deployments already published"
)

// Fidelity switches of the agents family (docs/fidelity.md).
const (
	SwitchMainBranch     = "main_branch"           // "writable" (default) | "read_only" (D4)
	SwitchMergeConflict  = "merge_conflict_status" // "409" (default) | "400" (D5)
	SwitchDeployResponse = "deploy_response"       // "spec" (default) | "wrapped" (D6)
	SwitchPromoteSkip    = "promote_skip_stage"    // "allow" (default) | "reject" (D21)
	SwitchAgentCreate    = "agent_create"          // "spec" (default) | "oas" (D2)
	SwitchMergeDeploy    = "merge_deploy"          // "off" (default) | "sandbox" (D22)
)

const (
	DocAgent    = "agent"
	DocSnapshot = "agent_snapshot"
	MainBranch  = "main"
	hexDigits   = core.HexDigits
	upperAlnum  = core.UpperAlnum
)

// envOrder ranks environments (docs/api.md#agents-deployments).
var envOrder = map[string]int{"sandbox": 0, "pre-release": 1, "live": 2}

var DeployEnvs = core.DeployEnvs

// AgentDoc is the stored agent.
type AgentDoc struct {
	AccountID   string                 `json:"account_id"`
	AgentID     string                 `json:"agent_id"`
	Name        string                 `json:"name"`
	Description string                 `json:"description,omitempty"`
	CreatedAt   time.Time              `json:"created_at"`
	UpdatedAt   time.Time              `json:"updated_at"`
	Seq         int64                  `json:"seq"`
	Branches    []*BranchDoc           `json:"branches"`
	Deployments []*Deployment          `json:"deployments"` // oldest first
	Configs     map[string]*ConfigPage `json:"configs"`
}

// BranchDoc is a branch: its content and main's at the branch point.
type BranchDoc struct {
	ID        string        `json:"id"`
	Name      string        `json:"name"`
	CreatedAt time.Time     `json:"created_at"`
	Content   BranchContent `json:"content"`
	Base      BranchContent `json:"base"`
}

// BranchContent is what a branch holds (docs/api.md#agents).
type BranchContent struct {
	Behavior   string       `json:"behavior"`
	Topics     []*TopicRec  `json:"topics"`
	Attributes []*Attribute `json:"attributes"`
	Variants   []*Variant   `json:"variants"`
}

// AgentView is the agent record (docs/api.md#agents-agents; docs/fidelity.md G4).
type AgentView struct {
	AccountID   string `json:"accountId"`
	AgentID     string `json:"agentId"`
	AgentName   string `json:"agentName"`
	Description string `json:"description,omitempty"`
	CreatedAt   string `json:"createdAt"`
	UpdatedAt   string `json:"updatedAt"`
	BranchCount int    `json:"branchCount"`
}

func (d *AgentDoc) View() AgentView {
	return AgentView{AccountID: d.AccountID, AgentID: d.AgentID, AgentName: d.Name, Description: d.Description,
		CreatedAt: FmtAgentTime(d.CreatedAt), UpdatedAt: FmtAgentTime(d.UpdatedAt), BranchCount: len(d.Branches)}
}

func (d *AgentDoc) Branch(ref string) *BranchDoc {
	for _, b := range d.Branches {
		if b.ID == ref || (ref == MainBranch && b.ID == MainBranch) {
			return b
		}
	}
	return nil
}

func (d *AgentDoc) active(env string) *Deployment {
	for i := len(d.Deployments) - 1; i >= 0; i-- {
		if d.Deployments[i].Environment == env {
			return d.Deployments[i]
		}
	}
	return nil
}

func (d *AgentDoc) nextSeq() string {
	d.Seq++
	return strconv.FormatInt(d.Seq, 10)
}

func newAgentDoc(account, id, name string, now time.Time) *AgentDoc {
	d := &AgentDoc{AccountID: account, AgentID: id, Name: name, CreatedAt: now, UpdatedAt: now, Seq: 1,
		Branches:    []*BranchDoc{{ID: MainBranch, Name: MainBranch, CreatedAt: now, Content: emptyContent()}},
		Deployments: []*Deployment{}, Configs: map[string]*ConfigPage{}}
	for _, env := range DeployEnvs {
		d.Configs[env] = &ConfigPage{ClientEnv: env, Variables: map[string]any{}, Schema: json.RawMessage("null")}
	}
	return d
}

func emptyContent() BranchContent {
	return BranchContent{Topics: []*TopicRec{}, Attributes: []*Attribute{}, Variants: []*Variant{}}
}

func (c BranchContent) clone() BranchContent {
	b, _ := json.Marshal(c)
	var out BranchContent
	_ = json.Unmarshal(b, &out)
	if out.Topics == nil {
		out.Topics = []*TopicRec{}
	}
	if out.Attributes == nil {
		out.Attributes = []*Attribute{}
	}
	if out.Variants == nil {
		out.Variants = []*Variant{}
	}
	return out
}

// agentRef resolves the path's agent id: a scenario project's slug or id
// gives its id; anything else is taken as is.
func agentRef(p *Principal, ref string) string {
	if proj := p.Account.Project(ref); proj != nil {
		return proj.ID
	}
	return ref
}

func errAgentNotFound() error { return Errf(KindNotFound, CodeAgentNotFound, MsgAgentNotFound) }

// MsgNoPermission is a 403's message: a key of another account or project.
const MsgNoPermission = "The API key does not have permission for this resource."

func errNoPermission() error {
	return &Error{Kind: KindForbidden, Code: "FORBIDDEN", Message: MsgNoPermission}
}

var AgentIDRE = regexp.MustCompile(`^[a-zA-Z0-9-]+$`)

// insertAgentLocked stores a new agent of p's account with id (or a fresh
// one); a taken id is 409. a.agents.mu must be held.
func (a *Engine) insertAgentLocked(p *Principal, id string, hasID bool, name string, fill func(d *AgentDoc)) (*AgentDoc, error) {
	now := a.clock.Now()
	var err error
	for range 5 {
		if !hasID {
			id = a.NewID("PROJECT-", upperAlnum, 8)
		}
		d := newAgentDoc(p.Account.ID, id, name, now)
		fill(d)
		if err = a.store.InsertDoc(DocAgent, p.Region, id, d); err == nil {
			return d, nil
		}
		if !errors.Is(err, store.ErrExists) {
			return nil, err
		}
		if hasID {
			return nil, Errf(KindConflict, CodeAgentExists, "An agent with this id already exists.")
		}
	}
	return nil, err
}

func cloneMap(m map[string]any) map[string]any {
	out := map[string]any{}
	if b, err := json.Marshal(m); err == nil {
		if err := json.Unmarshal(b, &out); err != nil {
			return map[string]any{}
		}
	}
	return out
}

// AgentInput is a new agent (empty ID: a fresh one).
type AgentInput struct {
	ID, Name, Description string
}

// Agent reads an agent of p's account: 404, or 403 for another account's.
func (a *Engine) Agent(p *Principal, ref string) (*AgentDoc, error) {
	var d AgentDoc
	if err := a.store.GetDoc(DocAgent, p.Region, agentRef(p, ref), &d); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, errAgentNotFound()
		}
		return nil, err
	}
	if d.AccountID != p.Account.ID {
		return nil, errNoPermission()
	}
	return &d, nil
}

// updateAgent applies fn to an agent in one store update.
func (a *Engine) updateAgent(p *Principal, ref string, fn func(d *AgentDoc) error) (*AgentDoc, error) {
	var d AgentDoc
	err := a.store.UpdateDoc(DocAgent, p.Region, agentRef(p, ref), &d, func() error {
		if d.AccountID != p.Account.ID {
			return errNoPermission()
		}
		if err := fn(&d); err != nil {
			return err
		}
		d.UpdatedAt = a.clock.Now()
		return nil
	})
	if errors.Is(err, store.ErrNotFound) {
		return nil, errAgentNotFound()
	}
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// Agents lists the agents of the principal's account.
func (a *Engine) Agents(p *Principal) ([]AgentView, error) {
	list := []AgentView{}
	err := store.ListDocs(a.store, DocAgent, p.Region, func(_ string, d *AgentDoc) bool {
		if d.AccountID == p.Account.ID {
			list = append(list, d.View())
		}
		return true
	})
	return list, err
}

// CreateAgent stores a new agent with an empty main branch; a taken id is 409.
func (a *Engine) CreateAgent(p *Principal, in AgentInput) (*AgentDoc, error) {
	a.agents.mu.Lock()
	defer a.agents.mu.Unlock()
	return a.insertAgentLocked(p, in.ID, in.ID != "", in.Name, func(d *AgentDoc) { d.Description = in.Description })
}

// DeleteAgent deletes an agent with its telephony.
func (a *Engine) DeleteAgent(p *Principal, ref string) error {
	a.agents.mu.Lock()
	defer a.agents.mu.Unlock()
	d, err := a.Agent(p, ref)
	if err != nil {
		return err
	}
	if err := a.store.DeleteDoc(DocAgent, p.Region, d.AgentID); err != nil {
		return err
	}
	if err := a.tel.DropAgentLocked(p.Region, p.Account.ID, d.AgentID); err != nil {
		return err
	}
	if err := a.audio.DropAgent(p.Region, d.AgentID); err != nil {
		return err
	}
	a.setRuntimeLocked(p.Region, d.AgentID, nil, nil)
	return nil
}

// DuplicateAgent stores a copy of the source's main branch and config pages;
// other branches, deployments and telephony are not copied (G13).
func (a *Engine) DuplicateAgent(p *Principal, ref, id, name string) (*AgentDoc, error) {
	a.agents.mu.Lock()
	defer a.agents.mu.Unlock()
	src, err := a.Agent(p, ref)
	if err != nil {
		return nil, err
	}
	return a.insertAgentLocked(p, id, id != "", name, func(d *AgentDoc) {
		d.Description = src.Description
		d.Branches[0].Content = src.Branch(MainBranch).Content.clone()
		for env, page := range src.Configs {
			cp := *page
			cp.Variables = cloneMap(page.Variables)
			d.Configs[env] = &cp
		}
	})
}

// seedAgents writes an agent per scenario project, then each account's
// telephony.
func seedAgents(st *store.Store, sc *scenario.Scenario, now time.Time) error {
	for ai := range sc.Accounts {
		acct := &sc.Accounts[ai]
		for pi := range acct.Projects {
			proj := &acct.Projects[pi]
			name := proj.Name
			if name == "" {
				name = proj.Slug
			}
			d := newAgentDoc(acct.ID, proj.ID, name, now)
			main := &d.Branches[0].Content
			for _, v := range proj.Variants {
				main.Variants = append(main.Variants, &Variant{ID: v.ID, Name: v.Name, IsDefault: v.Default,
					AttributeValues: AttributeValues{Values: map[string]string{}}})
			}
			if ag := proj.Agent; ag != nil {
				main.Behavior = ag.Behavior
				for i, t := range ag.KnowledgeBase {
					main.Topics = append(main.Topics, &TopicRec{ID: fmt.Sprintf("TOPICS-%08x", i+1), Name: t.Name, Content: t.Content,
						ExampleQueries: ExampleQuries{Queries: []string{}}, IsActive: true})
				}
				if len(ag.Deployed) > 0 {
					version := fmt.Sprintf("%032x", ai<<16|pi+1)
					if err := st.PutDoc(DocSnapshot, acct.Region, version, main); err != nil {
						return err
					}
					for i, env := range DeployEnvs {
						if !slices.Contains(ag.Deployed, env) {
							continue
						}
						d.Deployments = append(d.Deployments, &Deployment{
							ID:        fmt.Sprintf("%012x-0000-7000-8000-%012x", now.UnixMilli(), ai<<16|pi<<4|i),
							AccountID: acct.ID, AgentID: proj.ID, Environment: env, ArtifactVersion: FmtAgentTime(now),
							Version: version, CreatedBy: "scenario", CreatedAt: FmtAgentTime(now),
							Metadata: map[string]any{"deployment_type": "scenario"}})
					}
				}
				for env, cfg := range ag.RealTimeConfigs {
					page := d.Configs[env]
					if cfg.Schema != nil {
						b, err := json.Marshal(cfg.Schema)
						if err != nil {
							return err
						}
						page.Schema = b
					}
					for k, v := range cfg.Variables {
						page.Variables[k] = v
					}
				}
			}
			if err := st.PutDoc(DocAgent, acct.Region, proj.ID, d); err != nil {
				return err
			}
		}
	}
	return telephony.Seed(st, sc)
}
