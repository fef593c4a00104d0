package mockplatform

// The web console ({base}/_mock/ui) is mounted behind the control plane's
// guard; every change a page makes is the browser's own control call.

import (
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/console"
	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/engine/audio"
	"github.com/agentplatform/mockplatform/engine/convquery"
	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/handlers"
	"github.com/agentplatform/mockplatform/journal"
	"github.com/agentplatform/mockplatform/store"
	"github.com/agentplatform/mockplatform/timeline"
)

const consolePrefix = controlPrefix + "/ui"

// registerControlConsole mounts the console; e's routes say which
// documents it may link to.
func (p *Platform) registerControlConsole(g *gin.RouterGroup, e *gin.Engine) {
	c := console.New(consoleBackend{api: p.api, p: p, engine: e}, console.Options{Done: p.done, Logger: p.cfg.logger})
	h := gin.WrapH(http.StripPrefix(consolePrefix, c))
	g.GET("/ui", h)
	g.GET("/ui/*page", h)
}

// consoleBackend is what the console reads of the platform.
type consoleBackend struct {
	api    *handlers.API
	p      *Platform
	engine *gin.Engine
}

func (b consoleBackend) Now() time.Time                    { return b.p.Now() }
func (b consoleBackend) ClockMode() string                 { return string(b.p.clock.Mode()) }
func (b consoleBackend) Scenario() *Scenario               { return b.p.Scenario() }
func (b consoleBackend) Counts() ([]handlers.Count, error) { return b.api.Counts() }
func (b consoleBackend) Requests(f journal.Filter) []journal.Entry {
	return b.p.Requests(f)
}
func (b consoleBackend) RequestsSeq() int64               { return b.p.journal.Seq() }
func (b consoleBackend) RequestsChanged() <-chan struct{} { return b.p.journal.Changed() }
func (b consoleBackend) FaultRules() []faults.Status      { return redactedFaults(b.p.Faults()) }
func (b consoleBackend) Vocabulary() *faults.Vocabulary   { return handlers.Vocabulary().Faults }
func (b consoleBackend) ListConversations(account, project string, q url.Values) (convquery.ConversationPage, error) {
	return b.api.ConvQuery().ListConversations(account, project, q)
}
func (b consoleBackend) Conversation(id string) (*store.Conversation, error) {
	return b.p.Conversation(id)
}

// HandoffState reads the handoff state stored for a conversation.
func (b consoleBackend) HandoffState(c *store.Conversation) (*store.HandoffState, error) {
	return b.p.store.GetHandoffState(c.Region, c.AccountID, c.ProjectID, c.ID, "")
}
func (b consoleBackend) AlertRules() ([]engine.AlertRuleStatus, error) { return b.api.AlertRules() }
func (b consoleBackend) WebhookEndpoints() ([]engine.WebhookEndpoint, error) {
	return b.api.WebhookEndpoints()
}
func (b consoleBackend) Deliveries() []engine.DeliveryAttempt { return b.p.Deliveries() }
func (b consoleBackend) OutboundCalls() ([]engine.OutboundCall, error) {
	return b.api.OutboundCalls()
}
func (b consoleBackend) MessagingSessions() []handlers.MessagingSession {
	return b.p.MessagingSessions()
}
func (b consoleBackend) Reservations() ([]engine.Reservation, error) { return b.api.Reservations() }
func (b consoleBackend) Coverage() *CoverageReport                   { return b.p.Coverage() }
func (b consoleBackend) AudioCaches() ([]audio.AgentAudio, error)    { return b.api.Audio().AudioCaches() }
func (b consoleBackend) VoiceLibraries() ([]audio.AccountVoices, error) {
	return b.api.Audio().VoiceLibraries()
}
func (b consoleBackend) Timeline() engine.TimelineStatus { return b.api.Timeline() }
func (b consoleBackend) TimelineSpans(from, to time.Time, limit int) []timeline.Span {
	return b.api.TimelineSpans(from, to, limit)
}

// consoleDocuments are the control plane's documents the console links to.
var consoleDocuments = []console.Link{
	{Path: "scenario", Title: "scenario in force (JSON)"},
	{Path: "scenario.schema.json", Title: "scenario JSON Schema"},
	{Path: "openapi.json", Title: "OpenAPI of the emulated API"},
	{Path: "control.openapi.json", Title: "OpenAPI of the control plane"},
}

// Documents lists the consoleDocuments the control plane serves.
func (b consoleBackend) Documents() []console.Link {
	routes := map[string]bool{}
	for _, r := range b.engine.Routes() {
		if r.Method == http.MethodGet {
			routes[strings.TrimPrefix(r.Path, controlPrefix+"/")] = true
		}
	}
	var out []console.Link
	for _, d := range consoleDocuments {
		if routes[d.Path] {
			out = append(out, d)
		}
	}
	return out
}
