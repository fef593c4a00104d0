// Package convquery reads the conversation records: the Conversations
// API's listings and retrieval modes, the concurrency series with its
// cache, and the Agents API's agent-scoped conversations. It writes
// nothing.
package convquery

import (
	"github.com/agentplatform/mockplatform/engine/core"
	"github.com/agentplatform/mockplatform/store"
)

// Service is one instance's conversation reads; its state is the
// concurrency cache.
type Service struct {
	env    core.Env
	agents Agents
	conc   concurrencyState
}

// Agents is what the agent-scoped reads need of the Agents API.
type Agents interface {
	// Agent resolves an agent of the principal's account (404 or 403).
	Agent(p *core.Principal, agent string) (Agent, error)
	// DebugChats lists an agent's debug chats in a region (unordered).
	DebugChats(region string, ag Agent) ([]*store.Conversation, error)
	// DebugChat reads the agent's debug chat id, else the unknown
	// conversation 404.
	DebugChat(region string, ag Agent, id string) (*store.Conversation, error)
}

// Agent is an agent's account and id.
type Agent struct{ AccountID, ID string }

// New returns the reads of an instance.
func New(env core.Env, agents Agents) *Service { return &Service{env: env, agents: agents} }

// Reset keeps the concurrency cache on purpose: a restored snapshot holds
// the same records, so the next rebuild reuses every entry.
func (s *Service) Reset() {}
