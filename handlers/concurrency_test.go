package handlers

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine/convquery"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/store"
)

func (h *harness) concurrency(query string) response {
	h.t.Helper()
	return h.do("GET", "/runtime/us-1/v1/acme/support/conversations/concurrency?"+query, nil, "x-api-key", "conv-key")
}

// putSpan stores a finished conversation of the test project.
func (h *harness) putSpan(id string, start time.Time, d time.Duration, mutate ...func(*store.Conversation)) {
	h.t.Helper()
	c := &store.Conversation{ID: id, Region: "us", AccountID: "1001", ProjectID: "2001", Environment: "live",
		Channel: "VOICE-SIP", StartedAt: start, EndedAt: start.Add(d)}
	for _, m := range mutate {
		m(c)
	}
	if err := h.store.PutConversation(c); err != nil {
		h.t.Fatal(err)
	}
}

var concBase = time.Date(2026, 2, 10, 9, 0, 0, 0, time.UTC)

func TestConcurrencyPeak(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	// Interval 09:00: A [09:00,09:02) and B [09:03,09:04) never overlap
	// (peak 1, though two touch it); C [09:01,09:09) overlaps A.
	h.putSpan("A", concBase, 2*time.Minute)
	h.putSpan("B", concBase.Add(3*time.Minute), time.Minute)
	h.putSpan("C", concBase.Add(time.Minute), 8*time.Minute)
	// D ends exactly at 09:10 and E starts exactly there: no overlap.
	h.putSpan("D", concBase.Add(6*time.Minute), 4*time.Minute)
	h.putSpan("E", concBase.Add(10*time.Minute), time.Minute)
	// Other environment and project: not counted.
	h.putSpan("F", concBase, time.Hour, func(c *store.Conversation) { c.Environment = "sandbox" })
	h.putSpan("G", concBase, time.Hour, func(c *store.Conversation) { c.ProjectID = "2002" })
	r := h.concurrency("start_time=2026-02-10T09:02:30Z&end_time=2026-02-10T09:12:01Z")
	mustStatus(t, r, 200)
	mustBody(t, r, convquery.ConcurrencyResponse{AccountID: "ACCOUNT-1001", ProjectID: "PROJECT-2001", Intervals: []convquery.ConcurrencyInterval{
		{Time: "2026-02-10T09:00:00Z", Max: 2}, // rounded down
		{Time: "2026-02-10T09:05:00Z", Max: 2}, // C and D
		{Time: "2026-02-10T09:10:00Z", Max: 1}, // E only; rounded up to 09:15
	}})
	r = h.concurrency("start_time=2026-02-10T09:00:00Z&end_time=2026-02-10T09:05:00Z&client_env=sandbox")
	mustBody(t, r, convquery.ConcurrencyResponse{AccountID: "ACCOUNT-1001", ProjectID: "PROJECT-2001",
		Intervals: []convquery.ConcurrencyInterval{{Time: "2026-02-10T09:00:00Z", Max: 1}}})
}

// TestConcurrencyProperty compares the sweep with a brute force over
// every nanosecond boundary of random data.
func TestConcurrencyProperty(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	r := rand.New(rand.NewPCG(3, 4))
	type iv struct{ s, e time.Time }
	var spans []iv
	for i := range 300 {
		s := concBase.Add(time.Duration(r.IntN(3600)) * time.Second)
		d := time.Duration(1+r.IntN(900)) * time.Second
		h.putSpan(fmt.Sprintf("P%03d", i), s, d)
		spans = append(spans, iv{s, s.Add(d)})
	}
	resp := h.concurrency("start_time=2026-02-10T09:00:00Z&end_time=2026-02-10T10:00:00Z")
	mustStatus(t, resp, 200)
	got := resp.Map(t)["intervals"].([]any)
	for k := range 12 {
		lo := concBase.Add(time.Duration(k) * 5 * time.Minute)
		hi := lo.Add(5 * time.Minute)
		// The peak is reached at lo or at some start inside the interval.
		want := 0
		points := []time.Time{lo}
		for _, s := range spans {
			if !s.s.Before(lo) && s.s.Before(hi) {
				points = append(points, s.s)
			}
		}
		for _, p := range points {
			n := 0
			for _, s := range spans {
				if !p.Before(s.s) && p.Before(s.e) {
					n++
				}
			}
			want = max(want, n)
		}
		if g := int(got[k].(map[string]any)["max_concurrent_conversations"].(float64)); g != want {
			t.Errorf("interval %s: peak %d, want %d", lo.Format(time.RFC3339), g, want)
		}
	}
}

