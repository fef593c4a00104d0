package handlers

// The state machines of the families' resources and the kinds of work the
// virtual clock runs for them, as the engine implements them: the
// catalogue the coverage report counts transitions and clock events
// against (docs/coverage.md). Each belongs to one family (Family.Machines,
// Family.ClockEvents): chat conversations to chat, messaging sessions to
// messaging, branches and deployments to agents, alert rules to alerts,
// webhook endpoints and deliveries to webhooks, outbound calls to
// outbound, number reservations to dni, external events to
// external_events; conversation retention to conversations. The engine
// reports each move with coverage.Recorder.Transition(Name, from, to),
// from "" when the resource comes into being, and each run of clock work
// with ClockEvent(Kind).

import "github.com/agentplatform/mockplatform/coverage"

// Machine, Transition and ClockEvent are the coverage catalogue's.
type (
	Machine    = coverage.Machine
	Transition = coverage.Transition
	ClockEvent = coverage.ClockEvent
)

// moves lists transitions from each of froms to each of tos.
func moves(clock bool, froms []string, tos ...string) []Transition {
	var out []Transition
	for _, f := range froms {
		for _, t := range tos {
			if f != t {
				out = append(out, Transition{From: f, To: t, Clock: clock})
			}
		}
	}
	return out
}

// machineChatConversation is a chat conversation (engine/conversation.go,
// chat.go).
var machineChatConversation = &Machine{
	Name: "chat_conversation",
	Doc: "A Chat API conversation: created with the agent's greeting; responded once a user turn is answered; " +
		"handoff once the agent hands off (it stays in progress, and later turns keep it there); ended when the " +
		"agent ends it (an end or crash action); closed when the client closes it. A create with an initial " +
		"message that hands off or ends moves on from created in the same request.",
	States: []string{"created", "responded", "handoff", "ended", "closed"},
	Transitions: append([]Transition{
		{From: "", To: "created"},
		{From: "created", To: "responded"}, {From: "responded", To: "responded"},
		{From: "handoff", To: "handoff"},
	}, moves(false, []string{"created", "responded", "handoff"}, "handoff", "ended", "closed")...),
}

// machineMessagingSession is a live messaging session
// (messaging_session.go, messaging_socket.go).
var machineMessagingSession = &Machine{
	Name: "messaging_session",
	Doc: "A messaging session: created by POST /api/v1/sessions; connected once a socket attaches; idle_expired " +
		"when its inactivity timer falls due (or the control plane or a preset expires it); ended by the user " +
		"(USER_END) or the agent (the conversation's natural end).",
	States: []string{"created", "connected", "idle_expired", "ended"},
	Transitions: []Transition{
		{From: "", To: "created"},
		{From: "created", To: "connected"},
		{From: "created", To: "idle_expired", Clock: true},
		{From: "connected", To: "idle_expired", Clock: true},
		{From: "connected", To: "ended"},
	},
}

// machineBranch is an agent's branch (agents_branches.go).
var machineBranch = &Machine{
	Name: "branch",
	Doc: "A branch of an agent: created, then merged into main or conflicted (409, or 400 under " +
		"merge_conflict: \"400\") by a merge attempt, or deleted. No merge outcome is stored: the branch stays " +
		"open after either, so every merge attempt moves from created.",
	States: []string{"created", "merged", "conflicted", "deleted"},
	Transitions: []Transition{
		{From: "", To: "created"},
		{From: "created", To: "merged"},
		{From: "created", To: "conflicted"},
		{From: "created", To: "deleted"},
	},
}

// machineDeployment is an agent's deployed version, by environment
// (agents_deployments.go).
var machineDeployment = &Machine{
	Name: "deployment",
	Doc: "An agent's deployed version: published to sandbox (publish, or a merge under merge_deploy: sandbox), " +
		"promoted to pre-release, live, or rolled_back (a new sandbox deployment of an earlier version). A " +
		"promotion or a rollback moves from the state of the deployment it copies.",
	States: []string{"published", "promoted", "live", "rolled_back"},
	Transitions: append([]Transition{
		{From: "", To: "published"},
		{From: "published", To: "promoted"}, {From: "published", To: "live"},
		{From: "promoted", To: "live"},
		{From: "rolled_back", To: "promoted"}, {From: "rolled_back", To: "live"},
		{From: "rolled_back", To: "rolled_back"},
	}, moves(false, []string{"published", "promoted", "live"}, "rolled_back")...),
}

// alertStates are an alert rule's states (docs/api.md#alert-states).
var alertStates = []string{"ok", "alert", "no_data", "unknown"}

// machineAlertRule is an alert rule's state (engine/alerts_evaluate.go).
var machineAlertRule = &Machine{
	Name: "alert_rule",
	Doc: "An alert rule's state: created ok (unknown under initial_alert_state: unknown); each evaluation pass " +
		"moves it to alert or ok by its metric, no_data without data, unknown when the evaluation fails. " +
		"ok → alert announces alerts.triggered, alert → ok alerts.resolved.",
	States: alertStates,
	Transitions: append([]Transition{{From: "", To: "ok"}, {From: "", To: "unknown"}},
		moves(true, alertStates, alertStates...)...),
}

