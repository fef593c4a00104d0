// Package scenario parses and validates mockplatform scenario files: the
// world a platform instance starts from (accounts, credentials, dialogue
// scripts, seeded records, limits, fault rules, clock, seed and timeline).
// Applying a scenario is the platform's job. Every error is reported as
// "file:line:column: message". YAML is confined to this package.
package scenario

import (
	"time"

	"github.com/agentplatform/mockplatform/clock"
	"github.com/agentplatform/mockplatform/faults"
)

// Scenario is one parsed, validated scenario file.
type Scenario struct {
	// Name is a free-form label shown by the control plane.
	Name string `yaml:"name" json:"name"`
	// Seed drives every random choice of the instance (IDs, sampling,
	// fault probabilities). Zero means the default seed 1.
	Seed int64 `yaml:"seed" json:"seed"`
	// Clock sets the virtual clock's start time.
	Clock Clock `yaml:"clock" json:"clock"`
	// Accounts, each with its projects. Every account lives in one region.
	Accounts []Account `yaml:"accounts" json:"accounts"`
	// Credentials are the keys and tokens the mock accepts.
	Credentials []Credential `yaml:"credentials" json:"credentials"`
	// Limits override the spec's default limits.
	Limits Limits `yaml:"limits" json:"limits"`
	// Faults are fault rules active from the start (and after every reset).
	Faults []faults.Rule `yaml:"faults" json:"faults"`
	// Timeline is what happens at a virtual time after the start (and
	// after every reset): fault windows, background traffic and scheduled
	// actions (timeline.go).
	Timeline []TimelineEntry `yaml:"timeline" json:"timeline,omitempty"`
	// Fidelity selects alternative behaviours where the spec and the real
	// service differ (see docs/fidelity.md). Keys are switch names.
	Fidelity map[string]string `yaml:"fidelity" json:"fidelity,omitempty"`

	// Family blocks (types in the family's file).

	// Alerts holds instance-wide alert settings (alerts.go).
	Alerts AlertSettings `yaml:"alerts" json:"alerts,omitzero"`
	// Messaging tunes the messaging sessions (messaging.go).
	Messaging *MessagingSettings `yaml:"messaging" json:"messaging,omitempty"`
	// Outbound tunes outbound calling as a whole (outbound.go).
	Outbound *OutboundSettings `yaml:"outbound" json:"outbound,omitempty"`
	// Webhooks restricts webhook delivery targets (webhook_targets.go).
	Webhooks *WebhookSettings `yaml:"webhooks" json:"webhooks,omitempty"`
}

// Clock is the clock block of a scenario.
type Clock struct {
	// Start is the virtual time at instance start and after every reset.
	// Zero means 2026-01-01T00:00:00Z.
	Start time.Time `yaml:"start" json:"start"`
}

// Account is one account (workspace) with its projects.
type Account struct {
	// Slug is the path form, e.g. "acme".
	Slug string `yaml:"slug" json:"slug"`
	// ID is the numeric or alphanumeric id; paths accept "ACCOUNT-<id>" and
	// "ws-<id>" as well as the slug.
	ID string `yaml:"id" json:"id"`
	// Region is the region pair the account's data lives in: "us", "uk" or
	// "eu" (runtime regions us-1, uk-1, euw-1).
	Region string `yaml:"region" json:"region"`
	// Projects of the account.
	Projects []Project `yaml:"projects" json:"projects"`

	// Family blocks (types in the family's file).

	// AlertRules are seeded alert rules of the account (alerts.go).
	AlertRules []AlertRule `yaml:"alert_rules" json:"alert_rules,omitempty"`
	// WebhookEndpoints are seeded webhook endpoints of the account
	// (webhooks.go).
	WebhookEndpoints []WebhookEndpoint `yaml:"webhook_endpoints" json:"webhook_endpoints,omitempty"`
	// Outbound holds the account's outbound calling configuration
	// (outbound.go).
	Outbound *AccountOutbound `yaml:"outbound" json:"outbound,omitempty"`
	// Voices are the account's own voices in its voice library
	// (voices.go).
	Voices []Voice `yaml:"voices" json:"voices,omitempty"`
}

