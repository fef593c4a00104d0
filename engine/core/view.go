package core

import (
	"github.com/agentplatform/mockplatform/scenario"
)

// View is the immutable, indexed view of a scenario that requests read; a
// new scenario replaces it whole.
type View struct {
	sc    *scenario.Scenario
	creds map[string]*scenario.Credential // by key
}

// DefaultMaxBodyBytes bounds request bodies unless the scenario says otherwise.
const DefaultMaxBodyBytes = 1 << 20

// ViewOf indexes a scenario (a value, for embedding).
func ViewOf(sc *scenario.Scenario) View {
	w := View{sc: sc, creds: make(map[string]*scenario.Credential, len(sc.Credentials))}
	for i := range sc.Credentials {
		c := &sc.Credentials[i]
		w.creds[c.Key] = c
	}
	return w
}

// Scenario returns the view's scenario (read-only).
func (w *View) Scenario() *scenario.Scenario { return w.sc }

// Fidelity returns the value of a fidelity switch ("" when unset).
func (w *View) Fidelity(name string) string { return w.sc.Switch(name) }

// Account resolves an account path segment: slug, id, ACCOUNT-<id> or ws-<id>.
func (w *View) Account(ref string) *scenario.Account { return w.sc.Account(ref) }

// Credential returns the credential with this key (nil: unknown or
// disabled).
func (w *View) Credential(key string) *scenario.Credential {
	c := w.creds[key]
	if c == nil || c.Disabled {
		return nil
	}
	return c
}

// MaxBody is the request body limit in bytes.
func (w *View) MaxBody() int64 {
	if n := w.sc.Limits.MaxBodyBytes; n > 0 {
		return n
	}
	return DefaultMaxBodyBytes
}
