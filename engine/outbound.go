package engine

// Outbound calling (docs/api.md#outbound; docs/fidelity.md G3, G7, G11, G18,
// G21, D7): a stored call moves queued → calling → success | failure on the
// virtual clock; an answered call is a VOICE-SIP conversation with the call
// sid as its id. The status is readable for the retention period, then 404.

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// PresetOutboundOutcome (on POST /v1/outbound-calling) forces the outcome
// of the call ("outbound.outcome:no_answer").
const PresetOutboundOutcome = "outbound.outcome"

// CallStatuses are the statuses of a call, in order.
var CallStatuses = []string{callQueued, callCalling, callSuccess, callFailure}

// outboundState is the outbound family's in-memory state; calls are stored
// documents with clock timers.
type outboundState struct {
	mu sync.Mutex
	// rate holds, per account id, the calls accepted within the window.
	rate map[string][]time.Time
}

// resetOutbound forgets the rate windows and rearms the stored calls.
func (a *Engine) resetOutbound() {
	a.outbound.mu.Lock()
	a.outbound.rate = nil
	a.outbound.mu.Unlock()
	a.rearmCalls()
}

// Outbound error codes and messages (G18; the codes are [INF]).
const (
	CodeOutboundInvalid      = "INVALID_REQUEST"
	CodeOutboundPhone        = "INVALID_PHONE_NUMBER"
	CodeOutboundMetadata     = "INVALID_METADATA"
	CodeOutboundMetadataSize = "METADATA_TOO_LARGE"
	CodeOutboundCallSID      = "INVALID_CALL_SID"
	CodeOutboundNotEnabled   = "OUTBOUND_NOT_ENABLED"
	CodeOutboundNotFound     = "CALL_NOT_FOUND"
	CodeOutboundRateLimited  = "RATE_LIMITED"
	CodeOutboundVersion      = "UNSUPPORTED_VERSION"

	MsgOutboundToNumber    = "to_number is required."
	MsgOutboundPhone       = "to_number must be a phone number in E.164 format (e.g. +14155552671), or a national number with country_code."
	MsgOutboundCountry     = "country_code must be a supported ISO 3166-1 alpha-2 code."
	MsgOutboundEncryption  = "encryption must be one of UDP/RTP, UDP/SRTP, TLS/RTP, TLS/SRTP."
	MsgOutboundMetaSize    = "metadata is too large: its base64 form must be less than 26 KB."
	MsgOutboundCallSID     = "Invalid call SID format."
	MsgOutboundNotEnabled  = "Outbound calling is not enabled for this project."
	MsgOutboundNotFound    = "Call not found."
	MsgOutboundRateLimited = "Rate limit exceeded"
)

// Call statuses (docs/api.md#outbound-states).
const (
	callQueued  = "queued"
	callCalling = "calling"
	callSuccess = "success"
	callFailure = "failure"
)

// DocOutboundCall is the store kind of outbound calls.
const DocOutboundCall = "outbound_call"

// maxMetadataBase64 bounds the metadata's base64 form (docs/fidelity.md G11).
const maxMetadataBase64 = 26 * 1024