// Project is one project (agent) of an account.
type Project struct {
	// Slug is the path form, e.g. "support".
	Slug string `yaml:"slug" json:"slug"`
	// ID is the id; paths accept "PROJECT-<id>" as well as the slug.
	ID string `yaml:"id" json:"id"`
	// Name is the display name of the agent.
	Name string `yaml:"name" json:"name"`
	// Variants of the project.
	Variants []Variant `yaml:"variants" json:"variants"`
	// Dialogue is the agent's script: what it says.
	Dialogue Dialogue `yaml:"dialogue" json:"dialogue"`
	// Conversations are seeded conversation records.
	Conversations []Conversation `yaml:"conversations" json:"conversations"`
	// HandoffStates are seeded handoff state records.
	HandoffStates []HandoffState `yaml:"handoff_states" json:"handoff_states"`
	// DataAccess is the per-key configuration of the Conversations API for
	// this project: transcript access and metrics.
	DataAccess *DataAccess `yaml:"data_access" json:"data_access,omitempty"`

	// Family blocks (types in the family's file).

	// DNI is the project's pool of numbers for dynamic number reservation
	// (dni.go). Without it every reservation answers 404 "no available
	// route found".
	DNI *DNIPool `yaml:"dni" json:"dni,omitempty"`
	// Generate asks for generated conversation records, besides the
	// explicit ones of Conversations (generate.go).
	Generate []Generator `yaml:"generate" json:"generate,omitempty"`
	// Agent is the build side of the project's agent (Agent ID = project
	// id): the content of its main branch, where it is deployed, and its
	// real-time configs (agents.go).
	Agent *AgentBuild `yaml:"agent" json:"agent,omitempty"`
	// Connectors are the project's telephony connectors, each with the
	// phone numbers routed to it (telephony.go).
	Connectors []Connector `yaml:"connectors" json:"connectors,omitempty"`
	// Outbound enables and shapes outbound calls of the project
	// (outbound.go).
	Outbound *ProjectOutbound `yaml:"outbound" json:"outbound,omitempty"`
	// Messaging sets how the agent appears in messaging sessions
	// (messaging.go).
	Messaging *ProjectMessaging `yaml:"messaging" json:"messaging,omitempty"`
}

// DataAccess toggles what the Conversations API returns for a project.
type DataAccess struct {
	// Transcripts off empties `turns` (num_turns stays true). Default true.
	Transcripts *bool `yaml:"transcripts" json:"transcripts,omitempty"`
	// Metrics off empties `metrics`. Default true.
	Metrics *bool `yaml:"metrics" json:"metrics,omitempty"`
}

// Variant is a project variant.
type Variant struct {
	// ID, e.g. "VARIANT-E5AAC615".
	ID string `yaml:"id" json:"id"`
	// Name may contain spaces.
	Name string `yaml:"name" json:"name"`
	// Default marks the default variant.
	Default bool `yaml:"default" json:"default"`
}

// Dialogue is a dialogue script: it decides the agent's replies.
type Dialogue struct {
	// Greeting is the reply to chat create (a template).
	Greeting string `yaml:"greeting" json:"greeting"`
	// Fallback is the reply when no rule matches; the turn is marked
	// out-of-domain. Default "Sorry, I didn't understand that."
	Fallback string `yaml:"fallback" json:"fallback"`
	// Rules are tried in order; the first that matches wins.
	Rules []Rule `yaml:"rules" json:"rules"`
	// Variants overrides the script per variant id: a variant's rules are
	// tried before the project's, and its greeting and fallback win when set.
	Variants map[string]Dialogue `yaml:"variants" json:"variants,omitempty"`
}

// Rule is one dialogue rule: a match and its actions.
type Rule struct {
	// Name labels the rule in the journal; it becomes the turn's intent.
	Name string `yaml:"name" json:"name"`
	// When is the match. An empty match always matches.
	When Match `yaml:"when" json:"when"`
	// Then are the actions.
	Then Actions `yaml:"then" json:"then"`
}

