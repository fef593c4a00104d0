package handlers

// Outbound calling (docs/api.md#outbound; docs/fidelity.md G3, G7, G11, G18,
// G21, D7). A call is a stored document that moves
// queued → calling → success | failure on the virtual clock, with the
// outcome and timings the scenario gives its destination. An answered call is a VOICE-SIP conversation record
// with the call sid as its id, in progress until the call ends. The status
// stays readable for the retention period (about 2 hours) after the call
// ends, then 404.

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"net/http"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// PresetOutboundOutcome (on POST /v1/outbound-calling) forces the outcome
// of the call ("outbound.outcome:no_answer").
const PresetOutboundOutcome = "outbound.outcome"

// famOutbound is outbound calling (docs/api.md#outbound).
var famOutbound = &Family{
	Name: "outbound", Base: "runtime", Shape: shapeOutbound,
	Credential: scenario.KindOutbound, Headers: []string{"X-Service-Auth-Token", "X-Polyai-Auth-Token"},
	Marks: []string{"/outbound-calling"},
	Doc:   "Place a call, read its status (docs/api.md#outbound).",
	Schemes: map[string]Scheme{
		"outboundToken": {Type: "apiKey", In: "header", Name: "X-Service-Auth-Token", Doc: "An outbound token of the account or project (credential kind outbound)."},
		"outboundTokenAlt": {Type: "apiKey", In: "header", Name: "X-PolyAi-Auth-Token", Doc: "The same outbound token, under the header the real service's guides name.",
			Fidelity: &Fidelity{ID: "D7", Note: "accepted side by side with X-Service-Auth-Token"}},
	},
	Security: [][]string{{"outboundToken"}, {"outboundTokenAlt"}},
	Routes:   outboundRoutes,
	Counts:   []Counted{countDocs("outbound calls", docOutboundCall)},
	Presets: []faults.Preset{
		{Name: PresetOutboundOutcome, Family: "outbound", Arg: faults.ArgOneOf, Values: scenario.Outcomes},
	},
	ApplyPreset: markPreset,
}

// outboundRoutes are its routes.
var outboundRoutes = []Route{
	route("POST /:version/outbound-calling", (*API).handleOutboundCreate, opOutboundCreate),
	route("GET /:version/outbound-calling/:call_sid/status", (*API).handleOutboundStatus, opOutboundStatus),
}

var (
	opOutboundCreate = &Op{ID: "outboundCallCreate", Summary: "Place an outbound call",
		Doc: "Queues a call from the key's project (which must have outbound calling enabled); its status " +
			"moves on the virtual clock (docs/api.md#outbound).",
		Body: outboundRequest{}, Responses: []Response{ok(200, outboundResponse{})}, Errors: []int{400, 404, 429}}
	opOutboundStatus = &Op{ID: "outboundCallStatus", Summary: "Read a call's status",
		Doc:       "The call's status, readable until its retention ends after the call (docs/api.md#outbound-states).",
		Path:      []Param{{Name: "call_sid", Pattern: callSIDRE, Doc: "The call_sid of the placed call."}},
		Responses: []Response{ok(200, outboundStatus{})}, Errors: []int{400, 404}}
)

func (outboundRequest) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{
		"to_number": {Required: true, Doc: "E.164, or a national number with country_code."},
		"country_code": {Pattern: countryCodeRE, Doc: "ISO 3166-1 alpha-2 code (any case) of a national to_number: " +
			strings.Join(slices.Sorted(maps.Keys(countryCodes)), ", ") + "."},
		"metadata":   {Doc: "Attached to the call; its base64 form must be under 26 KB."},
		"encryption": {Enum: encryptions, Doc: "Default " + encryptions[0] + "."},
	}
}

// callStatuses are the statuses of a call, in order.
var callStatuses = []string{callQueued, callCalling, callSuccess, callFailure}

func (outboundStatus) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"status": {Enum: callStatuses}, "reason": {Doc: "Why the call failed (empty otherwise)."}}
}

// outboundState is the outbound family's in-memory state: the rate-limit
// windows. Calls themselves are stored documents (kind docOutboundCall)
// with timers on the clock.
type outboundState struct {
	mu sync.Mutex
	// rate holds, per account id, the times of the calls accepted within
	// the rate-limit window.
	rate map[string][]time.Time
}

