package realapi

// What the root package's tests did with the mock's routes; its TestMain
// writes coverage.json (go test . -update-parity).

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

//go:embed coverage.json
var coverageJSON []byte

// CoverageSource says what coverage.json is.
const CoverageSource = "Written by the root package's test suite (go test . -update-parity): the routes its exchanges reached, " +
	"the routes whose exchanges under the real profile were checked against a real document, and what contradicted it."

// Coverage is what the suite did with the mock's routes, by Route.Key.
type Coverage struct {
	Source      string   `json:"source"`
	Exercised   []string `json:"exercised"`
	RealChecked []string `json:"realChecked"` // checked against a real document
	// Contradictions are, per route, what contradicted the real document
	// ("409: status not declared"), sorted.
	Contradictions map[string][]string `json:"contradictions"`
}

// LoadCoverage returns the committed coverage.
func LoadCoverage() (*Coverage, error) {
	var c Coverage
	dec := json.NewDecoder(bytes.NewReader(coverageJSON))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("realapi: coverage: %w", err)
	}
	return &c, nil
}

// NewCoverage makes a coverage from sets, sorted.
func NewCoverage(exercised, realChecked map[string]bool, contradictions map[string]map[string]bool) *Coverage {
	c := &Coverage{Source: CoverageSource, Exercised: sortedSet(exercised), RealChecked: sortedSet(realChecked),
		Contradictions: map[string][]string{}}
	for r, msgs := range contradictions {
		if len(msgs) > 0 {
			c.Contradictions[r] = sortedSet(msgs)
		}
	}
	return c
}

// Marshal encodes the coverage as it is committed.
func (c *Coverage) Marshal() ([]byte, error) { return marshal(c) }

func sortedSet(m map[string]bool) []string {
	out := slices.Sorted(maps.Keys(m))
	if out == nil {
		out = []string{}
	}
	return out
}
