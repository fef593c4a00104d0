package handlers

import (
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine/convquery"

	"github.com/gin-gonic/gin"
	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/store"
)

// TestConcurrencyIndexMatchesScan compares the store's concurrency index
// with the series read from the records, over random windows, filters
// and clocks, while random writes (new, ended, moved and replaced
// records, generated ones among them), retention, snapshots and restores
// change the data.
func TestConcurrencyIndexMatchesScan(t *testing.T) {
	t.Parallel()
	h := newHarness(t, fixtureScenario)
	r := rand.New(rand.NewPCG(11, 12))
	envs := []string{"live", "sandbox", "pre-release"}
	variants := [][2]string{{"VARIANT-0000DEF0", "Default"}, {"VARIANT-00000B2B", "Spring Promo"}, {"", ""}, {"VARIANT-0000DEF0", "Renamed"}}
	base := time.Date(2026, 2, 27, 0, 0, 0, 0, time.UTC)
	// ids of the project's records, generated ones included.
	var ids []string
	list, _, err := h.store.ListConversations(store.ConversationQuery{Region: "us", AccountID: "1001", ProjectID: "2001"})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range list {
		ids = append(ids, c.ID)
	}
	randTime := func() time.Time {
		return base.Add(time.Duration(r.Int64N(int64(36 * time.Hour))))
	}
	setSpan := func(c *store.Conversation) {
		c.Environment = envs[r.IntN(len(envs))]
		v := variants[r.IntN(len(variants))]
		c.VariantID, c.VariantName = v[0], v[1]
		c.StartedAt = randTime()
		switch r.IntN(5) {
		case 0:
			c.InProgress, c.EndedAt = true, time.Time{}
		case 1:
			c.InProgress, c.EndedAt = false, time.Time{}
		case 2:
			c.InProgress, c.EndedAt = false, c.StartedAt
		default:
			c.InProgress, c.EndedAt = false, c.StartedAt.Add(time.Duration(r.Int64N(int64(3*time.Hour))))
		}
		if r.IntN(20) == 0 {
			c.StartedAt = c.StartedAt.Truncate(5 * time.Minute)
		}
	}
	var snaps []*store.Snapshot
	for op := range 1500 {
		switch k := r.IntN(20); {
		case k < 8:
			c := &store.Conversation{ID: fmt.Sprint("X", op), Region: "us", AccountID: "1001", ProjectID: "2001", Channel: "CHAT"}
			setSpan(c)
			if err := h.store.PutConversation(c); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, c.ID)
		case k < 15:
			id := ids[r.IntN(len(ids))]
			_, err := h.store.UpdateConversation("us", id, func(c *store.Conversation) error {
				if r.IntN(2) == 0 && c.InProgress {
					c.InProgress, c.EndedAt = false, c.StartedAt.Add(time.Duration(r.Int64N(int64(time.Hour))))
					return nil
				}
				setSpan(c)
				return nil
			})
			if err != nil && !errors.Is(err, store.ErrNotFound) {
				t.Fatal(err)
			}
		case k == 15:
			if _, err := h.store.DropConversationsBefore(randTime()); err != nil {
				t.Fatal(err)
			}
		case k == 16:
			s, err := h.store.Snapshot()
			if err != nil {
				t.Fatal(err)
			}
			snaps = append(snaps, s)
		case k == 17 && len(snaps) > 0:
			if err := h.store.Restore(snaps[r.IntN(len(snaps))]); err != nil {
				t.Fatal(err)
			}
		default:
			h.advance(time.Duration(r.Int64N(int64(20 * time.Minute))))
		}
		for range 3 {
			start := randTime().Truncate(5 * time.Minute).Add(-time.Duration(r.IntN(24)) * time.Hour)
			q := &convquery.ConcQuery{Start: start, End: start.Add(time.Duration(1+r.IntN(600)) * convquery.ConcurrencyStep),
				Env: envs[r.IntN(len(envs))], ByVariant: r.IntN(2) == 0}
			switch r.IntN(4) {
			case 0:
				q.VariantID = variants[r.IntN(len(variants))][0]
			case 1:
				q.VariantName = variants[r.IntN(len(variants))][1]
			}
			now := h.clock.Now()
			if r.IntN(3) == 0 {
				now = randTime()
			}
			gk, gs, err := h.api.ConvQuery().ConcurrencySeries("us", "1001", "2001", q, now)
			if err != nil {
				t.Fatal(err)
			}
			wk, ws, err := h.api.ConvQuery().ConcurrencyScan("us", "1001", "2001", q, now)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(wk, gk, cmp.AllowUnexported(convquery.VariantKey{})); d != "" {
				t.Fatalf("op %d, query %+v: variants differ (-scan +index):\n%s", op, q, d)
			}
			if d := cmp.Diff(ws, gs); d != "" {
				t.Fatalf("op %d, query %+v now %s: series differ (-scan +index):\n%s", op, q, now, d)
			}
		}
	}
}

// TestConcurrencyAnswerBytes: the answer written in one pass is
// encoding/json's encoding of the answer's value, also for variant names
// that need escapes.
func TestConcurrencyAnswerBytes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	for i, name := range []string{"<b>&amp;</b>", "bad \xff utf8", "\u2028 \"q\" \\", ""} {
		h.putSpan(fmt.Sprint("N", i), concBase.Add(time.Duration(i)*time.Minute), time.Hour, func(c *store.Conversation) {
			c.VariantID, c.VariantName = fmt.Sprint("V", i%2), name
		})
	}
	for _, query := range []string{
		"start_time=2026-02-10T08:00:00Z&end_time=2026-02-10T11:00:00Z",
		"start_time=2026-02-10T08:00:00Z&end_time=2026-02-10T11:00:00Z&slice_by=variant",
		"start_time=2026-02-10T08:00:00Z&end_time=2026-02-10T11:00:00Z&slice_by=variant&client_env=sandbox",
		"start_time=2026-02-10T08:00:00Z&end_time=2026-02-10T11:00:00Z&variant_id=V1",
	} {
		resp := h.concurrency(query)
		mustStatus(t, resp, 200)
		req := httptest.NewRequest("GET", "/?"+query, nil)
		c, _ := gin.CreateTestContext(httptest.NewRecorder())
		c.Request = req
		q, err := parseConcQuery(c)
		if err != nil {
			t.Fatal(err)
		}
		groups, series, err := h.api.ConvQuery().ConcurrencySeries("us", "1001", "2001", q, h.clock.Now())
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(convquery.ConcurrencyAnswer("ACCOUNT-1001", "PROJECT-2001", q, int(q.End.Sub(q.Start)/convquery.ConcurrencyStep), groups, series))
		if err != nil {
			t.Fatal(err)
		}
		if string(resp.Body) != string(want) {
			t.Errorf("%s:\n got %s\nwant %s", query, resp.Body, want)
		}
	}
}
