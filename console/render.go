package console

import (
	"bytes"
	"encoding/json"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/scenario"
)

// page is what every page shows around its content.
type page struct {
	Title string
	Nav   string
	// Root is the console's root relative to the page: every link starts
	// from it, so the console serves under any prefix.
	Root      string
	Control   string
	Now       time.Time
	Mode      string
	Scenario  string
	World     string
	Documents []Link
	CSS, JS   string
	// Live names the journal event stream of a self-updating page.
	Live    string
	Journal int64

	sc *scenario.Scenario
}

// ProjectName names a project "acme / support" from its ids.
func (p page) ProjectName(accountID, projectID string) string {
	if p.sc != nil {
		if a := p.sc.Account(accountID); a != nil {
			if projectID == "" {
				return a.Slug
			}
			if pr := a.Project(projectID); pr != nil {
				return a.Slug + " / " + pr.Slug
			}
		}
	}
	if projectID == "" {
		return accountID
	}
	return accountID + " / " + projectID
}

var navItems = []struct{ Key, Path, Label string }{
	{"overview", "", "Overview"},
	{"conversations", "conversations", "Conversations"},
	{"requests", "requests", "Requests"},
	{"faults", "faults", "Faults"},
	{"alerts", "alerts", "Alerts and webhooks"},
	{"calls", "calls", "Calls and sessions"},
	{"coverage", "coverage", "Coverage"},
	{"voices", "voices", "Voices and audio"},
	{"scenario", "scenario", "Scenario"},
}

func (c *Console) newPage(r *http.Request, nav, title string) page {
	root := "./"
	if depth := strings.Count(strings.TrimPrefix(r.URL.EscapedPath(), "/"), "/"); depth > 0 {
		root = strings.Repeat("../", depth)
	}
	p := page{Title: title, Nav: nav, Root: root, Control: root + "../", Now: c.b.Now(), Mode: c.b.ClockMode(),
		World: c.opts.World, Documents: c.b.Documents(), CSS: root + assetURL("console.css"), JS: root + assetURL("console.js")}
	p.Journal = c.b.RequestsSeq()
	if p.sc = c.b.Scenario(); p.sc != nil {
		p.Scenario = p.sc.Name
	}
	return p
}

// render writes a page through a buffer, so a template error answers 500
// rather than half a page.
func (c *Console) render(w http.ResponseWriter, r *http.Request, name string, status int, data any) {
	t, ok := templates[name]
	if !ok {
		c.opts.Logger.Error("console: no template", "name", name)
		http.Error(w, "console: no template "+name, http.StatusInternalServerError)
		return
	}
	var buf bytes.Buffer
	if err := t.ExecuteTemplate(&buf, "layout", data); err != nil {
		c.opts.Logger.Error("console: render", "page", name, "err", err)
		http.Error(w, "console: the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_, _ = w.Write(buf.Bytes())
}

type problemPage struct {
	page
	Message string
}

func (c *Console) handleNotFound(w http.ResponseWriter, r *http.Request) {
	c.problem(w, r, http.StatusNotFound, "Not found", "No console page at "+r.URL.Path+".")
}

// problem answers a page that names a problem.
func (c *Console) problem(w http.ResponseWriter, r *http.Request, status int, title, msg string) {
	c.render(w, r, "problem", status, problemPage{page: c.newPage(r, "", title), Message: msg})
}

var funcs = template.FuncMap{
	"clock":    fmtClock,
	"since":    fmtSince,
	"dur":      fmtDuration,
	"pretty":   prettyBody,
	"json":     compactJSON,
	"deref":    derefInt,
	"httpText": http.StatusText,
	"statusClass": func(status int) string {
		switch {
		case status == 0:
			return "st-drop"
		case status >= 500:
			return "st-5xx"
		case status >= 400:
			return "st-4xx"
		case status >= 300:
			return "st-3xx"
		}
		return "st-2xx"
	},
	"sortedKeys": func(m map[string]any) []string {
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		return keys
	},
	"join": strings.Join,
	"pathEscape": func(s string) string {
		return url.PathEscape(s)
	},
	"add":       func(a, b int) int { return a + b },
	"navItems":  func() any { return navItems },
	"rankLabel": func(rank int) string { return rankLabels[rank] },
	"count":     countOf,
	"headers":   headerList,
	"rfc3339":   func(t time.Time) string { return t.UTC().Format(time.RFC3339Nano) },
}

// timeLayout is how pages show virtual times.
const timeLayout = "2006-01-02 15:04:05.999"

func fmtClock(t time.Time) string {
	if t.IsZero() {
		return "—"
	}
	return t.UTC().Format(timeLayout)
}

// fmtSince says "3m ago" or "in 2m".
func fmtSince(now, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	d := now.Sub(t)
	switch {
	case d == 0:
		return "now"
	case d > 0:
		return fmtDuration(d) + " ago"
	}
	return "in " + fmtDuration(-d)
}

// fmtDuration shows a duration: 1d2h, 5m30s, 250ms.
func fmtDuration(d time.Duration) string {
	if d < 0 {
		return "-" + fmtDuration(-d)
	}
	if d < time.Second {
		return strconv.FormatInt(d.Milliseconds(), 10) + "ms"
	}
	d = d.Truncate(time.Second)
	days := d / (24 * time.Hour)
	d -= days * 24 * time.Hour
	s := d.String() // 1h0m0s, 2m30s, 45s
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	if s == "0s" && days > 0 {
		s = ""
	}
	if days > 0 {
		return fmt.Sprintf("%dd%s", days, s)
	}
	return s
}

// prettyBody indents a JSON body; anything else is shown as it is.
func prettyBody(s string) string {
	var buf bytes.Buffer
	if json.Valid([]byte(s)) && json.Indent(&buf, []byte(s), "", "  ") == nil {
		return buf.String()
	}
	return s
}

func compactJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func derefInt(p *int64) string {
	if p == nil {
		return "—"
	}
	return strconv.FormatInt(*p, 10)
}

// countOf says "1 agent", "3 agents".
func countOf(n int, what string) string {
	if n == 1 {
		if stem, ok := strings.CutSuffix(what, "ies"); ok {
			what = stem + "y" // entries
		} else {
			what = strings.TrimSuffix(what, "s")
		}
	}
	return strconv.Itoa(n) + " " + what
}
