// Package audio is the Agents API's voice library and audio cache: the
// voices an account owns beside Poly's curated ones, with their signed
// samples, and each agent's synthesized utterances, cached from what it
// says in voice conversations, seeded, replaced by uploads, listed and
// deleted. Its writes are serialised by the Service's own locks; what it
// needs of the rest of the engine (the agent a path names, a connector's
// voice) it asks through Agents.
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
	// voiceMu serialises the voice libraries' writes: held across a
	// library's store update.
	voiceMu sync.Mutex
	// cacheMu serialises the audio cache's writes that touch two
	// documents (an entry and its uploaded file): held across both store
	// calls; taken under the engine's agents lock (agent delete).
	cacheMu sync.Mutex
}

// Agents is what the voice library and the audio cache need of the rest
// of the engine.
type Agents interface {
	// AgentID resolves an agent of the principal's account (404 or 403
	// as the Agents API answers): its id.
	AgentID(p *core.Principal, agent string) (string, error)
	// ConnectorVoice is the voice of the connector whose number a voice
	// conversation called ("" when none: an outbound call, a reserved
	// number).
	ConnectorVoice(conv *store.Conversation) string
}

// New returns the voice libraries and audio caches of an instance.
func New(env core.Env, agents Agents) *Service { return &Service{env: env, agents: agents} }
