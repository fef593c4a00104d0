package handlers

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// The build side drives the runtime: a project's agent in an environment
// answers from the deployment active in that environment. A user message
// that names a knowledge-base topic of that deployment (contains the
// topic's name, case-insensitively) is answered with the topic's content
// (a template, like replies); topics are tried after the variant's rules
// and before the project's dialogue rules. The real-time variables of the
// environment are .Variables in templates and take effect at once.
//
// script runs inside store transactions (converse), so it reads only the
// in-memory index below, which the Agents API updates after each publish,
// promote, rollback and variables PATCH, and resetBuild rebuilds from the
// store.

// runtimeEntry is what an agent answers from in one environment.
type runtimeEntry struct {
	topics []*topicRec
	vars   map[string]any

	once     sync.Mutex
	project  *scenario.Project // the project the cached dialogue was built from
	dialogue *scenario.Dialogue
}

func runtimeKey(region, agent, env string) string { return region + "/" + agent + "/" + env }

// script returns what the agent of a conversation answers from: the
// project's dialogue of the scenario, with the active deployment's topics,
// and its real-time variables.
//
// It runs inside store transactions (converse), so it must not call the
// store: whatever it reads must be held in memory.
func (a *API) script(conv *store.Conversation) runtimeScript {
	w := a.world()
	acct := w.account(conv.AccountID)
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
	a.build.idxMu.RLock()
	e := a.build.idx[runtimeKey(conv.Region, proj.ID, env)]
	a.build.idxMu.RUnlock()
	if e == nil {
		return runtimeScript{Dialogue: &proj.Dialogue}
	}
	return runtimeScript{Dialogue: e.dialogueFor(proj), Variables: e.vars}
}

// dialogueFor is the project's dialogue with the topics as rules before
// the project's rules, built once per project value.
func (e *runtimeEntry) dialogueFor(proj *scenario.Project) *scenario.Dialogue {
	e.once.Lock()
	defer e.once.Unlock()
	if e.project == proj && e.dialogue != nil {
		return e.dialogue
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
	e.project, e.dialogue = proj, &d
	return e.dialogue
}

// setRuntime replaces an agent's entries: topics and variables per
// environment (nil maps drop the agent).
func (a *API) setRuntime(region, agent string, topics map[string][]*topicRec, vars map[string]map[string]any) {
	a.build.idxMu.Lock()
	defer a.build.idxMu.Unlock()
	if a.build.idx == nil {
		a.build.idx = map[string]*runtimeEntry{}
	}
	for _, env := range deployEnvs {
		k := runtimeKey(region, agent, env)
		t, hasT := topics[env]
		v := vars[env]
		if !hasT && len(v) == 0 {
			delete(a.build.idx, k)
			continue
		}
		a.build.idx[k] = &runtimeEntry{topics: t, vars: v}
	}
}

// setRuntimeDeployment makes topics the active content of an environment.
func (a *API) setRuntimeDeployment(region, agent, env string, topics []*topicRec) {
	a.build.idxMu.Lock()
	defer a.build.idxMu.Unlock()
	if a.build.idx == nil {
		a.build.idx = map[string]*runtimeEntry{}
	}
	k := runtimeKey(region, agent, env)
	var vars map[string]any
	if old := a.build.idx[k]; old != nil {
		vars = old.vars
	}
	a.build.idx[k] = &runtimeEntry{topics: topics, vars: vars}
}

// setRuntimeVariables makes vars the real-time variables of an environment.
func (a *API) setRuntimeVariables(region, agent, env string, vars map[string]any) {
	a.build.idxMu.Lock()
	defer a.build.idxMu.Unlock()
	if a.build.idx == nil {
		a.build.idx = map[string]*runtimeEntry{}
	}
	k := runtimeKey(region, agent, env)
	e := &runtimeEntry{vars: vars}
	if old := a.build.idx[k]; old != nil {
		e.topics = old.topics
	}
	a.build.idx[k] = e
}

// rebuildRuntimeIndex reads every agent's active deployments and
// variables from the store.
func (a *API) rebuildRuntimeIndex() {
	idx := map[string]*runtimeEntry{}
	for _, region := range scenario.Regions {
		var agents []*agentDoc
		err := a.store.ListDocs(docAgent, region, func(_ string, raw []byte) bool {
			d := new(agentDoc)
			if json.Unmarshal(raw, d) == nil {
				agents = append(agents, d)
			}
			return true
		})
		if err != nil {
			a.log.Error("runtime index: list agents", "region", region, "err", err)
		}
		snaps := map[string][]*topicRec{}
		for _, d := range agents {
			for _, env := range deployEnvs {
				var e runtimeEntry
				has := false
				if dep := d.active(env); dep != nil {
					t, ok := snaps[dep.Version]
					if !ok {
						var c branchContent
						if err := a.store.GetDoc(docSnapshot, region, dep.Version, &c); err != nil {
							a.log.Error("runtime index: snapshot", "version", dep.Version, "err", err)
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
	a.build.idxMu.Lock()
	a.build.idx = idx
	a.build.idxMu.Unlock()
}