func TestConcurrencyInProgressCountsToNow(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	// Seed CONV-S4 started 11:50 and is in progress; now is 12:00.
	r := h.concurrency("start_time=2026-03-01T11:45:00Z&end_time=2026-03-01T12:05:00Z")
	mustBody(t, r, convquery.ConcurrencyResponse{AccountID: "ACCOUNT-1001", ProjectID: "PROJECT-2001", Intervals: []convquery.ConcurrencyInterval{
		{Time: "2026-03-01T11:45:00Z", Max: 0}, {Time: "2026-03-01T11:50:00Z", Max: 1},
		{Time: "2026-03-01T11:55:00Z", Max: 1}, {Time: "2026-03-01T12:00:00Z", Max: 0},
	}})
	h.advance(time.Minute)
	r = h.concurrency("start_time=2026-03-01T12:00:00Z&end_time=2026-03-01T12:05:00Z")
	mustBody(t, r, convquery.ConcurrencyResponse{AccountID: "ACCOUNT-1001", ProjectID: "PROJECT-2001",
		Intervals: []convquery.ConcurrencyInterval{{Time: "2026-03-01T12:00:00Z", Max: 1}}})
}

func TestConcurrencyFiltersAndSlices(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	set := func(v, vn, lang, from string) func(*store.Conversation) {
		return func(c *store.Conversation) { c.VariantID, c.VariantName, c.Language, c.FromNumber = v, vn, lang, from }
	}
	h.putSpan("V1", concBase, 4*time.Minute, set("VARIANT-0000DEF0", "Default", "en-GB", "+441"))
	h.putSpan("V2", concBase, 4*time.Minute, set("VARIANT-00000B2B", "Spring Promo", "en-US", "+442"))
	h.putSpan("V3", concBase.Add(time.Minute), 5*time.Minute, set("VARIANT-00000B2B", "Spring Promo", "en-US", "+443"))
	q := "start_time=2026-02-10T09:00:00Z&end_time=2026-02-10T09:10:00Z"
	peak := func(query string) []int {
		t.Helper()
		r := h.concurrency(q + "&" + query)
		mustStatus(t, r, 200)
		var out []int
		for _, iv := range r.Map(t)["intervals"].([]any) {
			out = append(out, int(iv.(map[string]any)["max_concurrent_conversations"].(float64)))
		}
		return out
	}
	for _, tc := range []struct {
		query string
		want  []int
	}{
		{"", []int{3, 1}},
		{"variant_id=VARIANT-00000B2B", []int{2, 1}},
		{"variant_name=Spring%20Promo", []int{2, 1}},
		{"variant_name=Default", []int{1, 0}},
		{"language=en-GB", []int{1, 0}},
		{"phone_number=%2B443", []int{1, 1}},
		{"variant_id=nope", []int{0, 0}},
	} {
		if diff := cmp.Diff(tc.want, peak(tc.query)); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tc.query, diff)
		}
	}
	r := h.concurrency(q + "&slice_by=variant")
	s := func(x string) *string { return &x }
	mustBody(t, r, convquery.ConcurrencyResponse{AccountID: "ACCOUNT-1001", ProjectID: "PROJECT-2001", Intervals: []convquery.ConcurrencyInterval{
		{Time: "2026-02-10T09:00:00Z", Max: 2, VariantID: s("VARIANT-00000B2B"), VariantName: s("Spring Promo")},
		{Time: "2026-02-10T09:00:00Z", Max: 1, VariantID: s("VARIANT-0000DEF0"), VariantName: s("Default")},
		{Time: "2026-02-10T09:05:00Z", Max: 1, VariantID: s("VARIANT-00000B2B"), VariantName: s("Spring Promo")},
		{Time: "2026-02-10T09:05:00Z", Max: 0, VariantID: s("VARIANT-0000DEF0"), VariantName: s("Default")},
	}})
}

