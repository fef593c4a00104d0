package convquery

// Concurrent calls (docs/api.md#concurrency; docs/fidelity.md M11.7,
// M11.13): the peak concurrent conversations per 5-minute interval.

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/agentplatform/mockplatform/engine/core"
	"github.com/agentplatform/mockplatform/store"
)

// ConcSlices are the slice_by values.
var ConcSlices = []string{"variant", "language", "phone_number"}

// concurrencyState caches the decoded spans of recently queried
// projects, each valid for one store.ProjectVersion.
type concurrencyState struct {
	// mu guards the cache; it is held across the store reads of a rebuild.
	mu    sync.Mutex
	cache map[concCacheKey]*concCache // at most concCacheMax
	tick  uint64                      // least-recently-used clock of cache
}

// DropConcurrencyCache empties the concurrency cache (for benchmarks).
func (s *Service) DropConcurrencyCache() {
	s.conc.mu.Lock()
	s.conc.cache = nil
	s.conc.mu.Unlock()
}

// Concurrency constants and messages tests compare.
const (
	ConcurrencyStep   = 5 * time.Minute
	ConcurrencyWindow = 7 * 24 * time.Hour

	MsgConcStartRequired = "start_time is required."
	MsgConcEndRequired   = "end_time is required."
	MsgConcRange         = "end_time must be after start_time and at most one week after it."
	MsgConcVariantBoth   = "Only one of variant_id and variant_name may be supplied."
	MsgConcSliceNotImpl  = "slice_by=%s is not implemented."
	MsgConcSliceInvalid  = "slice_by must be variant, language or phone_number."
	MsgConcEnvInvalid    = "client_env must be one of sandbox, pre-release, live."
)

type ConcurrencyResponse struct {
	AccountID string                `json:"account_id"`
	ProjectID string                `json:"project_id"`
	Intervals []ConcurrencyInterval `json:"intervals"`
}

type ConcurrencyInterval struct {
	Time        string  `json:"time"`
	Max         int     `json:"max_concurrent_conversations"`
	VariantID   *string `json:"variant_id,omitempty"`
	VariantName *string `json:"variant_name,omitempty"`
}

// ConcQuery is a parsed concurrency request.
type ConcQuery struct {
	Start, End  time.Time // rounded to the 5-minute marks
	Env         string
	VariantID   string
	VariantName string
	Language    string
	Phone       string
	ByVariant   bool
}

// ConcInvalid is the 400 of a bad concurrency query.
func ConcInvalid(msg string) *core.Error { return &core.Error{Kind: core.KindInvalid, Message: msg} }

// ConcurrencyAnswer is the answer as a value.
func ConcurrencyAnswer(account, project string, q *ConcQuery, n int, groups []VariantKey, series [][]int) ConcurrencyResponse {
	out := ConcurrencyResponse{AccountID: account, ProjectID: project, Intervals: []ConcurrencyInterval{}}
	if !q.ByVariant {
		for t := range n {
			out.Intervals = append(out.Intervals, ConcurrencyInterval{Time: concTime(q.Start, t), Max: series[0][t]})
		}
		return out
	}
	// slice_by=variant: series merged in time order, variants by id then
	// name (docs/api.md#concurrency).
	out.Intervals = make([]ConcurrencyInterval, 0, n*len(groups))
	for t := range n {
		for g := range groups {
			v := &groups[g]
			out.Intervals = append(out.Intervals, ConcurrencyInterval{Time: concTime(q.Start, t),
				Max: series[g][t], VariantID: &v.Id, VariantName: &v.Name})
		}
	}
	return out
}

func concTime(start time.Time, i int) string {
	return start.Add(time.Duration(i) * ConcurrencyStep).Format(time.RFC3339)
}

// VariantKey is a (variant_id, variant_name) pair as recorded.
type VariantKey struct{ Id, Name string }

// ConcurrencySeries computes a project's peak series for q: one, or one
// per variant seen in the window (by id, then name).
func (s *Service) ConcurrencySeries(region, account, project string, q *ConcQuery, now time.Time) ([]VariantKey, [][]int, error) {
	if q.Language == "" && q.Phone == "" {
		res, ok, err := s.env.Store.ConcurrencySeries(store.ConcurrencyQuery{Region: region, AccountID: account, ProjectID: project,
			Start: q.Start, Intervals: int(q.End.Sub(q.Start) / ConcurrencyStep), Now: now,
			Environment: q.Env, VariantID: q.VariantID, VariantName: q.VariantName, ByVariant: q.ByVariant})
		if err != nil {
			return nil, nil, err
		}
		if ok {
			keys, series := make([]VariantKey, len(res)), make([][]int, len(res))
			for i, r := range res {
				keys[i], series[i] = VariantKey{r.VariantID, r.VariantName}, r.Peaks
			}
			if !q.ByVariant {
				keys = nil
			}
			return keys, series, nil
		}
	}
	return s.ConcurrencyScan(region, account, project, q, now)
}

