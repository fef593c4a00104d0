package engine

// Deployments of an agent: publish main to sandbox, promote, roll back.
// Each published content is an agent_snapshot document.

import (
	"errors"
	"fmt"
	"time"

	"github.com/agentplatform/mockplatform/store"
)

type (
	WrappedDeployment struct {
		Deployment *Deployment `json:"deployment"`
		TestRunIDs []string    `json:"testRunIds"`
	}
	DeploymentList struct {
		Deployments []*Deployment `json:"deployments"`
	}
	ActiveDeploymentsView struct {
		ActiveDeployments ActiveDeployments `json:"activeDeployments"`
	}
	// ActiveDeployments is the newest deployment per environment.
	ActiveDeployments struct {
		Sandbox    *Deployment `json:"sandbox"`
		PreRelease *Deployment `json:"pre-release"`
		Live       *Deployment `json:"live"`
	}
)

// PromoteTargets are the environments a deployment may be promoted to.
var PromoteTargets = DeployEnvs[1:]

func (Deployment) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"environment": {Enum: DeployEnvs}, "metadata": {Nullable: true}}
}

// Deployment is a deployment record (docs/api.md#agents-deployments).
type Deployment struct {
	ID              string         `json:"id"`
	AccountID       string         `json:"accountId"`
	AgentID         string         `json:"agentId"`
	Environment     string         `json:"environment"`
	ArtifactVersion string         `json:"artifactVersion"`
	Version         string         `json:"version"`
	CreatedBy       string         `json:"createdBy"`
	CreatedAt       string         `json:"createdAt"`
	Metadata        map[string]any `json:"metadata"`
}

func (a *Engine) newUUIDv7(t time.Time) string { return a.ids.NewUUIDv7(t) }

// alreadyPublished is 409 when main is unchanged since a merge deployed it
// (merge_deploy: sandbox, D22).
func (a *Engine) alreadyPublished(region string, d *AgentDoc, draft BranchContent) error {
	act := d.active("sandbox")
	if act == nil || act.Metadata["deployment_type"] != "merge" {
		return nil
	}
	var snap BranchContent
	if err := a.store.GetDoc(DocSnapshot, region, act.Version, &snap); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil
		}
		return err
	}
	if jsonOf(snap) != jsonOf(draft) {
		return nil
	}
	return Errf(KindConflict, CodeAlreadyPublished, MsgAlreadyPublished)
}

func (d *AgentDoc) findDeployment(id string) *Deployment {
	for _, x := range d.Deployments {
		if x.ID == id {
			return x
		}
	}
	return nil
}

// Publish snapshots main into a new sandbox deployment, answered from at
// once (docs/api.md#agents-deployments); see alreadyPublished.
func (a *Engine) Publish(p *Principal, agent, msg string) (*Deployment, error) {
	a.agents.mu.Lock()
	defer a.agents.mu.Unlock()
	cur, err := a.Agent(p, agent)
	if err != nil {
		return nil, err
	}
	snap := cur.Branch(MainBranch).Content
	if a.View().Fidelity(SwitchMergeDeploy) == "sandbox" {
		if err := a.alreadyPublished(p.Region, cur, snap); err != nil {
			return nil, err
		}
	}
	now := a.clock.Now()
	version := a.NewID("", hexDigits, 32)
	if err := a.store.PutDoc(DocSnapshot, p.Region, version, &snap); err != nil {
		return nil, err
	}
	dep := &Deployment{ID: a.newUUIDv7(now), AccountID: cur.AccountID, AgentID: cur.AgentID, Environment: "sandbox",
		ArtifactVersion: FmtAgentTime(now), Version: version, CreatedBy: "api", CreatedAt: FmtAgentTime(now),
		Metadata: map[string]any{"deployment_message": msg, "deployment_type": "publish"}}
	if _, err := a.updateAgent(p, agent, func(d *AgentDoc) error {
		d.Deployments = append(d.Deployments, dep)
		return nil
	}); err != nil {
		return nil, err
	}
	a.setRuntimeDeploymentLocked(p.Region, cur.AgentID, "sandbox", snap.Topics)
	a.RecordTransition(MachineDeployment, "", "published")
	return dep, nil
}

