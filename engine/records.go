package engine

import "github.com/agentplatform/mockplatform/store"

// The records the edge renders, as the store holds them, and the store's
// errors the engine passes on: the edge reaches the store only through the
// engine.
type (
	Conversation = store.Conversation
	Turn         = store.Turn
	Event        = store.Event
)

// ErrNotFound and ErrExists are the store's.
var (
	ErrNotFound = store.ErrNotFound
	ErrExists   = store.ErrExists
)