// ConcurrencyScan computes the series from the records, for the filters
// the store's index lacks.
func (s *Service) ConcurrencyScan(region, account, project string, q *ConcQuery, now time.Time) ([]VariantKey, [][]int, error) {
	d := &s.conc
	d.mu.Lock()
	defer d.mu.Unlock()
	cc, err := s.concCacheLocked(concCacheKey{region, account, project})
	if err != nil {
		return nil, nil, err
	}
	groups, series := cc.series(q, now)
	return groups, series, nil
}

// The concurrency cache serves the queries the store's index does not.
// A project's decoded spans are kept while its store.ProjectVersion is
// unchanged; a rebuild merge-joins a scan with the old cache, so only
// records that changed are decoded again.

// concCacheKey identifies a project's cache.
type concCacheKey struct{ region, account, project string }

// concCacheMax bounds the projects cached (LRU).
const concCacheMax = 16

// concEntry is one conversation of a cache.
type concEntry struct {
	start int64 // unix nanoseconds
	// end is the exclusive end of a finished conversation (an instantaneous
	// one lasts 1ns so that it counts).
	end int64
	// open: in progress or recorded without an end (see openSpan).
	open       bool
	inProgress bool
	env        int32 // interned strings (concTables.strs)
	lang       int32
	from, to   int32
	variant    int32 // index into concTables.variants
}

// concCache is the decoded spans of one project at one store version.
type concCache struct {
	version store.Version
	used    uint64 // least-recently-used tick
	// refs are the scanned records in (started_at, id) order.
	refs    []store.SpanRef
	entries []concEntry // (started_at, id) order
	// maxEnd[i] is the latest finished end among entries[:i+1]: non-decreasing,
	// so a window's first overlapping entry is a binary search.
	maxEnd []int64
	byEnd  []int32 // finished entries ordered by end
	open   []int32 // open entries, ascending
	tab    *concTables
}

// concTables interns a project's strings. Tables only grow and are shared
// by the caches a rebuild replaces, so they change only under
// concurrencyState.mu, and an entry reused across rebuilds keeps its ids.
type concTables struct {
	strs       map[string]int32
	variants   []VariantKey
	variantIdx map[VariantKey]int32
}

func (t *concTables) str(s string) int32 {
	if id, ok := t.strs[s]; ok {
		return id
	}
	id := int32(len(t.strs))
	t.strs[strings.Clone(s)] = id // not a view of a decode buffer
	return id
}

func (t *concTables) variant(k VariantKey) int32 {
	if id, ok := t.variantIdx[k]; ok {
		return id
	}
	id := int32(len(t.variants))
	k = VariantKey{strings.Clone(k.Id), strings.Clone(k.Name)}
	t.variants = append(t.variants, k)
	t.variantIdx[k] = id
	return id
}

func (t *concTables) entry(r *store.Span) concEntry {
	e := concEntry{
		start: r.StartedAt.UnixNano(), inProgress: r.InProgress,
		env: t.str(r.Environment), lang: t.str(r.Language), from: t.str(r.FromNumber), to: t.str(r.ToNumber),
		variant: t.variant(VariantKey{r.VariantID, r.VariantName}),
	}
	if r.InProgress || r.EndedAt.IsZero() {
		e.open = true
		return e
	}
	e.end = r.EndedAt.UnixNano()
	if e.end <= e.start {
		e.end = e.start + 1
	}
	return e
}

// openSpan is an open entry's span at now: in progress lasts up to now,
// future starts do not count, and the minimum is 1ns.
func (e *concEntry) openSpan(now int64) (end int64, ok bool) {
	if now > e.start {
		return now, true
	}
	if e.inProgress && now < e.start {
		return 0, false
	}
	return e.start + 1, true
}

// concCacheLocked returns the project's cache at the store's version,
// rebuilding it if needed. s.conc.mu must be held.
func (s *Service) concCacheLocked(k concCacheKey) (*concCache, error) {
	d := &s.conc
	version := s.env.Store.ProjectVersion(k.region, k.account, k.project) // before reading (see its doc)
	d.tick++
	old := d.cache[k]
	if old != nil && old.version == version {
		old.used = d.tick
		return old, nil
	}
	cc, err := s.buildConcCache(k, version, old)
	if err != nil {
		return nil, err
	}
	cc.used = d.tick
	if d.cache == nil {
		d.cache = map[concCacheKey]*concCache{}
	}
	d.cache[k] = cc
	for len(d.cache) > concCacheMax {
		var lru concCacheKey
		oldest := ^uint64(0)
		for key, c := range d.cache {
			if c.used < oldest {
				lru, oldest = key, c.used
			}
		}
		delete(d.cache, lru)
	}
	return cc, nil
}

