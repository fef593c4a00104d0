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
	// Name is a free-form label.
	Name string `yaml:"name" json:"name"`
	// Seed drives every random choice of the instance (0 means 1).
	Seed        int64        `yaml:"seed" json:"seed"`
	Clock       Clock        `yaml:"clock" json:"clock"`
	Accounts    []Account    `yaml:"accounts" json:"accounts"`
	Credentials []Credential `yaml:"credentials" json:"credentials"`
	Limits      Limits       `yaml:"limits" json:"limits"`
	// Faults are fault rules active from the start and every reset.
	Faults []faults.Rule `yaml:"faults" json:"faults"`
	// Timeline is what happens at virtual times after the start.
	Timeline []TimelineEntry `yaml:"timeline" json:"timeline,omitempty"`
	// Fidelity selects behaviours where the spec and the real service
	// differ (docs/fidelity.md).
	Fidelity map[string]string `yaml:"fidelity" json:"fidelity,omitempty"`

	// Family blocks (types in the family's file).

	Alerts    AlertSettings      `yaml:"alerts" json:"alerts,omitzero"`
	Messaging *MessagingSettings `yaml:"messaging" json:"messaging,omitempty"`
	Outbound  *OutboundSettings  `yaml:"outbound" json:"outbound,omitempty"`
	Webhooks  *WebhookSettings   `yaml:"webhooks" json:"webhooks,omitempty"`
}

// Clock is the clock block of a scenario.
type Clock struct {
	// Start is the virtual time at start and every reset (zero:
	// 2026-01-01T00:00:00Z).
	Start time.Time `yaml:"start" json:"start"`
}

// Account is one account (workspace) with its projects.
type Account struct {
	Slug string `yaml:"slug" json:"slug"`
	// ID is the id; paths accept it, "ACCOUNT-<id>", "ws-<id>" or the slug.
	ID string `yaml:"id" json:"id"`
	// Region is the account's region pair: "us", "uk" or "eu".
	Region   string    `yaml:"region" json:"region"`
	Projects []Project `yaml:"projects" json:"projects"`

	// Family blocks (types in the family's file).

	AlertRules       []AlertRule       `yaml:"alert_rules" json:"alert_rules,omitempty"`
	WebhookEndpoints []WebhookEndpoint `yaml:"webhook_endpoints" json:"webhook_endpoints,omitempty"`
	Outbound         *AccountOutbound  `yaml:"outbound" json:"outbound,omitempty"`
	Voices           []Voice           `yaml:"voices" json:"voices,omitempty"`
}

// Project is one project (agent) of an account.
type Project struct {
	Slug string `yaml:"slug" json:"slug"`
	// ID is the id; paths accept it, "PROJECT-<id>" or the slug.
	ID            string         `yaml:"id" json:"id"`
	Name          string         `yaml:"name" json:"name"`
	Variants      []Variant      `yaml:"variants" json:"variants"`
	Dialogue      Dialogue       `yaml:"dialogue" json:"dialogue"`
	Conversations []Conversation `yaml:"conversations" json:"conversations"`
	HandoffStates []HandoffState `yaml:"handoff_states" json:"handoff_states"`
	// DataAccess is what the Conversations API returns for this project.
	DataAccess *DataAccess `yaml:"data_access" json:"data_access,omitempty"`

	// Family blocks (types in the family's file).

	// DNI is the pool for dynamic number reservation; without it every
	// reservation answers 404.
	DNI      *DNIPool    `yaml:"dni" json:"dni,omitempty"`
	Generate []Generator `yaml:"generate" json:"generate,omitempty"`
	// Agent is the build side of the project's agent (agent id = project id).
	Agent      *AgentBuild       `yaml:"agent" json:"agent,omitempty"`
	Connectors []Connector       `yaml:"connectors" json:"connectors,omitempty"`
	Outbound   *ProjectOutbound  `yaml:"outbound" json:"outbound,omitempty"`
	Messaging  *ProjectMessaging `yaml:"messaging" json:"messaging,omitempty"`
}

// DataAccess toggles what the Conversations API returns for a project.
type DataAccess struct {
	// Transcripts off empties turns (default true).
	Transcripts *bool `yaml:"transcripts" json:"transcripts,omitempty"`
	// Metrics off empties metrics (default true).
	Metrics *bool `yaml:"metrics" json:"metrics,omitempty"`
}

// Variant is a project variant.
type Variant struct {
	ID      string `yaml:"id" json:"id"`
	Name    string `yaml:"name" json:"name"`
	Default bool   `yaml:"default" json:"default"`
}

// Dialogue is a dialogue script: it decides the agent's replies.
type Dialogue struct {
	Greeting string `yaml:"greeting" json:"greeting"`
	// Fallback is the reply when no rule matches (the turn is
	// out-of-domain).
	Fallback string `yaml:"fallback" json:"fallback"`
	// Rules are tried in order; the first match wins.
	Rules []Rule `yaml:"rules" json:"rules"`
	// Variants override the script per variant id: their rules first,
	// their greeting and fallback when set.
	Variants map[string]Dialogue `yaml:"variants" json:"variants,omitempty"`
}

