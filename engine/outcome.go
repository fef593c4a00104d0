package engine

// The names of the conversation rules (engine/dialogue) that the
// conversation engine's files and the edge use: what the agent does in
// reply to a turn, and the dialogue's defaults.

import (
	"time"

	"github.com/agentplatform/mockplatform/engine/dialogue"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

type (
	// Outcome is what the agent does in reply to a turn.
	Outcome        = dialogue.Outcome
	turnInput      = dialogue.TurnInput
	handoffOutcome = dialogue.Handoff
	scriptCache    = dialogue.Scripts
)

// The dialogue's defaults.
const (
	DefaultLatency  = dialogue.DefaultLatency
	DefaultGreeting = dialogue.DefaultGreeting
	DefaultFallback = dialogue.DefaultFallback
)

// emptyDialogue answers with the defaults.
var emptyDialogue = scenario.Dialogue{}

// EndConversation marks a conversation finished at t.
func EndConversation(conv *store.Conversation, t time.Time) { dialogue.EndConversation(conv, t) }
