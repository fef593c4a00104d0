package console

import (
	"errors"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/journal"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// defaultPageSize is the page of conversations (the API's 5 is small).
const defaultPageSize = 25

var channelLabels = []string{"CHAT", "WEBCHAT", "WHATSAPP", "SMS", "VOICE-SIP"}

// projectOption is a project the conversations page can list.
type projectOption struct {
	Value, Label string
	Variants     []scenario.Variant
}

// convFilters are the conversations page's filters.
type convFilters struct {
	Project                     string
	Start, End                  string
	Env                         string
	Channels                    map[string]bool
	VariantID, VariantName      string
	InProgress                  string
	Limit                       string
	QueryType, Query, TurnType  string
	Sample                      bool
	Cursor                      string
	Envs, QueryTypes, TurnTypes []string
	ChannelLabels               []string
}

type conversationsPage struct {
	page
	Projects    []projectOption
	Project     *projectOption
	F           convFilters
	List        []*store.Conversation
	Next, First string
	Error       string
}

// handleConversations serves a project's conversations, a page at a time.
func (c *Console) handleConversations(w http.ResponseWriter, r *http.Request) {
	p := conversationsPage{page: c.newPage(r, "conversations", "Conversations")}
	in := r.URL.Query()
	p.Projects = projectOptions(c.b.Scenario())
	f := convFilters{Project: in.Get("project"), Start: in.Get("start_time"), End: in.Get("end_time"),
		Env: in.Get("client_env"), Channels: map[string]bool{}, VariantID: in.Get("variant_id"),
		VariantName: in.Get("variant_name"), InProgress: in.Get("in_progress"), Limit: in.Get("limit"),
		QueryType: in.Get("query_type"), Query: in.Get("query"), TurnType: in.Get("turn_type"),
		Sample: in.Get("sample") == "random", Cursor: in.Get("cursor"),
		Envs: scenario.Environments, QueryTypes: []string{"transcript", "semantic"}, TurnTypes: []string{"user", "agent"},
		ChannelLabels: channelLabels}
	for _, ch := range in["channel"] {
		f.Channels[ch] = true
	}
	if f.Project == "" && len(p.Projects) > 0 {
		f.Project = p.Projects[0].Value
	}
	for i := range p.Projects {
		if p.Projects[i].Value == f.Project {
			p.Project = &p.Projects[i]
		}
	}
	p.F = f
	status := http.StatusOK
	if p.Project == nil {
		p.Error = "No project " + strconv.Quote(f.Project) + " in the scenario."
		c.render(w, r, "conversations", http.StatusNotFound, p)
		return
	}
	account, project, _ := strings.Cut(f.Project, "/")
	page, err := c.b.ListConversations(account, project, apiQuery(in))
	if err == nil {
		p.List = page.Conversations
		if page.Cursor != "" {
			next := cloneValues(in)
			next.Set("cursor", page.Cursor)
			p.Next = "?" + next.Encode()
		}
		if f.Cursor != "" {
			first := cloneValues(in)
			first.Del("cursor")
			first.Del("offset")
			p.First = "?" + first.Encode()
		}
	}
	if err != nil {
		p.Error = errorMessage(err)
		status = http.StatusBadRequest
	}
	c.render(w, r, "conversations", status, p)
}

// apiQuery turns the page's query into the API's (datetime-local times
// read as UTC).
func apiQuery(in url.Values) url.Values {
	q := url.Values{}
	for k, vs := range in {
		if k == "project" {
			continue
		}
		for _, v := range vs {
			if v = strings.TrimSpace(v); v != "" {
				q.Add(k, v)
			}
		}
	}
	for _, k := range []string{"start_time", "end_time"} {
		if v := q.Get(k); v != "" {
			if _, err := time.Parse(time.RFC3339Nano, v); err != nil {
				for _, layout := range []string{"2006-01-02T15:04", "2006-01-02T15:04:05", "2006-01-02T15:04:05.999999999"} {
					if t, err := time.Parse(layout, v); err == nil {
						q.Set(k, t.UTC().Format(time.RFC3339Nano))
						break
					}
				}
			}
		}
	}
	if q.Get("limit") == "" {
		q.Set("limit", strconv.Itoa(defaultPageSize))
	}
	return q
}

func cloneValues(v url.Values) url.Values {
	out := url.Values{}
	for k, vs := range v {
		out[k] = slices.Clone(vs)
	}
	return out
}

// errorMessage is an API error's message, or the error's own.
func errorMessage(err error) string {
	var e *engine.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

func projectOptions(sc *scenario.Scenario) []projectOption {
	if sc == nil {
		return nil
	}
	var out []projectOption
	for _, a := range sc.Accounts {
		for _, pr := range a.Projects {
			label := a.Slug + " / " + pr.Slug
			if pr.Name != "" {
				label += " (" + pr.Name + ")"
			}
			out = append(out, projectOption{Value: a.Slug + "/" + pr.Slug, Label: label + ", region " + a.Region,
				Variants: pr.Variants})
		}
	}
	return out
}

type conversationPage struct {
	page
	C       *store.Conversation
	Handoff *store.HandoffState
	// HandoffErr says why the handoff state could not be read.
	HandoffErr string
	Voice      bool
	Duration   time.Duration
}

// redactConversation redacts the caller's copy of a conversation in place:
// state, custom metrics, JSON and form event payloads.
func redactConversation(conv *engine.Conversation) {
	journal.RedactValue(conv.State)
	journal.RedactValue(conv.Metrics)
	conv.Events = slices.Clone(conv.Events)
	for i := range conv.Events {
		conv.Events[i].Payload = []byte(journal.RedactPayload(conv.Events[i].ContentType, conv.Events[i].Payload))
	}
}

// handleConversation serves one conversation with its handoff and events.
func (c *Console) handleConversation(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	conv, err := c.b.Conversation(id)
	if errors.Is(err, store.ErrNotFound) {
		c.problem(w, r, http.StatusNotFound, "Conversation not found", "No conversation "+strconv.Quote(id)+" in any region.")
		return
	}
	if err != nil {
		c.problem(w, r, http.StatusInternalServerError, "Conversation unreadable", err.Error())
		return
	}
	// Secrets show as the journal shows them (docs/security.md#secrets).
	redactConversation(conv)
	p := conversationPage{page: c.newPage(r, "conversations", "Conversation "+conv.ID), C: conv,
		Voice: strings.HasPrefix(conv.Channel, "VOICE")}
	p.Duration = conv.Duration(p.Now)
	if conv.Handoff || conv.SharedID != "" {
		hs, err := c.b.HandoffState(conv)
		switch {
		case err == nil:
			journal.RedactValue(hs.Data)
			p.Handoff = hs
		case !errors.Is(err, store.ErrNotFound):
			p.HandoffErr = err.Error()
		}
	}
	c.render(w, r, "conversation", http.StatusOK, p)
}
