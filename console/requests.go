package console

import (
	"fmt"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/journal"
)

// defaultRequests is how many journal entries the requests page shows.
const defaultRequests = 100

var methods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}

type requestFilters struct {
	Family, Method, Path, Status, Limit, Source string
	Warnings                                    bool
	Families, Methods                           []string
}

type requestsPage struct {
	page
	F       requestFilters
	Entries []journal.Entry
	// Total is the number of entries the filter matched before the limit.
	Total int
	Error string
}

// handleRequests serves the request journal, newest first; the page
// follows it while open (handleEvents).
func (c *Console) handleRequests(w http.ResponseWriter, r *http.Request) {
	in := r.URL.Query()
	p := requestsPage{page: c.newPage(r, "requests", "Requests")}
	p.Live = "events"
	p.F = requestFilters{Family: in.Get("family"), Method: in.Get("method"), Path: in.Get("path"),
		Status: in.Get("status"), Limit: in.Get("limit"), Source: in.Get("source"), Warnings: in.Get("warnings") == "on",
		Families: c.b.Vocabulary().Families, Methods: methods}
	f := journal.Filter{Family: p.F.Family, Method: p.F.Method, Path: p.F.Path, Source: p.F.Source}
	limit, status := defaultRequests, -1 // -1: any status
	var problems []string
	if v := p.F.Source; v != "" && v != journal.SourceClient && v != journal.SourceTimeline {
		problems = append(problems, "Sent by must be clients or the timeline.")
	}
	if v := strings.TrimSpace(p.F.Status); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 || n > 999 {
			problems = append(problems, "Status must be an HTTP status code such as 404 (0: dropped by a fault rule).")
		}
		status = n
	}
	if v := strings.TrimSpace(p.F.Limit); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			problems = append(problems, "Show must be a positive number of requests.")
		}
		limit = n
	}
	if problems != nil {
		p.Error = strings.Join(problems, " ")
		c.render(w, r, "requests", http.StatusBadRequest, p)
		return
	}
	if status > 0 {
		f.Status = status
	}
	list := c.b.Requests(f)
	list = slices.DeleteFunc(list, func(e journal.Entry) bool {
		return status == 0 && e.Status != 0 || p.F.Warnings && len(e.Warnings) == 0
	})
	p.Total = len(list)
	if len(list) > limit {
		list = list[len(list)-limit:]
	}
	slices.Reverse(list)
	p.Entries = list
	c.render(w, r, "requests", http.StatusOK, p)
}

func headerList(h map[string][]string) [][2]string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	var out [][2]string
	for _, k := range names {
		for _, v := range h[k] {
			out = append(out, [2]string{k, v})
		}
	}
	return out
}

// handleEvents streams a Server-Sent Event "journal" whenever the journal
// changes, until the request or the console ends.
func (c *Console) handleEvents(w http.ResponseWriter, r *http.Request) {
	rc := http.NewResponseController(w)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no")
	// A stream outlives a server's write timeout: no deadline for it.
	_ = rc.SetWriteDeadline(time.Time{})
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprint(w, "retry: 2000\n\n"); err != nil {
		return
	}
	last := int64(-1)
	for {
		changed := c.b.RequestsChanged()
		seq := c.b.RequestsSeq()
		if seq != last {
			last = seq
			if _, err := fmt.Fprintf(w, "event: journal\ndata: %d\n\n", seq); err != nil {
				return
			}
			if err := rc.Flush(); err != nil {
				return
			}
		}
		select {
		case <-changed:
		case <-r.Context().Done():
			return
		case <-c.opts.Done:
			return
		}
	}
}
