package handlers

// Concurrent calls (spec 2.5, 4.5, 7.3; notes section 7): the peak number of
// concurrent conversations per 5-minute interval, computed from the
// conversation records' start and end times. In-progress conversations
// count up to now.

import (
	"fmt"
	json "github.com/goccy/go-json"
	"net/http"
	"slices"
	"sort"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/scenario"
)

func registerConcurrency(rt gin.IRoutes) {
	rt.GET("/v1/:account/:project/conversations/concurrency", wrap(famConcurrency, (*API).handleConcurrencyGet))
}

// Concurrency constants and messages tests compare.
const (
	concurrencyStep   = 5 * time.Minute
	concurrencyWindow = 7 * 24 * time.Hour

	MsgConcStartRequired = "start_time is required."
	MsgConcEndRequired   = "end_time is required."
	MsgConcRange         = "end_time must be after start_time and at most one week after it."
	MsgConcVariantBoth   = "Only one of variant_id and variant_name may be supplied."
	MsgConcSliceNotImpl  = "slice_by=%s is not implemented."
	MsgConcSliceInvalid  = "slice_by must be variant, language or phone_number."
	MsgConcEnvInvalid    = "client_env must be one of sandbox, pre-release, live."
)

type concurrencyResponse struct {
	AccountID string                `json:"account_id"`
	ProjectID string                `json:"project_id"`
	Intervals []concurrencyInterval `json:"intervals"`
}

type concurrencyInterval struct {
	Time        string  `json:"time"`
	Max         int     `json:"max_concurrent_conversations"`
	VariantID   *string `json:"variant_id,omitempty"`
	VariantName *string `json:"variant_name,omitempty"`
}

// concQuery is a parsed concurrency request.
type concQuery struct {
	start, end  time.Time // rounded to the 5-minute marks
	env         string
	variantID   string
	variantName string
	language    string
	phone       string
	byVariant   bool
}

func concInvalid(msg string) *Error { return &Error{Kind: KindInvalid, Message: msg} }

func parseConcQuery(c *gin.Context) (*concQuery, error) {
	get := c.Query
	q := &concQuery{env: "live"}
	rawStart, rawEnd := get("start_time"), get("end_time")
	if rawStart == "" {
		return nil, concInvalid(MsgConcStartRequired)
	}
	if rawEnd == "" {
		return nil, concInvalid(MsgConcEndRequired)
	}
	start, err := time.Parse(time.RFC3339Nano, rawStart)
	if err != nil {
		return nil, concInvalid("start_time must be an ISO 8601 date-time such as 2026-03-01T14:15:00Z.")
	}
	end, err := time.Parse(time.RFC3339Nano, rawEnd)
	if err != nil {
		return nil, concInvalid("end_time must be an ISO 8601 date-time such as 2026-03-01T16:35:00Z.")
	}
	if !end.After(start) || end.Sub(start) > concurrencyWindow {
		return nil, concInvalid(MsgConcRange)
	}
	// spec 4.5: start rounded down, end rounded up to the 5-minute mark.
	q.start = start.UTC().Truncate(concurrencyStep)
	q.end = end.UTC().Truncate(concurrencyStep)
	if q.end.Before(end) {
		q.end = q.end.Add(concurrencyStep)
	}
	if v := get("client_env"); v != "" {
		if !slices.Contains(scenario.Environments, v) {
			return nil, concInvalid(MsgConcEnvInvalid)
		}
		q.env = v
	}
	q.variantID, q.variantName = get("variant_id"), get("variant_name")
	if q.variantID != "" && q.variantName != "" {
		return nil, concInvalid(MsgConcVariantBoth)
	}
	q.language, q.phone = get("language"), get("phone_number")
	switch s := get("slice_by"); s {
	case "":
	case "variant":
		q.byVariant = true
	case "language", "phone_number":
		return nil, &Error{Kind: KindNotImplemented, Message: fmt.Sprintf(MsgConcSliceNotImpl, s)}
	default:
		return nil, concInvalid(MsgConcSliceInvalid)
	}
	return q, nil
}

// match applies the filters of spec 4.5. phone_number matches the caller's
// or the agent's number.
func (q *concQuery) match(c *spanMemo) bool {
	return c.Environment == q.env &&
		(q.variantID == "" || c.VariantID == q.variantID) &&
		(q.variantName == "" || c.VariantName == q.variantName) &&
		(q.language == "" || c.Language == q.language) &&
		(q.phone == "" || c.FromNumber == q.phone || c.ToNumber == q.phone)
}

// span is the part of a conversation the series needs.
type span struct {
	start, end int64 // unix nanoseconds, [start, end)
	variant    int   // index into the variant list (slice_by=variant)
}