// resetOutbound forgets the rate windows and arms again the timers of the
// stored calls (the clock dropped them).
func (a *API) resetOutbound() {
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

// docOutboundCall is the store kind of outbound calls.
const docOutboundCall = "outbound_call"

// maxMetadataBase64 bounds the base64 form of the metadata (docs/fidelity.md
// G11: under 26 KB).
const maxMetadataBase64 = 26 * 1024

var (
	e164RE = regexp.MustCompile(`^\+[1-9][0-9]{6,14}$`)
	// countryCodeRE is the form of a country_code (countryCodes lists the
	// supported ones).
	countryCodeRE = regexp.MustCompile(`^[A-Za-z]{2}$`)
	callSIDRE     = regexp.MustCompile(`^OUT-[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	// phonePunct is what national and E.164 numbers may be written with.
	phonePunct = strings.NewReplacer(" ", "", "-", "", "(", "", ")", "", ".", "")
)

// encryptions is the encryption enum; the first is the default.
var encryptions = []string{"TLS/SRTP", "UDP/RTP", "UDP/SRTP", "TLS/RTP"}

// countryCodes maps ISO 3166-1 alpha-2 codes to calling codes, for national
// numbers (a common subset; docs/fidelity.md).
var countryCodes = map[string]string{
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

type outboundRequest struct {
	ToNumber    *string        `json:"to_number"`
	CountryCode *string        `json:"country_code"`
	Metadata    map[string]any `json:"metadata"`
	Encryption  *string        `json:"encryption"`
}

type outboundResponse struct {
	CallSID string `json:"call_sid"`
}

type outboundStatus struct {
	Status string `json:"status"`
	Reason string `json:"reason"`
}

// outboundCall is the stored call: its plan (fixed when it is triggered)
// and its progress.
type outboundCall struct {
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
}

// handleOutboundCreate handles "POST {runtime}/v1/outbound-calling"
// (docs/api.md#outbound-create): it validates the request, checks that the
// project has outbound calling enabled and the account's rate limit, and
// queues the call.
func (a *API) handleOutboundCreate(c *gin.Context) error {
	if err := outboundVersion(c); err != nil {
		return err
	}
	var req outboundRequest
	if err := bindJSON(c, &req, false, CodeOutboundInvalid); err != nil {
		return err
	}
	to, err := outboundNumber(req.ToNumber, req.CountryCode)
	if err != nil {
		return err
	}
	meta, err := outboundMetadata(req.Metadata)
	if err != nil {
		return err
	}
	enc := encryptions[0]
	if req.Encryption != nil {
		if !slices.Contains(encryptions, *req.Encryption) {
			return errf(KindInvalid, CodeOutboundInvalid, MsgOutboundEncryption)
		}
		enc = *req.Encryption
	}
	p := principal(c)
	proj := outboundProject(p)
	if proj == nil {
		return errf(KindUnauthorized, CodeOutboundNotEnabled, MsgOutboundNotEnabled)
	}
	now := a.clock.Now()
	if err := a.rateLimit(p.Account, now); err != nil {
		return err
	}
	call := planCall(proj.Outbound, to, now, a.world().sc.OutboundRetention())
	call.SID = "OUT-" + a.newUUID()
	call.Region, call.AccountID, call.ProjectID = p.Region, p.Account.ID, proj.ID
	call.FromNumber, call.Encryption, call.Metadata = proj.Outbound.FromNumber, enc, meta
	if pr, ok := requestPreset(c); ok && pr.Name == PresetOutboundOutcome {
		call.Outcome, call.FailReason = pr.Value, failureReasons[pr.Value]
		call.replan(proj.Outbound.CallTiming, a.world().sc.OutboundRetention())
	}
	if err := a.store.InsertDoc(docOutboundCall, call.Region, call.SID, call); err != nil {
		return err
	}
	a.armCall(call)
	c.JSON(http.StatusOK, outboundResponse{CallSID: call.SID})
	return nil
}

// handleOutboundStatus handles "GET {runtime}/v1/outbound-calling/{call_sid}/status"
// (docs/api.md#outbound-status): {"status","reason"}; 404 for an unknown
// call, one of another account, and one past its retention.
func (a *API) handleOutboundStatus(c *gin.Context) error {
	if err := outboundVersion(c); err != nil {
		return err
	}
	sid := c.Param("call_sid")
	if !callSIDRE.MatchString(sid) {
		return errf(KindInvalid, CodeOutboundCallSID, MsgOutboundCallSID)
	}
	p := principal(c)
	var call outboundCall
	if err := a.store.GetDoc(docOutboundCall, p.Region, sid, &call); err != nil {
		if errors.Is(err, store.ErrNotFound) {
			return errf(KindNotFound, CodeOutboundNotFound, MsgOutboundNotFound)
		}
		return err
	}
	if call.AccountID != p.Account.ID || call.expired(a.clock.Now()) {
		return errf(KindNotFound, CodeOutboundNotFound, MsgOutboundNotFound)
	}
	c.JSON(http.StatusOK, outboundStatus{Status: call.Status, Reason: call.Reason})
	return nil
}

func outboundVersion(c *gin.Context) error {
	if v := c.Param("version"); v != "v1" {
		return errf(KindNotFound, CodeOutboundVersion, "Unsupported API version %q: outbound calling is v1.", v)
	}
	return nil
}

// outboundNumber validates to_number (E.164, or national with
// country_code) and returns it in E.164.
func outboundNumber(to, country *string) (string, error) {
	if to == nil || strings.TrimSpace(*to) == "" {
		return "", errf(KindInvalid, CodeOutboundInvalid, MsgOutboundToNumber)
	}
	n := phonePunct.Replace(strings.TrimSpace(*to))
	if country != nil && *country != "" {
		cc, ok := countryCodes[strings.ToUpper(*country)]
		if !ok || len(*country) != 2 {
			return "", errf(KindInvalid, CodeOutboundInvalid, MsgOutboundCountry)
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
	if !e164RE.MatchString(n) {
		return "", errf(KindInvalid, CodeOutboundPhone, MsgOutboundPhone)
	}
	return n, nil
}

// outboundMetadata checks that every value is a string and that the base64
// form of the metadata is under 26 KB.
func outboundMetadata(m map[string]any) (map[string]string, error) {
	if m == nil {
		return nil, nil
	}
	out := make(map[string]string, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) { // sorted: the first bad key is the same every run
		v := m[k]
		s, ok := v.(string)
		if !ok {
			return nil, errf(KindInvalid, CodeOutboundMetadata, "metadata value of %q must be a string.", k)
		}
		out[k] = s
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return nil, err
	}
	if base64.StdEncoding.EncodedLen(len(raw)) >= maxMetadataBase64 {
		return nil, errf(KindInvalid, CodeOutboundMetadataSize, MsgOutboundMetaSize)
	}
	return out, nil
}

// outboundProject is the project a call is placed for: the token's
// project, or for an account-wide token the account's first project with
// outbound calling enabled. nil when outbound is not enabled.
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
// beyond it, 429 with Retry-After (seconds until a slot frees).
func (a *API) rateLimit(acct *scenario.Account, now time.Time) error {
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
		e := errf(KindTooManyRequests, CodeOutboundRateLimited, MsgOutboundRateLimited)
		e.Headers = map[string]string{"Retry-After": fmt.Sprint(secs)}
		return e
	}
	rt.rate[acct.ID] = append(keep, now)
	return nil
}

// planCall fixes the outcome and the timeline of a call to a number.
func planCall(o *scenario.ProjectOutbound, to string, now time.Time, retention time.Duration) *outboundCall {
	call := &outboundCall{ToNumber: to, Outcome: scenario.OutcomeAnswered, Status: callQueued, CreatedAt: now}
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

// replan computes the timeline from the creation time, the outcome and a
// timing (zero parts take the defaults).
func (call *outboundCall) replan(t scenario.CallTiming, retention time.Duration) {
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

func (call *outboundCall) terminal() bool {
	return call.Status == callSuccess || call.Status == callFailure
}

func (call *outboundCall) expired(now time.Time) bool {
	return call.terminal() && !now.Before(call.RetainUntil)
}

// next is the time of the call's next step (zero when none is left but
// the deletion at the end of retention).
func (call *outboundCall) next() time.Time {
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

// armCall schedules the call's next step on the virtual clock.
func (a *API) armCall(call *outboundCall) {
	region, sid := call.Region, call.SID
	a.clock.At(call.next(), func(now time.Time) { a.stepCall(region, sid, now) })
}

// stepCall applies the step that is due: calling, answered (the
// conversation starts), ended (success or failure; the conversation ends),
// or the end of retention (the record is deleted).
func (a *API) stepCall(region, sid string, now time.Time) {
	var call outboundCall
	var answered, ended, gone bool
	err := a.store.UpdateDoc(docOutboundCall, region, sid, &call, func() error {
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
			a.log.Error("outbound call step", "call", sid, "err", err)
		}
		return
	}
	switch {
	case gone:
		if err := a.store.DeleteDoc(docOutboundCall, region, sid); err != nil && !errors.Is(err, store.ErrNotFound) {
			a.log.Error("outbound call retention", "call", sid, "err", err)
		}
		return
	case answered:
		a.answerCall(&call)
	case ended && call.Answered:
		_, err := a.store.UpdateConversation(region, sid, func(conv *store.Conversation) error {
			endConversation(conv, now)
			return nil
		})
		if err != nil && !errors.Is(err, store.ErrNotFound) {
			a.log.Error("outbound call end", "call", sid, "err", err)
		}
	}
	a.armCall(&call)
}

// outboundConversationEnded completes an answered outbound call whose
// conversation ended before the planned end of the call (the agent ended
// or handed off, or the callee hung up): the status becomes success at
// that time, and retention counts from it. Other conversations are left
// alone.
func (a *API) outboundConversationEnded(conv *store.Conversation) {
	if !strings.HasPrefix(conv.ID, "OUT-") {
		return
	}
	end := conv.EndedAt
	var call outboundCall
	changed := false
	err := a.store.UpdateDoc(docOutboundCall, conv.Region, conv.ID, &call, func() error {
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
			a.log.Error("outbound call early end", "call", conv.ID, "err", err)
		}
		return
	}
	if changed {
		a.armCall(&call)
	}
}

// answerCall starts the call's VOICE-SIP conversation (id = call sid,
// metadata as SIP headers in its state).
func (a *API) answerCall(call *outboundCall) {
	w := a.world()
	acct := w.account(call.AccountID)
	proj := acct.Project(call.ProjectID)
	if acct == nil || proj == nil {
		return
	}
	headers := map[string]any{}
	for k, v := range call.Metadata {
		headers[k] = v
	}
	_, _, err := a.startConversation(convStart{
		ID: call.SID, Region: call.Region, Account: acct, Project: proj, Channel: "VOICE-SIP",
		Variant: sessionVariant(proj, ""), FromNumber: call.FromNumber, ToNumber: call.ToNumber,
		State: map[string]any{"sip_headers": headers, "direction": "outbound", "encryption": call.Encryption},
	})
	if err != nil && !errors.Is(err, store.ErrExists) {
		a.log.Error("outbound call conversation", "call", call.SID, "err", err)
	}
}

// rearmCalls arms the timers of the stored calls again (after a reset the
// clock has none; with a data file the calls survive a restart).
func (a *API) rearmCalls() {
	for _, region := range scenario.Regions {
		var calls []*outboundCall
		err := store.ListDocs(a.store, docOutboundCall, region, func(_ string, call *outboundCall) bool {
			calls = append(calls, call)
			return true
		})
		if err != nil {
			a.log.Error("outbound calls: rearm", "region", region, "err", err)
		}
		for _, call := range calls {
			a.armCall(call)
		}
	}
}

// OutboundCall is an outbound call as the console shows it: where it
// stands and its timeline on the virtual clock (the steps planned when it
// was placed; a step in the past has happened). Its metadata is left out.
type OutboundCall struct {
	SID        string `json:"call_sid"`
	Region     string `json:"region"`
	AccountID  string `json:"account_id"`
	ProjectID  string `json:"project_id"`
	ToNumber   string `json:"to_number"`
	FromNumber string `json:"from_number,omitempty"`
	// Status is queued, calling, success or failure; Reason explains a
	// failure.
	Status  string `json:"status"`
	Reason  string `json:"reason,omitempty"`
	Outcome string `json:"outcome"`
	// Answered reports that the callee answered: the call's conversation
	// (id = SID) exists.
	Answered    bool      `json:"answered"`
	CreatedAt   time.Time `json:"created_at"`
	CallingAt   time.Time `json:"calling_at"` // zero for a queue timeout
	AnswerAt    time.Time `json:"answer_at"`  // zero unless the outcome is answered
	EndAt       time.Time `json:"end_at"`
	RetainUntil time.Time `json:"retain_until"`
}

// OutboundCalls lists the stored outbound calls of every region, oldest
// first.
func (a *API) OutboundCalls() ([]OutboundCall, error) {
	var out []OutboundCall
	for _, region := range scenario.Regions {
		err := store.ListDocs(a.store, docOutboundCall, region, func(_ string, c *outboundCall) bool {
			out = append(out, OutboundCall{SID: c.SID, Region: c.Region, AccountID: c.AccountID, ProjectID: c.ProjectID,
				ToNumber: c.ToNumber, FromNumber: c.FromNumber, Status: c.Status, Reason: c.Reason, Outcome: c.Outcome,
				Answered: c.Answered, CreatedAt: c.CreatedAt, CallingAt: c.CallingAt, AnswerAt: c.AnswerAt, EndAt: c.EndAt,
				RetainUntil: c.RetainUntil})
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
