package engine

// Deployments of an agent: publish the main branch to
// sandbox, promote along sandbox → pre-release → live, roll back, list,
// and the active deployment per environment. Each published content is an
// agent_snapshot document shared by the deployments that point at it.

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
	// activeDeployments is the newest deployment per environment.
	ActiveDeployments struct {
		Sandbox    *Deployment `json:"sandbox"`
		PreRelease *Deployment `json:"pre-release"`
		Live       *Deployment `json:"live"`
	}
)

// promoteTargets are the environments a deployment may be promoted to.
var PromoteTargets = DeployEnvs[1:]

func (Deployment) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"environment": {Enum: DeployEnvs}, "metadata": {Nullable: true}}
}

// deployment is a deployment record (docs/api.md#agents-deployments).
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

// --- deployments ---

// newUUIDv7 returns a UUIDv7 of the virtual time (docs/api.md#ids).
func (a *Engine) NewUUIDv7(t time.Time) string {
	u := a.NewUUID() // random bits, version 4 layout
	ms := uint64(t.UnixMilli())
	h := fmt.Sprintf("%012x", ms&0xffffffffffff)
	return h[:8] + "-" + h[8:12] + "-7" + u[15:18] + u[18:]
}

// alreadyPublished answers 409 DEPLOYMENTS_ALREADY_PUBLISHED when the active
// sandbox deployment came from a merge and holds content, the main draft
// unchanged since (merge_deploy: sandbox, docs/fidelity.md D22).
func (a *Engine) AlreadyPublished(region string, d *AgentDoc, draft BranchContent) error {
	act := d.Active("sandbox")
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

// findDeployment looks a deployment up by id.
func (d *AgentDoc) FindDeployment(id string) *Deployment {
	for _, x := range d.Deployments {
		if x.ID == id {
			return x
		}
	}
	return nil
}
