package mockplatform

// The bodies the control plane reads and answers; the control plane's
// OpenAPI document is generated from them.

import (
	"time"

	"github.com/agentplatform/mockplatform/engine"
)

// controlErrorBody is every control error: {"error": "..."}.
type controlErrorBody struct {
	Error string `json:"error"`
}

// healthAnswer is GET /_mock/health's: a host has Worlds, a world World.
type healthAnswer struct {
	Status string `json:"status"`
	World  string `json:"world,omitempty"`
	Worlds *int   `json:"worlds,omitempty"`
}

// startingAnswer is mockd's answer while it loads (cmd/mockd/boot.go).
type startingAnswer struct {
	Error    string           `json:"error,omitempty"`
	Progress *engine.Progress `json:"progress"`
	Status   string           `json:"status"`
}

// advanceInput is POST /_mock/clock/advance's body: duration or to.
type advanceInput struct {
	Duration string `json:"duration,omitempty"`
	To       string `json:"to,omitempty"`
}

type resetAnswer struct {
	Now    string `json:"now"`
	Status string `json:"status"`
}

type scenarioLoaded struct {
	Name   string `json:"name"`
	Now    string `json:"now"`
	Status string `json:"status"`
}

// problemsAnswer refuses an invalid scenario: one problem a line.
type problemsAnswer struct {
	Error    string   `json:"error"`
	Problems []string `json:"problems"`
}

type scenarioValid struct {
	Name  string `json:"name"`
	Valid bool   `json:"valid"`
}

type scenarioInvalid struct {
	Problems []scenarioProblem `json:"problems"`
	Valid    bool              `json:"valid"`
}

type requestsAnswer struct {
	Requests []Request `json:"requests"`
}

type faultsAnswer struct {
	Faults []FaultStatus `json:"faults"`
}

// dialInput is POST /_mock/dni/dial's body.
type dialInput struct {
	Number string `json:"number"`
	From   string `json:"from,omitempty"`
}

// sayInput is POST /_mock/calls/{id}/say's body ("" is silence).
type sayInput struct {
	Text *string `json:"text"`
}

type hangupAnswer struct {
	ConversationID string `json:"conversation_id"`
	Ended          bool   `json:"ended"`
}

type evaluatedAnswer struct {
	EvaluatedAt time.Time `json:"evaluated_at"`
}

// alertInput is POST /_mock/alerts/inputs's body.
type alertInput struct {
	Kind           string `json:"kind"`
	ConversationID string `json:"conversation_id,omitempty"`
	Account        string `json:"account,omitempty"`
	Project        string `json:"project,omitempty"`
}

type recordedAnswer struct {
	Recorded string `json:"recorded"`
}

type deliveriesAnswer struct {
	Deliveries []DeliveryAttempt `json:"deliveries"`
}

type sessionsAnswer struct {
	Sessions []MessagingSession `json:"sessions"`
}

type sessionExpired struct {
	Expired   bool   `json:"expired"`
	SessionID string `json:"session_id"`
}

type tokensExpired struct {
	Expired bool `json:"expired"`
}

// worldsAnswer is GET /_mock/worlds's.
type worldsAnswer struct {
	IdleTimeout string        `json:"idle_timeout,omitempty"`
	Max         int           `json:"max"`
	Worlds      []worldAnswer `json:"worlds"`
}

// tooManyWorlds refuses a world over the limit.
type tooManyWorlds struct {
	Error string `json:"error"`
	Limit int    `json:"limit"`
}
