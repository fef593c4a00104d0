// Package console is mockd's web console: server-rendered pages that show
// a running platform and drive it through the control plane. It reads
// through Backend and never writes: every change is the browser's own
// call to the control plane, so it passes the same protection as any
// caller's. Links are relative, so it serves under any prefix; assets are
// embedded. docs/console.md describes the pages.
package console

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"path"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/coverage"
	"github.com/agentplatform/mockplatform/engine"
	"github.com/agentplatform/mockplatform/engine/audio"
	"github.com/agentplatform/mockplatform/engine/convquery"
	"github.com/agentplatform/mockplatform/faults"
	"github.com/agentplatform/mockplatform/handlers"
	"github.com/agentplatform/mockplatform/journal"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
	tl "github.com/agentplatform/mockplatform/timeline"
)

// Backend is what the console reads of a platform. Every method returns a
// copy the console may keep.
type Backend interface {
	// Now is the virtual time; ClockMode is "manual" or "real".
	Now() time.Time
	ClockMode() string
	// Scenario is the scenario in force.
	Scenario() *scenario.Scenario
	// Counts counts each family's resources.
	Counts() ([]handlers.Count, error)
	// Requests lists journal entries, oldest first; RequestsChanged is
	// closed at the journal's next change.
	Requests(journal.Filter) []journal.Entry
	RequestsSeq() int64
	RequestsChanged() <-chan struct{}
	// FaultRules lists the fault rules with their counters.
	FaultRules() []faults.Status
	Vocabulary() *faults.Vocabulary
	// ListConversations lists a project's conversations by the v3 query;
	// HandoffState returns store.ErrNotFound when there is none.
	ListConversations(account, project string, q url.Values) (convquery.ConversationPage, error)
	Conversation(id string) (*store.Conversation, error)
	HandoffState(c *store.Conversation) (*store.HandoffState, error)
	AlertRules() ([]engine.AlertRuleStatus, error)
	WebhookEndpoints() ([]engine.WebhookEndpoint, error)
	Deliveries() []engine.DeliveryAttempt
	OutboundCalls() ([]engine.OutboundCall, error)
	MessagingSessions() []handlers.MessagingSession
	Reservations() ([]engine.Reservation, error)
	// Coverage is the API coverage report (docs/coverage.md).
	Coverage() *coverage.Report
	AudioCaches() ([]audio.AgentAudio, error)
	VoiceLibraries() ([]audio.AccountVoices, error)
	// TimelineSpans are the timeline's spans meeting [from, to], at most
	// limit per entry.
	Timeline() engine.TimelineStatus
	TimelineSpans(from, to time.Time, limit int) []tl.Span
	// Documents lists the documents the control plane serves besides the
	// console, relative to it ("scenario").
	Documents() []Link
}

// Link is a document of the control plane the pages link to.
type Link struct {
	// Path is relative to the control plane's base ({base}/_mock/).
	Path  string
	Title string
}

// Options configure a Console.
type Options struct {
	// Done ends the console's live streams (nil: only the request's
	// context does).
	Done   <-chan struct{}
	Logger *slog.Logger
	// World names the world shown ("": the default one).
	World string
}

// Console serves the pages. Mount it with the mount point stripped
// (http.StripPrefix("/_mock/ui", c)).
type Console struct {
	b    Backend
	opts Options
	mux  *http.ServeMux
}

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// assets are the static files with their content hash, computed once.
var assets = func() map[string]asset {
	m := map[string]asset{}
	err := fs.WalkDir(staticFS, "static", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := staticFS.ReadFile(path)
		if err != nil {
			return err
		}
		sum := sha256.Sum256(b)
		m[strings.TrimPrefix(path, "static/")] = asset{data: b, etag: `"` + hex.EncodeToString(sum[:8]) + `"`}
		return nil
	})
	if err != nil {
		panic(err) // the embedded files are part of the binary
	}
	return m
}()

type asset struct {
	data []byte
	etag string
}

// New returns a console over a backend.
func New(b Backend, opts Options) *Console {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	c := &Console{b: b, opts: opts, mux: http.NewServeMux()}
	c.register()
	return c
}

func (c *Console) register() {
	c.mux.HandleFunc("GET /{$}", c.handleOverview)
	c.mux.HandleFunc("GET /conversations", c.handleConversations)
	c.mux.HandleFunc("GET /conversations/{id}", c.handleConversation)
	c.mux.HandleFunc("GET /requests", c.handleRequests)
	c.mux.HandleFunc("GET /events", c.handleEvents)
	c.mux.HandleFunc("GET /faults", c.handleFaults)
	c.mux.HandleFunc("GET /alerts", c.handleAlerts)
	c.mux.HandleFunc("GET /calls", c.handleCalls)
	c.mux.HandleFunc("GET /coverage", c.handleCoverage)
	c.mux.HandleFunc("GET /voices", c.handleVoices)
	c.mux.HandleFunc("GET /scenario", c.handleScenario)
	c.mux.HandleFunc("GET /static/{file}", c.handleStatic)
	c.mux.HandleFunc("/", c.handleNotFound)
}

// ContentSecurityPolicy is the policy of every page: the console's own
// origin only, nothing inline, no plugin, no framing.
const ContentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; " +
	"connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"

// ServeHTTP serves a page, an asset or the live event stream.
func (c *Console) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	if r.URL.Path == "" {
		// The pages' relative links need the slash.
		target := "ui/"
		if r.URL.RawQuery != "" {
			target += "?" + r.URL.RawQuery
		}
		w.Header().Set("Location", target)
		w.WriteHeader(http.StatusFound)
		return
	}
	if p := r.URL.Path; p != cleanPath(p) {
		// "/../../etc/passwd": the mux would redirect to a cleaned path
		// outside the console.
		c.handleNotFound(w, r)
		return
	}
	c.mux.ServeHTTP(w, r)
}

// cleanPath is path.Clean keeping a final slash, as the mux cleans paths.
func cleanPath(p string) string {
	if p == "" || p[0] != '/' {
		p = "/" + p
	}
	np := path.Clean(p)
	if p[len(p)-1] == '/' && np != "/" {
		np += "/"
	}
	return np
}

func (c *Console) handleStatic(w http.ResponseWriter, r *http.Request) {
	a, ok := assets[r.PathValue("file")]
	if !ok {
		c.handleNotFound(w, r)
		return
	}
	w.Header().Set("ETag", a.etag)
	w.Header().Set("Cache-Control", "no-cache")
	http.ServeContent(w, r, r.PathValue("file"), time.Time{}, bytes.NewReader(a.data))
}

// assetURL is an asset's address with its hash, so caches never serve an
// old one.
func assetURL(name string) string {
	a, ok := assets[name]
	if !ok {
		return "static/" + name
	}
	return "static/" + name + "?v=" + strings.Trim(a.etag, `"`)
}

// templates parses the embedded templates once.
var templates = func() map[string]*template.Template {
	base := template.Must(template.New("").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/partials.html"))
	pages := map[string]*template.Template{}
	names, err := fs.Glob(templateFS, "templates/*.html")
	if err != nil {
		panic(err)
	}
	for _, name := range names {
		page := strings.TrimSuffix(strings.TrimPrefix(name, "templates/"), ".html")
		if page == "layout" || page == "partials" {
			continue
		}
		pages[page] = template.Must(template.Must(base.Clone()).ParseFS(templateFS, name))
	}
	return pages
}()