// buildConcCache scans a project's conversations, reusing old's unchanged
// entries.
func (s *Service) buildConcCache(k concCacheKey, version store.Version, old *concCache) (*concCache, error) {
	cc := &concCache{version: version}
	if old != nil && len(old.tab.strs) > 4*len(old.entries)+1024 {
		old = nil // the tables hold mostly strings no record uses any more: start afresh
	}
	if old != nil {
		cc.tab = old.tab
		n := len(old.entries)
		cc.refs = make([]store.SpanRef, 0, n)
		cc.entries = make([]concEntry, 0, n)
	} else {
		cc.tab = &concTables{strs: map[string]int32{}, variantIdx: map[VariantKey]int32{}}
	}
	j := 0 // merge-join position in old
	var decodeErr error
	err := s.env.Store.ScanSpans(k.region, k.account, k.project, func(ref store.SpanRef) bool {
		if old != nil {
			for j < len(old.refs) && old.refs[j].Key < ref.Key {
				j++
			}
			if j < len(old.refs) && old.refs[j].Same(ref) {
				cc.refs = append(cc.refs, ref)
				cc.entries = append(cc.entries, old.entries[j])
				return true
			}
		}
		sp, err := ref.Span()
		if err != nil {
			decodeErr = fmt.Errorf("concurrency: %w", err)
			return false
		}
		cc.refs = append(cc.refs, ref)
		cc.entries = append(cc.entries, cc.tab.entry(&sp))
		return true
	})
	if err == nil {
		err = decodeErr
	}
	if err != nil {
		return nil, err
	}
	cc.maxEnd = make([]int64, len(cc.entries))
	m := int64(math.MinInt64)
	for i := range cc.entries {
		e := &cc.entries[i]
		if e.open {
			cc.open = append(cc.open, int32(i))
		} else {
			cc.byEnd = append(cc.byEnd, int32(i))
			m = max(m, e.end)
		}
		cc.maxEnd[i] = m
	}
	slices.SortFunc(cc.byEnd, func(x, y int32) int { return cmp.Compare(cc.entries[x].end, cc.entries[y].end) })
	return cc, nil
}

// concFilter is a query's filters as interned ids; -1 means any.
type concFilter struct {
	none          bool   // a filter value that no record has: nothing matches
	env, lang, ph int32  // -1: any
	variants      []bool // nil: any
}

func (cc *concCache) filter(q *ConcQuery) concFilter {
	f := concFilter{env: -1, lang: -1, ph: -1}
	id := func(s string) int32 {
		if s == "" {
			return -1
		}
		v, ok := cc.tab.strs[s]
		if !ok {
			f.none = true
		}
		return v
	}
	f.env, f.lang, f.ph = id(q.Env), id(q.Language), id(q.Phone)
	if q.VariantID != "" || q.VariantName != "" {
		f.variants = make([]bool, len(cc.tab.variants))
		for i, v := range cc.tab.variants {
			f.variants[i] = (q.VariantID == "" || v.Id == q.VariantID) && (q.VariantName == "" || v.Name == q.VariantName)
		}
	}
	return f
}

// match applies docs/api.md#concurrency's filters; phone_number matches
// either party's number.
func (f *concFilter) match(e *concEntry) bool {
	return (f.env < 0 || e.env == f.env) &&
		(f.variants == nil || f.variants[e.variant]) &&
		(f.lang < 0 || e.lang == f.lang) &&
		(f.ph < 0 || e.from == f.ph || e.to == f.ph)
}

