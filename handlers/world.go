package handlers

import (
	"github.com/agentplatform/mockplatform/scenario"
)

// World is the immutable view of a scenario that requests read: accounts,
// projects and credentials indexed for lookup. A new scenario replaces the
// whole World atomically.
type World struct {
	sc      *scenario.Scenario
	creds   map[string]*scenario.Credential // by key
	scripts *scriptCache
	targets *scenario.HostList // webhooks.allowed_targets
}

// Fidelity switch names (docs/fidelity.md).
const (
	switchBuilderErrors  = "builder_errors"  // "spec" (default) | "envelope"
	switchInitialMessage = "initial_message" // "accept" (default) | "reject"
)

func newWorld(sc *scenario.Scenario) *World {
	w := &World{sc: sc, creds: make(map[string]*scenario.Credential, len(sc.Credentials)), scripts: &scriptCache{},
		targets: sc.TargetList()}
	for i := range sc.Credentials {
		c := &sc.Credentials[i]
		w.creds[c.Key] = c
	}
	return w
}

// Scenario returns the world's scenario (read-only).
func (w *World) Scenario() *scenario.Scenario { return w.sc }

// fidelity returns the value of a fidelity switch ("" when unset).
func (w *World) fidelity(name string) string { return w.sc.Fidelity[name] }

// account resolves an account path segment: slug, id, ACCOUNT-<id> or ws-<id>.
func (w *World) account(ref string) *scenario.Account { return w.sc.Account(ref) }

// credential returns the credential with this key, nil when unknown or
// disabled.
func (w *World) credential(key string) *scenario.Credential {
	c := w.creds[key]
	if c == nil || c.Disabled {
		return nil
	}
	return c
}

// maxBody is the request body limit in bytes.
func (w *World) maxBody() int64 {
	if n := w.sc.Limits.MaxBodyBytes; n > 0 {
		return n
	}
	return DefaultMaxBodyBytes
}
