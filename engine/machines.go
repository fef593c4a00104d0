package engine

// The families' resource state machines and clock work kinds: the
// catalogue the coverage report counts against (docs/coverage.md). The
// engine reports each state change to its Recorder (from "" for a new
// resource) and each run of clock work.

import (
	"time"

	"github.com/agentplatform/mockplatform/coverage"
	"github.com/agentplatform/mockplatform/store"
)

type transition = coverage.Transition

func moves(clock bool, froms []string, tos ...string) []transition {
	var out []transition
	for _, f := range froms {
		for _, t := range tos {
			if f != t {
				out = append(out, transition{From: f, To: t, Clock: clock})
			}
		}
	}
	return out
}

// MachineChatConversation is a chat conversation.
var MachineChatConversation = &coverage.Machine{
	Name: "chat_conversation",
	Doc: "A Chat API conversation: created with the agent's greeting; responded once a user turn is answered; " +
		"handoff once the agent hands off, ended when the agent ends it (an end or crash action), closed when " +
		"the client closes it: each of the three ends it (later turns and closes answer 410). A create with an " +
		"initial message that hands off or ends moves on from created in the same request.",
	States: []string{"created", "responded", "handoff", "ended", "closed"},
	Transitions: append([]transition{{From: "", To: "created"}, {From: "created", To: "responded"}, {From: "responded", To: "responded"}},
		moves(false, []string{"created", "responded"}, "handoff", "ended", "closed")...),
}

func chatState(inProgress bool, out Outcome) string {
	switch {
	case out.Handoff != nil:
		return "handoff"
	case !inProgress:
		return "ended"
	}
	return "responded"
}

// chatTurnsState is an open chat's state after n user turns.
func chatTurnsState(n int) string {
	if n > 0 {
		return "responded"
	}
	return "created"
}

// userTurns counts the user's turns: all but the greeting.
func userTurns(turns []store.Turn) int {
	n := len(turns)
	if n > 0 && turns[0].UserInput == "" && !turns[0].IsSilence && !turns[0].IsOOD {
		n--
	}
	return n
}

// MachineMessagingSession is a live messaging session (the edge's).
var MachineMessagingSession = &coverage.Machine{
	Name: "messaging_session",
	Doc: "A messaging session: created by POST /api/v1/sessions; connected once a socket attaches; idle_expired " +
		"when its inactivity timer falls due (or the control plane or a preset expires it); ended by the user " +
		"(USER_END) or the agent (the conversation's natural end), or by a timeline's session before a socket attached.",
	States: []string{"created", "connected", "idle_expired", "ended"},
	Transitions: []transition{
		{From: "", To: "created"},
		{From: "created", To: "connected"},
		{From: "created", To: "idle_expired", Clock: true},
		{From: "connected", To: "idle_expired", Clock: true},
		{From: "connected", To: "ended"},
		{From: "created", To: "ended"},
	},
}

// MachineBranch is an agent's branch (agents_branches.go).
var MachineBranch = &coverage.Machine{
	Name: "branch",
	Doc: "A branch of an agent: created, then merged into main or conflicted (409, or 400 under " +
		"merge_conflict: \"400\") by a merge attempt, or deleted. No merge outcome is stored: the branch stays " +
		"open after either, so every merge attempt moves from created.",
	States: []string{"created", "merged", "conflicted", "deleted"},
	Transitions: []transition{
		{From: "", To: "created"},
		{From: "created", To: "merged"},
		{From: "created", To: "conflicted"},
		{From: "created", To: "deleted"},
	},
}

// MachineDeployment is an agent's deployed version, by environment.
var MachineDeployment = &coverage.Machine{
	Name: "deployment",
	Doc: "An agent's deployed version: published to sandbox (publish, or a merge under merge_deploy: sandbox), " +
		"promoted to pre-release, live, or rolled_back (a new sandbox deployment of an earlier version). A " +
		"promotion or a rollback moves from the state of the deployment it copies.",
	States: []string{"published", "promoted", "live", "rolled_back"},
	Transitions: append([]transition{
		{From: "", To: "published"},
		{From: "published", To: "promoted"}, {From: "published", To: "live"},
		{From: "promoted", To: "live"},
		{From: "rolled_back", To: "promoted"}, {From: "rolled_back", To: "live"},
		{From: "rolled_back", To: "rolled_back"},
	}, moves(false, []string{"published", "promoted", "live"}, "rolled_back")...),
}

