// Package docgen generates the documents the repository publishes from
// the code that serves them: the OpenAPI document of the emulated API
// (docs/openapi.json) from the family table, and the JSON Schema of
// scenario files (docs/scenario.schema.json) from the scenario types, the
// validator's rules and the table's vocabulary. go generate writes them;
// a test fails when a committed one is stale. Only the generator and the
// tests import it, so neither the reflection library nor this package
// reaches mockd.
package docgen

//go:generate go run ./gen

import "github.com/agentplatform/mockplatform/handlers"

// Document is one generated document.
type Document struct {
	// File is its path in the repository.
	File string
	// Generate makes its bytes.
	Generate func() ([]byte, error)
}

// Documents are the generated documents of the repository at root.
func Documents(root string) []Document {
	return []Document{
		{File: "docs/openapi.json", Generate: func() ([]byte, error) { return OpenAPI(handlers.Families()) }},
		{File: "docs/scenario.schema.json", Generate: func() ([]byte, error) { return ScenarioSchema(root, handlers.Vocabulary()) }},
	}
}
