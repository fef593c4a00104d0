package engine

import (
	"github.com/agentplatform/mockplatform/engine/core"
	"github.com/agentplatform/mockplatform/scenario"
)

// View is the immutable view of a scenario that requests read (core.View:
// accounts, projects and credentials indexed for lookup), with what the
// engine compiles of it once: the dialogue's scripts and the webhook
// targets. A new scenario replaces the whole View atomically.
type View struct {
	core.View
	sc      *scenario.Scenario // View.Scenario()
	scripts *scriptCache
	targets *scenario.HostList // webhooks.allowed_targets
}

// Fidelity switch names (docs/fidelity.md).
const (
	SwitchBuilderErrors  = "builder_errors"  // "spec" (default) | "envelope"
	SwitchInitialMessage = "initial_message" // "accept" (default) | "reject"
)

func newView(sc *scenario.Scenario) *View {
	return &View{View: core.ViewOf(sc), sc: sc, scripts: &scriptCache{}, targets: sc.TargetList()}
}