// deploymentState is a deployment's state by environment (sandbox:
// published or rolled_back).
func deploymentState(d *Deployment) string {
	switch d.Environment {
	case "pre-release":
		return "promoted"
	case "live":
		return "live"
	}
	if d.Metadata["deployment_type"] == "rollback" {
		return "rolled_back"
	}
	return "published"
}

var alertStates = []string{stateOK, stateAlert, stateNoData, stateUnknown}

// MachineAlertRule is an alert rule's state (alerts_evaluate.go).
var MachineAlertRule = &coverage.Machine{
	Name: "alert_rule",
	Doc: "An alert rule's state: created ok (unknown under initial_alert_state: unknown); each evaluation pass " +
		"moves it to alert or ok by its metric, no_data without data, unknown when the evaluation fails. " +
		"ok → alert announces alerts.triggered, alert → ok alerts.resolved.",
	States: alertStates,
	Transitions: append([]transition{{From: "", To: stateOK}, {From: "", To: stateUnknown}},
		moves(true, alertStates, alertStates...)...),
}

// MachineWebhookEndpoint is a webhook endpoint (webhooks.go).
var MachineWebhookEndpoint = &coverage.Machine{
	Name:   "webhook_endpoint",
	Doc:    "A webhook endpoint: enabled or disabled (created either way, switched by PATCH), then deleted.",
	States: []string{"enabled", "disabled", "deleted"},
	Transitions: []transition{
		{From: "", To: "enabled"}, {From: "", To: "disabled"},
		{From: "enabled", To: "disabled"}, {From: "disabled", To: "enabled"},
		{From: "enabled", To: "deleted"}, {From: "disabled", To: "deleted"},
	},
}

func endpointState(enabled bool) string {
	if enabled {
		return "enabled"
	}
	return "disabled"
}

// MachineWebhookDelivery is one event's delivery to one endpoint; every
// attempt is a clock timer.
var MachineWebhookDelivery = &coverage.Machine{
	Name: "webhook_delivery",
	Doc: "One event's delivery to one endpoint: attempted when the event is announced (its first attempt is " +
		"due); retried when an attempt fails on a timeout, a network error, 408, 429 or 5xx and another is due; " +
		"delivered on a 2xx; given_up when the last retry fails; failed when an attempt is not retried (another " +
		"4xx, a refused target, the endpoint disabled or deleted).",
	States: []string{"attempted", "retried", "delivered", "given_up", "failed"},
	Transitions: append([]transition{
		{From: "", To: "attempted", Clock: true},
		{From: "attempted", To: "retried", Clock: true},
		{From: "retried", To: "retried", Clock: true},
		{From: "retried", To: "given_up", Clock: true},
	}, moves(true, []string{"attempted", "retried"}, "delivered", "failed")...),
}

func attemptState(n int) string {
	if n == 1 {
		return "attempted"
	}
	return "retried"
}

func attemptClockEvent(n int) coverage.ClockEvent {
	if n == 1 {
		return ClockWebhooksAttempt
	}
	return ClockWebhooksRetry
}

// callFailures are the outcomes of a call that fails after ringing.
var callFailures = []string{"no_answer", "busy", "rejected", "failed"}

// MachineOutboundCall is an outbound call (outbound.go).
var MachineOutboundCall = &coverage.Machine{
	Name: "outbound_call",
	Doc: "An outbound call: queued, then calling, then answered (the conversation starts) and success when " +
		"it ends (at its planned end, or earlier when the conversation ends), or one of no_answer, busy, " +
		"rejected, failed (status failure with that reason); queue_timeout fails it while queued. expired: " +
		"the retention after the end is over and the record is dropped (the status answers 404).",
	States: append([]string{"queued", "calling", "answered", "success"}, append(callFailures, "queue_timeout", "expired")...),
	Transitions: append(append([]transition{
		{From: "", To: "queued"},
		{From: "queued", To: "calling", Clock: true},
		{From: "queued", To: "queue_timeout", Clock: true},
		{From: "calling", To: "answered", Clock: true},
		{From: "answered", To: "success", Clock: true},
	}, moves(true, []string{"calling"}, callFailures...)...),
		moves(true, append([]string{"success", "queue_timeout"}, callFailures...), "expired")...),
}