func TestConcurrencyErrors(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	ok := "start_time=2026-02-10T09:00:00Z&end_time=2026-02-10T10:00:00Z"
	for _, tc := range []struct {
		query  string
		status int
		msg    string
	}{
		{"end_time=2026-02-10T10:00:00Z", 400, convquery.MsgConcStartRequired},
		{"start_time=2026-02-10T10:00:00Z", 400, convquery.MsgConcEndRequired},
		{"start_time=x&end_time=2026-02-10T10:00:00Z", 400, "start_time must be an ISO 8601 date-time such as 2026-03-01T14:15:00Z."},
		{"start_time=2026-02-10T10:00:00Z&end_time=2026-02-10T09:00:00Z", 400, convquery.MsgConcRange},
		{"start_time=2026-02-01T00:00:00Z&end_time=2026-02-08T00:00:01Z", 400, convquery.MsgConcRange},
		{ok + "&variant_id=a&variant_name=b", 400, convquery.MsgConcVariantBoth},
		{ok + "&client_env=prod", 400, convquery.MsgConcEnvInvalid},
		{ok + "&slice_by=language", 501, "slice_by=language is not implemented."},
		{ok + "&slice_by=phone_number", 501, "slice_by=phone_number is not implemented."},
		{ok + "&slice_by=colour", 400, convquery.MsgConcSliceInvalid},
	} {
		r := h.concurrency(tc.query)
		mustStatus(t, r, tc.status)
		mustBody(t, r, map[string]any{"error_message": tc.msg})
	}
	r := h.do("GET", "/runtime/us-1/v1/acme/nope/conversations/concurrency?"+ok, nil, "x-api-key", "conv-key")
	mustStatus(t, r, 404)
	mustBody(t, r, map[string]any{"error_message": "Project ID does not exist."})
	r = h.do("GET", "/runtime/us-1/v1/acme/support/conversations/concurrency?"+ok, nil, "x-api-key", "conv-key-other")
	mustStatus(t, r, 403)
	r = h.do("GET", "/runtime/us-1/v1/acme/support/conversations/concurrency?"+ok, nil)
	mustStatus(t, r, 401)
	mustBody(t, r, map[string]any{"error_message": msgMissingKey})
	// Exactly one week is allowed.
	r = h.concurrency("start_time=2026-02-01T00:00:00Z&end_time=2026-02-08T00:00:00Z")
	mustStatus(t, r, 200)
	if n := len(r.Map(t)["intervals"].([]any)); n != 7*24*12 {
		t.Errorf("one week gives %d intervals, want %d", n, 7*24*12)
	}
}

// BenchmarkConcurrencyWeekCold is BenchmarkConcurrencyWeek with an empty
// cache: every record of the project is decoded.
func BenchmarkConcurrencyWeekCold(b *testing.B) {
	h := benchHarness(b, 100_000)
	path := "/runtime/us-1/v1/acme/support/conversations/concurrency?start_time=2026-02-01T00:00:00Z&end_time=2026-02-08T00:00:00Z"
	for b.Loop() {
		h.api.ConvQuery().DropConcurrencyCache()
		if r := h.do("GET", path, nil, "x-api-key", "conv-key"); r.Status != 200 {
			b.Fatalf("status %d: %s", r.Status, r.Body)
		}
	}
}

