package store

// Queries of the metric aggregates (metrics.go), and the record of runtime
// API errors.

import (
	"slices"
	"time"
)

// RecordAPIError records a project's runtime API error at a time (for the
// api_errors metric) and forgets its records older than at-keep. Memory
// only; Restore clears them.
func (s *Store) RecordAPIError(region, accountID, projectID string, at time.Time, keep time.Duration) {
	ref := ProjectRef{region, accountID, projectID}
	s.metrics.mu.Lock()
	defer s.metrics.mu.Unlock()
	if s.metrics.apiErrors == nil {
		s.metrics.apiErrors = map[ProjectRef]*points{}
	}
	l := s.metrics.apiErrors[ref]
	if l == nil {
		l = &points{}
		s.metrics.apiErrors[ref] = l
	}
	l.add(tp(at))
	l.dropBefore(tp(at.Add(-keep)))
}

// PruneAPIErrors forgets the recorded API errors before t.
func (s *Store) PruneAPIErrors(t time.Time) {
	cut := tp(t)
	s.metrics.mu.Lock()
	defer s.metrics.mu.Unlock()
	for ref, l := range s.metrics.apiErrors {
		if l.dropBefore(cut); len(l.pts) == 0 {
			delete(s.metrics.apiErrors, ref)
		}
	}
}

// points is a list of instants, oldest first once sorted (concurrent
// requests may record slightly out of order).
type points struct {
	pts      []tpoint
	unsorted bool
}

func (l *points) add(p tpoint) {
	if n := len(l.pts); n > 0 && l.pts[n-1].cmp(p) > 0 {
		l.unsorted = true
	}
	l.pts = append(l.pts, p)
}

func (l *points) sort() {
	if l.unsorted {
		slices.SortFunc(l.pts, tpoint.cmp)
		l.unsorted = false
	}
}

func (l *points) dropBefore(cut tpoint) {
	if len(l.pts) == 0 || l.pts[0].cmp(cut) >= 0 && !l.unsorted {
		return
	}
	l.sort()
	i, _ := slices.BinarySearchFunc(l.pts, cut, tpoint.cmp)
	l.pts = l.pts[i:]
}

// count is the number of instants in [from, to].
func (l *points) count(from, to tpoint) int64 {
	l.sort()
	i, _ := slices.BinarySearchFunc(l.pts, from, tpoint.cmp)
	j, _ := slices.BinarySearchFunc(l.pts, tpoint{to.min, to.off + 1}, tpoint.cmp)
	return int64(max(j-i, 0))
}

// MetricsQuery selects a window of the aggregates.
type MetricsQuery struct {
	// Projects are the projects whose events count (each once).
	Projects []ProjectRef
	// From and To bound the window, both included.
	From, To time.Time
	// Percentiles lists the nearest-rank percentiles (1 to 100) of the
	// turn latencies in the window to compute.
	Percentiles []int
}

// MetricsResult is a window of the aggregates: the events of each kind in
// [From, To] of conversations started in [From-MetricsLookback, To].
type MetricsResult struct {
	Starts, Turns, FunctionErrors, Crashes, APIErrors int64
	// Percentiles are the requested percentiles of the turn latencies in
	// milliseconds, in the order asked (0 when there is no turn).
	Percentiles []int64
}

// QueryMetrics computes a window of the aggregates, in time independent
// of the number of stored conversations.
func (s *Store) QueryMetrics(q MetricsQuery) (MetricsResult, error) {
	if err := s.ensureMetrics(); err != nil {
		return MetricsResult{}, err
	}
	from, to := tp(q.From), tp(q.To)
	startMin := tp(q.From.Add(-MetricsLookback))
	inWindow := func(e mevent) bool {
		return from.cmp(e.at) <= 0 && e.at.cmp(to) <= 0 && startMin.cmp(e.start) <= 0 && e.start.cmp(to) <= 0
	}
	var res MetricsResult
	var parts []*hist // latency histograms of the window's pieces
	wantLat := len(q.Percentiles) > 0

	s.metrics.mu.Lock()
	defer s.metrics.mu.Unlock()
	seen := make(map[ProjectRef]bool, len(q.Projects))
	for _, ref := range q.Projects {
		if seen[ref] {
			continue
		}
		seen[ref] = true
		if l := s.metrics.apiErrors[ref]; l != nil {
			res.APIErrors += l.count(from, to)
		}
		pm := s.metrics.projects[ref]
		if pm == nil {
			continue
		}
		res.Starts += pm.kinds[evStart].count(from, to)
		res.FunctionErrors += pm.kinds[evFuncErr].count(from, to)
		res.Crashes += pm.kinds[evCrash].count(from, to)
		var partial []int64
		pm.kinds[evTurn].each(from, to, func(b *bucket, i, j int, whole bool) {
			res.Turns += int64(j - i)
			if !wantLat {
				return
			}
			if whole {
				parts = append(parts, b.histogram())
				return
			}
			for _, e := range b.ev[i:j] {
				partial = append(partial, e.ms)
			}
		})
		for _, e := range pm.odd {
			if !inWindow(e) {
				continue
			}
			switch e.kind {
			case evTurn:
				res.Turns++
				partial = append(partial, e.ms)
			case evFuncErr:
				res.FunctionErrors++
			case evCrash:
				res.Crashes++
			}
		}
		if len(partial) > 0 {
			parts = append(parts, newHist(partial))
		}
	}
	for _, p := range q.Percentiles {
		res.Percentiles = append(res.Percentiles, percentileOf(parts, res.Turns, p))
	}
	return res, nil
}

// percentileOf is the nearest-rank p-th percentile of the union of the
// histograms (n values; 0 for none).
func percentileOf(parts []*hist, n int64, p int) int64 {
	if n == 0 || len(parts) == 0 {
		return 0
	}
	rank := max((int64(p)*n+99)/100, 1)
	lo, hi := parts[0].vals[0], parts[0].vals[len(parts[0].vals)-1]
	for _, h := range parts[1:] {
		lo, hi = min(lo, h.vals[0]), max(hi, h.vals[len(h.vals)-1])
	}
	for lo < hi {
		mid := lo + int64((uint64(hi)-uint64(lo))/2)
		var c int64
		for _, h := range parts {
			c += h.countLE(mid)
		}
		if c >= rank {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return lo
}
