package console

import (
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/handlers"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// step is one step of an outbound call's timeline.
type step struct {
	Label string
	At    time.Time
	Done  bool
}

type callRow struct {
	engine.OutboundCall
	Steps []step
}

type callsPage struct {
	page
	Calls        []callRow
	Voice        []*store.Conversation
	Sessions     []handlers.MessagingSession
	Reservations []engine.Reservation
	// Numbers are numbers worth dialling: reserved or connector ones.
	Numbers []string
	Error   string
}

// handleCalls serves outbound calls, voice calls in progress, messaging
// sessions and reservations, with a form that dials a number.
func (c *Console) handleCalls(w http.ResponseWriter, r *http.Request) {
	p := callsPage{page: c.newPage(r, "calls", "Calls and sessions")}
	var problems []string
	calls, err := c.b.OutboundCalls()
	if err != nil {
		problems = append(problems, "outbound calls: "+err.Error())
	}
	for _, call := range calls {
		p.Calls = append(p.Calls, callRow{OutboundCall: call, Steps: callSteps(call, p.Now)})
	}
	slices.Reverse(p.Calls)
	voice, err := c.liveVoice()
	if err != nil {
		problems = append(problems, "voice calls: "+err.Error())
	}
	p.Voice = voice
	p.Sessions = c.b.MessagingSessions()
	if p.Reservations, err = c.b.Reservations(); err != nil {
		problems = append(problems, "reservations: "+err.Error())
	}
	for _, res := range p.Reservations {
		if res.Active {
			p.Numbers = append(p.Numbers, res.Number)
		}
	}
	p.Numbers = append(p.Numbers, connectorNumbers(c.b.Scenario())...)
	status := http.StatusOK
	if problems != nil {
		p.Error = "Could not read " + strings.Join(problems, "; ")
		status = http.StatusInternalServerError
	}
	c.render(w, r, "calls", status, p)
}

// callSteps is a call's timeline, each step done once now reached it.
func callSteps(call engine.OutboundCall, now time.Time) []step {
	steps := []step{{Label: "queued", At: call.CreatedAt}}
	if !call.CallingAt.IsZero() {
		steps = append(steps, step{Label: "calling", At: call.CallingAt})
	}
	if !call.AnswerAt.IsZero() {
		steps = append(steps, step{Label: "answered", At: call.AnswerAt})
	}
	end := "ends: success"
	if call.Outcome != "answered" {
		end = "ends: failure (" + call.Outcome + ")"
	}
	steps = append(steps, step{Label: end, At: call.EndAt}, step{Label: "status forgotten", At: call.RetainUntil})
	for i := range steps {
		steps[i].Done = !now.Before(steps[i].At)
	}
	return steps
}

// liveVoice lists the voice conversations in progress of every project.
func (c *Console) liveVoice() ([]*store.Conversation, error) {
	sc := c.b.Scenario()
	if sc == nil {
		return nil, nil
	}
	var out []*store.Conversation
	for _, a := range sc.Accounts {
		for _, pr := range a.Projects {
			for _, env := range scenario.Environments {
				page, err := c.b.ListConversations(a.Slug, pr.Slug, url.Values{"channel": {"VOICE-SIP"},
					"in_progress": {"true"}, "client_env": {env}, "limit": {"100"}})
				if err != nil {
					return out, err
				}
				out = append(out, page.Conversations...)
			}
		}
	}
	slices.SortStableFunc(out, func(x, y *store.Conversation) int { return y.StartedAt.Compare(x.StartedAt) })
	return out, nil
}

func connectorNumbers(sc *scenario.Scenario) []string {
	if sc == nil {
		return nil
	}
	var out []string
	for _, a := range sc.Accounts {
		for _, pr := range a.Projects {
			for _, cn := range pr.Connectors {
				out = append(out, cn.PhoneNumbers...)
			}
		}
	}
	return out
}
