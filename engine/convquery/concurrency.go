package convquery

// Concurrent calls (docs/api.md#concurrency; docs/fidelity.md M11.7,
// M11.13): the peak number of concurrent conversations per 5-minute
// interval, computed from the conversation records' start and end times.
// In-progress conversations count up to now.

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

// concurrencyState is the concurrency family's in-memory state: the
// decoded spans of the projects queried last, each valid for one
// store.ProjectVersion, so it is never stale.
type concurrencyState struct {
	// mu guards the cache; it is held across the store reads of a rebuild.
	mu    sync.Mutex
	cache map[concCacheKey]*concCache // at most concCacheMax
	tick  uint64                      // least-recently-used clock of cache
}

// DropConcurrencyCache empties the concurrency cache: the next query
// decodes every record again, as on a cold start (for benchmarks).
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

// ConcurrencyAnswer is the answer as a value (what answerJSON's writer
// writes).
func ConcurrencyAnswer(account, project string, q *ConcQuery, n int, groups []VariantKey, series [][]int) ConcurrencyResponse {
	out := ConcurrencyResponse{AccountID: account, ProjectID: project, Intervals: []ConcurrencyInterval{}}
	if !q.ByVariant {
		for t := range n {
			out.Intervals = append(out.Intervals, ConcurrencyInterval{Time: concTime(q.Start, t), Max: series[0][t]})
		}
		return out
	}
	// slice_by=variant: one series per variant seen in the window, merged
	// in ascending time order (docs/api.md#concurrency), variants by id
	// (then name) within a time.
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

// ConcurrencySeries computes the peak series of a project for q: one
// series when q.byVariant is false, else one per variant seen in the
// window (sorted by id, then name) with its key.
func (s *Service) ConcurrencySeries(region, account, project string, q *ConcQuery, now time.Time) ([]VariantKey, [][]int, error) {
	if q.Language == "" && q.Phone == "" {
		// The store's concurrency index answers from the window's
		// intervals; the filters it does not index read the records.
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

// ConcurrencyScan computes the series from the records (the filters the
// store's index does not have: language, phone number, a variant filter
// that several variants match).
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

// The concurrency cache, for the queries the store's index does not
// answer (a language or phone number filter, a variant filter that
// several variants match; concurrencySeries).
//
// A query needs, per conversation, its start, its end and the filter
// fields. Decoding 100k records on every query costs seconds; the store's
// ProjectVersion tells when a conversation of the project changed, so the
// decoded spans of a project are kept while it is unchanged: a warm query is two
// binary searches plus a sweep over the spans that overlap the window, in
// time order, with no sort.
//
// When the version changed, the cache is rebuilt by scanning the
// project's records (store.ScanSpans) in (started_at, id) order and
// merge-joining them with the previous cache: a record whose ref is the
// Same as before is not decoded again. So only a cold cache, or records that changed,
// cost a JSON decode.

// concCacheKey identifies a project's cache.
type concCacheKey struct{ region, account, project string }

// concCacheMax bounds the number of projects cached (least recently used
// ones are dropped).
const concCacheMax = 16

// concEntry is one conversation of a cache.
type concEntry struct {
	start int64 // unix nanoseconds
	// end is the exclusive end of a finished conversation (> start: an
	// instantaneous one lasts 1ns so that it counts); unused when open.
	end int64
	// open: in progress, or recorded without an end; its span depends on
	// now (see openSpan).
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
	// refs are the scanned records, in (started_at, id) order: a rebuild
	// keeps the entry of a record whose ref is the Same.
	refs    []store.SpanRef
	entries []concEntry // (started_at, id) order
	// maxEnd[i] is the latest end of the finished entries among
	// entries[:i+1] (math.MinInt64 when none): non-decreasing, so the
	// first entry that may reach into a window is a binary search.
	maxEnd []int64
	byEnd  []int32 // finished entries ordered by end
	open   []int32 // open entries, ascending
	tab    *concTables
}

// concTables interns the strings of a project's caches. Tables only grow
// and are shared by the caches that replace each other (under concurrencyState.mu),
// so a reused entry keeps its ids.
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

// openSpan is the span of an open entry at now: an in-progress
// conversation lasts up to now (one that starts in the future does not
// count yet); one that started at now, or a finished one recorded without
// an end, lasts at least 1ns.
func (e *concEntry) openSpan(now int64) (end int64, ok bool) {
	if now > e.start {
		return now, true
	}
	if e.inProgress && now < e.start {
		return 0, false
	}
	return e.start + 1, true
}

// concCacheLocked returns the project's cache at the store's current
// version, rebuilding it if needed. s.conc.mu must be held.
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

// buildConcCache scans a project's conversations, reusing the entries of
// old for records that have not changed.
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

// match applies the filters of docs/api.md#concurrency. phone_number
// matches the caller's or the agent's number.
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

	// Finished entries that may overlap [winStart, winEnd): start before
	// winEnd (entries are in start order) and end after winStart (the
	// first such entry is where maxEnd passes winStart).
	hi := sort.Search(len(cc.entries), func(i int) bool { return cc.entries[i].start >= winEnd })
	lo := sort.Search(hi, func(i int) bool { return cc.maxEnd[i] > winStart })
	// Open entries (few: the conversations in progress) get their span
	// from now.
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
	// Starts in start order: the finished entries of [lo, hi) merged with
	// the open ones (both by index).
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
	// Ends inside the window in end order: the finished entries by end,
	// merged with the open ones' (sorted here: few).
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

// sweep is a sweep line over spans given as their sorted starts and their
// sorted ends (only the ends before the window's end matter): the true
// maximum overlap in each of the n 5-minute intervals from winStart. At
// equal times ends are processed before starts (a conversation ending at
// t and one starting at t never overlap).
func sweep(starts, ends []int64, winStart int64, n int) []int {
	step := int64(ConcurrencyStep)
	peaks := make([]int, n)
	cur, i, j := 0, 0, 0
	for k := range n {
		lo := winStart + int64(k)*step
		hi := lo + step
		// The count at the interval's first instant: everything up to and
		// including lo (conversations under way at the window's start too).
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
