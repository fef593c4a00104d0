package engine

// The build side drives the runtime: an agent answers from the deployment
// active in the conversation's environment. Its topics match messages
// naming them, after the variant's rules and before the project's; the
// environment's variables are .Variables in templates. script runs inside
// store transactions, so it reads only the in-memory index below; every
// Agents write that changes what an environment answers from (publish,
// promote, rollback, variables PATCH) must update it under agents.mu.

import (
	"maps"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// runtimeIndex maps runtimeKey to what the agent answers from there. A
// published index is immutable: writers copy it (updateIndexLocked).
type runtimeIndex map[string]*runtimeEntry

type runtimeEntry struct {
	topics []*TopicRec
	vars   map[string]any

	// built caches the dialogue built for the last project value.
	built atomic.Pointer[builtDialogue]
}

type builtDialogue struct {
	project  *scenario.Project
	dialogue *scenario.Dialogue
}

func runtimeKey(region, agent, env string) string { return region + "/" + agent + "/" + env }

// script returns what the agent of a conversation answers from. It runs
// inside store transactions, so it must not call the store.
func (a *Engine) script(conv *store.Conversation) runtimeScript {
	w := a.View()
	acct := w.Account(conv.AccountID)
	if acct == nil {
		return runtimeScript{Dialogue: &emptyDialogue}
	}
	proj := acct.Project(conv.ProjectID)
	if proj == nil {
		return runtimeScript{Dialogue: &emptyDialogue}
	}
	env := conv.Environment
	if env == "" {
		env = "live"
	}
	e := (*a.agents.idx.Load())[runtimeKey(conv.Region, proj.ID, env)]
	if e == nil {
		return runtimeScript{Dialogue: &proj.Dialogue}
	}
	return runtimeScript{Dialogue: e.dialogueFor(proj), Variables: e.vars}
}

// dialogueFor is the project's dialogue with the topics first, built once
// per project value (racing builds agree).
func (e *runtimeEntry) dialogueFor(proj *scenario.Project) *scenario.Dialogue {
	if b := e.built.Load(); b != nil && b.project == proj {
		return b.dialogue
	}
	d := proj.Dialogue
	var rules []scenario.Rule
	for _, t := range e.topics {
		if !t.IsActive || strings.TrimSpace(t.Name) == "" {
			continue
		}
		rules = append(rules, scenario.Rule{Name: "kb:" + t.Name, When: scenario.Match{Contains: t.Name},
			Then: scenario.Actions{Reply: t.Content}})
	}
	d.Rules = append(rules, slices.Clone(proj.Dialogue.Rules)...)
	e.built.Store(&builtDialogue{project: proj, dialogue: &d})
	return &d
}

// updateIndexLocked publishes a copy of the index changed by fn.
// a.agents.mu must be held.
func (a *Engine) updateIndexLocked(fn func(idx runtimeIndex)) {
	old := *a.agents.idx.Load()
	idx := make(runtimeIndex, len(old)+len(DeployEnvs))
	maps.Copy(idx, old)
	fn(idx)
	a.agents.idx.Store(&idx)
}

// setRuntimeLocked replaces an agent's entries (nil maps drop it).
func (a *Engine) setRuntimeLocked(region, agent string, topics map[string][]*TopicRec, vars map[string]map[string]any) {
	a.updateIndexLocked(func(idx runtimeIndex) {
		for _, env := range DeployEnvs {
			k := runtimeKey(region, agent, env)
			t, hasT := topics[env]
			v := vars[env]
			if !hasT && len(v) == 0 {
				delete(idx, k)
				continue
			}
			idx[k] = &runtimeEntry{topics: t, vars: v}
		}
	})
}

// setRuntimeDeploymentLocked makes topics the active content of an environment.
func (a *Engine) setRuntimeDeploymentLocked(region, agent, env string, topics []*TopicRec) {
	a.updateIndexLocked(func(idx runtimeIndex) {
		k := runtimeKey(region, agent, env)
		var vars map[string]any
		if old := idx[k]; old != nil {
			vars = old.vars
		}
		idx[k] = &runtimeEntry{topics: topics, vars: vars}
	})
}

// setRuntimeVariablesLocked makes vars the real-time variables of an environment.
func (a *Engine) setRuntimeVariablesLocked(region, agent, env string, vars map[string]any) {
	a.updateIndexLocked(func(idx runtimeIndex) {
		k := runtimeKey(region, agent, env)
		e := &runtimeEntry{vars: vars}
		if old := idx[k]; old != nil {
			e.topics = old.topics
		}
		idx[k] = e
	})
}

// RebuildRuntimeIndex publishes the runtime index read from the store.
func (a *Engine) RebuildRuntimeIndex() {
	a.agents.mu.Lock()
	defer a.agents.mu.Unlock()
	idx := runtimeIndex{}
	for _, region := range scenario.Regions {
		var agents []*AgentDoc
		err := store.ListDocs(a.store, DocAgent, region, func(_ string, d *AgentDoc) bool {
			agents = append(agents, d)
			return true
		})
		if err != nil {
			a.Log.Error("runtime index: list agents", "region", region, "err", err)
		}
		snaps := map[string][]*TopicRec{}
		for _, d := range agents {
			for _, env := range DeployEnvs {
				var e runtimeEntry
				has := false
				if dep := d.active(env); dep != nil {
					t, ok := snaps[dep.Version]
					if !ok {
						var c BranchContent
						if err := a.store.GetDoc(DocSnapshot, region, dep.Version, &c); err != nil {
							a.Log.Error("runtime index: snapshot", "version", dep.Version, "err", err)
						}
						t = c.Topics
						snaps[dep.Version] = t
					}
					e.topics, has = t, true
				}
				if p := d.Configs[env]; p != nil && len(p.Variables) > 0 {
					e.vars, has = p.Variables, true
				}
				if has {
					idx[runtimeKey(region, d.AgentID, env)] = &runtimeEntry{topics: e.topics, vars: e.vars}
				}
			}
		}
	}
	a.agents.idx.Store(&idx)
}
