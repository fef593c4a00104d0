package scenario

import (
	_ "embed"
	"fmt"
)

//go:embed default.yaml
var defaultYAML []byte

// DefaultName is the file name the default scenario's errors would carry.
const DefaultName = "default.yaml"

// Default returns a freshly parsed copy of the embedded default scenario
// (docs/api.md#default-scenario).
func (voc *Vocabulary) Default() *Scenario {
	s, err := voc.Parse(DefaultName, defaultYAML)
	if err != nil {
		panic(fmt.Sprintf("scenario: embedded default scenario is invalid:\n%v", err))
	}
	return s
}

// DefaultYAML returns the embedded default scenario's bytes (a copy).
func DefaultYAML() []byte {
	return append([]byte(nil), defaultYAML...)
}
