package engine

// The steps of the timeline: each firing runs the engine operation of the
// request it stands for and is reported as an Activity.

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/internal/jsonw"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/timeline"
)

// runFiring runs one firing. Fault and receiver windows need nothing: they
// are looked up by time.
func (e *Engine) runFiring(run *timelineRun, f *timeline.Firing) {
	src := &run.entries[f.Entry]
	switch f.Kind {
	case scenario.EntryTraffic:
		e.chatStep(run, f, src.Traffic)
	case scenario.EntryCalls:
		e.callStep(run, f, src.Calls.Number)
	case scenario.EntrySessions:
		e.sessionStep(run, f, src.Sessions)
	case scenario.EntryAction:
		e.actionStep(run, f, src.Do)
	}
}

type stepRequest struct {
	// op is its operationId; family its API family ("" for the control plane).
	op, family, method  string
	region, path, query string
	body                []byte
	// status is the success answer's (0: 200).
	status int
	// account and project are what a runtime family's 5xx counts against.
	account, project string
}

// request runs a step as its request would: an API family's request meets
// the fault set first at the step's time (delays are not waited), then op
// runs with the outcome preset. The outcome is counted, reported, and a
// runtime family's 5xx recorded as an API error.
func (e *Engine) request(run *timelineRun, f *timeline.Firing, r stepRequest, op func(outcome string) ([]byte, error)) {
	now := e.clock.Now()
	act := Activity{Source: SourceTimeline, Time: now, Family: r.family, Method: r.method, Path: r.path, Query: r.query,
		Region: r.region, Request: r.body, Step: stepOf(f, r.op)}
	failed, outcome := false, ""
	if r.family != "" && e.faults.Len() > 0 {
		if rule, hit := e.faults.Match(faults.Request{Family: r.family, Method: r.method, Path: SubPath(r.path),
			Region: r.region, Time: now}); hit {
			act.Fault = rule.ID
			switch a := rule.Action; {
			case a.Drop:
				failed, act.Step.Error = true, "dropped by fault rule "+rule.ID
			case a.Status != 0 || a.Body != "":
				act.Status = a.Status
				if act.Status == 0 {
					act.Status = http.StatusInternalServerError
				}
				failed, act.Step.Error = true, fmt.Sprintf("fault rule %s answered %d", rule.ID, act.Status)
				if a.Body != "" {
					act.Response = []byte(a.Body)
				}
			case a.Preset != "":
				act.Preset = a.Preset
				if call, err := e.faults.Vocabulary().ParsePreset(a.Preset); err == nil && call.Name == PresetOutboundOutcome {
					outcome = call.Value
				}
			}
		}
	}
	if !failed {
		resp, err := op(outcome)
		act.Status, act.Response = r.status, resp
		if act.Status == 0 {
			act.Status = http.StatusOK
		}
		if err != nil {
			act.Status, act.Step.Error = errStatus(err), err.Error()
			if ee := (*Error)(nil); errors.As(err, &ee) {
				act.Code = ee.Code
			}
		}
	}
	e.NoteRuntimeAnswer(RuntimeAnswer{Region: r.region, Account: r.account, Project: r.project, Status: act.Status, At: now})
	run.note(f.Entry, act.Step.Error)
	for _, fn := range e.onActivity {
		fn(act)
	}
}

// quiet counts a step that stands for no request of its own, or fails
// before forming one: not reported.
func (run *timelineRun) quiet(f *timeline.Firing, err error) {
	msg := ""
	if err != nil {
		msg = err.Error()
	}
	run.note(f.Entry, msg)
}

func stepOf(f *timeline.Firing, op string) TimelineStep {
	return TimelineStep{Entry: f.Entry, ID: f.ID, Kind: f.Kind, Action: f.Action, Step: string(f.Step),
		Occurrence: f.Occurrence, Operation: op}
}

// errStatus is the status of an operation's err.
func errStatus(err error) int {
	var e *Error
	switch {
	case errors.As(err, &e):
		return e.HttpStatus()
	case errors.Is(err, ErrCallNotFound), errors.Is(err, ErrNotRouted), errors.Is(err, ErrNotFound):
		return http.StatusNotFound
	case errors.Is(err, ErrNotVoice):
		return http.StatusConflict
	case errors.Is(err, ErrCallEnded):
		return http.StatusGone
	}
	return http.StatusInternalServerError
}

