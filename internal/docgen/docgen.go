// Package docgen generates docs/openapi.json, docs/scenario.schema.json
// and docs/parity.md from the code that serves them. go generate writes
// them; a test fails when a committed one is stale. Only the generator
// and the tests import it, so it never reaches mockd.
package docgen

//go:generate go run ./gen

import (
	"sync"

	"github.com/agentplatform/mockplatform/handlers"
)

// Document is one generated document.
type Document struct {
	// File is its path in the repository.
	File string
	// Generate makes its bytes.
	Generate func() ([]byte, error)
}

// Documents are the generated documents of the repository at root.
func Documents(root string) []Document {
	api := sync.OnceValues(func() ([]byte, error) { return OpenAPI(handlers.Families()) })
	return []Document{
		{File: "docs/openapi.json", Generate: api},
		{File: "docs/scenario.schema.json", Generate: func() ([]byte, error) { return ScenarioSchema(root, handlers.Vocabulary()) }},
		{File: "docs/parity.md", Generate: func() ([]byte, error) {
			doc, err := api()
			if err != nil {
				return nil, err
			}
			return Parity(handlers.Families(), doc)
		}},
	}
}