// series computes the peak series of q's window at now.
func (cc *concCache) series(q *ConcQuery, now time.Time) ([]VariantKey, [][]int) {
	winStart, winEnd, nowNs := q.Start.UnixNano(), q.End.UnixNano(), now.UnixNano()
	n := int((winEnd - winStart) / int64(ConcurrencyStep))
	f := cc.filter(q)
	if f.none {
		if q.ByVariant {
			return nil, nil
		}
		return nil, [][]int{make([]int, n)}
	}
	// Groups: one, or one per variant seen in the window.
	group := make([]int32, 0)
	if q.ByVariant {
		group = make([]int32, len(cc.tab.variants))
		for i := range group {
			group[i] = -1
		}
	}
	var starts, ends [][]int64
	if !q.ByVariant {
		starts, ends = make([][]int64, 1), make([][]int64, 1)
	}
	groupOf := func(e *concEntry) int32 {
		if !q.ByVariant {
			return 0
		}
		g := group[e.variant]
		if g < 0 {
			g = int32(len(starts))
			group[e.variant] = g
			starts, ends = append(starts, nil), append(ends, nil)
		}
		return g
	}

	// Finished entries that may overlap the window: start before winEnd, from
	// where maxEnd passes winStart.
	hi := sort.Search(len(cc.entries), func(i int) bool { return cc.entries[i].start >= winEnd })
	lo := sort.Search(hi, func(i int) bool { return cc.maxEnd[i] > winStart })
	// Open entries (few) get their span from now.
	type openSpan struct {
		idx        int32
		g          int32
		start, end int64
	}
	var opens []openSpan
	for _, i := range cc.open {
		if int(i) >= hi {
			break
		}
		e := &cc.entries[i]
		end, ok := e.openSpan(nowNs)
		if !ok || end <= winStart || !f.match(e) {
			continue
		}
		opens = append(opens, openSpan{i, groupOf(e), e.start, end})
	}
	// Starts in order: finished entries merged with the open ones.
	o := 0
	for i := lo; i < hi; i++ {
		e := &cc.entries[i]
		if e.open {
			continue
		}
		for o < len(opens) && int(opens[o].idx) < i {
			g := opens[o].g
			starts[g] = append(starts[g], opens[o].start)
			o++
		}
		if e.end <= winStart || !f.match(e) {
			continue
		}
		g := groupOf(e)
		starts[g] = append(starts[g], e.start)
	}
	for ; o < len(opens); o++ {
		g := opens[o].g
		starts[g] = append(starts[g], opens[o].start)
	}
	// Ends inside the window in order, merged with the open ones'.
	slices.SortFunc(opens, func(x, y openSpan) int { return cmp.Compare(x.end, y.end) })
	o = 0
	from := sort.Search(len(cc.byEnd), func(k int) bool { return cc.entries[cc.byEnd[k]].end > winStart })
	for k := from; k < len(cc.byEnd); k++ {
		e := &cc.entries[cc.byEnd[k]]
		if e.end >= winEnd {
			break
		}
		for o < len(opens) && opens[o].end <= e.end {
			if opens[o].end < winEnd {
				g := opens[o].g
				ends[g] = append(ends[g], opens[o].end)
			}
			o++
		}
		if !f.match(e) {
			continue
		}
		g := groupOf(e)
		ends[g] = append(ends[g], e.end)
	}
	for ; o < len(opens) && opens[o].end < winEnd; o++ {
		g := opens[o].g
		ends[g] = append(ends[g], opens[o].end)
	}

	series := make([][]int, len(starts))
	for g := range starts {
		series[g] = sweep(starts[g], ends[g], winStart, n)
	}
	if !q.ByVariant {
		return nil, series
	}
	keys := make([]VariantKey, len(starts))
	for v, g := range group {
		if g >= 0 {
			keys[g] = cc.tab.variants[v]
		}
	}
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(x, y int) int {
		if c := strings.Compare(keys[x].Id, keys[y].Id); c != 0 {
			return c
		}
		return strings.Compare(keys[x].Name, keys[y].Name)
	})
	sortedKeys, sortedSeries := make([]VariantKey, len(order)), make([][]int, len(order))
	for i, g := range order {
		sortedKeys[i], sortedSeries[i] = keys[g], series[g]
	}
	return sortedKeys, sortedSeries
}

// sweep returns the maximum overlap in each of the n 5-minute intervals
// from winStart, given sorted starts and ends. Ends come before starts
// at equal times: back-to-back conversations never overlap.
func sweep(starts, ends []int64, winStart int64, n int) []int {
	step := int64(ConcurrencyStep)
	peaks := make([]int, n)
	cur, i, j := 0, 0, 0
	for k := range n {
		lo := winStart + int64(k)*step
		hi := lo + step
		// The count at the interval's first instant, including lo.
		for i < len(starts) && starts[i] <= lo {
			cur++
			i++
		}
		for j < len(ends) && ends[j] <= lo {
			cur--
			j++
		}
		peak := cur
		for {
			if j < len(ends) && ends[j] < hi && (i == len(starts) || ends[j] <= starts[i]) {
				cur--
				j++
				continue
			}
			if i < len(starts) && starts[i] < hi {
				cur++
				peak = max(peak, cur)
				i++
				continue
			}
			break
		}
		peaks[k] = peak
	}
	return peaks
}
