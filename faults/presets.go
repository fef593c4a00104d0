package faults

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A preset is a family's own failure mode, named by Action.Preset. Some
// take an argument after a colon: "messaging.expire_session_after:3".
// The table below is the one list of preset names: scenario validation,
// the fault set's callers (the control plane, AddFault), mockd validate
// and the handlers that apply them all read it.

// ArgKind is the kind of a preset's argument.
type ArgKind int

// Argument kinds.
const (
	ArgNone     ArgKind = iota // no argument
	ArgCount                   // a non-negative integer
	ArgDuration                // a non-negative Go duration
	ArgOneOf                   // one of Preset.Values
)

// Preset describes a named failure mode.
type Preset struct {
	// Name is the name before any ":argument".
	Name string
	// Family is the family that applies it (alerts presets also apply to
	// webhooks).
	Family string
	// Arg is the kind of its argument.
	Arg ArgKind
	// Values are the accepted arguments of an ArgOneOf preset.
	Values []string
}

// Preset names.
const (
	// PresetAlertsLimit answers 409 as if the account's alert rule (or
	// webhook endpoint) limit were reached.
	PresetAlertsLimit = "alerts_limit"
	// PresetMonitoringBackend answers 502 "Monitoring backend
	// synchronisation failure". Matched by an evaluation pass (path
	// "/_evaluation" of family alerts), it fails that pass.
	PresetMonitoringBackend = "monitoring_backend_failure"
	// PresetExpireSession expires the session of the request at once: on
	// POST /api/v1/sessions the new session, on /ws the session right after
	// the socket's history batch.
	PresetExpireSession = "messaging.expire_session"
	// PresetExpireSessionAfter expires the session after N more answered
	// user messages ("messaging.expire_session_after:N").
	PresetExpireSessionAfter = "messaging.expire_session_after"
	// PresetExpireToken on /api/v1/access-token issues a token that has
	// already expired; on /api/v1/sessions and /ws the presented token is
	// refused as expired.
	PresetExpireToken = "messaging.expire_token"
	// PresetDropSocket (on /ws) drops the socket without a close frame in
	// the middle of the next agent reply.
	PresetDropSocket = "messaging.drop_socket"
	// PresetStallChunks (on /ws) stops delivering on the socket after the
	// first chunk of the next streamed reply; the socket stays open.
	PresetStallChunks = "messaging.stall_chunks"
	// PresetDelayChunks (on /ws) waits this long (wall time) before each
	// chunk ("messaging.delay_chunks:200ms").
	PresetDelayChunks = "messaging.delay_chunks"
	// PresetOutboundOutcome (on POST /v1/outbound-calling) forces the
	// outcome of the call ("outbound.outcome:no_answer").
	PresetOutboundOutcome = "outbound.outcome"
)

// OutboundOutcomes are the arguments of PresetOutboundOutcome: the outcomes
// of an outbound call (the scenario's outbound block uses the same list).
var OutboundOutcomes = []string{"answered", "no_answer", "busy", "rejected", "failed", "queue_timeout"}

// presets is the table of every preset, in the order the docs list them.
var presets = [...]Preset{
	{Name: PresetAlertsLimit, Family: "alerts"},
	{Name: PresetMonitoringBackend, Family: "alerts"},
	{Name: PresetExpireSession, Family: "messaging"},
	{Name: PresetExpireSessionAfter, Family: "messaging", Arg: ArgCount},
	{Name: PresetExpireToken, Family: "messaging"},
	{Name: PresetDropSocket, Family: "messaging"},
	{Name: PresetStallChunks, Family: "messaging"},
	{Name: PresetDelayChunks, Family: "messaging", Arg: ArgDuration},
	{Name: PresetOutboundOutcome, Family: "outbound", Arg: ArgOneOf, Values: OutboundOutcomes},
}

// Presets lists every preset (a copy).
func Presets() []Preset { return slices.Clone(presets[:]) }

// PresetCall is a preset name parsed with its argument.
type PresetCall struct {
	Preset
	// N is the argument of an ArgCount preset.
	N int
	// D is the argument of an ArgDuration preset.
	D time.Duration
	// Value is the argument of an ArgOneOf preset.
	Value string
}

// ParsePreset parses a preset name with its argument ("name" or
// "name:arg"). It fails for an unknown name or a bad argument.
func ParsePreset(s string) (PresetCall, error) {
	name, arg, hasArg := strings.Cut(s, ":")
	i := slices.IndexFunc(presets[:], func(p Preset) bool { return p.Name == name })
	if i < 0 {
		return PresetCall{}, fmt.Errorf("unknown preset %q", s)
	}
	call := PresetCall{Preset: presets[i]}
	bad := func(want string) (PresetCall, error) {
		return PresetCall{}, fmt.Errorf("unknown preset %q (%s takes %s)", s, name, want)
	}
	switch call.Arg {
	case ArgNone:
		if hasArg {
			return bad("no argument")
		}
	case ArgCount:
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 {
			return bad(`a count, e.g. "` + name + `:3"`)
		}
		call.N = n
	case ArgDuration:
		d, err := time.ParseDuration(arg)
		if err != nil || d < 0 {
			return bad(`a duration, e.g. "` + name + `:200ms"`)
		}
		call.D = d
	case ArgOneOf:
		if !slices.Contains(call.Values, arg) {
			return bad("one of " + strings.Join(call.Values, ", "))
		}
		call.Value = arg
	}
	return call, nil
}

// KnownPreset reports whether s names a preset with a valid argument.
func KnownPreset(s string) bool {
	_, err := ParsePreset(s)
	return err == nil
}

// CheckPresets reports the first rule whose preset is unknown, naming the
// rule by id (or "#N", its position from 1).
func CheckPresets(rules []Rule) error {
	for i, r := range rules {
		if r.Action.Preset == "" {
			continue
		}
		if _, err := ParsePreset(r.Action.Preset); err != nil {
			id := r.ID
			if id == "" {
				id = fmt.Sprintf("#%d", i+1)
			}
			return fmt.Errorf("fault rule %s: %w", id, err)
		}
	}
	return nil
}
