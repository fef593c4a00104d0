package store

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestConcBulkMatchesChange: spans added in bulk (in any order, over more
// series than bulk looks up in its short list) leave every series as
// adding them one by one does: the same buckets with the same starts, ends
// and net counts, and the same open spans.
func TestConcBulkMatchesChange(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	var spans []concSpan
	for range 3000 {
		sp := concSpan{env: []string{"live", "sandbox"}[r.IntN(2)], start: r.Int64N(7 * 24 * 3600e9)}
		if v := r.IntN(30); v > 0 {
			sp.vid, sp.vname = fmt.Sprintf("VARIANT-%d", v), fmt.Sprintf("V%d", v)
		}
		switch r.IntN(10) {
		case 0:
			sp.open, sp.inProgress = true, true
		case 1:
			sp.open = true
		default:
			sp.end = sp.start + 1 + r.Int64N(3*3600e9)
		}
		spans = append(spans, sp)
	}
	bulk, one := newConcIndex(), newConcIndex()
	bulk.bulk(slices.Values(spans))
	for i := range spans {
		one.change(&spans[i], 1)
	}
	if len(bulk.series) != len(one.series) || len(bulk.series) <= 16 {
		t.Fatalf("%d series in bulk, %d one by one (want the same, more than 16)", len(bulk.series), len(one.series))
	}
	for k, want := range one.series {
		got := bulk.series[k]
		if got == nil {
			t.Fatalf("series %+v missing", k)
		}
		if !slices.Equal(got.opens, want.opens) || !slices.Equal(got.ended, want.ended) || len(got.bks) != len(want.bks) {
			t.Fatalf("series %+v: opens %v/%v, ended %v/%v, %d/%d buckets", k, got.opens, want.opens, got.ended, want.ended,
				len(got.bks), len(want.bks))
		}
		for i, b := range want.bks {
			g := got.bks[i]
			if g.n != b.n || g.net != b.net || !slices.Equal(g.starts, b.starts) || !slices.Equal(g.ends, b.ends) {
				t.Fatalf("series %+v, bucket %d: got %+v, want %+v", k, b.n, g, b)
			}
		}
	}
}

// TestConcChangeOpenAlone: an open span is removed (a conversation under
// way that ends) from a project that has no other span in its
// environment, where only its variant's series holds it: the removal
// finds it, and the index is empty again.
func TestConcChangeOpenAlone(t *testing.T) {
	t.Parallel()
	for _, inProgress := range []bool{true, false} {
		x := &concIndex{series: map[concKey]*concSeries{}}
		sp := concSpan{start: 1000, open: true, inProgress: inProgress, env: "live", vid: "v1", vname: "Default"}
		if !x.change(&sp, 1) {
			t.Fatalf("in progress %v: add failed", inProgress)
		}
		if !x.change(&sp, -1) {
			t.Errorf("in progress %v: the open span to remove was not found", inProgress)
		}
		if len(x.series) != 0 {
			t.Errorf("in progress %v: series left: %v", inProgress, x.series)
		}
	}
}
