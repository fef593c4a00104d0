// Package audio is the Agents API's voice library and audio cache: an
// account's voices beside the curated ones, with signed samples, and each
// agent's synthesized utterances. It asks the engine for agents and
// connector voices through Agents.
package audio

import (
	"sync"

	"github.com/agentplatform/mockplatform/engine/core"
	"github.com/agentplatform/mockplatform/store"
)

// Service is one instance's voice libraries and audio caches.
type Service struct {
	env    core.Env
	agents Agents
	// voiceMu is held across a voice library's store update.
	voiceMu sync.Mutex
	// cacheMu is held across an audio cache write's two store calls (entry
	// and file); taken under the engine's agents lock (agent delete).
	cacheMu sync.Mutex
}

// Agents is what the audio services need of the engine.
type Agents interface {
	// AgentID resolves an agent of the principal's account (404 or 403).
	AgentID(p *core.Principal, agent string) (string, error)
	// ConnectorVoice is the voice of the connector a conversation called
	// ("" when none).
	ConnectorVoice(conv *store.Conversation) string
}

// New returns the voice libraries and audio caches of an instance.
func New(env core.Env, agents Agents) *Service { return &Service{env: env, agents: agents} }
