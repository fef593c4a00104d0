package store

import "time"

// Conversation is one conversation record (docs/api.md#conversations-record),
// the shape every writer and reader of conversations shares. Region,
// AccountID and ProjectID are canonical ids (not slugs); times are UTC
// instants of the instance's virtual clock.
type Conversation struct {
	ID          string `json:"id"`
	Region      string `json:"region"` // region pair: us, uk, eu
	AccountID   string `json:"account_id"`
	ProjectID   string `json:"project_id"`
	VariantID   string `json:"variant_id"`
	VariantName string `json:"variant_name"`
	Environment string `json:"environment"` // live, pre-release, sandbox
	// Channel is the analytics label: WEBCHAT, CHAT, VOICE-SIP, ...
	Channel string `json:"channel"`
	// ChatChannel is the chat API's channel field (webchat, whatsapp, sms, api).
	ChatChannel string    `json:"chat_channel,omitempty"`
	StartedAt   time.Time `json:"started_at"`
	// EndedAt is zero while the conversation is in progress.
	EndedAt    time.Time `json:"ended_at"`
	InProgress bool      `json:"in_progress"`
	FromNumber string    `json:"from_number"`
	ToNumber   string    `json:"to_number"`
	// Language is the language code (asr_lang_code), e.g. en-GB.
	Language    string `json:"language"`
	TTSLanguage string `json:"tts_language,omitempty"`

	Handoff            bool   `json:"handoff"`
	HandoffReason      string `json:"handoff_reason"`
	HandoffDestination string `json:"handoff_destination"`
	NumSilences        int    `json:"num_silences"`
	NumOOD             int    `json:"num_ood"`

	// Metrics are custom metrics: a string, or strings if written again.
	Metrics map[string]any `json:"metrics"`
	// State holds all conversation variables: built-in keys, integration
	// attributes (under "integration_attributes") and set variables.
	State map[string]any `json:"state"`
	// IntegrationAttributes are kept for the whole conversation.
	IntegrationAttributes map[string]any `json:"integration_attributes,omitempty"`
	Turns                 []Turn         `json:"turns"`

	// FunctionErrors and Crashes count dialogue function errors and call
	// crashes (inputs to alert metrics), with the time of each.
	FunctionErrors []time.Time `json:"function_errors,omitempty"`
	Crashes        []time.Time `json:"crashes,omitempty"`

	// AwaitedEvents are external event ids the conversation waits for.
	AwaitedEvents []string `json:"awaited_events,omitempty"`
	// Events are external events bound to the conversation.
	Events []Event `json:"events,omitempty"`
	// SharedID is the integrator-defined id of its handoff state.
	SharedID string `json:"shared_id,omitempty"`
}

// NumTurns is the real count of turns.
func (c *Conversation) NumTurns() int { return len(c.Turns) }

// Duration is the duration up to its end, or now while in progress.
func (c *Conversation) Duration(now time.Time) time.Duration {
	end := c.EndedAt
	if c.InProgress || end.IsZero() {
		end = now
	}
	if end.Before(c.StartedAt) {
		return 0
	}
	return end.Sub(c.StartedAt)
}

// Turn is one turn of a conversation.
type Turn struct {
	UserInput            string            `json:"user_input"`
	UserInputAt          time.Time         `json:"user_input_datetime"`
	BargeIn              bool              `json:"barge_in,omitempty"`
	AgentResponse        string            `json:"agent_response"`
	AgentResponseAt      time.Time         `json:"agent_response_datetime"`
	Intents              []string          `json:"intents"`
	Entities             map[string]string `json:"entities"`
	IsOOD                bool              `json:"is_ood,omitempty"`
	IsSilence            bool              `json:"is_silence,omitempty"`
	TranslatedUserInput  string            `json:"translated_user_input,omitempty"`
	EnglishAgentResponse string            `json:"english_agent_response,omitempty"`
	Latency              time.Duration     `json:"latency"`
	Metadata             map[string]any    `json:"metadata,omitempty"`
}

// Event is an external event bound to a conversation.
type Event struct {
	ID          string    `json:"id"`
	ReceivedAt  time.Time `json:"received_at"`
	ContentType string    `json:"content_type"`
	Payload     []byte    `json:"payload"`
}

// HandoffState is a conversation's data for a downstream platform
// (docs/api.md#handoff).
type HandoffState struct {
	Region    string         `json:"region"`
	AccountID string         `json:"account_id"`
	ProjectID string         `json:"project_id"`
	ID        string         `json:"id"`
	SharedID  string         `json:"shared_id,omitempty"`
	Data      map[string]any `json:"data"`
	CreatedAt time.Time      `json:"created_at"`
}
