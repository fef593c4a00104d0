package scenario

// The timeline block's types: fault windows, background traffic and
// scheduled actions (docs/timeline.md). timeline_validate.go checks them;
// package timeline computes when each entry fires.

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/faults"
)

// TimelineEntry is one entry of a timeline. Exactly one of Fault, Traffic,
// Calls, Sessions and Do says what it is; the timing keys it takes depend
// on that (docs/timeline.md):
//
//   - a fault window: At (default 0s), For (default: no end), Every, Until;
//   - background traffic (Traffic, Calls, Sessions): From (default 0s) and
//     Until (required);
//   - an action (Do): At (default 0s), Every, Until.
//
// Every offset is virtual time after the scenario's start (or the last
// reset).
type TimelineEntry struct {
	// ID names the entry in the control plane and the journal (optional,
	// unique). A fault window's rule takes it as its id when the rule has
	// none.
	ID string `yaml:"id" json:"id,omitempty"`
	// At is when a fault window opens or an action runs (default 0s).
	At Duration `yaml:"at" json:"at,omitempty"`
	// For is how long a fault window stays open (default: to the end of
	// the run).
	For Duration `yaml:"for" json:"for,omitempty"`
	// Every repeats a fault window or an action, at At, At+Every, ...
	// (1s to 8760h; a window must be shorter than it).
	Every Duration `yaml:"every" json:"every,omitempty"`
	// From is when background traffic starts (default 0s).
	From Duration `yaml:"from" json:"from,omitempty"`
	// Until is when background traffic stops (required), or, with Every,
	// the time from which no repetition starts.
	Until Duration `yaml:"until" json:"until,omitempty"`

	// Fault is the rule of a fault window: it holds only inside the
	// window (the same rule shape as faults).
	Fault *faults.Rule `yaml:"fault" json:"fault,omitempty"`
	// Traffic is background chat traffic.
	Traffic *ChatTraffic `yaml:"traffic" json:"traffic,omitempty"`
	// Calls is background voice traffic: callers dial a number.
	Calls *CallTraffic `yaml:"calls" json:"calls,omitempty"`
	// Sessions is background messaging traffic.
	Sessions *SessionTraffic `yaml:"sessions" json:"sessions,omitempty"`
	// Do is a scheduled action.
	Do *TimelineAction `yaml:"do" json:"do,omitempty"`
}

// Timeline entry kinds (TimelineEntry.Kind).
const (
	EntryFault    = "fault"
	EntryTraffic  = "traffic"
	EntryCalls    = "calls"
	EntrySessions = "sessions"
	EntryAction   = "do"
)

// EntryKinds lists the kinds in the order the docs use.
var EntryKinds = []string{EntryFault, EntryTraffic, EntryCalls, EntrySessions, EntryAction}

// Kind is the entry's kind: the first block set ("" when none is).
func (e *TimelineEntry) Kind() string {
	switch {
	case e.Fault != nil:
		return EntryFault
	case e.Traffic != nil:
		return EntryTraffic
	case e.Calls != nil:
		return EntryCalls
	case e.Sessions != nil:
		return EntrySessions
	case e.Do != nil:
		return EntryAction
	}
	return ""
}

