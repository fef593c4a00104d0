package engine

// The conversation rules' (engine/dialogue) names the engine and edge use.

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
