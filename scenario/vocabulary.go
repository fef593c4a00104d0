package scenario

import "github.com/agentplatform/mockplatform/faults"

// Vocabulary is what a scenario's names may be: the credential kinds, and
// the families and presets of fault rules, supplied by the platform's
// family table. It is read-only once made.
type Vocabulary struct {
	// Kinds are the credential kinds, in the order the docs use.
	Kinds []string
	// ProjectKinds are the kinds whose credentials need a project.
	ProjectKinds []string
	Faults       *faults.Vocabulary
}
