package engine

import (
	"github.com/agentplatform/mockplatform/scenario"
)

// World is the immutable view of a scenario that requests read: accounts,
// projects and credentials indexed for lookup. A new scenario replaces the
// whole World atomically.
type World struct {
	Sc      *scenario.Scenario
	creds   map[string]*scenario.Credential // by key
	scripts *scriptCache
	targets *scenario.HostList // webhooks.allowed_targets
}

// Fidelity switch names (docs/fidelity.md).
const (
	SwitchBuilderErrors  = "builder_errors"  // "spec" (default) | "envelope"
	SwitchInitialMessage = "initial_message" // "accept" (default) | "reject"
)

func newWorld(sc *scenario.Scenario) *World {
	w := &World{Sc: sc, creds: make(map[string]*scenario.Credential, len(sc.Credentials)), scripts: &scriptCache{},
		targets: sc.TargetList()}
	for i := range sc.Credentials {
		c := &sc.Credentials[i]
		w.creds[c.Key] = c
	}
	return w
}

// Scenario returns the world's scenario (read-only).
func (w *World) Scenario() *scenario.Scenario { return w.Sc }

// fidelity returns the value of a fidelity switch ("" when unset).
func (w *World) Fidelity(name string) string { return w.Sc.Switch(name) }

// account resolves an account path segment: slug, id, ACCOUNT-<id> or ws-<id>.
func (w *World) Account(ref string) *scenario.Account { return w.Sc.Account(ref) }

// credential returns the credential with this key, nil when unknown or
// disabled.
func (w *World) Credential(key string) *scenario.Credential {
	c := w.creds[key]
	if c == nil || c.Disabled {
		return nil
	}
	return c
}

// maxBody is the request body limit in bytes.
func (w *World) MaxBody() int64 {
	if n := w.Sc.Limits.MaxBodyBytes; n > 0 {
		return n
	}
	return DefaultMaxBodyBytes
}