// Match is the condition of a dialogue rule. All given parts must hold.
type Match struct {
	// Contains matches when the message contains this text, case-insensitively.
	Contains string `yaml:"contains" json:"contains,omitempty"`
	// Regex matches the message against a Go regular expression.
	Regex string `yaml:"regex" json:"regex,omitempty"`
	// Turn matches the 1-based turn number of the user message (0: any).
	Turn int `yaml:"turn" json:"turn,omitempty"`
	// Metadata matches when every key has this value in the turn's metadata.
	Metadata map[string]string `yaml:"metadata" json:"metadata,omitempty"`
	// State matches when every key has this value in the conversation state
	// ("*" matches any value that is set).
	State map[string]string `yaml:"state" json:"state,omitempty"`
	// Event matches when an external event with this id has been received
	// ("*" matches any event).
	Event string `yaml:"event" json:"event,omitempty"`
}

// Actions are what a rule does.
type Actions struct {
	// Reply is the agent's response, a Go text/template over .Message,
	// .Attributes (integration attributes), .State, .Metadata, .Turn,
	// .Variables (real-time config) and .Match (the submatches of
	// when.regex: index 0 is the whole match, 1 the first group; empty
	// without a regex). String values of Set and Handoff.Data, AwaitEvent
	// and Handoff.SharedID are templates over the same data.
	Reply string `yaml:"reply" json:"reply,omitempty"`
	// Handoff hands the conversation off: it also ends the conversation
	// and writes handoff state.
	Handoff *Handoff `yaml:"handoff" json:"handoff,omitempty"`
	// End ends the conversation (end_conversation true).
	End bool `yaml:"end" json:"end,omitempty"`
	// Set sets conversation state variables.
	Set map[string]any `yaml:"set" json:"set,omitempty"`
	// Latency is the turn's latency (default 800ms).
	Latency Duration `yaml:"latency" json:"latency,omitempty"`
	// Metric logs a custom metric: name to value.
	Metric map[string]string `yaml:"metric" json:"metric,omitempty"`
	// FunctionError counts a function error (an input to alert metrics).
	FunctionError bool `yaml:"function_error" json:"function_error,omitempty"`
	// Crash counts a call crash (an input to alert metrics).
	Crash bool `yaml:"crash" json:"crash,omitempty"`
	// AwaitEvent registers an external event id the conversation waits for
	// (a template).
	AwaitEvent string `yaml:"await_event" json:"await_event,omitempty"`
}

// Handoff is the handoff action.
type Handoff struct {
	Destination string         `yaml:"destination" json:"destination"`
	Reason      string         `yaml:"reason" json:"reason"`
	Data        map[string]any `yaml:"data" json:"data,omitempty"`
	// SharedID is the integrator-defined id of the handoff state (a template).
	SharedID string `yaml:"shared_id" json:"shared_id,omitempty"`
}

// Conversation is a seeded conversation record.
type Conversation struct {
	ID          string         `yaml:"id" json:"id"`
	Variant     string         `yaml:"variant" json:"variant,omitempty"`
	Environment string         `yaml:"environment" json:"environment"`
	Channel     string         `yaml:"channel" json:"channel"`
	StartedAt   time.Time      `yaml:"started_at" json:"started_at"`
	Duration    Duration       `yaml:"duration" json:"duration,omitempty"`
	InProgress  bool           `yaml:"in_progress" json:"in_progress,omitempty"`
	FromNumber  string         `yaml:"from_number" json:"from_number,omitempty"`
	ToNumber    string         `yaml:"to_number" json:"to_number,omitempty"`
	Language    string         `yaml:"language" json:"language,omitempty"`
	Handoff     *Handoff       `yaml:"handoff" json:"handoff,omitempty"`
	State       map[string]any `yaml:"state" json:"state,omitempty"`
	Metrics     map[string]any `yaml:"metrics" json:"metrics,omitempty"`
	Turns       []Turn         `yaml:"turns" json:"turns,omitempty"`
}

// Turn is one seeded turn.
type Turn struct {
	User    string   `yaml:"user" json:"user"`
	Agent   string   `yaml:"agent" json:"agent"`
	Intents []string `yaml:"intents" json:"intents,omitempty"`
	OOD     bool     `yaml:"ood" json:"ood,omitempty"`
	Silence bool     `yaml:"silence" json:"silence,omitempty"`
	// At is the offset of the user input from the conversation start.
	At Duration `yaml:"at" json:"at,omitempty"`
	// Latency of the agent's answer (default 800ms).
	Latency Duration `yaml:"latency" json:"latency,omitempty"`
}

