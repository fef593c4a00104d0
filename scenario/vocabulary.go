package scenario

import "github.com/agentplatform/mockplatform/faults"

// Vocabulary is what a scenario's names may be: the credential kinds of the
// platform's keys and the families and presets its fault rules may name.
// The platform's family table supplies it (this package knows no family);
// scenarios are parsed, loaded and merged in one. It is read-only once made.
type Vocabulary struct {
	// Kinds are the credential kinds, in the order the docs use.
	Kinds []string
	// ProjectKinds are the kinds whose credentials need a project.
	ProjectKinds []string
	// Faults are the families and presets of fault rules.
	Faults *faults.Vocabulary
}