var (
	E164RE = regexp.MustCompile(`^\+[1-9][0-9]{6,14}$`)
	// CountryCodeRE is the form of a country_code.
	CountryCodeRE = regexp.MustCompile(`^[A-Za-z]{2}$`)
	CallSIDRE     = regexp.MustCompile(`^OUT-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	phonePunct    = strings.NewReplacer(" ", "", "-", "", "(", "", ")", "", ".", "")
)

// Encryptions is the encryption enum; the first is the default.
var Encryptions = []string{"TLS/SRTP", "UDP/RTP", "UDP/SRTP", "TLS/RTP"}

// CountryCodes maps ISO 3166-1 alpha-2 codes to calling codes (a common
// subset; docs/fidelity.md).
var CountryCodes = map[string]string{
	"US": "1", "CA": "1", "GB": "44", "IE": "353", "FR": "33", "DE": "49", "ES": "34", "IT": "39",
	"NL": "31", "BE": "32", "PT": "351", "CH": "41", "AT": "43", "SE": "46", "NO": "47", "DK": "45",
	"FI": "358", "PL": "48", "AU": "61", "NZ": "64", "IN": "91", "SG": "65", "JP": "81", "MX": "52",
	"BR": "55", "ZA": "27", "AE": "971",
}

// failureReasons are the default reasons of failed outcomes.
var failureReasons = map[string]string{
	scenario.OutcomeNoAnswer:     "no answer",
	scenario.OutcomeBusy:         "busy",
	scenario.OutcomeRejected:     "call rejected",
	scenario.OutcomeFailed:       "call failed",
	scenario.OutcomeQueueTimeout: "call queueing: max timeout limit exceeded",
}

type OutboundResponse struct {
	CallSID string `json:"call_sid"`
}

// callRecord is the stored call: its plan and its progress.
type callRecord struct {
	SID         string            `json:"call_sid"`
	Region      string            `json:"region"`
	AccountID   string            `json:"account_id"`
	ProjectID   string            `json:"project_id"`
	ToNumber    string            `json:"to_number"`
	FromNumber  string            `json:"from_number,omitempty"`
	Encryption  string            `json:"encryption"`
	Metadata    map[string]string `json:"metadata,omitempty"`
	Outcome     string            `json:"outcome"`
	FailReason  string            `json:"fail_reason,omitempty"`
	Status      string            `json:"status"`
	Reason      string            `json:"reason"`
	CreatedAt   time.Time         `json:"created_at"`
	CallingAt   time.Time         `json:"calling_at"`
	AnswerAt    time.Time         `json:"answer_at"` // zero unless answered
	EndAt       time.Time         `json:"end_at"`
	Answered    bool              `json:"answered"`
	RetainUntil time.Time         `json:"retain_until"`
	// The agent-scoped API's choices (outbound_agent.go); empty for a legacy
	// call (live, the project's default variant).
	Environment string `json:"environment,omitempty"`
	VariantID   string `json:"variant_id,omitempty"`
	ConnectorID string `json:"connector_id,omitempty"`
	ASRLangCode string `json:"asr_lang_code,omitempty"`
	TTSLangCode string `json:"tts_lang_code,omitempty"`
}

// OutboundNumber validates to_number (E.164, or national with
// country_code) and returns it in E.164.
func OutboundNumber(to, country *string) (string, error) {
	if to == nil || strings.TrimSpace(*to) == "" {
		return "", Errf(KindInvalid, CodeOutboundInvalid, MsgOutboundToNumber)
	}
	n := phonePunct.Replace(strings.TrimSpace(*to))
	if country != nil && *country != "" {
		cc, ok := CountryCodes[strings.ToUpper(*country)]
		if !ok || len(*country) != 2 {
			return "", Errf(KindInvalid, CodeOutboundInvalid, MsgOutboundCountry)
		}
		if !strings.HasPrefix(n, "+") {
			if strings.HasPrefix(n, "00") {
				n = "+" + n[2:]
			} else {
				if cc == "1" && len(n) == 11 && n[0] == '1' {
					n = n[1:]
				}
				n = "+" + cc + strings.TrimPrefix(n, "0")
			}
		}
	}
	if !E164RE.MatchString(n) {
		return "", Errf(KindInvalid, CodeOutboundPhone, MsgOutboundPhone)
	}
	return n, nil
}

// OutboundMetadata checks that every value is a string and that the base64
// form is under 26 KB.
func OutboundMetadata(m map[string]any) (map[string]string, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]string, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) { // sorted: the first bad key is the same every run
		v := m[k]
		s, ok := v.(string)
		if !ok {
			return nil, Errf(KindInvalid, CodeOutboundMetadata, "metadata value of %q must be a string.", k)
		}
		out[k] = s
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	if base64.StdEncoding.EncodedLen(len(raw)) >= maxMetadataBase64 {
		return nil, Errf(KindInvalid, CodeOutboundMetadataSize, MsgOutboundMetaSize)
	}
	return out, nil
}

// outboundProject is the token's project, or for an account-wide token the
// account's first with outbound enabled; nil when none.
func outboundProject(p *Principal) *scenario.Project {
	if p.Project != nil {
		if o := p.Project.Outbound; o != nil && o.Enabled {
			return p.Project
		}
		return nil
	}
	for i := range p.Account.Projects {
		if o := p.Account.Projects[i].Outbound; o != nil && o.Enabled {
			return &p.Account.Projects[i]
		}
	}
	return nil
}

// rateLimit counts a call against the account's sliding window (G21):
// beyond it, 429 with Retry-After.
func (a *Engine) rateLimit(acct *scenario.Account, now time.Time) error {
	if acct.Outbound == nil || acct.Outbound.RateLimit == nil {
		return nil
	}
	rl := acct.Outbound.RateLimit
	window := rl.Window.D()
	if window <= 0 {
		window = scenario.DefaultRateWindow
	}
	a.outbound.mu.Lock()
	defer a.outbound.mu.Unlock()
	rt := &a.outbound
	if rt.rate == nil {
		rt.rate = map[string][]time.Time{}
	}
	times := rt.rate[acct.ID]
	keep := times[:0]
	for _, t := range times {
		if now.Sub(t) < window {
			keep = append(keep, t)
		}
	}
	if len(keep) >= rl.Calls {
		rt.rate[acct.ID] = keep
		wait := keep[0].Add(window).Sub(now)
		secs := max(1, int(math.Ceil(wait.Seconds())))
		e := Errf(KindTooManyRequests, CodeOutboundRateLimited, MsgOutboundRateLimited)
		e.Headers = map[string]string{"Retry-After": fmt.Sprint(secs)}
		return e
	}
	rt.rate[acct.ID] = append(keep, now)
	return nil
}

// CallRequest is a call to place, its fields checked by the edge.
type CallRequest struct {
	To         string // E.164
	Metadata   map[string]string
	Encryption string
	// Outcome, when set, forces the call's outcome (PresetOutboundOutcome).
	Outcome string
}

// PlaceCall queues a call from p's project (401 without outbound, 429 over
// the rate limit) and returns its sid.
func (a *Engine) PlaceCall(p *Principal, in CallRequest) (string, error) {
	proj := outboundProject(p)
	if proj == nil {
		return "", Errf(KindUnauthorized, CodeOutboundNotEnabled, MsgOutboundNotEnabled)
	}
	return a.queueCall(p, proj, in, nil)
}

// queueCall rate-limits, stores and arms a call; fill sets the agent-scoped
// API's fields.
func (a *Engine) queueCall(p *Principal, proj *scenario.Project, in CallRequest, fill func(*callRecord)) (string, error) {
	now := a.clock.Now()
	if err := a.rateLimit(p.Account, now); err != nil {
		return "", err
	}
	retention := a.View().sc.OutboundRetention()
	call := planCall(proj.Outbound, in.To, now, retention)
	call.SID = "OUT-" + a.NewUUID()
	call.Region, call.AccountID, call.ProjectID = p.Region, p.Account.ID, proj.ID
	call.FromNumber, call.Encryption, call.Metadata = proj.Outbound.FromNumber, in.Encryption, in.Metadata
	if in.Outcome != "" {
		call.Outcome, call.FailReason = in.Outcome, failureReasons[in.Outcome]
		call.replan(proj.Outbound.CallTiming, retention)
	}
	if fill != nil {
		fill(call)
	}
	if err := a.store.InsertDoc(DocOutboundCall, call.Region, call.SID, call); err != nil {
		return "", err
	}
	a.RecordTransition(MachineOutboundCall, "", callState(call))
	a.armCall(call)
	return call.SID, nil
}

// OutboundCall reads call sid of p's account (docs/api.md#outbound-status):
// another account's or one past retention is not found.
func (a *Engine) OutboundCall(p *Principal, sid string) (*OutboundCall, error) {
	var call callRecord
	if err := a.store.GetDoc(DocOutboundCall, p.Region, sid, &call); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return nil, Errf(KindNotFound, CodeOutboundNotFound, MsgOutboundNotFound)
		}
		return nil, err
	}
	if call.AccountID != p.Account.ID || call.expired(a.clock.Now()) {
		return nil, Errf(KindNotFound, CodeOutboundNotFound, MsgOutboundNotFound)
	}
	out := call.view()
	return &out, nil
}

// planCall fixes the outcome and the timeline of a call to a number.
func planCall(o *scenario.ProjectOutbound, to string, now time.Time, retention time.Duration) *callRecord {
	call := &callRecord{ToNumber: to, Outcome: scenario.OutcomeAnswered, Status: callQueued, CreatedAt: now}
	timing := o.CallTiming
	if d := o.Destination(to); d != nil {
		call.Outcome, call.FailReason = d.Outcome, d.Reason
		timing = d.CallTiming
	}
	if call.FailReason == "" {
		call.FailReason = failureReasons[call.Outcome]
	}
	call.replan(timing, retention)
	return call
}

// replan computes the timeline from the creation time, outcome and timing
// (zero parts take the defaults).
func (call *callRecord) replan(t scenario.CallTiming, retention time.Duration) {
	queue, ring, talk := t.Queue.D(), t.Ring.D(), t.Talk.D()
	if queue <= 0 {
		queue = scenario.DefaultQueue
	}
	if ring <= 0 {
		ring = scenario.DefaultRing
	}
	if talk <= 0 {
		talk = scenario.DefaultTalk
	}
	call.CallingAt = call.CreatedAt.Add(queue)
	call.AnswerAt = time.Time{}
	switch call.Outcome {
	case scenario.OutcomeQueueTimeout:
		call.CallingAt = time.Time{}
		call.EndAt = call.CreatedAt.Add(queue)
	case scenario.OutcomeAnswered:
		call.AnswerAt = call.CallingAt.Add(ring)
		call.EndAt = call.AnswerAt.Add(talk)
	default:
		call.EndAt = call.CallingAt.Add(ring)
	}
	call.RetainUntil = call.EndAt.Add(retention)
}

func (call *callRecord) terminal() bool {
	return call.Status == callSuccess || call.Status == callFailure
}

func (call *callRecord) expired(now time.Time) bool {
	return call.terminal() && !now.Before(call.RetainUntil)
}

// next is the time of the call's next step (zero: only deletion is left).
func (call *callRecord) next() time.Time {
	switch {
	case call.terminal():
		return call.RetainUntil
	case call.Status == callQueued && !call.CallingAt.IsZero():
		return call.CallingAt
	case call.Status == callCalling && !call.AnswerAt.IsZero() && !call.Answered:
		return call.AnswerAt
	}
	return call.EndAt
}

func (a *Engine) armCall(call *callRecord) {
	region, sid := call.Region, call.SID
	a.clock.At(call.next(), func(now time.Time) { a.stepCall(region, sid, now) })
}

// stepCall applies the due step: calling, answered, ended, or the end of
// retention (the record is deleted).
func (a *Engine) stepCall(region, sid string, now time.Time) {
	var call callRecord
	var answered, ended, gone bool
	var from string
	err := a.store.UpdateDoc(DocOutboundCall, region, sid, &call, func() error {
		from = callState(&call)
		switch {
		case call.terminal():
			gone = !now.Before(call.RetainUntil)
		case call.Status == callQueued && !call.CallingAt.IsZero() && !now.Before(call.CallingAt):
			call.Status = callCalling
		case call.Status == callCalling && !call.AnswerAt.IsZero() && !call.Answered && !now.Before(call.AnswerAt):
			call.Answered, answered = true, true
		case !now.Before(call.EndAt):
			ended = true
			if call.Outcome == scenario.OutcomeAnswered {
				call.Status, call.Reason = callSuccess, ""
			} else {
				call.Status, call.Reason = callFailure, call.FailReason
			}
		}
		return nil
	})
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			a.Log.Error("outbound call step", "call", sid, "err", err)
		}
		return
	}
	a.recordCallStep(from, &call, gone)
	switch {
	case gone:
		if err := a.store.DeleteDoc(DocOutboundCall, region, sid); err != nil && !errors.Is(err, store.ErrNotFound) {
			a.Log.Error("outbound call retention", "call", sid, "err", err)
		}
		return
	case answered:
		a.answerCall(&call)
	case ended && call.Answered:
		_, err := a.store.UpdateConversation(region, sid, func(conv *store.Conversation) error {
			EndConversation(conv, now)
			return nil
		})
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			a.Log.Error("outbound call end", "call", sid, "err", err)
		}
	}
	a.armCall(&call)
}

// outboundConversationEnded completes an answered call whose conversation
// ended before the call's planned end: success at that time.
func (a *Engine) outboundConversationEnded(conv *store.Conversation) {
	if !strings.HasPrefix(conv.ID, "OUT-") {
		return
	}
	end := conv.EndedAt
	var call callRecord
	changed := false
	err := a.store.UpdateDoc(DocOutboundCall, conv.Region, conv.ID, &call, func() error {
		if !call.Answered || call.terminal() || !end.Before(call.EndAt) {
			return nil
		}
		retention := call.RetainUntil.Sub(call.EndAt)
		call.EndAt, call.RetainUntil = end, end.Add(retention)
		call.Status, call.Reason = callSuccess, ""
		changed = true
		return nil
	})
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			a.Log.Error("outbound call early end", "call", conv.ID, "err", err)
		}
		return
	}
	if changed {
		a.RecordTransition(MachineOutboundCall, "answered", callState(&call))
		a.armCall(&call)
	}
}

// answerCall starts the call's VOICE-SIP conversation (id = call sid).
func (a *Engine) answerCall(call *callRecord) {
	w := a.View()
	acct := w.Account(call.AccountID)
	proj := acct.Project(call.ProjectID)
	if acct == nil || proj == nil {
		return
	}
	headers := map[string]any{}
	for k, v := range call.Metadata {
		headers[k] = v
	}
	state := map[string]any{"sip_headers": headers, "direction": "outbound", "encryption": call.Encryption}
	if call.ConnectorID != "" {
		state["connector_id"] = call.ConnectorID
	}
	_, _, err := a.StartConversation(ConvStart{
		ID: call.SID, Region: call.Region, Account: acct, Project: proj, Channel: "VOICE-SIP",
		Environment: call.Environment, Variant: SessionVariant(proj, call.VariantID),
		Language: call.ASRLangCode, TTSLanguage: call.TTSLangCode,
		FromNumber: call.FromNumber, ToNumber: call.ToNumber, State: state,
	})
	if err != nil && !errors.Is(err, store.ErrExists) {
		a.Log.Error("outbound call conversation", "call", call.SID, "err", err)
	}
}

// rearmCalls rearms the stored calls' timers after a reset or restart.
func (a *Engine) rearmCalls() {
	for _, region := range scenario.Regions {
		var calls []*callRecord
		err := store.ListDocs(a.store, DocOutboundCall, region, func(_ string, call *callRecord) bool {
			calls = append(calls, call)
			return true
		})
		if err != nil {
			a.Log.Error("outbound calls: rearm", "region", region, "err", err)
		}
		for _, call := range calls {
			a.armCall(call)
		}
	}
}

// OutboundCall is an outbound call as the console shows it, with its
// planned timeline; its metadata is left out.
type OutboundCall struct {
	SID        string `json:"call_sid"`
	Region     string `json:"region"`
	AccountID  string `json:"account_id"`
	ProjectID  string `json:"project_id"`
	ToNumber   string `json:"to_number"`
	FromNumber string `json:"from_number,omitempty"`
	// Status is queued, calling, success or failure; Reason explains a failure.
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Outcome string `json:"outcome"`
	// Answered reports that the call's conversation (id = SID) exists.
	Answered    bool      `json:"answered"`
	CreatedAt   time.Time `json:"created_at"`
	CallingAt   time.Time `json:"calling_at"` // zero for a queue timeout
	AnswerAt    time.Time `json:"answer_at"`  // zero unless the outcome is answered
	EndAt       time.Time `json:"end_at"`
	RetainUntil time.Time `json:"retain_until"`
}

func (c *callRecord) view() OutboundCall {
	return OutboundCall{SID: c.SID, Region: c.Region, AccountID: c.AccountID, ProjectID: c.ProjectID,
		ToNumber: c.ToNumber, FromNumber: c.FromNumber, Status: c.Status, Reason: c.Reason, Outcome: c.Outcome,
		Answered: c.Answered, CreatedAt: c.CreatedAt, CallingAt: c.CallingAt, AnswerAt: c.AnswerAt, EndAt: c.EndAt,
		RetainUntil: c.RetainUntil}
}

// OutboundCalls lists the stored outbound calls, oldest first.
func (a *Engine) OutboundCalls() ([]OutboundCall, error) {
	var out []OutboundCall
	for _, region := range scenario.Regions {
		err := store.ListDocs(a.store, DocOutboundCall, region, func(_ string, c *callRecord) bool {
			out = append(out, c.view())
			return true
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortStableFunc(out, func(x, y OutboundCall) int {
		if c := x.CreatedAt.Compare(y.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(x.SID, y.SID)
	})
	return out, nil
}