// HandoffState is a seeded handoff state record.
type HandoffState struct {
	ID       string         `yaml:"id" json:"id"`
	SharedID string         `yaml:"shared_id" json:"shared_id,omitempty"`
	Data     map[string]any `yaml:"data" json:"data"`
}

// Credential kinds, one per key family (docs/api.md#auth).
const (
	KindChat           = "chat"            // X-API-KEY of the Chat API
	KindConnector      = "connector"       // X-TOKEN of chat, X-Token of messaging
	KindBuilder        = "builder"         // x-api-key of agents, alerts, webhook endpoints
	KindConversations  = "conversations"   // x-api-key of conversations and concurrency
	KindOutbound       = "outbound"        // X-Service-Auth-Token
	KindExternalEvents = "external_events" // X-Api-Key of external events
	KindDNI            = "dni"             // x-api-key of number reservation
	KindHandoff        = "handoff"         // x-api-key of handoff state
)

// Credential is one key or token and its scope.
type Credential struct {
	// Kind is one of the Kind constants.
	Kind string `yaml:"kind" json:"kind"`
	// Key is the secret value.
	Key string `yaml:"key" json:"-"`
	// Account is the account slug or id the credential belongs to.
	Account string `yaml:"account" json:"account"`
	// Project restricts the credential to one project (empty: every
	// project of the account; required for chat, connector, dni).
	Project string `yaml:"project" json:"project,omitempty"`
	// ClientEnv is the client environment of a connector token:
	// live, pre-release or sandbox (default live).
	ClientEnv string `yaml:"client_env" json:"client_env,omitempty"`
	// Variant is the variant id a connector token routes to (optional).
	Variant string `yaml:"variant" json:"variant,omitempty"`
	// Hosts are the registered domains or app namespaces of a connector
	// token for the messaging access token (subdomains match).
	Hosts []string `yaml:"hosts" json:"hosts,omitempty"`
	// Disabled keys are refused as if unknown (to test revocation).
	Disabled bool `yaml:"disabled" json:"disabled,omitempty"`
}

// Limits override the default limits (docs/api.md#limits). Zero values
// mean the default.
type Limits struct {
	AlertRules       int `yaml:"alert_rules" json:"alert_rules,omitempty"`
	WebhookEndpoints int `yaml:"webhook_endpoints" json:"webhook_endpoints,omitempty"`
	// MaxBodyBytes bounds request bodies (default 1 MiB).
	MaxBodyBytes int64 `yaml:"max_body_bytes" json:"max_body_bytes,omitempty"`
	// JournalSize bounds the request journal ring (default 1000).
	JournalSize int `yaml:"journal_size" json:"journal_size,omitempty"`
	// JournalBodyBytes bounds the body bytes kept per journal entry
	// (default 4096).
	JournalBodyBytes int `yaml:"journal_body_bytes" json:"journal_body_bytes,omitempty"`
	// SessionIdle is the messaging session inactivity expiry (default 10m).
	SessionIdle Duration `yaml:"session_idle" json:"session_idle,omitempty"`
	// WSSendQueueMessages and WSSendQueueBytes bound the events a
	// messaging WebSocket holds for a client that does not read them
	// (default 256 events and 256 KiB); past either, the socket closes
	// with 1013 and the client reconnects with its cursor.
	WSSendQueueMessages int   `yaml:"ws_send_queue_messages" json:"ws_send_queue_messages,omitempty"`
	WSSendQueueBytes    int64 `yaml:"ws_send_queue_bytes" json:"ws_send_queue_bytes,omitempty"`
	// ConversationRetention, when set, drops conversation records (and
	// their handoff states) whose start is more than this long before
	// the virtual clock's now, once they have ended (default: kept for
	// ever).
	ConversationRetention Duration `yaml:"conversation_retention" json:"conversation_retention,omitempty"`
}

// Duration is a time.Duration written as a Go duration string ("5m").
type Duration = clock.Duration