// Flow is what every kind of background traffic shares: how the rate
// ramps, how arrivals are spread and what each conversation says. The
// rate itself is the kind's own key (chats_per_minute, calls_per_minute,
// sessions_per_minute): the rate at From, changing linearly to RampTo at
// Until.
type Flow struct {
	// RampTo is the rate at until, per minute (default: the start rate,
	// no ramp).
	RampTo *float64 `yaml:"ramp_to" json:"ramp_to,omitempty"`
	// Arrivals is how conversations arrive: poisson (default; a seeded
	// Poisson process of the ramped rate) or even (evenly spaced: the
	// n-th arrives when the expected count reaches n).
	Arrivals string `yaml:"arrivals" json:"arrivals,omitempty"`
	// Turns is how many messages the user sends in each conversation,
	// picked uniformly: "2-6" or "3" (default 2-6).
	Turns Range `yaml:"turns" json:"turns,omitzero"`
	// Think is the pause before each message and before the user ends,
	// picked uniformly: "10s-30s" or "20s" (default 10s-30s).
	Think DurationSpan `yaml:"think" json:"think,omitzero"`
	// Messages are what the user says, one picked at random for each turn
	// (default: "hello", "I have a question", "thanks").
	Messages []string `yaml:"messages" json:"messages,omitempty"`
	// Seed of the entry's draws (default: derived from the scenario's seed
	// and the entry's position in the timeline).
	Seed int64 `yaml:"seed" json:"seed,omitempty"`
}

// ChatTraffic is background chat traffic: conversations created, spoken
// to and closed through the chat API's engine, as a client would.
type ChatTraffic struct {
	// Account is the project's account (slug or id; default: the one
	// account that has the project).
	Account string `yaml:"account" json:"account,omitempty"`
	// Project is the project (slug, id or PROJECT-<id>; required).
	Project string `yaml:"project" json:"project"`
	// ChatsPerMinute is the rate at from (0 to 600; 0 with ramp_to ramps
	// up from nothing).
	ChatsPerMinute float64 `yaml:"chats_per_minute" json:"chats_per_minute"`
	// Channel is chat create's channel: webchat, whatsapp, sms or api
	// (default api, the record's label CHAT).
	Channel string `yaml:"channel" json:"channel,omitempty"`
	// Variant is a variant of the project, id or name (default: the
	// project's default variant).
	Variant string `yaml:"variant" json:"variant,omitempty"`
	// Environment is the client environment: live (default),
	// pre-release or sandbox.
	Environment string `yaml:"environment" json:"environment,omitempty"`
	Flow        `yaml:",inline"`
}

// CallTraffic is background voice traffic: callers dial a number (a
// connector's number, or a reserved dni number), speak and hang up, as
// the simulated inbound dial does.
type CallTraffic struct {
	// Number is the number dialled (E.164; required).
	Number string `yaml:"number" json:"number"`
	// From is the caller's number (default: a seeded +1555 number per
	// call).
	From string `yaml:"from" json:"from,omitempty"`
	// CallsPerMinute is the rate at from (0 to 600).
	CallsPerMinute float64 `yaml:"calls_per_minute" json:"calls_per_minute"`
	Flow           `yaml:",inline"`
}

// SessionTraffic is background messaging traffic: sessions opened with a
// connector token of the project, spoken to and ended by the user.
type SessionTraffic struct {
	// Account is the project's account (default: the one account that
	// has the project).
	Account string `yaml:"account" json:"account,omitempty"`
	// Project is the project (required). It needs a connector credential
	// with hosts in the environment.
	Project string `yaml:"project" json:"project"`
	// SessionsPerMinute is the rate at from (0 to 600).
	SessionsPerMinute float64 `yaml:"sessions_per_minute" json:"sessions_per_minute"`
	// Environment is the client environment of the connector token used:
	// live (default), pre-release or sandbox.
	Environment string `yaml:"environment" json:"environment,omitempty"`
	// Streaming asks for streamed agent replies.
	Streaming bool `yaml:"streaming" json:"streaming,omitempty"`
	Flow      `yaml:",inline"`
}

