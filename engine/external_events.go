package engine

// External events (docs/api.md#external-events): a third party posts an
// event; its id is read where the query says, it binds to an awaiting
// conversation, a conversation id, or a handoff's shared_id, and lands in
// that conversation's state. Unbound events are kept pending. The binding
// rule and payload formats: docs/fidelity.md M11.10.

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/agentplatform/mockplatform/store"
)

// EventLocations are the places an event id may be (event_id_location).
var EventLocations = []string{"headers", "querystring", "payload"}

// External events messages ([OAS] for the two event id texts).
const (
	MsgEventIDNotFound   = "External event id not found in request"
	MsgEventIDInvalid    = "External event id not valid"
	MsgEventParamMissing = "Missing required query parameter: %s"
	MsgEventLocation     = "event_id_location must be one of headers, querystring, payload"
	MsgEventContentType  = "Unsupported content type %q: use application/json, application/x-www-form-urlencoded, application/xml or text/plain"
	MsgEventBadPayload   = "Payload is not valid %s"
	MsgEventAccount      = "Unknown account_id %q"
	MsgEventProject      = "Unknown project_id %q"

	docAwait        = "await"         // id account/project/event -> awaitDoc
	docEventPending = "event_pending" // id account/project/event -> pendingDoc

	maxEventIDLen = 256
)

type awaitDoc struct {
	ConversationID string `json:"conversation_id"`
}

type pendingDoc struct {
	Events []store.Event `json:"events"`
}

func eventKey(account, project, id string) string { return account + "/" + project + "/" + id }

// EventTarget is where an event's id is and the project it belongs to.
type EventTarget struct {
	Location, Path   string
	Account, Project string // ids
}

// msgEventKey refuses another account's or project's event as an unknown
// key would.
const msgEventKey = "Invalid API key."

// ResolveEventTarget resolves the query string of p's event: references
// outside p's account or project are 401, unknown ones 400.
func (a *Engine) ResolveEventTarget(p *Principal, location, path, accountRef, projectRef string) (EventTarget, error) {
	acct := a.View().Account(accountRef)
	if acct == nil {
		return EventTarget{}, &Error{Kind: KindInvalid, Message: fmt.Sprintf(MsgEventAccount, accountRef)}
	}
	if acct != p.Account {
		return EventTarget{}, &Error{Kind: KindUnauthorized, Message: msgEventKey}
	}
	proj := acct.Project(projectRef)
	if proj == nil {
		return EventTarget{}, &Error{Kind: KindInvalid, Message: fmt.Sprintf(MsgEventProject, projectRef)}
	}
	if p.Project != nil && p.Project != proj {
		return EventTarget{}, &Error{Kind: KindUnauthorized, Message: msgEventKey}
	}
	return EventTarget{Location: location, Path: path, Account: acct.ID, Project: proj.ID}, nil
}

// PostEvent records an event received now: bound to its conversation, or
// kept pending.
func (a *Engine) PostEvent(region string, t EventTarget, id, ctype string, payload []byte) (bound bool, err error) {
	ev := store.Event{ID: id, ReceivedAt: a.clock.Now(), ContentType: ctype, Payload: payload}
	if ev.Payload == nil {
		ev.Payload = []byte{}
	}
	return a.deliverEvent(region, t.Account, t.Project, ev)
}

// EventContentType is the Content-Type's media type (text/xml read as
// application/xml); unsupported or missing is 415.
func EventContentType(header string, body []byte) (string, error) {
	ctype := ""
	if header != "" {
		mt, _, err := mime.ParseMediaType(header)
		if err != nil {
			return "", &Error{Kind: KindUnsupportedMedia, Message: fmt.Sprintf(MsgEventContentType, header)}
		}
		ctype = mt
	}
	if ctype == "text/xml" {
		ctype = "application/xml"
	}
	switch ctype {
	case "application/json", "application/x-www-form-urlencoded", "application/xml", "text/plain":
	case "":
		if len(bytes.TrimSpace(body)) > 0 {
			return "", &Error{Kind: KindUnsupportedMedia, Message: fmt.Sprintf(MsgEventContentType, "")}
		}
	default:
		return "", &Error{Kind: KindUnsupportedMedia, Message: fmt.Sprintf(MsgEventContentType, ctype)}
	}
	return ctype, nil
}