// machineWebhookEndpoint is a webhook endpoint (webhooks.go).
var machineWebhookEndpoint = &Machine{
	Name:   "webhook_endpoint",
	Doc:    "A webhook endpoint: enabled or disabled (created either way, switched by PATCH), then deleted.",
	States: []string{"enabled", "disabled", "deleted"},
	Transitions: []Transition{
		{From: "", To: "enabled"}, {From: "", To: "disabled"},
		{From: "enabled", To: "disabled"}, {From: "disabled", To: "enabled"},
		{From: "enabled", To: "deleted"}, {From: "disabled", To: "deleted"},
	},
}

// machineWebhookDelivery is one event's delivery to one endpoint
// (engine/webhooks_delivery.go): every attempt is a clock timer.
var machineWebhookDelivery = &Machine{
	Name: "webhook_delivery",
	Doc: "One event's delivery to one endpoint: attempted when the event is announced (its first attempt is " +
		"due); retried when an attempt fails on a timeout, a network error, 408, 429 or 5xx and another is due; " +
		"delivered on a 2xx; given_up when the last retry fails; failed when an attempt is not retried (another " +
		"4xx, a refused target, the endpoint disabled or deleted).",
	States: []string{"attempted", "retried", "delivered", "given_up", "failed"},
	Transitions: append([]Transition{
		{From: "", To: "attempted", Clock: true},
		{From: "attempted", To: "retried", Clock: true},
		{From: "retried", To: "retried", Clock: true},
		{From: "retried", To: "given_up", Clock: true},
	}, moves(true, []string{"attempted", "retried"}, "delivered", "failed")...),
}

// callFailures are the outcomes of an outbound call that fails after it
// rings.
var callFailures = []string{"no_answer", "busy", "rejected", "failed"}

// machineOutboundCall is an outbound call (engine/outbound.go).
var machineOutboundCall = &Machine{
	Name: "outbound_call",
	Doc: "An outbound call: queued, then calling, then answered (the conversation starts) and success when " +
		"it ends (at its planned end, or earlier when the conversation ends), or one of no_answer, busy, " +
		"rejected, failed (status failure with that reason); queue_timeout fails it while queued. expired: " +
		"the retention after the end is over and the record is dropped (the status answers 404).",
	States: append([]string{"queued", "calling", "answered", "success"}, append(callFailures, "queue_timeout", "expired")...),
	Transitions: append(append([]Transition{
		{From: "", To: "queued"},
		{From: "queued", To: "calling", Clock: true},
		{From: "queued", To: "queue_timeout", Clock: true},
		{From: "calling", To: "answered", Clock: true},
		{From: "answered", To: "success", Clock: true},
	}, moves(true, []string{"calling"}, callFailures...)...),
		moves(true, append([]string{"success", "queue_timeout"}, callFailures...), "expired")...),
}

// machineDNIReservation is a number reservation (engine/dni.go).
var machineDNIReservation = &Machine{
	Name: "dni_reservation",
	Doc: "A number reservation: reserved; used by each call within its window; expired once its window is over " +
		"(found lazily: by a call after it, or by a new reservation of the number).",
	States: []string{"reserved", "used", "expired"},
	Transitions: []Transition{
		{From: "", To: "reserved"},
		{From: "reserved", To: "used"}, {From: "used", To: "used"},
		{From: "reserved", To: "expired", Clock: true}, {From: "used", To: "expired", Clock: true},
	},
}

// machineExternalEvent is an external event (engine/external_events.go).
var machineExternalEvent = &Machine{
	Name: "external_event",
	Doc: "An external event: bound to its conversation at once, or kept unbound (pending) until a conversation " +
		"of the project awaits its id.",
	States: []string{"bound", "unbound"},
	Transitions: []Transition{
		{From: "", To: "bound"}, {From: "", To: "unbound"},
		{From: "unbound", To: "bound"},
	},
}

// The kinds of work the virtual clock runs, by family.
var (
	clockAlertsEvaluation = ClockEvent{Kind: "alerts.evaluation", Doc: "An alert evaluation pass (every evaluation interval)."}

	clockWebhooksAttempt = ClockEvent{Kind: "webhooks.attempt", Doc: "The first attempt of a webhook delivery."}
	clockWebhooksRetry   = ClockEvent{Kind: "webhooks.retry", Doc: "A retry of a webhook delivery (after 1m, 5m, 15m, 1h, 4h)."}

	clockOutboundProgress  = ClockEvent{Kind: "outbound.progress", Doc: "An outbound call's next step: calling, answered or ended."}
	clockOutboundRetention = ClockEvent{Kind: "outbound.retention", Doc: "An ended call's record dropped after its retention."}

	clockMessagingIdleExpiry = ClockEvent{Kind: "messaging.idle_expiry", Doc: "A messaging session's inactivity timer."}

	clockConversationsRetention = ClockEvent{Kind: "conversations.retention", Doc: "A pass dropping ended conversation records past limits.conversation_retention."}
)
