package mockplatform

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/clock"
	"github.com/agentplatform/mockplatform/handlers"
	"github.com/agentplatform/mockplatform/scenario"
)

// The worlds of the control plane ({base}/_mock/worlds, docs/worlds.md).

// worldRegions are a world's region names, runtime and builder.
var worldRegions = []struct{ runtime, builder string }{{"us-1", "us"}, {"uk-1", "uk"}, {"euw-1", "eu"}}

// worldAnswer is a world as the control plane shows it.
type worldAnswer struct {
	ID           string            `json:"id"`
	URL          string            `json:"url"`
	RuntimeURLs  map[string]string `json:"runtime_urls"`
	BuilderURLs  map[string]string `json:"builder_urls"`
	MessagingURL string            `json:"messaging_url"`
	ControlURL   string            `json:"control_url"`
	Scenario     string            `json:"scenario"`
	Clock        clockResponse     `json:"clock"`
	CreatedAt    string            `json:"created_at"`
	LastUsedAt   string            `json:"last_used_at"`
	ExpiresAt    string            `json:"expires_at,omitempty"`
}

// publicBase is the address a client of this request reaches p at.
func (p *Platform) publicBase(r *http.Request) string {
	if m := p.cfg.mount; m != nil {
		return m.host.publicBase(r)
	}
	if p.cfg.publicURL != "" {
		return p.cfg.publicURL
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// requestBase is publicBase, followed by /w/{id} on a world.
func (p *Platform) requestBase(r *http.Request) string {
	if m := p.cfg.mount; m != nil {
		return p.publicBase(r) + m.path()
	}
	return p.publicBase(r)
}

func worldBody(info WorldInfo, base string) worldAnswer {
	u := base + "/w/" + info.ID
	a := worldAnswer{
		ID: info.ID, URL: u,
		RuntimeURLs:  map[string]string{},
		BuilderURLs:  map[string]string{},
		MessagingURL: u + "/messaging",
		ControlURL:   u + "/_mock",
		Scenario:     info.Scenario,
		Clock:        info.World.clockBody(),
		CreatedAt:    info.Created.Format(time.RFC3339Nano),
		LastUsedAt:   info.LastUsed.Format(time.RFC3339Nano),
	}
	for _, r := range worldRegions {
		a.RuntimeURLs[r.runtime] = u + "/runtime/" + r.runtime
		a.BuilderURLs[r.builder] = u + "/builder/" + r.builder
	}
	if !info.Expires.IsZero() {
		a.ExpiresAt = info.Expires.Format(time.RFC3339Nano)
	}
	return a
}

// noWorlds answers a world's own /_mock/worlds: worlds are made at the host.
func (p *Platform) noWorlds(c *gin.Context) bool {
	if p.worlds != nil {
		return false
	}
	controlError(c, http.StatusNotFound, "a world hosts no worlds: create and list worlds at the server's root (/_mock/worlds, not under /w/{id})")
	return true
}

// worldRequest is the body of POST /_mock/worlds; every field is optional.
type worldRequest struct {
	// Scenario is a scenario in YAML; Scenarios several, merged in order.
	Scenario  string   `json:"scenario"`
	Scenarios []string `json:"scenarios"`
	Seed      *int64   `json:"seed"`
	Clock     string   `json:"clock"`
	Start     string   `json:"start"`
}

// handleWorldCreate handles "POST /_mock/worlds".
func (p *Platform) handleWorldCreate(c *gin.Context) {
	if p.noWorlds(c) {
		return
	}
	data, err := io.ReadAll(io.LimitReader(c.Request.Body, maxControlBody+1))
	if err != nil || len(data) > maxControlBody {
		controlError(c, http.StatusRequestEntityTooLarge, "body too large or unreadable")
		return
	}
	var req worldRequest
	if len(data) > 0 {
		if err := handlers.DecodeJSON(data, &req); err != nil {
			controlError(c, http.StatusBadRequest, "invalid world settings: "+err.Error()+` (want {"scenario": "<YAML>", "seed": 1, "clock": "manual", "start": "<RFC 3339 time>"}, every field optional)`)
			return
		}
	}
	opts, problems, err := req.options()
	if len(problems) > 0 {
		c.AbortWithStatusJSON(http.StatusBadRequest, problemsAnswer{Error: "invalid scenario", Problems: problems})
		return
	}
	if err != nil {
		controlError(c, http.StatusBadRequest, err.Error())
		return
	}
	w, err := p.NewWorld(opts...)
	if errors.Is(err, ErrTooManyWorlds) {
		c.AbortWithStatusJSON(http.StatusTooManyRequests, tooManyWorlds{
			Error: fmt.Sprintf("world limit reached: %d worlds are alive; delete the worlds you no longer need (DELETE /_mock/worlds/{id}) or start mockd with a higher --max-worlds", p.worlds.limits.max),
			Limit: p.worlds.limits.max,
		})
		return
	}
	if err != nil {
		controlError(c, http.StatusBadRequest, err.Error())
		return
	}
	info, ok := p.WorldByID(w.cfg.mount.id)
	if !ok { // deleted already, by a racing DELETE
		controlError(c, http.StatusNotFound, "the world was deleted as it was created")
		return
	}
	c.JSON(http.StatusCreated, worldBody(info, p.publicBase(c.Request)))
}

// options turns the request into NewWorld's options.
func (req worldRequest) options() ([]Option, []string, error) {
	var opts []Option
	docs := req.Scenarios
	if req.Scenario != "" {
		if len(docs) > 0 {
			return nil, nil, errors.New("give scenario or scenarios, not both")
		}
		docs = []string{req.Scenario}
	}
	var problems []string
	for i, doc := range docs {
		name := "<scenario>"
		if len(docs) > 1 {
			name = "<scenario " + strconv.Itoa(i+1) + ">"
		}
		sc, err := handlers.Vocabulary().Parse(name, []byte(doc))
		if err == nil {
			err = ValidateScenario(sc)
		}
		if err != nil {
			var list scenario.Errors
			if !errors.As(err, &list) {
				return nil, nil, err
			}
			for _, e := range list {
				problems = append(problems, e.Error())
			}
			continue
		}
		opts = append(opts, WithScenario(sc))
	}
	if len(problems) > 0 {
		return nil, problems, nil
	}
	if req.Seed != nil {
		opts = append(opts, WithSeed(*req.Seed))
	}
	if req.Clock != "" {
		mode, err := clock.ParseMode(req.Clock)
		if err != nil {
			return nil, nil, fmt.Errorf("clock must be manual or real, got %q", req.Clock)
		}
		opts = append(opts, WithClock(mode))
	}
	if req.Start != "" {
		t, err := time.Parse(time.RFC3339Nano, req.Start)
		if err != nil {
			return nil, nil, fmt.Errorf("start must be an RFC 3339 time such as 2026-01-01T09:00:00Z, got %q", req.Start)
		}
		opts = append(opts, WithStartTime(t))
	}
	return opts, nil, nil
}

// handleWorldsList handles "GET /_mock/worlds".
func (p *Platform) handleWorldsList(c *gin.Context) {
	if p.noWorlds(c) {
		return
	}
	base := p.publicBase(c.Request)
	list := []worldAnswer{}
	for _, info := range p.Worlds() {
		list = append(list, worldBody(info, base))
	}
	body := worldsAnswer{Worlds: list, Max: p.worlds.limits.max}
	if p.worlds.limits.idle > 0 {
		body.IdleTimeout = p.worlds.limits.idle.String()
	}
	c.JSON(http.StatusOK, body)
}

// handleWorldGet handles "GET /_mock/worlds/{id}".
func (p *Platform) handleWorldGet(c *gin.Context) {
	if p.noWorlds(c) {
		return
	}
	info, ok := p.WorldByID(c.Param("id"))
	if !ok {
		controlError(c, http.StatusNotFound, "no world "+strconv.Quote(c.Param("id")))
		return
	}
	c.JSON(http.StatusOK, worldBody(info, p.publicBase(c.Request)))
}

// handleWorldDelete handles "DELETE /_mock/worlds/{id}".
func (p *Platform) handleWorldDelete(c *gin.Context) {
	if p.noWorlds(c) {
		return
	}
	if !p.DeleteWorld(c.Param("id")) {
		controlError(c, http.StatusNotFound, "no world "+strconv.Quote(c.Param("id")))
		return
	}
	c.Status(http.StatusNoContent)
}

func writeJSONError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"error": msg})
}