// BenchmarkConcurrencyWeekAfterWrite is BenchmarkConcurrencyWeek after one
// conversation changed: the cache is rebuilt by a key scan that decodes
// only the changed record.
func BenchmarkConcurrencyWeekAfterWrite(b *testing.B) {
	h := benchHarness(b, 100_000)
	path := "/runtime/us-1/v1/acme/support/conversations/concurrency?start_time=2026-02-01T00:00:00Z&end_time=2026-02-08T00:00:00Z"
	if r := h.do("GET", path, nil, "x-api-key", "conv-key"); r.Status != 200 {
		b.Fatalf("status %d: %s", r.Status, r.Body)
	}
	i := 0
	for b.Loop() {
		i++
		h.putSpan("BENCH-W", time.Date(2026, 2, 3, 0, 0, 0, 0, time.UTC), time.Duration(i)*time.Second)
		if r := h.do("GET", path, nil, "x-api-key", "conv-key"); r.Status != 200 {
			b.Fatalf("status %d: %s", r.Status, r.Body)
		}
	}
}

// concBrute is the brute-force peak of spans in [lo, hi): the count at lo
// and at every start inside the interval, spans being half-open.
func concBrute(spans [][2]int64, lo, hi int64) int {
	points := []int64{lo}
	for _, s := range spans {
		if s[0] > lo && s[0] < hi {
			points = append(points, s[0])
		}
	}
	peak := 0
	for _, p := range points {
		n := 0
		for _, s := range spans {
			if s[0] <= p && p < s[1] {
				n++
			}
		}
		peak = max(peak, n)
	}
	return peak
}

// TestConcurrencyCacheProperty writes, changes and ends random
// conversations (some in progress, some instantaneous) between queries,
// and moves the clock, so that every query runs on a cache rebuilt from
// the previous one; each answer is compared with a brute force over the
// records as the test knows them.
func TestConcurrencyCacheProperty(t *testing.T) {
	t.Parallel()
	h := newHarness(t, dataScenario)
	r := rand.New(rand.NewPCG(11, 12))
	base := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC) // the clock starts at 12:00
	variants := []store.Conversation{
		{VariantID: "VARIANT-0000DEF0", VariantName: "Default"},
		{VariantID: "VARIANT-00000B2B", VariantName: "Spring Promo"},
		{VariantID: "VARIANT-00000B2B", VariantName: "Spring Promo (renamed)"},
	}
	recs := map[string]*store.Conversation{}
	write := func(id string) {
		v := variants[r.IntN(len(variants))]
		c := &store.Conversation{ID: id, Region: "us", AccountID: "1001", ProjectID: "2002", Environment: "live",
			Channel: "VOICE-SIP", VariantID: v.VariantID, VariantName: v.VariantName,
			StartedAt: base.Add(time.Duration(r.IntN(4*3600)) * time.Second)}
		if old := recs[id]; old != nil && r.IntN(2) == 0 {
			c.StartedAt = old.StartedAt // same key, new value (e.g. a call that ends)
		}
		if r.IntN(8) == 0 {
			c.Environment = "sandbox"
		}
		switch r.IntN(10) {
		case 0, 1:
			c.InProgress = true
		case 2:
			c.EndedAt = c.StartedAt // instantaneous: lasts 1ns
		default:
			c.EndedAt = c.StartedAt.Add(time.Duration(1+r.IntN(1800)) * time.Second)
		}
		if err := h.store.PutConversation(c); err != nil {
			t.Fatal(err)
		}
		recs[id] = c
	}
	for i := range 150 {
		write(fmt.Sprintf("R%03d", i))
	}
	for round := range 25 {
		// Change some records (same id: the old key goes, a new one
		// comes), add one, advance the clock a little.
		for range r.IntN(6) {
			write(fmt.Sprintf("R%03d", r.IntN(150+round)))
		}
		write(fmt.Sprintf("R%03d", 150+round))
		h.advance(time.Duration(r.IntN(600)) * time.Second)
		now := h.clock.Now().UnixNano()

		lo := base.Add(time.Duration(r.IntN(5*12)) * 5 * time.Minute)
		hi := lo.Add(time.Duration(1+r.IntN(3*12)) * 5 * time.Minute)
		query, filter, byVariant := "", func(*store.Conversation) bool { return true }, false
		switch r.IntN(4) {
		case 1:
			query = "&variant_id=VARIANT-00000B2B"
			filter = func(c *store.Conversation) bool { return c.VariantID == "VARIANT-00000B2B" }
		case 2:
			query = "&variant_name=Default"
			filter = func(c *store.Conversation) bool { return c.VariantName == "Default" }
		case 3:
			query, byVariant = "&slice_by=variant", true
		}
		// The spans as docs/api.md#concurrency defines them.
		type vk struct{ id, name string }
		spans := map[vk][][2]int64{}
		for _, c := range recs {
			if c.Environment != "live" || !filter(c) {
				continue
			}
			s, e := c.StartedAt.UnixNano(), c.EndedAt.UnixNano()
			if c.InProgress {
				if now < s {
					continue
				}
				e = now
			}
			if e <= s {
				e = s + 1
			}
			if e <= lo.UnixNano() || s >= hi.UnixNano() {
				continue
			}
			k := vk{}
			if byVariant {
				k = vk{c.VariantID, c.VariantName}
			}
			spans[k] = append(spans[k], [2]int64{s, e})
		}
		var keys []vk
		for k := range spans {
			keys = append(keys, k)
		}
		slices.SortFunc(keys, func(x, y vk) int {
			if c := strings.Compare(x.id, y.id); c != 0 {
				return c
			}
			return strings.Compare(x.name, y.name)
		})
		want := []convquery.ConcurrencyInterval{}
		for at := lo; at.Before(hi); at = at.Add(5 * time.Minute) {
			if !byVariant {
				want = append(want, convquery.ConcurrencyInterval{Time: at.Format(time.RFC3339),
					Max: concBrute(spans[vk{}], at.UnixNano(), at.Add(5*time.Minute).UnixNano())})
				continue
			}
			for _, k := range keys {
				want = append(want, convquery.ConcurrencyInterval{Time: at.Format(time.RFC3339),
					Max: concBrute(spans[k], at.UnixNano(), at.Add(5*time.Minute).UnixNano()), VariantID: &k.id, VariantName: &k.name})
			}
		}
		resp := h.do("GET", "/runtime/us-1/v1/acme/other/conversations/concurrency?start_time="+lo.Format(time.RFC3339)+
			"&end_time="+hi.Format(time.RFC3339)+query, nil, "x-api-key", "conv-key")
		mustStatus(t, resp, 200)
		var got convquery.ConcurrencyResponse
		if err := json.Unmarshal(resp.Body, &got); err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got.Intervals); diff != "" {
			t.Fatalf("round %d %s..%s%s (-want +got):\n%s", round, lo.Format(time.RFC3339), hi.Format(time.RFC3339), query, diff)
		}
	}
}