// ValidEventID reports 1 to 256 characters, no whitespace or controls.
func ValidEventID(id string) bool {
	if id == "" || len(id) > maxEventIDLen {
		return false
	}
	for _, r := range id {
		if unicode.IsSpace(r) || unicode.IsControl(r) || r == unicode.ReplacementChar {
			return false
		}
	}
	return true
}

// ParseEventPayload parses a body per content type.
func ParseEventPayload(ctype string, body []byte) (any, error) {
	if len(bytes.TrimSpace(body)) == 0 {
		return nil, nil
	}
	switch ctype {
	case "application/json":
		if err := CheckJSON(body); err != nil {
			return nil, &Error{Kind: KindInvalid, Message: fmt.Sprintf(MsgEventBadPayload, "JSON") + ": " + err.Error()}
		}
		dec := json.NewDecoder(bytes.NewReader(body))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, &Error{Kind: KindInvalid, Message: fmt.Sprintf(MsgEventBadPayload, "JSON")}
		}
		return v, nil
	case "application/x-www-form-urlencoded":
		vals, err := url.ParseQuery(string(body))
		if err != nil {
			return nil, &Error{Kind: KindInvalid, Message: fmt.Sprintf(MsgEventBadPayload, "form data")}
		}
		return firstValues(vals), nil
	case "application/xml":
		dec := xml.NewDecoder(bytes.NewReader(body))
		for {
			_, err := dec.Token()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				return nil, &Error{Kind: KindInvalid, Message: fmt.Sprintf(MsgEventBadPayload, "XML")}
			}
		}
		return string(body), nil
	}
	return string(body), nil
}

func firstValues(vals url.Values) map[string]any {
	out := make(map[string]any, len(vals))
	for k, v := range vals {
		if len(v) > 0 {
			out[k] = v[0]
		}
	}
	return out
}

// EventIDFromPayload finds the event id in the body at path, per content
// type (docs/fidelity.md M11.10).
func EventIDFromPayload(ctype string, body []byte, parsed any, path string) (string, bool, error) {
	switch ctype {
	case "application/json":
		v, ok := jsonPath(parsed, path)
		if !ok {
			return "", false, nil
		}
		switch t := v.(type) {
		case string:
			return t, true, nil
		case json.Number:
			if _, err := strconv.ParseInt(t.String(), 10, 64); err == nil {
				return t.String(), true, nil
			}
		}
		return "", false, &Error{Kind: KindInvalid, Message: MsgEventIDInvalid}
	case "application/x-www-form-urlencoded":
		m, _ := parsed.(map[string]any)
		v, ok := m[path].(string)
		return v, ok, nil
	case "application/xml":
		v, ok := xmlPath(body, path)
		return v, ok, nil
	case "text/plain":
		v, ok := textField(string(body), path)
		return v, ok, nil
	}
	return "", false, nil
}