// TimelineAction is a scheduled action: exactly one of its actions is
// given. Each maps to an operation of the API or the control plane.
type TimelineAction struct {
	// InboundCall is a caller dialling a number, speaking and hanging up
	// (POST /_mock/dni/dial, then say and hangup).
	InboundCall *InboundCall `yaml:"inbound_call" json:"inbound_call,omitempty"`
	// WebhookReceiver is down (deliveries fail as if the receiver
	// answered Status) or up (deliveries go out again).
	WebhookReceiver string `yaml:"webhook_receiver" json:"webhook_receiver,omitempty"`
	// For is how long the receiver stays down (default: until an up
	// action or a reset). Only with webhook_receiver: down.
	For Duration `yaml:"for" json:"for,omitempty"`
	// Status is what a down receiver answers (400 to 599, default 503).
	// Only with webhook_receiver: down.
	Status int `yaml:"status" json:"status,omitempty"`
	// Endpoint limits webhook_receiver to one webhook endpoint, by id or
	// name (default: every endpoint).
	Endpoint string `yaml:"endpoint" json:"endpoint,omitempty"`
	// OutboundCampaign places outbound calls (POST
	// /v1/outbound-calling), one every pace.
	OutboundCampaign *OutboundCampaign `yaml:"outbound_campaign" json:"outbound_campaign,omitempty"`
	// Publish publishes an agent's main branch to sandbox (POST
	// .../deployments/publish).
	Publish *Publish `yaml:"publish" json:"publish,omitempty"`
	// Promote promotes an agent's active deployment (POST
	// .../deployments/{id}/promote).
	Promote *Promote `yaml:"promote" json:"promote,omitempty"`
	// RealTimeConfig changes an agent's real-time config variables (PATCH
	// .../real-time-configs/{env}/variables).
	RealTimeConfig *ConfigChange `yaml:"real_time_config" json:"real_time_config,omitempty"`
	// ExternalEvent delivers an external event (POST
	// .../external-events/webhook).
	ExternalEvent *ExternalEvent `yaml:"external_event" json:"external_event,omitempty"`
	// APIErrors records API errors of a project, an input of the
	// api_errors alert metric (POST /_mock/alerts/inputs).
	APIErrors *APIErrors `yaml:"api_errors" json:"api_errors,omitempty"`
	// EvaluateAlerts runs an alert evaluation pass (POST
	// /_mock/alerts/evaluate).
	EvaluateAlerts bool `yaml:"evaluate_alerts" json:"evaluate_alerts,omitempty"`
	// ExpireMessagingSessions expires every live messaging session (POST
	// /_mock/messaging/sessions/{id}/expire for each).
	ExpireMessagingSessions bool `yaml:"expire_messaging_sessions" json:"expire_messaging_sessions,omitempty"`
	// ExpireMessagingTokens revokes every messaging access token issued so
	// far (POST /_mock/messaging/tokens/expire).
	ExpireMessagingTokens bool `yaml:"expire_messaging_tokens" json:"expire_messaging_tokens,omitempty"`
}

// Action names (TimelineAction.Name).
const (
	ActionInboundCall             = "inbound_call"
	ActionWebhookReceiver         = "webhook_receiver"
	ActionOutboundCampaign        = "outbound_campaign"
	ActionPublish                 = "publish"
	ActionPromote                 = "promote"
	ActionRealTimeConfig          = "real_time_config"
	ActionExternalEvent           = "external_event"
	ActionAPIErrors               = "api_errors"
	ActionEvaluateAlerts          = "evaluate_alerts"
	ActionExpireMessagingSessions = "expire_messaging_sessions"
	ActionExpireMessagingTokens   = "expire_messaging_tokens"
)

// ActionNames lists the action names in the order the docs use.
var ActionNames = []string{ActionInboundCall, ActionWebhookReceiver, ActionOutboundCampaign, ActionPublish,
	ActionPromote, ActionRealTimeConfig, ActionExternalEvent, ActionAPIErrors, ActionEvaluateAlerts,
	ActionExpireMessagingSessions, ActionExpireMessagingTokens}

