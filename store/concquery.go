package store

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// ConcurrencyQuery asks for a project's concurrency series
// (docs/api.md#concurrency) of a window on the 5-minute grid.
type ConcurrencyQuery struct {
	Region, AccountID, ProjectID string
	// Start is the window's start; Intervals its number of intervals.
	Start     time.Time
	Intervals int
	// Now is the end of the spans in progress.
	Now time.Time
	// Environment selects one environment's conversations; VariantID and
	// VariantName, when set, those of variants with that id or name.
	Environment            string
	VariantID, VariantName string
	// ByVariant asks for one series per variant.
	ByVariant bool
}

// ConcurrencySeries is the peak number of concurrent conversations per
// interval of a window (of one variant with ByVariant).
type ConcurrencySeries struct {
	VariantID, VariantName string
	Peaks                  []int
}

// ConcurrencySeries answers q from the concurrency index: one series, or
// with ByVariant one per variant present, sorted by id, then name. ok is
// false when several variants match a filter without ByVariant; the caller
// then reads the records.
func (s *Store) ConcurrencySeries(q ConcurrencyQuery) (out []ConcurrencySeries, ok bool, err error) {
	if err := need("concurrency series", q.Region, q.AccountID, q.ProjectID); err != nil {
		return nil, false, err
	}
	if q.Intervals < 0 || q.Intervals > 1<<20 {
		return nil, false, fmt.Errorf("store: concurrency series: %d intervals: %w", q.Intervals, ErrInvalid)
	}
	if err := s.ensureMetrics(); err != nil {
		return nil, false, fmt.Errorf("store: concurrency series: %w", err)
	}
	ws, now, n := q.Start.UnixNano(), q.Now.UnixNano(), q.Intervals
	s.metrics.mu.Lock()
	defer s.metrics.mu.Unlock()
	var x *concIndex
	if pm := s.metrics.projects[ProjectRef{q.Region, q.AccountID, q.ProjectID}]; pm != nil {
		x = pm.conc
	}
	// The variant series of the environment that the filter selects.
	var keys []concKey
	if x != nil {
		for k := range x.series {
			if k.variant && k.env == q.Environment && (q.VariantID == "" || k.vid == q.VariantID) &&
				(q.VariantName == "" || k.vname == q.VariantName) {
				keys = append(keys, k)
			}
		}
	}
	slices.SortFunc(keys, func(a, b concKey) int {
		if c := strings.Compare(a.vid, b.vid); c != 0 {
			return c
		}
		return strings.Compare(a.vname, b.vname)
	})
	if q.ByVariant {
		for _, k := range keys {
			cs := x.series[k]
			peaks := cs.peaks(ws, n, now, []*concSeries{cs})
			if slices.ContainsFunc(peaks, func(p int) bool { return p != 0 }) {
				out = append(out, ConcurrencySeries{VariantID: k.vid, VariantName: k.vname, Peaks: peaks})
			}
		}
		return out, true, nil
	}
	var fin *concSeries
	var opens []*concSeries
	switch {
	case q.VariantID == "" && q.VariantName == "":
		if x != nil {
			fin = x.series[concKey{env: q.Environment}]
		}
		for _, k := range keys {
			opens = append(opens, x.series[k])
		}
	case len(keys) > 1:
		return nil, false, nil
	case len(keys) == 1:
		fin = x.series[keys[0]]
		opens = []*concSeries{fin}
	}
	return []ConcurrencySeries{{Peaks: fin.peaks(ws, n, now, opens)}}, true, nil
}