func jsonPath(v any, path string) (any, bool) {
	if m, ok := v.(map[string]any); ok {
		if x, ok := m[path]; ok {
			return x, true
		}
	}
	for _, seg := range strings.Split(path, ".") {
		switch t := v.(type) {
		case map[string]any:
			x, ok := t[seg]
			if !ok {
				return nil, false
			}
			v = x
		case []any:
			i, err := strconv.Atoi(seg)
			if err != nil || i < 0 || i >= len(t) {
				return nil, false
			}
			v = t[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func xmlPath(body []byte, path string) (string, bool) {
	want := strings.Split(path, ".")
	dec := xml.NewDecoder(bytes.NewReader(body))
	var stack []string
	var text strings.Builder
	collecting := -1 // depth of the element being collected
	matches := func() bool {
		if slices.Equal(stack, want) {
			return true
		}
		return len(stack) > 1 && slices.Equal(stack[1:], want)
	}
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		switch t := tok.(type) {
		case xml.StartElement:
			stack = append(stack, t.Name.Local)
			if collecting < 0 && matches() {
				collecting = len(stack)
			}
		case xml.CharData:
			if collecting >= 0 {
				text.Write(t)
			}
		case xml.EndElement:
			if collecting == len(stack) {
				return strings.TrimSpace(text.String()), true
			}
			stack = stack[:len(stack)-1]
		}
	}
}

// textField reads key=value pairs (& or new lines) or "key: value" lines.
func textField(body, key string) (string, bool) {
	for _, line := range strings.FieldsFunc(body, func(r rune) bool { return r == '\n' || r == '\r' }) {
		for _, pair := range strings.Split(line, "&") {
			k, v, ok := strings.Cut(pair, "=")
			if !ok {
				k, v, ok = strings.Cut(pair, ":")
			}
			if !ok {
				continue
			}
			if uk, err := url.QueryUnescape(strings.TrimSpace(k)); err == nil {
				k = uk
			}
			if k == key {
				v = strings.TrimSpace(v)
				if uv, err := url.QueryUnescape(v); err == nil {
					v = uv
				}
				return v, true
			}
		}
	}
	return "", false
}

// deliverEvent binds an event to its conversation or keeps it pending.
func (a *Engine) deliverEvent(region, accountID, projectID string, ev store.Event) (bool, error) {
	convID := ""
	var aw awaitDoc
	err := a.store.GetDoc(docAwait, region, eventKey(accountID, projectID, ev.ID), &aw)
	switch {
	case err == nil:
		convID = aw.ConversationID
	case !errors.Is(err, store.ErrNotFound):
		return false, err
	}
	if convID == "" {
		if c, err := a.store.GetConversation(region, ev.ID); err == nil && c.AccountID == accountID && c.ProjectID == projectID {
			convID = c.ID
		}
	}
	if convID == "" {
		if hs, err := a.store.GetHandoffState(region, accountID, projectID, "", ev.ID); err == nil {
			convID = hs.ID
		}
	}
	if convID != "" {
		err := a.bindEvents(region, accountID, projectID, convID, ev)
		if err == nil {
			a.RecordTransition(MachineExternalEvent, "", "bound")
			return true, nil
		}
		if !errors.Is(err, store.ErrNotFound) {
			return false, err
		}
	}
	key := eventKey(accountID, projectID, ev.ID)
	pend := pendingDoc{Events: []store.Event{ev}}
	err = a.store.InsertDoc(docEventPending, region, key, &pend)
	if errors.Is(err, store.ErrExists) {
		var cur pendingDoc
		err = a.store.UpdateDoc(docEventPending, region, key, &cur, func() error {
			cur.Events = append(cur.Events, ev)
			return nil
		})
	}
	if err == nil {
		a.RecordTransition(MachineExternalEvent, "", "unbound")
	}
	return false, err
}

var errOtherProject = errors.New("conversation of another project")

// bindEvents appends events to a conversation and its state.
func (a *Engine) bindEvents(region, accountID, projectID, convID string, evs ...store.Event) error {
	_, err := a.store.UpdateConversation(region, convID, func(c *store.Conversation) error {
		if c.AccountID != accountID || c.ProjectID != projectID {
			return errOtherProject
		}
		if c.State == nil {
			c.State = map[string]any{}
		}
		all, _ := c.State["external_events"].(map[string]any)
		all = maps.Clone(all)
		if all == nil {
			all = map[string]any{}
		}
		for _, ev := range evs {
			c.Events = append(c.Events, ev)
			payload, _ := ParseEventPayload(ev.ContentType, ev.Payload)
			all[ev.ID] = map[string]any{"content_type": ev.ContentType, "received_at": IsoTime(ev.ReceivedAt), "payload": payload}
			c.State["last_external_event_id"] = ev.ID
		}
		c.State["external_events"] = all
		return nil
	})
	if errors.Is(err, errOtherProject) {
		return store.ErrNotFound
	}
	return err
}

// awaitEvent registers that a conversation awaits an event id (after the
// turn is stored) and binds the events of that id that came before.
func (a *Engine) awaitEvent(conv *store.Conversation, eventID string) {
	key := eventKey(conv.AccountID, conv.ProjectID, eventID)
	if err := a.store.PutDoc(docAwait, conv.Region, key, awaitDoc{ConversationID: conv.ID}); err != nil {
		a.Log.Error("register awaited event", "conversation", conv.ID, "err", err)
		return
	}
	var pend pendingDoc
	if err := a.store.GetDoc(docEventPending, conv.Region, key, &pend); err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			a.Log.Error("read pending events", "conversation", conv.ID, "err", err)
		}
		return
	}
	if err := a.bindEvents(conv.Region, conv.AccountID, conv.ProjectID, conv.ID, pend.Events...); err != nil {
		a.Log.Error("bind pending events", "conversation", conv.ID, "err", err)
		return
	}
	for range pend.Events {
		a.RecordTransition(MachineExternalEvent, "unbound", "bound")
	}
	if err := a.store.DeleteDoc(docEventPending, conv.Region, key); err != nil && !errors.Is(err, store.ErrNotFound) {
		a.Log.Error("delete pending events", "conversation", conv.ID, "err", err)
	}
}
