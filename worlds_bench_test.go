package mockplatform

import (
	"net/http"
	"runtime"
	"testing"
)

// BenchmarkWorldCreateDelete: NewWorld and Close of a world of the default
// scenario (the budget is 1 ms).
func BenchmarkWorldCreateDelete(b *testing.B) {
	host, cleanup := benchStart(b, WithoutListener(), WithMaxWorlds(1<<20))
	defer cleanup()
	b.ReportAllocs()
	for b.Loop() {
		w, err := host.NewWorld()
		if err != nil {
			b.Fatal(err)
		}
		w.Close()
	}
}

// BenchmarkWorldCreateDeleteHTTP: POST /_mock/worlds and DELETE
// /_mock/worlds/{id}, over the in-memory client.
func BenchmarkWorldCreateDeleteHTTP(b *testing.B) {
	host, cleanup := benchStart(b, WithoutListener(), WithMaxWorlds(1<<20))
	defer cleanup()
	b.ReportAllocs()
	for b.Loop() {
		benchDeleteWorld(b, host, benchCreateWorld(b, host))
	}
}

// benchCreateWorld creates a world over HTTP and returns its id.
func benchCreateWorld(b *testing.B, host *Platform) string {
	b.Helper()
	r := send(b, host.Client(), "POST", host.URL()+"/_mock/worlds", nil, "Content-Type", "application/json")
	if r.Status != http.StatusCreated {
		b.Fatalf("create: %d %s", r.Status, r.Body)
	}
	return r.object(b)["id"].(string)
}

// benchDeleteWorld deletes a world over HTTP.
func benchDeleteWorld(b *testing.B, host *Platform, id string) {
	b.Helper()
	if r := send(b, host.Client(), "DELETE", host.URL()+"/_mock/worlds/"+id, nil); r.Status != http.StatusNoContent {
		b.Fatalf("delete: %d %s", r.Status, r.Body)
	}
}

// BenchmarkWorlds200: 200 worlds of the default scenario alive at once,
// each having served one chat; reports the live heap per world after a GC
// (heap-B/world: about 14 KB; docs/worlds.md). Resident memory of a mockd
// holding 200 worlds is measured by cmd/mockd's BenchmarkWorldsRSS.
func BenchmarkWorlds200(b *testing.B) {
	const n = 200
	for b.Loop() {
		host, cleanup := benchStart(b, WithoutListener())
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		for range n {
			w, err := host.NewWorld()
			if err != nil {
				b.Fatal(err)
			}
			benchSend(b, w.Client(), "POST", w.RuntimeURL("us-1")+benchChatCreate, nil, 200, chatHeaders...)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/n, "heap-B/world")
		cleanup()
	}
}

// BenchmarkWorldInUse: a world as a test uses one: created over HTTP, one
// control call (its clock), a chat, deleted.
func BenchmarkWorldInUse(b *testing.B) {
	host, cleanup := benchStart(b, WithoutListener(), WithMaxWorlds(1<<20))
	defer cleanup()
	c := host.Client()
	b.ReportAllocs()
	for b.Loop() {
		id := benchCreateWorld(b, host)
		base := host.URL() + "/w/" + id
		if r := send(b, c, "GET", base+"/_mock/clock", nil); r.Status != http.StatusOK {
			b.Fatalf("clock: %d %s", r.Status, r.Body)
		}
		benchSend(b, c, "POST", base+"/runtime/us-1"+benchChatCreate, nil, 200, chatHeaders...)
		benchDeleteWorld(b, host, id)
	}
}
