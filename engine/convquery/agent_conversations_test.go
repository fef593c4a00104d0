package convquery

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/store"
)

// TestMergeNewestPages: the page AgentConversations cuts from the stored
// records it reads (those from offset-len(debug) on) merged with every
// debug chat is the page of all of them in newest-first order, for every
// offset and limit, ties in start time included.
func TestMergeNewestPages(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for round := range 200 {
		n, m := r.IntN(8), r.IntN(5)
		mk := func(prefix string, k int) []*store.Conversation {
			out := make([]*store.Conversation, k)
			for i := range out {
				out[i] = &store.Conversation{ID: fmt.Sprintf("%s%02d", prefix, i), StartedAt: t0.Add(time.Duration(r.IntN(6)) * time.Second)}
			}
			slices.SortFunc(out, compareNewest)
			return out
		}
		stored, debug := mk("S", n), mk("D", m)
		all := slices.SortedFunc(slices.Values(slices.Concat(stored, debug)), compareNewest)
		for offset := 0; offset <= n+m+1; offset++ {
			for limit := 1; limit <= n+m+1; limit++ {
				var got []string
				if offset < n+m {
					skip := max(0, offset-m)
					recs := stored[min(skip, n):min(skip+limit+m, n)]
					for _, p := range mergeNewest(recs, debug, skip) {
						if p.pos >= offset && p.pos < offset+limit {
							got = append(got, p.c.ID)
						}
					}
				}
				var want []string
				for _, c := range all[min(offset, n+m):min(offset+limit, n+m)] {
					want = append(want, c.ID)
				}
				if !slices.Equal(got, want) {
					t.Fatalf("round %d, %d stored, %d debug, offset %d, limit %d: %v, want %v", round, n, m, offset, limit, got, want)
				}
			}
		}
	}
}