// The store's span reader (store.ScanSpans) reads every record of a
// generated data set and of the test scenario as the store's full decoder
// does (the fast path on the store's own encodings is store's test).
func TestSpansOfStoredRecords(t *testing.T) {
	t.Parallel()
	for _, yaml := range []string{benchScenario(300), dataScenario} {
		h := newHarness(t, yaml)
		n := 0
		for _, project := range []string{"2001", "2002"} {
			var spans []store.Span
			err := h.store.ScanSpans("us", "1001", project, func(ref store.SpanRef) bool {
				sp, err := ref.Span()
				if err != nil {
					t.Errorf("%s: %v", ref.Key, err)
				}
				spans = append(spans, sp)
				return true
			})
			if err != nil {
				t.Fatal(err)
			}
			for _, sp := range spans {
				n++
				c, err := h.store.GetConversation("us", sp.ID)
				if err != nil {
					t.Fatalf("%s: %v", sp.ID, err)
				}
				want := store.Span{ID: c.ID, StartedAt: c.StartedAt, EndedAt: c.EndedAt, InProgress: c.InProgress,
					Environment: c.Environment, VariantID: c.VariantID, VariantName: c.VariantName, Language: c.Language,
					FromNumber: c.FromNumber, ToNumber: c.ToNumber}
				if diff := cmp.Diff(want, sp); diff != "" {
					t.Errorf("%s (-record +span):\n%s", sp.ID, diff)
				}
			}
		}
		if n == 0 {
			t.Fatal("no records scanned")
		}
	}
}