func (a *TimelineAction) names() []string {
	var out []string
	for _, x := range []struct {
		name string
		set  bool
	}{
		{ActionInboundCall, a.InboundCall != nil},
		{ActionWebhookReceiver, a.WebhookReceiver != ""},
		{ActionOutboundCampaign, a.OutboundCampaign != nil},
		{ActionPublish, a.Publish != nil},
		{ActionPromote, a.Promote != nil},
		{ActionRealTimeConfig, a.RealTimeConfig != nil},
		{ActionExternalEvent, a.ExternalEvent != nil},
		{ActionAPIErrors, a.APIErrors != nil},
		{ActionEvaluateAlerts, a.EvaluateAlerts},
		{ActionExpireMessagingSessions, a.ExpireMessagingSessions},
		{ActionExpireMessagingTokens, a.ExpireMessagingTokens},
	} {
		if x.set {
			out = append(out, x.name)
		}
	}
	return out
}

// Name is the action's name: the first action given ("" when none is).
func (a *TimelineAction) Name() string {
	if n := a.names(); len(n) > 0 {
		return n[0]
	}
	return ""
}

// Webhook receiver states.
const (
	ReceiverDown = "down"
	ReceiverUp   = "up"
)

// DefaultReceiverStatus is what a down webhook receiver answers.
const DefaultReceiverStatus = 503

// InboundCall is a caller dialling a number: the call starts, the caller
// says each line after a pause and hangs up a pause after the last.
type InboundCall struct {
	// Number is the number dialled (E.164; required): a connector's
	// number, or a dni number (which needs an active reservation then).
	Number string `yaml:"number" json:"number"`
	// From is the caller's number (default: a seeded +1555 number).
	From string `yaml:"from" json:"from,omitempty"`
	// Say are the caller's lines, one per turn ("" is a silent turn).
	Say []string `yaml:"say" json:"say,omitempty"`
	// Think is the pause before each line and before the hang-up, "10s"
	// or "5s-20s" (default 10s-30s).
	Think DurationSpan `yaml:"think" json:"think,omitzero"`
}

// OutboundCampaign places outbound calls for a project: one call every
// Pace, to Numbers in order, or to Count consecutive numbers from First.
type OutboundCampaign struct {
	// Account is the project's account (default: the one account that
	// has the project).
	Account string `yaml:"account" json:"account,omitempty"`
	// Project is a project with outbound calling enabled (required).
	Project string `yaml:"project" json:"project"`
	// Numbers are the numbers called, E.164, in order.
	Numbers []string `yaml:"numbers" json:"numbers,omitempty"`
	// First and Count call Count consecutive numbers from First
	// (+15550100000, +15550100001, ...), instead of Numbers.
	First string `yaml:"first" json:"first,omitempty"`
	Count int    `yaml:"count" json:"count,omitempty"`
	// Pace is the time between two calls (default 1s; 0s places them all
	// at once).
	Pace *Duration `yaml:"pace" json:"pace,omitempty"`
	// Metadata is each call's metadata (its SIP headers).
	Metadata map[string]string `yaml:"metadata" json:"metadata,omitempty"`
}

// DefaultCampaignPace is the time between two calls of a campaign.
const DefaultCampaignPace = time.Second

// CampaignNumbers lists the numbers a campaign calls, in order (nil when
// First is not a number or Count out of bounds).
func (c *OutboundCampaign) CampaignNumbers() []string {
	if len(c.Numbers) > 0 {
		return c.Numbers
	}
	if !E164RE.MatchString(c.First) || c.Count < 1 || c.Count > MaxCampaignCalls {
		return nil
	}
	digits := c.First[1:]
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		return nil
	}
	out := make([]string, 0, c.Count)
	for i := range c.Count {
		s := strconv.FormatUint(n+uint64(i), 10)
		if len(s) < len(digits) {
			s = strings.Repeat("0", len(digits)-len(s)) + s
		}
		out = append(out, "+"+s)
	}
	return out
}

// CampaignPace is the time between two calls.
func (c *OutboundCampaign) CampaignPace() time.Duration {
	if c.Pace == nil {
		return DefaultCampaignPace
	}
	return c.Pace.D()
}