// handleConcurrencyGet handles "GET {runtime}/v1/{account}/{project}/conversations/concurrency".
func (a *API) handleConcurrencyGet(c *gin.Context) error {
	q, err := parseConcQuery(c)
	if err != nil {
		return err
	}
	p := principal(c)
	now := a.clock.Now()
	var spans []span
	type variantKey struct{ id, name string }
	var variants []variantKey
	index := map[variantKey]int{}
	winStart, winEnd := q.start.UnixNano(), q.end.UnixNano()
	// Every conversation that started before the window's end may overlap
	// it (a long-running one may have started long before).
	err = a.scanSpans(p.Region, p.Account.ID, p.Project.ID, q.end, func(m *spanMemo) {
		if !q.match(m) {
			return
		}
		s := m.span(now)
		if s.end <= winStart || s.start >= winEnd {
			return
		}
		if q.byVariant {
			k := variantKey{m.VariantID, m.VariantName}
			i, ok := index[k]
			if !ok {
				i = len(variants)
				index[k] = i
				variants = append(variants, k)
			}
			s.variant = i
		}
		spans = append(spans, s)
	})
	if err != nil {
		return err
	}
	out := concurrencyResponse{AccountID: accountRef(p.Account.ID), ProjectID: projectRef(p.Project.ID),
		Intervals: []concurrencyInterval{}}
	if !q.byVariant {
		peaks := peakSeries(spans, winStart, winEnd)
		for i, n := range peaks {
			out.Intervals = append(out.Intervals, concurrencyInterval{Time: concTime(q.start, i), Max: n})
		}
		c.JSON(http.StatusOK, out)
		return nil
	}
	// slice_by=variant: one series per variant seen in the window, merged
	// in ascending time order (spec 2.5), variants by id within a time.
	order := make([]int, len(variants))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(x, y int) bool {
		vx, vy := variants[order[x]], variants[order[y]]
		if vx.id != vy.id {
			return vx.id < vy.id
		}
		return vx.name < vy.name
	})
	perVariant := make([][]span, len(variants))
	for _, s := range spans {
		perVariant[s.variant] = append(perVariant[s.variant], s)
	}
	series := make([][]int, len(variants))
	for i := range variants {
		series[i] = peakSeries(perVariant[i], winStart, winEnd)
	}
	n := int((winEnd - winStart) / int64(concurrencyStep))
	for t := range n {
		for _, vi := range order {
			v := variants[vi]
			id, name := v.id, v.name
			out.Intervals = append(out.Intervals, concurrencyInterval{Time: concTime(q.start, t),
				Max: series[vi][t], VariantID: &id, VariantName: &name})
		}
	}
	c.JSON(http.StatusOK, out)
	return nil
}

func concTime(start time.Time, i int) string {
	return start.Add(time.Duration(i) * concurrencyStep).Format(time.RFC3339)
}

// spanMemo is what the series needs of a conversation record, decoded
// once per stored value: scanSpans keeps it while the stored JSON string
// is the same (the store passes an unchanged record as the same string, so
// the check is a pointer comparison), and decodes the record again when it
// changed. Reading 100k records this way costs a key scan, not 100k JSON
// decodes.
type spanMemo struct {
	raw         string
	StartedAt   time.Time `json:"started_at"`
	EndedAt     time.Time `json:"ended_at"`
	InProgress  bool      `json:"in_progress"`
	Environment string    `json:"environment"`
	VariantID   string    `json:"variant_id"`
	VariantName string    `json:"variant_name"`
	Language    string    `json:"language"`
	FromNumber  string    `json:"from_number"`
	ToNumber    string    `json:"to_number"`
}

// scanSpans calls fn with the memo of every conversation of a project
// that started before to.
func (a *API) scanSpans(region, account, project string, to time.Time, fn func(*spanMemo)) error {
	d := &a.data
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.spans == nil {
		d.spans = map[string]*spanMemo{}
	}
	var decodeErr error
	err := a.store.ScanConversations(region, account, project, time.Time{}, to, func(key, raw string) bool {
		m := d.spans[key]
		if m == nil || m.raw != raw {
			m = &spanMemo{}
			if err := json.Unmarshal([]byte(raw), m); err != nil {
				decodeErr = err
				return false
			}
			m.raw = raw
			d.spans[key] = m
		}
		fn(m)
		return true
	})
	if err == nil {
		err = decodeErr
	}
	return err
}

// span is the memo's [start, end): an in-progress conversation lasts up
// to now; an instantaneous one lasts 1ns so that it counts.
func (c *spanMemo) span(now time.Time) span {
	end := c.EndedAt
	if c.InProgress || end.IsZero() {
		end = now
	}
	s := span{start: c.StartedAt.UnixNano(), end: end.UnixNano()}
	if s.end <= s.start {
		if c.InProgress && now.Before(c.StartedAt) {
			s.end = s.start // starts in the future: not yet counted
		} else {
			s.end = s.start + 1
		}
	}
	return s
}

// peakSeries is a sweep line over the spans: the true maximum overlap in
// each 5-minute interval of [winStart, winEnd). At equal times ends are
// processed before starts (a conversation ending at t and one starting at
// t never overlap).
func peakSeries(spans []span, winStart, winEnd int64) []int {
	step := int64(concurrencyStep)
	n := int((winEnd - winStart) / step)
	peaks := make([]int, n)
	type event struct {
		t     int64
		delta int
	}
	events := make([]event, 0, 2*len(spans))
	for _, s := range spans {
		if s.end <= s.start {
			continue
		}
		events = append(events, event{s.start, 1}, event{s.end, -1})
	}
	slices.SortFunc(events, func(x, y event) int {
		if x.t != y.t {
			if x.t < y.t {
				return -1
			}
			return 1
		}
		return x.delta - y.delta // -1 before +1
	})
	cur, i := 0, 0
	for k := range n {
		lo, hi := winStart+int64(k)*step, winStart+int64(k+1)*step
		// The count at the interval's first instant: everything up to and
		// including lo (conversations under way at the window's start too).
		for i < len(events) && events[i].t <= lo {
			cur += events[i].delta
			i++
		}
		peak := cur
		for i < len(events) && events[i].t < hi {
			cur += events[i].delta
			peak = max(peak, cur)
			i++
		}
		peaks[k] = peak
	}
	return peaks
}