// jsonBody encodes a body; v always encodes.
func jsonBody(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	return b
}

// strBody is a JSON object of string values, keys in the order given.
func strBody(kv ...string) []byte {
	n := 2
	for _, x := range kv {
		n += len(x) + 4 // quotes, and a colon or comma; an escape is rare
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	for i := 0; i+1 < len(kv); i += 2 {
		if i > 0 {
			b = append(b, ',')
		}
		b = jsonw.AppendString(b, kv[i])
		b = append(b, ':')
		b = jsonw.AppendString(b, kv[i+1])
	}
	return append(b, '}')
}

// project resolves a block's account and project references.
func (e *Engine) project(account, project string) (*scenario.Account, *scenario.Project, error) {
	acct := e.View().Account(account)
	if acct == nil {
		return nil, nil, fmt.Errorf("unknown account %q", account)
	}
	proj := acct.Project(project)
	if proj == nil {
		return nil, nil, fmt.Errorf("unknown project %q of account %s", project, acct.Slug)
	}
	return acct, proj, nil
}

// chatPrincipal is the principal of an entry's chat traffic, as its
// environment's connector token would give (made once per run).
func (e *Engine) chatPrincipal(run *timelineRun, entry int, t *scenario.ChatTraffic) (*Principal, error) {
	if p := run.chats[entry]; p != nil {
		return p, nil
	}
	acct, proj, err := e.project(t.Account, t.Project)
	if err != nil {
		return nil, err
	}
	p := &Principal{Account: acct, Project: proj, Region: acct.Region,
		Connector: &scenario.Credential{Kind: scenario.KindConnector, Account: acct.Slug, Project: proj.Slug,
			ClientEnv: t.Environment, Variant: t.Variant}}
	run.chats[entry] = p
	return p, nil
}

// chatStep runs a background chat step (docs/api.md#chat); a conversation
// that failed to start or ended takes no further step.
func (e *Engine) chatStep(run *timelineRun, f *timeline.Firing, t *scenario.ChatTraffic) {
	key := convKey{f.Entry, f.Occurrence}
	if _, held := run.convs[key]; !held && f.Step != timeline.StepStart {
		return // it failed to start, or has ended
	}
	p, err := e.chatPrincipal(run, f.Entry, t)
	if err != nil {
		run.quiet(f, err)
		return
	}
	rt := scenario.RuntimeName(p.Region)
	base := "/runtime/" + rt + "/v1/" + p.Account.Slug + "/" + p.Project.Slug + "/chat/"
	r := stepRequest{family: "chat", region: rt, account: p.Account.ID, project: p.Project.ID}
	switch f.Step {
	case timeline.StepStart:
		r.op, r.method, r.path = "chatCreate", http.MethodPost, base+"create"
		r.body = strBody("channel", t.Channel)
		e.request(run, f, r, func(string) ([]byte, error) {
			conv, out, err := e.CreateChat(p, ChatStart{Channel: &t.Channel})
			if err != nil {
				return nil, err
			}
			if conv.InProgress {
				run.convs[key] = conv.ID
			}
			return strBody("conversation_id", conv.ID, "response", out.Text), nil
		})
	case timeline.StepTurn:
		id, msg := run.convs[key], f.Message()
		r.op, r.method, r.path = "chatRespond", http.MethodPost, base+"respond"
		r.body = strBody("conversation_id", id, "message", msg)
		e.request(run, f, r, func(string) ([]byte, error) {
			conv, out, err := e.RespondChat(p, id, UserTurn{Text: msg})
			if err != nil {
				if errStatus(err) == http.StatusGone || errStatus(err) == http.StatusNotFound {
					delete(run.convs, key)
				}
				return nil, err
			}
			if !conv.InProgress {
				delete(run.convs, key)
			}
			if h := out.Handoff; h != nil || !conv.InProgress {
				resp := ChatRespondResponse{ConversationID: conv.ID, Response: out.Text, EndConversation: !conv.InProgress}
				if h != nil {
					resp.Handoff = &ChatHandoff{Destination: h.Destination, Reason: h.Reason}
				}
				return jsonBody(resp), nil
			}
			b := strBody("conversation_id", conv.ID, "response", out.Text)
			return append(b[:len(b)-1], `,"end_conversation":false}`...), nil
		})
	case timeline.StepEnd:
		id := run.convs[key]
		delete(run.convs, key)
		r.op, r.method, r.path = "chatClose", http.MethodPut, base+"close"
		r.body = strBody("conversation_id", id)
		e.request(run, f, r, func(string) ([]byte, error) {
			if err := e.CloseChat(p, id); err != nil {
				return nil, err
			}
			return []byte(`{"success":true}`), nil
		})
	}
}

// callStep runs a voice call step: the simulated caller dials, speaks and
// hangs up as the control plane's dial, say and hangup do.
func (e *Engine) callStep(run *timelineRun, f *timeline.Firing, number string) {
	key := convKey{f.Entry, f.Occurrence}
	switch f.Step {
	case timeline.StepStart:
		from := f.Conversation.From
		r := stepRequest{op: "dial", method: http.MethodPost, path: "/_mock/dni/dial",
			body: strBody("number", number, "from", from)}
		e.request(run, f, r, func(string) ([]byte, error) {
			res, err := e.CallIn(number, from)
			if err != nil {
				return nil, err
			}
			run.convs[key] = res.ConversationID
			return jsonBody(res), nil
		})
	case timeline.StepTurn:
		id, ok := run.convs[key]
		if !ok {
			return
		}
		msg := f.Message()
		r := stepRequest{op: "say", method: http.MethodPost, path: "/_mock/calls/" + id + "/say",
			body: strBody("text", msg)}
		e.request(run, f, r, func(string) ([]byte, error) {
			res, err := e.Say(id, msg)
			if err != nil {
				if errors.Is(err, ErrCallEnded) || errors.Is(err, ErrCallNotFound) {
					delete(run.convs, key)
				}
				return nil, err
			}
			if res.Ended {
				delete(run.convs, key)
			}
			return jsonBody(res), nil
		})
	case timeline.StepEnd:
		id, ok := run.convs[key]
		if !ok {
			return
		}
		delete(run.convs, key)
		r := stepRequest{op: "hangup", method: http.MethodPost, path: "/_mock/calls/" + id + "/hangup"}
		e.request(run, f, r, func(string) ([]byte, error) {
			if err := e.Hangup(id); err != nil {
				return nil, err
			}
			return jsonBody(map[string]any{"conversation_id": id, "ended": true}), nil
		})
	}
}

// CallIn is a simulated caller dialling a number: a reserved dni number
// (Dial), else one routed to a connector (CallNumber).
func (e *Engine) CallIn(number, from string) (*DialResult, error) {
	r, err := e.Dial(number, from)
	if errors.Is(err, ErrNotRouted) {
		if r2, err2 := e.CallNumber(number, from); err2 == nil {
			return r2, nil
		}
	}
	return r, err
}

// sessionStep runs a messaging session step: the create is journaled; its
// messages and end go over the socket and are only counted.
func (e *Engine) sessionStep(run *timelineRun, f *timeline.Firing, m *scenario.SessionTraffic) {
	key := convKey{f.Entry, f.Occurrence}
	if e.sessions == nil {
		if f.Step == timeline.StepStart {
			run.quiet(f, ErrNoSessions)
		}
		return
	}
	switch f.Step {
	case timeline.StepStart:
		acct, proj, err := e.project(m.Account, m.Project)
		if err != nil {
			run.quiet(f, err)
			return
		}
		r := stepRequest{op: "messagingSessionCreate", family: "messaging", method: http.MethodPost,
			path: "/messaging/api/v1/sessions", body: jsonBody(map[string]bool{"streaming_enabled": m.Streaming})}
		e.request(run, f, r, func(string) ([]byte, error) {
			id, err := e.sessions.OpenSession(acct, proj, m.Environment, m.Streaming)
			if err != nil {
				return nil, err
			}
			run.convs[key] = id
			return jsonBody(map[string]string{"session_id": id}), nil
		})
	case timeline.StepTurn:
		id, ok := run.convs[key]
		if !ok {
			return
		}
		ended, err := e.sessions.SessionMessage(id, f.Message())
		if ended || err != nil {
			delete(run.convs, key)
		}
		run.quiet(f, err)
	case timeline.StepEnd:
		id, ok := run.convs[key]
		if !ok {
			return
		}
		delete(run.convs, key)
		run.quiet(f, e.sessions.EndSession(id))
	}
}

func (e *Engine) actionStep(run *timelineRun, f *timeline.Firing, a *scenario.TimelineAction) {
	switch f.Action {
	case scenario.ActionInboundCall:
		e.callStep(run, f, a.InboundCall.Number)
	case scenario.ActionOutboundCampaign:
		e.campaignCall(run, f, a.OutboundCampaign)
	case scenario.ActionPublish, scenario.ActionPromote, scenario.ActionRealTimeConfig:
		e.agentAction(run, f, a)
	case scenario.ActionExternalEvent:
		e.externalEvent(run, f, a.ExternalEvent)
	case scenario.ActionAPIErrors:
		x := a.APIErrors
		body := jsonBody(map[string]string{"kind": "api_error", "account": x.Account, "project": x.Project})
		r := stepRequest{op: "recordAlertInput", method: http.MethodPost, path: "/_mock/alerts/inputs", body: body}
		e.request(run, f, r, func(string) ([]byte, error) {
			for range max(x.Count, 1) {
				if err := e.RecordAPIError(x.Account, x.Project); err != nil {
					return nil, &Error{Kind: KindNotFound, Message: err.Error()}
				}
			}
			return jsonBody(map[string]string{"recorded": "api_error"}), nil
		})
	case scenario.ActionEvaluateAlerts:
		r := stepRequest{op: "evaluateAlerts", method: http.MethodPost, path: "/_mock/alerts/evaluate"}
		e.request(run, f, r, func(string) ([]byte, error) {
			now := e.clock.Now()
			e.evaluateAlertsAt(now)
			return jsonBody(map[string]time.Time{"evaluated_at": now}), nil
		})
	case scenario.ActionExpireMessagingSessions:
		if e.sessions == nil {
			run.quiet(f, ErrNoSessions)
			return
		}
		ids := e.sessions.ExpireSessions()
		for _, id := range ids {
			r := stepRequest{op: "expireMessagingSession", method: http.MethodPost, path: "/_mock/messaging/sessions/" + id + "/expire"}
			e.request(run, f, r, func(string) ([]byte, error) {
				return jsonBody(map[string]any{"expired": true, "session_id": id}), nil
			})
		}
		if len(ids) == 0 {
			run.quiet(f, nil)
		}
	case scenario.ActionExpireMessagingTokens:
		r := stepRequest{op: "expireMessagingTokens", method: http.MethodPost, path: "/_mock/messaging/tokens/expire"}
		e.request(run, f, r, func(string) ([]byte, error) {
			if e.sessions == nil {
				return nil, ErrNoSessions
			}
			e.sessions.ExpireTokens()
			return jsonBody(map[string]bool{"expired": true}), nil
		})
	}
}

// campaignCall places one call of an outbound campaign, rate limit
// included (docs/api.md#outbound).
func (e *Engine) campaignCall(run *timelineRun, f *timeline.Firing, c *scenario.OutboundCampaign) {
	acct, proj, err := e.project(c.Account, c.Project)
	if err != nil {
		run.quiet(f, err)
		return
	}
	p := &Principal{Account: acct, Project: proj, Region: acct.Region}
	body := map[string]any{"to_number": f.Number}
	if len(c.Metadata) > 0 {
		body["metadata"] = c.Metadata
	}
	r := stepRequest{op: "outboundCallCreate", family: "outbound", method: http.MethodPost,
		region: scenario.RuntimeName(acct.Region), body: jsonBody(body)}
	r.path = "/runtime/" + r.region + "/v1/outbound-calling"
	e.request(run, f, r, func(outcome string) ([]byte, error) {
		sid, err := e.PlaceCall(p, CallRequest{To: f.Number, Metadata: c.Metadata, Outcome: outcome})
		if err != nil {
			return nil, err
		}
		return jsonBody(OutboundResponse{CallSID: sid}), nil
	})
}

// agentAction runs publish, promote or real_time_config on an agent as the
// account's builder key would.
func (e *Engine) agentAction(run *timelineRun, f *timeline.Firing, a *scenario.TimelineAction) {
	var account, agent string
	switch {
	case a.Publish != nil:
		account, agent = a.Publish.Account, a.Publish.Agent
	case a.Promote != nil:
		account, agent = a.Promote.Account, a.Promote.Agent
	default:
		account, agent = a.RealTimeConfig.Account, a.RealTimeConfig.Agent
	}
	acct, proj, err := e.project(account, agent)
	if err != nil {
		run.quiet(f, err)
		return
	}
	p := &Principal{Account: acct, Region: acct.Region}
	r := stepRequest{family: "agents", method: http.MethodPost, region: acct.Region}
	base := "/builder/" + acct.Region + "/v1/agents/" + proj.ID
	switch {
	case a.Publish != nil:
		r.op, r.path, r.status = "deploymentPublish", base+"/deployments/publish", http.StatusCreated
		r.body = jsonBody(map[string]string{"deploymentMessage": a.Publish.Message})
		e.request(run, f, r, func(string) ([]byte, error) {
			d, err := e.Publish(p, proj.ID, a.Publish.Message)
			if err != nil {
				return nil, err
			}
			return jsonBody(d), nil
		})
	case a.Promote != nil:
		x := a.Promote
		act, err := e.ActiveDeployments(p, proj.ID)
		if err != nil {
			run.quiet(f, err)
			return
		}
		from := map[string]*Deployment{"sandbox": act.Sandbox, "pre-release": act.PreRelease, "live": act.Live}[x.From]
		if from == nil {
			run.quiet(f, fmt.Errorf("promote %s: no deployment is active in %s", proj.Slug, x.From))
			return
		}
		r.op, r.path, r.status = "deploymentPromote", base+"/deployments/"+url.PathEscape(from.ID)+"/promote", http.StatusOK
		r.body = jsonBody(map[string]string{"targetEnvironment": x.To, "deploymentMessage": x.Message})
		e.request(run, f, r, func(string) ([]byte, error) {
			d, err := e.Promote(p, proj.ID, from.ID, x.To, x.Message)
			if err != nil {
				return nil, err
			}
			return jsonBody(d), nil
		})
	default:
		x := a.RealTimeConfig
		r.op, r.method, r.path = "realTimeConfigVariables", http.MethodPatch, base+"/real-time-configs/"+x.Environment+"/variables"
		r.body = jsonBody(map[string]any{"variables": x.Variables})
		e.request(run, f, r, func(string) ([]byte, error) {
			page, err := e.SetConfigVariables(p, proj.ID, x.Environment, x.Variables)
			if err != nil {
				return nil, err
			}
			return jsonBody(page), nil
		})
	}
}

// externalEvent delivers an external event as POST external-events/webhook
// would (docs/api.md#external-events).
func (e *Engine) externalEvent(run *timelineRun, f *timeline.Firing, x *scenario.ExternalEvent) {
	acct, proj, err := e.project(x.Account, x.Project)
	if err != nil {
		run.quiet(f, err)
		return
	}
	payload := map[string]any{}
	for k, v := range x.Payload {
		payload[k] = v
	}
	payload["event_id"] = x.EventID
	body := jsonBody(payload)
	rt := scenario.RuntimeName(acct.Region)
	q := url.Values{"account_id": {acct.ID}, "project_id": {proj.ID}, "event_id_location": {"payload"}, "event_id_path": {"event_id"}}
	r := stepRequest{op: "externalEventPost", family: "external_events", method: http.MethodPost, region: rt,
		path: "/runtime/" + rt + "/v1/external-events/webhook", query: q.Encode(), body: body, status: http.StatusCreated}
	e.request(run, f, r, func(string) ([]byte, error) {
		t := EventTarget{Location: "payload", Path: "event_id", Account: acct.ID, Project: proj.ID}
		_, err := e.PostEvent(acct.Region, t, x.EventID, "application/json", body)
		return nil, err
	})
}