// Rule is one dialogue rule: a match and its actions.
type Rule struct {
	// Name labels the rule in the journal and is the turn's intent.
	Name string `yaml:"name" json:"name"`
	// When is the match; an empty one always matches.
	When Match   `yaml:"when" json:"when"`
	Then Actions `yaml:"then" json:"then"`
}

// Match is the condition of a dialogue rule. All given parts must hold.
type Match struct {
	// Contains matches the message's text, case-insensitively.
	Contains string `yaml:"contains" json:"contains,omitempty"`
	Regex    string `yaml:"regex" json:"regex,omitempty"`
	// Turn matches the 1-based turn number (0: any).
	Turn     int               `yaml:"turn" json:"turn,omitempty"`
	Metadata map[string]string `yaml:"metadata" json:"metadata,omitempty"`
	// State matches conversation state values ("*": any value set).
	State map[string]string `yaml:"state" json:"state,omitempty"`
	// Event matches a received external event id ("*": any).
	Event string `yaml:"event" json:"event,omitempty"`
}

// Actions are what a rule does.
type Actions struct {
	// Reply is the agent's response, a text/template over .Message,
	// .Attributes, .State, .Metadata, .Turn, .Variables and .Match (the
	// when.regex submatches); other string actions are templates too.
	Reply string `yaml:"reply" json:"reply,omitempty"`
	// Handoff hands the conversation off, ending it and writing handoff
	// state.
	Handoff *Handoff       `yaml:"handoff" json:"handoff,omitempty"`
	End     bool           `yaml:"end" json:"end,omitempty"`
	Set     map[string]any `yaml:"set" json:"set,omitempty"`
	// Latency is the turn's latency (default 800ms).
	Latency Duration          `yaml:"latency" json:"latency,omitempty"`
	Metric  map[string]string `yaml:"metric" json:"metric,omitempty"`
	// FunctionError and Crash count inputs to alert metrics.
	FunctionError bool `yaml:"function_error" json:"function_error,omitempty"`
	Crash         bool `yaml:"crash" json:"crash,omitempty"`
	// AwaitEvent is an external event id the conversation waits for.
	AwaitEvent string `yaml:"await_event" json:"await_event,omitempty"`
}

// Handoff is the handoff action.
type Handoff struct {
	Destination string         `yaml:"destination" json:"destination"`
	Reason      string         `yaml:"reason" json:"reason"`
	Data        map[string]any `yaml:"data" json:"data,omitempty"`
	SharedID    string         `yaml:"shared_id" json:"shared_id,omitempty"`
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
	At      Duration `yaml:"at" json:"at,omitempty"`
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
	Kind    string `yaml:"kind" json:"kind"`
	Key     string `yaml:"key" json:"-"`
	Account string `yaml:"account" json:"account"`
	// Project restricts the credential to one project (required for chat,
	// connector, dni).
	Project string `yaml:"project" json:"project,omitempty"`
	// ClientEnv is a connector token's environment (default live).
	ClientEnv string `yaml:"client_env" json:"client_env,omitempty"`
	Variant   string `yaml:"variant" json:"variant,omitempty"`
	// Hosts are a connector token's registered domains (subdomains match).
	Hosts []string `yaml:"hosts" json:"hosts,omitempty"`
	// Disabled keys are refused as if unknown.
	Disabled bool `yaml:"disabled" json:"disabled,omitempty"`
}

// Limits override the default limits (docs/api.md#limits); zero: default.
type Limits struct {
	AlertRules       int      `yaml:"alert_rules" json:"alert_rules,omitempty"`
	WebhookEndpoints int      `yaml:"webhook_endpoints" json:"webhook_endpoints,omitempty"`
	MaxBodyBytes     int64    `yaml:"max_body_bytes" json:"max_body_bytes,omitempty"`
	JournalSize      int      `yaml:"journal_size" json:"journal_size,omitempty"`
	JournalBodyBytes int      `yaml:"journal_body_bytes" json:"journal_body_bytes,omitempty"`
	SessionIdle      Duration `yaml:"session_idle" json:"session_idle,omitempty"`
	// WSSendQueueMessages and WSSendQueueBytes bound what a messaging
	// WebSocket holds for a client that does not read; past either it
	// closes with 1013.
	WSSendQueueMessages int   `yaml:"ws_send_queue_messages" json:"ws_send_queue_messages,omitempty"`
	WSSendQueueBytes    int64 `yaml:"ws_send_queue_bytes" json:"ws_send_queue_bytes,omitempty"`
	// ConversationRetention drops ended conversation records that started
	// longer ago than this (default: kept for ever).
	ConversationRetention Duration `yaml:"conversation_retention" json:"conversation_retention,omitempty"`
}

// Duration is a time.Duration written as a Go duration string ("5m").
type Duration = clock.Duration
