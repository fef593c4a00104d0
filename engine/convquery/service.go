// Package convquery reads the conversation records: the Conversations
// API's listings (filters, keyset and offset paging, cursors, the v3
// retrieval modes), the concurrency series with its cache, and the
// agent-scoped conversations of the Agents API (a record by id, its
// recording, a page of them with the agent's debug chats). It writes
// nothing: chat, voice calls, messaging sessions and seeds write the
// records (the engine), and the store holds them.
package convquery

import (
	"github.com/agentplatform/mockplatform/engine/core"
	"github.com/agentplatform/mockplatform/store"
)

// Service is one instance's reads of its conversation records. Its own
// state is the concurrency cache (concurrencyState), behind its lock.
type Service struct {
	env    core.Env
	agents Agents
	conc   concurrencyState
}

// Agents is what the agent-scoped reads need of the Agents API: the
// agent a path names, and its debug chats, which are kept apart from the
// conversation store.
type Agents interface {
	// Agent resolves an agent of the principal's account (404 or 403 as
	// the Agents API answers).
	Agent(p *core.Principal, agent string) (Agent, error)
	// DebugChats lists an agent's debug chats in a region (unordered).
	DebugChats(region string, ag Agent) ([]*store.Conversation, error)
	// DebugChat reads a debug chat of the agent by id; when the agent has
	// none by this id, it is the API's 404 of an unknown conversation.
	DebugChat(region string, ag Agent, id string) (*store.Conversation, error)
}

// Agent is an agent as the reads see it: its account and id (the id of
// its scenario project).
type Agent struct{ AccountID, ID string }

// New returns the reads of an instance.
func New(env core.Env, agents Agents) *Service { return &Service{env: env, agents: agents} }

// Reset keeps the concurrency cache on purpose: a reset restores the
// snapshot's stored strings, the very strings the cache was built from,
// so its next rebuild reuses every entry (a key scan instead of a JSON
// decode per record) and a test suite that resets between tests over a
// large generated data set stays fast.
func (s *Service) Reset() {}