// Publish publishes an agent's main branch to sandbox.
type Publish struct {
	// Account is the agent's account (default: the one account that has
	// it).
	Account string `yaml:"account" json:"account,omitempty"`
	// Agent is the agent: the project's slug, id or PROJECT-<id>
	// (required).
	Agent string `yaml:"agent" json:"agent"`
	// Message is the deployment message.
	Message string `yaml:"message" json:"message,omitempty"`
}

// Promote promotes the deployment active in From to To.
type Promote struct {
	// Account is the agent's account (default: the one account that has
	// it).
	Account string `yaml:"account" json:"account,omitempty"`
	// Agent is the agent (required).
	Agent string `yaml:"agent" json:"agent"`
	// To is pre-release or live (required).
	To string `yaml:"to" json:"to"`
	// From is the environment whose active deployment is promoted
	// (default: the one before To: sandbox for pre-release, pre-release
	// for live).
	From string `yaml:"from" json:"from,omitempty"`
	// Message is the deployment message.
	Message string `yaml:"message" json:"message,omitempty"`
}

// ConfigChange sets real-time config variables of an agent.
type ConfigChange struct {
	// Account is the agent's account (default: the one account that has
	// it).
	Account string `yaml:"account" json:"account,omitempty"`
	// Agent is the agent (required).
	Agent string `yaml:"agent" json:"agent"`
	// Environment is the config page: live (default), pre-release or
	// sandbox.
	Environment string `yaml:"environment" json:"environment,omitempty"`
	// Variables are set (null removes one), and checked against the
	// page's schema when the action runs.
	Variables map[string]any `yaml:"variables" json:"variables"`
}

// ExternalEvent delivers an external event to a project: a JSON body with
// the id at its top-level key event_id, as POST external-events/webhook
// with event_id_location payload would.
type ExternalEvent struct {
	// Account is the project's account (default: the one account that
	// has the project).
	Account string `yaml:"account" json:"account,omitempty"`
	// Project is the project (required).
	Project string `yaml:"project" json:"project"`
	// EventID is the event's id (required; 1 to 256 characters, no
	// whitespace).
	EventID string `yaml:"event_id" json:"event_id"`
	// Payload are the body's other keys.
	Payload map[string]any `yaml:"payload" json:"payload,omitempty"`
}

// APIErrors records Count API errors of a project.
type APIErrors struct {
	// Account is the project's account (default: the one account that
	// has the project).
	Account string `yaml:"account" json:"account,omitempty"`
	// Project is the project (required).
	Project string `yaml:"project" json:"project"`
	// Count is the number of errors (1 to 10000, default 1).
	Count int `yaml:"count" json:"count,omitempty"`
}

// Range is a closed range of non-negative integers written "2-6" (or "3"
// for 3-3). The zero value is unset.
type Range struct{ Min, Max int }

// String writes the range as "2-6" ("3" when Min is Max).
func (r Range) String() string {
	if r.Min == r.Max {
		return strconv.Itoa(r.Min)
	}
	return strconv.Itoa(r.Min) + "-" + strconv.Itoa(r.Max)
}

// MarshalText writes the range as String does.
func (r Range) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads "2-6" or "3".
func (r *Range) UnmarshalText(b []byte) error {
	lo, hi, two := strings.Cut(strings.TrimSpace(string(b)), "-")
	a, err1 := strconv.Atoi(strings.TrimSpace(lo))
	c, err2 := a, error(nil)
	if two {
		c, err2 = strconv.Atoi(strings.TrimSpace(hi))
	}
	if err1 != nil || err2 != nil || a < 0 || c < a {
		return fmt.Errorf("invalid range %q (want e.g. 2-6 or 3)", b)
	}
	*r = Range{a, c}
	return nil
}

// DurationSpan is a closed range of durations written "10s-30s" (or "20s"
// for 20s-20s). The zero value is unset.
type DurationSpan struct{ Min, Max Duration }