// callState is a call's state: its status, answered, or its failure.
func callState(call *callRecord) string {
	switch {
	case call.Status == callFailure:
		return call.Outcome
	case call.Status == callCalling && call.Answered:
		return "answered"
	}
	return call.Status
}

// recordCallStep records a call's step from state from (gone: deleted).
func (a *Engine) recordCallStep(from string, call *callRecord, gone bool) {
	switch {
	case gone:
		a.RecordClockEvent(ClockOutboundRetention)
		a.RecordTransition(MachineOutboundCall, from, "expired")
	case callState(call) != from:
		a.RecordClockEvent(ClockOutboundProgress)
		a.RecordTransition(MachineOutboundCall, from, callState(call))
	}
}

// MachineDNIReservation is a number reservation (dni.go).
var MachineDNIReservation = &coverage.Machine{
	Name: "dni_reservation",
	Doc: "A number reservation: reserved; used by each call within its window; expired once its window is over " +
		"(found lazily: by a call after it, or by a new reservation of the number).",
	States: []string{"reserved", "used", "expired"},
	Transitions: []transition{
		{From: "", To: "reserved"},
		{From: "reserved", To: "used"}, {From: "used", To: "used"},
		{From: "reserved", To: "expired", Clock: true}, {From: "used", To: "expired", Clock: true},
	},
}

func dniState(r *dniReservation) string {
	switch {
	case r.Expired:
		return "expired"
	case r.Used:
		return "used"
	}
	return "reserved"
}

func dniDialState(r *dniReservation, now time.Time) string {
	if now.Before(r.ExpiresAt) {
		return "used"
	}
	return "expired"
}

// MachineExternalEvent is an external event (external_events.go).
var MachineExternalEvent = &coverage.Machine{
	Name: "external_event",
	Doc: "An external event: bound to its conversation at once, or kept unbound (pending) until a conversation " +
		"of the project awaits its id.",
	States: []string{"bound", "unbound"},
	Transitions: []transition{
		{From: "", To: "bound"}, {From: "", To: "unbound"},
		{From: "unbound", To: "bound"},
	},
}

// The kinds of work the virtual clock runs, by family.
var (
	ClockAlertsEvaluation = coverage.ClockEvent{Kind: "alerts.evaluation", Doc: "An alert evaluation pass (every evaluation interval)."}

	ClockWebhooksAttempt = coverage.ClockEvent{Kind: "webhooks.attempt", Doc: "The first attempt of a webhook delivery."}
	ClockWebhooksRetry   = coverage.ClockEvent{Kind: "webhooks.retry", Doc: "A retry of a webhook delivery (after 1m, 5m, 15m, 1h, 4h)."}

	ClockOutboundProgress  = coverage.ClockEvent{Kind: "outbound.progress", Doc: "An outbound call's next step: calling, answered or ended."}
	ClockOutboundRetention = coverage.ClockEvent{Kind: "outbound.retention", Doc: "An ended call's record dropped after its retention."}

	ClockMessagingIdleExpiry = coverage.ClockEvent{Kind: "messaging.idle_expiry", Doc: "A messaging session's inactivity timer."}

	ClockConversationsRetention = coverage.ClockEvent{Kind: "conversations.retention", Doc: "A pass dropping ended conversation records past limits.conversation_retention."}
)

// RecordTransition reports a machine's move to the Recorder.
func (a *Engine) RecordTransition(m *coverage.Machine, from, to string) {
	a.rec.Transition(m.Name, from, to)
}

// RecordClockEvent reports a run of clock work to the Recorder.
func (a *Engine) RecordClockEvent(e coverage.ClockEvent) { a.rec.ClockEvent(e.Kind) }
