package engine

// What the messaging edge and the engine share: connector ids and the
// variant a session's token names.

import (
	"crypto/sha256"
	"encoding/hex"

	"github.com/agentplatform/mockplatform/scenario"
)

// ConnectorID names a connector token in tokens and records without
// revealing it: CONNECTOR- and the first 12 hex digits of its SHA-256.
func ConnectorID(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "CONNECTOR-" + hex.EncodeToString(sum[:6])
}

// SessionVariant is the token's variant, else the project's default.
func SessionVariant(proj *scenario.Project, id string) *scenario.Variant {
	if v := proj.Variant(id); v != nil {
		return v
	}
	for i := range proj.Variants {
		if proj.Variants[i].Default {
			return &proj.Variants[i]
		}
	}
	return nil
}
