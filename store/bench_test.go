package store

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/tidwall/buntdb"
)

// bulkLoad stores n realistic conversations of one project (ids b0000000..,
// one per second) using large transactions; it returns the primary keys in
// order. Marshalling is spread over the CPUs.
func bulkLoad(b *testing.B, s *Store, n int) []string {
	b.Helper()
	keys := make([]string, n)
	vals := make([]string, n)
	ids := make([]string, n)
	workers := runtime.GOMAXPROCS(0)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += workers {
				c := mkConv("us", "acc", "proj", fmt.Sprintf("b%07d", i), base.Add(time.Duration(i)*time.Second))
				v, err := json.Marshal(c)
				if err != nil {
					panic(err)
				}
				keys[i], vals[i], ids[i] = convKey(c), string(v), c.ID
			}
		}()
	}
	wg.Wait()
	const batch = 20000
	for lo := 0; lo < n; lo += batch {
		hi := min(lo+batch, n)
		err := s.update(func(tx *buntdb.Tx) error {
			for i := lo; i < hi; i++ {
				if err := set(tx, keys[i], vals[i]); err != nil {
					return err
				}
				if _, _, err := s.indexConvLocked(tx, nil, "us", ids[i], keys[i]); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return keys
}

func openBench(b *testing.B) *Store {
	s, err := Open("")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

// BenchmarkRestore1000 restores a snapshot of 1,000 conversations with 4
// turns each (plus their lookup keys) per iteration.
func BenchmarkRestore1000(b *testing.B) {
	s := openBench(b)
	for i := range 1000 {
		c := mkConv("us", "acc", fmt.Sprint("proj", i%5), fmt.Sprintf("c%04d", i), base.Add(time.Duration(i)*time.Second))
		if err := s.InsertConversation(c); err != nil {
			b.Fatal(err)
		}
	}
	snap, err := s.Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	// Dirty the state the way a test would.
	for i := range 10 {
		_ = s.PutConversation(mkConv("us", "acc", "proj0", fmt.Sprint("x", i), base))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := s.Restore(snap); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	if n, _ := s.CountConversations("us"); n != 1000 {
		b.Fatalf("count %d", n)
	}
}

// BenchmarkRestore1000File is the same on a file-backed store (the
// append-only file receives the whole state at each restore).
func BenchmarkRestore1000File(b *testing.B) {
	s, err := Open(b.TempDir() + "/state.db")
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	for i := range 1000 {
		c := mkConv("us", "acc", fmt.Sprint("proj", i%5), fmt.Sprintf("c%04d", i), base.Add(time.Duration(i)*time.Second))
		if err := s.InsertConversation(c); err != nil {
			b.Fatal(err)
		}
	}
	snap, err := s.Snapshot()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if err := s.Restore(snap); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSnapshot1000(b *testing.B) {
	s := openBench(b)
	bulkLoad(b, s, 1000)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		if _, err := s.Snapshot(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkListPage reads one page of 100 by keyset from the middle of a
// project holding 1k, 100k and 1M conversations (limit=1 isolates the cost
// of the seek, which must not grow with the position).
func BenchmarkListPage(b *testing.B) {
	for _, n := range []int{1_000, 100_000, 1_000_000} {
		var (
			s    *Store
			keys []string
		)
		name := map[int]string{1_000: "1k", 100_000: "100k", 1_000_000: "1M"}[n]
		for _, v := range []struct {
			limit int
			desc  bool
		}{{100, false}, {100, true}, {1, false}} {
			b.Run(fmt.Sprintf("%s/limit=%d/desc=%v", name, v.limit, v.desc), func(b *testing.B) {
				if s == nil {
					var err error
					if s, err = Open(""); err != nil {
						b.Fatal(err)
					}
					keys = bulkLoad(b, s, n)
				}
				q := ConversationQuery{Region: "us", AccountID: "acc", ProjectID: "proj",
					Limit: v.limit, After: encodeCursor(keys[n/2]), Desc: v.desc}
				b.ReportAllocs()
				b.ResetTimer()
				for range b.N {
					l, next, err := s.ListConversations(q)
					if err != nil || len(l) != v.limit || next == "" {
						b.Fatalf("%d %q %v", len(l), next, err)
					}
				}
			})
		}
		if s != nil {
			_ = s.Close()
			s, keys = nil, nil
			runtime.GC()
		}
	}
}

// BenchmarkListPageFiltered: a page of 100 whose filter keeps one record in
// two, so about 200 records are decoded per page.
func BenchmarkListPageFiltered(b *testing.B) {
	s := openBench(b)
	keys := bulkLoad(b, s, 100_000)
	q := ConversationQuery{Region: "us", AccountID: "acc", ProjectID: "proj",
		Limit: 100, After: encodeCursor(keys[50_000]),
		Filter: func(c *Conversation) bool { return c.ID[len(c.ID)-1]%2 == 0 }}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		l, _, err := s.ListConversations(q)
		if err != nil || len(l) != 100 {
			b.Fatalf("%d %v", len(l), err)
		}
	}
}

func BenchmarkInsertConversation(b *testing.B) {
	s := openBench(b)
	convs := make([]*Conversation, b.N)
	for i := range convs {
		convs[i] = mkConv("us", "acc", "proj", fmt.Sprintf("i%08d", i), base.Add(time.Duration(i)*time.Second))
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if err := s.InsertConversation(convs[i]); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGetConversation(b *testing.B) {
	s := openBench(b)
	bulkLoad(b, s, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.GetConversation("us", fmt.Sprintf("b%07d", i%10_000)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkUpdateConversation(b *testing.B) {
	s := openBench(b)
	bulkLoad(b, s, 10_000)
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		_, err := s.UpdateConversation("us", fmt.Sprintf("b%07d", i%10_000), func(c *Conversation) error {
			c.NumSilences++
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkOpenDataFile opens a data file of 100,000 conversations: the
// check of every record (verify.go) against buntdb's load alone
// (unchecked: what Open cost before it checked).
func BenchmarkOpenDataFile(b *testing.B) {
	path := filepath.Join(b.TempDir(), "data.db")
	s, err := Open(path)
	if err != nil {
		b.Fatal(err)
	}
	bulkLoad(b, s, 100_000)
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	fi, _ := os.Stat(path)
	b.Run("checked", func(b *testing.B) {
		b.SetBytes(fi.Size())
		for b.Loop() {
			s, err := Open(path)
			if err != nil {
				b.Fatal(err)
			}
			_ = s.Close()
		}
	})
	b.Run("unchecked", func(b *testing.B) {
		b.SetBytes(fi.Size())
		for b.Loop() {
			db, err := buntdb.Open(path)
			if err != nil {
				b.Fatal(err)
			}
			_ = db.Close()
		}
	})
}

// chatRecord is a conversation as a chat create writes it (the greeting,
// the built-in state, one integration attribute).
func chatRecord(i int) *Conversation {
	start := base.Add(time.Duration(i) * time.Millisecond)
	id := fmt.Sprintf("CONV-%010d", 1_000_000_000+i)
	ia := map[string]any{"customer_id": "42"}
	return &Conversation{ID: id, Region: "us", AccountID: "1001", ProjectID: "2001",
		VariantID: "VARIANT-0000DEF0", VariantName: "Default", Environment: "live", Channel: "CHAT",
		StartedAt: start, InProgress: true, IntegrationAttributes: ia, Metrics: map[string]any{},
		State: map[string]any{"conversation_id": id, "channel": "CHAT", "client_env": "live",
			"variant_id": "VARIANT-0000DEF0", "integration_attributes": map[string]any{"customer_id": "42"}},
		Turns: []Turn{{AgentResponse: "Hi, how can I help you today?", UserInputAt: start, AgentResponseAt: start,
			Intents: []string{}, Entities: map[string]string{}}}}
}

// BenchmarkStoredRecordHeap inserts records as a chat create writes them
// and reports the heap they hold (after a collection) per record: the
// store's share of the RSS per record added over HTTP
// (docs/performance.md).
func BenchmarkStoredRecordHeap(b *testing.B) {
	const n = 50_000
	heap := func() uint64 {
		runtime.GC()
		runtime.GC()
		var ms runtime.MemStats
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	for b.Loop() {
		s := openBench(b)
		for i := range 1000 { // the string table and the aggregates' first buckets
			if err := s.InsertConversation(chatRecord(n + i)); err != nil {
				b.Fatal(err)
			}
		}
		before := heap()
		for i := range n {
			if err := s.InsertConversation(chatRecord(i)); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(float64(heap()-before)/n, "heap-B/record")
		runtime.KeepAlive(s)
	}
}

// BenchmarkConcurrencySeriesWeek is the concurrency series of a week
// (2,016 intervals) over 100k generated records of that week.
func BenchmarkConcurrencySeriesWeek(b *testing.B) {
	s := openBench(b)
	if err := s.Generate(testSpec(100_000), nil); err != nil {
		b.Fatal(err)
	}
	q := ConcurrencyQuery{Region: "us", AccountID: "1001", ProjectID: "2001",
		Start: time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC), Intervals: 2016,
		Now: time.Date(2026, 2, 7, 23, 0, 0, 0, time.UTC), Environment: "live"}
	for _, byVariant := range []bool{false, true} {
		q.ByVariant = byVariant
		b.Run(fmt.Sprint("by-variant=", byVariant), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, ok, err := s.ConcurrencySeries(q); err != nil || !ok {
					b.Fatal(ok, err)
				}
			}
		})
	}
}