// copyDeployment deploys deployment id's content to the environment target
// chooses, active there, and returns a copy.
func (a *Engine) copyDeployment(p *Principal, agent, id string, target func(from *Deployment) (string, error), meta map[string]any) (*Deployment, error) {
	a.agents.mu.Lock()
	defer a.agents.mu.Unlock()
	now := a.clock.Now()
	var out *Deployment
	var fromState string
	d, err := a.updateAgent(p, agent, func(d *AgentDoc) error {
		from := d.findDeployment(id)
		if from == nil {
			return Errf(KindNotFound, CodeDeploymentNotFound, MsgDeploymentNotFound)
		}
		fromState = deploymentState(from)
		env, err := target(from)
		if err != nil {
			return err
		}
		stored := &Deployment{ID: a.newUUIDv7(now), AccountID: d.AccountID, AgentID: d.AgentID, Environment: env,
			ArtifactVersion: from.ArtifactVersion, Version: from.Version, CreatedBy: "api", CreatedAt: FmtAgentTime(now),
			Metadata: meta}
		d.Deployments = append(d.Deployments, stored)
		cp := *stored
		out = &cp
		return nil
	})
	if err != nil {
		return nil, err
	}
	var snap BranchContent
	if err := a.store.GetDoc(DocSnapshot, p.Region, out.Version, &snap); err != nil {
		return nil, err
	}
	a.setRuntimeDeploymentLocked(p.Region, d.AgentID, out.Environment, snap.Topics)
	a.RecordTransition(MachineDeployment, fromState, deploymentState(out))
	return out, nil
}

// Promote deploys deployment id's version to the next environment or a
// later target; promote_skip_stage: reject (D21) refuses sandbox to live.
func (a *Engine) Promote(p *Principal, agent, id, target, msg string) (*Deployment, error) {
	return a.copyDeployment(p, agent, id, func(from *Deployment) (string, error) {
		cur := envOrder[from.Environment]
		if target == "" {
			if cur >= envOrder["live"] {
				return "", &Error{Kind: KindInvalid, Code: CodeDeployTarget, Message: "The deployment is already live.",
					Fields: []FieldError{{Field: "targetEnvironment", Message: "must be later than live"}}}
			}
			return DeployEnvs[cur+1], nil
		}
		if envOrder[target] <= cur {
			return "", &Error{Kind: KindInvalid, Code: CodeDeployTarget,
				Message: fmt.Sprintf("Cannot promote a %s deployment to %s.", from.Environment, target),
				Fields:  []FieldError{{Field: "targetEnvironment", Message: "must be later than " + from.Environment}}}
		}
		if target == "live" && from.Environment == "sandbox" && a.View().Fidelity(SwitchPromoteSkip) == "reject" {
			return "", Errf(KindPrecondition, CodePreReleaseNotReady, MsgPreReleaseNotReady)
		}
		return target, nil
	}, map[string]any{"deployment_message": msg, "deployment_type": "promotion"})
}

// Rollback redeploys deployment id's version to sandbox (G8).
func (a *Engine) Rollback(p *Principal, agent, id string) (*Deployment, error) {
	return a.copyDeployment(p, agent, id, func(*Deployment) (string, error) { return "sandbox", nil },
		map[string]any{"deployment_type": "rollback"})
}

// Deployments lists an environment's deployments, newest first (limit 0:
// all).
func (a *Engine) Deployments(p *Principal, agent, env string, limit int) ([]*Deployment, error) {
	d, err := a.Agent(p, agent)
	if err != nil {
		return nil, err
	}
	out := []*Deployment{}
	for i := len(d.Deployments) - 1; i >= 0; i-- {
		if d.Deployments[i].Environment == env {
			out = append(out, d.Deployments[i])
		}
		if limit > 0 && len(out) == limit {
			break
		}
	}
	return out, nil
}

// ActiveDeployments is the newest deployment of each environment.
func (a *Engine) ActiveDeployments(p *Principal, agent string) (ActiveDeployments, error) {
	d, err := a.Agent(p, agent)
	if err != nil {
		return ActiveDeployments{}, err
	}
	return ActiveDeployments{Sandbox: d.active("sandbox"), PreRelease: d.active("pre-release"), Live: d.active("live")}, nil
}
