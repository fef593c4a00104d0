package handlers

// Data files written by earlier versions of the store open with today's
// code, which migrates them: the answers read from each are those its
// version gave (testdata/datafile_<version>_pages.txt, written with the
// file), before and after a reopen of the migrated file. Each file was
// written with
// go test ./handlers -run TestDataFileMigration -write-datafile-fixture <version>
// by the code of its version and is never rewritten since:
//
//   - v1: every record as JSON, generated ones included (the code before
//     generated records were kept as generators);
//   - v2: generated records as their generator (g/ records), stored
//     conversation records as JSON (the code before the compact
//     encoding of stored records).

import (
	"bytes"
	"crypto/sha256"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/agentplatform/mockplatform/engine"
)

var writeDataFileFixture = flag.String("write-datafile-fixture", "", "write testdata/datafile_<version>.db and its pages with the code of now")

// dataFileVersions are the fixtures' versions.
var dataFileVersions = []string{"v1", "v2"}

func fixtureDataFile(version string) string { return "testdata/datafile_" + version + ".db" }

func fixturePages(version string) string { return "testdata/datafile_" + version + "_pages.txt" }

// fixtureScenario is the golden scenario with fewer generated records.
var fixtureScenario = strings.NewReplacer("count: 3000", "count: 120", "count: 600", "count: 80", "count: 200", "count: 20").Replace(goldenScenario)

// fixtureReads renders the reads of the fixture's pages.
func fixtureReads(t *testing.T, h *harness) []byte {
	t.Helper()
	var out bytes.Buffer
	paths := []string{
		"/runtime/us-1/v3/acme/support/conversations?limit=1000&include_latency=true",
		"/runtime/us-1/v3/acme/support/conversations?limit=1000&client_env=sandbox",
		"/runtime/us-1/v1/acme/support/conversations?limit=1000&in_progress=true",
		"/runtime/us-1/v2/acme/support/conversations?limit=40&offset=20",
		"/runtime/us-1/v3/acme/restricted/conversations?limit=100",
		"/runtime/us-1/v3/acme/support/conversations?query_type=transcript&query=refund&start_time=2026-02-01T00:00:00Z&end_time=2026-03-02T00:00:00Z",
		"/runtime/us-1/v1/acme/support/conversations/concurrency?start_time=2026-02-26T00:00:00Z&end_time=2026-03-02T00:00:00Z&slice_by=variant",
	}
	for _, p := range paths {
		r := h.do("GET", p, nil, "x-api-key", "conv-key")
		fmt.Fprintf(&out, "### GET %s\n%d %s\n", p, r.Status, r.Header.Get("Content-Type"))
		if len(r.Body) <= goldenFull {
			fmt.Fprintf(&out, "%s\n", r.Body)
		} else {
			fmt.Fprintf(&out, "%d bytes sha256 %x %s...\n", len(r.Body), sha256.Sum256(r.Body), r.Body[:goldenHead])
		}
	}
	for _, q := range []string{"id=CONV-S1", "shared_id=tk-88", "shared_id=ticket-1"} {
		r := h.do("GET", "/runtime/us-1/v1/acme/support/handoff_state?"+q, nil, "x-api-key", "handoff-key")
		fmt.Fprintf(&out, "### GET handoff %s\n%d\n%s\n", q, r.Status, r.Body)
	}
	n, err := h.store.Len()
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(&out, "### records\n%d\n", n)
	return out.Bytes()
}

// openDataFile opens an API on a data file with the fixture's scenario.
func openDataFile(t *testing.T, path string) *harness {
	t.Helper()
	h := newHarnessConfig(t, fixtureScenario, engine.Config{DataFile: path, Start: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)})
	return h
}

func TestDataFileMigration(t *testing.T) {
	if v := *writeDataFileFixture; v != "" {
		tmp := filepath.Join(t.TempDir(), "data.db")
		h := openDataFile(t, tmp)
		goldenWrites(t, h)
		h.api.Close()
		data, err := os.ReadFile(tmp)
		if err != nil {
			t.Fatal(err)
		}
		h = openDataFile(t, tmp) // the answers of a reopened file
		pages := fixtureReads(t, h)
		h.api.Close()
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fixtureDataFile(v), data, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(fixturePages(v), pages, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for _, v := range dataFileVersions {
		t.Run(v, func(t *testing.T) {
			want, err := os.ReadFile(fixturePages(v))
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "data.db")
			copyFile(t, fixtureDataFile(v), path)
			for round := range 2 { // the old file, then the migrated one
				h := openDataFile(t, path)
				got := fixtureReads(t, h)
				h.api.Close()
				if !bytes.Equal(got, want) {
					t.Fatalf("round %d: the answers read from the data file differ:\n%s", round, firstDiff(want, got))
				}
			}
		})
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}

// firstDiff describes the first line where two outputs differ.
func firstDiff(want, got []byte) string {
	wl, gl := strings.Split(string(want), "\n"), strings.Split(string(got), "\n")
	for i := 0; i < min(len(wl), len(gl)); i++ {
		if wl[i] != gl[i] {
			return fmt.Sprintf("line %d:\nwant %.800s\ngot  %.800s", i+1, wl[i], gl[i])
		}
	}
	return fmt.Sprintf("want %d lines, got %d", len(wl), len(gl))
}