// String writes the span as "10s-30s" ("20s" when Min is Max).
func (d DurationSpan) String() string {
	if d.Min == d.Max {
		return d.Min.String()
	}
	return d.Min.String() + "-" + d.Max.String()
}

// MarshalText writes the span as String does.
func (d DurationSpan) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads "10s-30s" or "20s".
func (d *DurationSpan) UnmarshalText(b []byte) error {
	lo, hi, two := strings.Cut(strings.TrimSpace(string(b)), "-")
	a, err1 := time.ParseDuration(strings.TrimSpace(lo))
	c, err2 := a, error(nil)
	if two {
		c, err2 = time.ParseDuration(strings.TrimSpace(hi))
	}
	if err1 != nil || err2 != nil || a < 0 || c < a {
		return fmt.Errorf("invalid duration range %q (want e.g. 10s-30s or 20s)", b)
	}
	*d = DurationSpan{Duration(a), Duration(c)}
	return nil
}

// Traffic defaults.
var (
	DefaultTurns    = Range{2, 6}
	DefaultThink    = DurationSpan{Duration(10 * time.Second), Duration(30 * time.Second)}
	DefaultMessages = []string{"hello", "I have a question", "thanks"}
)

// Arrival processes of background traffic (Flow.Arrivals).
const (
	ArrivalsPoisson = "poisson"
	ArrivalsEven    = "even"
)

// ChatChannels are the channels of chat create.
var ChatChannels = []string{"webchat", "whatsapp", "sms", "api"}

var promoteOrder = []string{"sandbox", "pre-release", "live"}

// mergeTimeline appends a later file's timeline; entries are copied so
// validation, which fills in defaults, never writes into the inputs.
func mergeTimeline(dst *Scenario, src *Scenario) {
	for _, e := range src.Timeline {
		dst.Timeline = append(dst.Timeline, cloneEntry(e))
	}
}

// cloneEntry copies an entry and what validation writes into.
func cloneEntry(e TimelineEntry) TimelineEntry {
	if e.Fault != nil {
		r := *e.Fault
		e.Fault = &r
	}
	if e.Traffic != nil {
		x := *e.Traffic
		e.Traffic = &x
	}
	if e.Calls != nil {
		x := *e.Calls
		e.Calls = &x
	}
	if e.Sessions != nil {
		x := *e.Sessions
		e.Sessions = &x
	}
	if e.Do != nil {
		a := *e.Do
		if a.InboundCall != nil {
			x := *a.InboundCall
			a.InboundCall = &x
		}
		if a.OutboundCampaign != nil {
			x := *a.OutboundCampaign
			a.OutboundCampaign = &x
		}
		if a.Publish != nil {
			x := *a.Publish
			a.Publish = &x
		}
		if a.Promote != nil {
			x := *a.Promote
			a.Promote = &x
		}
		if a.RealTimeConfig != nil {
			x := *a.RealTimeConfig
			x.Variables = maps.Clone(x.Variables)
			a.RealTimeConfig = &x
		}
		if a.ExternalEvent != nil {
			x := *a.ExternalEvent
			a.ExternalEvent = &x
		}
		if a.APIErrors != nil {
			x := *a.APIErrors
			a.APIErrors = &x
		}
		e.Do = &a
	}
	return e
}

// FaultRuleID is the id of a fault window's rule: its own, else the entry's.
func (e *TimelineEntry) FaultRuleID() string {
	if e.Fault == nil {
		return ""
	}
	if e.Fault.ID != "" {
		return e.Fault.ID
	}
	return e.ID
}

// redactTimeline returns the timeline with fault windows redacted.
func redactTimeline(tl []TimelineEntry) []TimelineEntry {
	if !slices.ContainsFunc(tl, func(e TimelineEntry) bool { return e.Fault != nil }) {
		return tl
	}
	out := slices.Clone(tl)
	for i := range out {
		if out[i].Fault != nil {
			r := RedactFault(*out[i].Fault)
			out[i].Fault = &r
		}
	}
	return out
}
