package coverage

import (
	"encoding/xml"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMarkdown(t *testing.T) {
	t.Parallel()
	c := NewCounts(testCatalogue())
	record(c)
	var b strings.Builder
	if err := Build(c.Catalogue(), c.Snapshot(), []string{"f1"}).Markdown(&b); err != nil {
		t.Fatal(err)
	}
	want := `# API coverage

| | covered | total | % |
|---|---:|---:|---:|
| operations | 1 | 3 | 33.3% |
| statuses | 2 | 6 | 33.3% |
| error codes | 1 | 2 | 50.0% |
| transitions | 2 | 3 | 66.6% |
| clock events | 1 | 1 | 100.0% |
| presets | 1 | 2 | 50.0% |
| fault rules | 1 | 1 | 100.0% |

| family | operations | statuses | codes | transitions | clock events |
|---|---:|---:|---:|---:|---:|
| calls | 1/2 | 2/5 | 1/2 | 2/3 | 1/1 |
| notes | 0/1 | 0/1 | – | – | – |

## Never exercised (6 of 6, most often got wrong first)

- call calling → busy
- callCreate never answered 429
- callCreate never answered 429 RATE_LIMITED
- preset calls.jam never fired
- callGet (GET /calls/:id) never called
- noteList (GET /notes) never called

## Outside the catalogue

- transition call calling → exploded (×1)
- clock event calls.mystery (×1)

Requests no route served: 1.
`
	if diff := cmp.Diff(want, b.String()); diff != "" {
		t.Errorf("markdown (-want +got):\n%s", diff)
	}
}

// TestMarkdownShort: the Markdown report lists at most MarkdownItems of
// what was never exercised, and says how many there are.
func TestMarkdownShort(t *testing.T) {
	t.Parallel()
	cat := &Catalogue{Families: []Family{{Name: "many"}}}
	for i := range 40 {
		cat.Families[0].Operations = append(cat.Families[0].Operations, Operation{ID: "op" + string(rune('A'+i)), Method: "GET", Path: "/"})
	}
	var b strings.Builder
	if err := Build(cat.Index(), NewSnapshot(), nil).Markdown(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "## Never exercised (25 of 40,") || strings.Count(b.String(), "never called") != MarkdownItems {
		t.Errorf("markdown of 40 operations never called:\n%s", b.String())
	}
}

func TestJUnit(t *testing.T) {
	t.Parallel()
	c := NewCounts(testCatalogue())
	record(c)
	var b strings.Builder
	if err := Build(c.Catalogue(), c.Snapshot(), nil).JUnit(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(b.String(), xml.Header) {
		t.Errorf("no XML header:\n%s", b.String())
	}
	var got junitSuites
	if err := xml.Unmarshal([]byte(b.String()), &got); err != nil {
		t.Fatalf("not JUnit XML: %v\n%s", err, b.String())
	}
	want := junitSuites{
		XMLName: xml.Name{Local: "testsuites"}, Name: "mockplatform API coverage", Tests: 3, Skipped: 2,
		Suites: []junitSuite{
			{Name: "calls", Tests: 2, Skipped: 1, Cases: []junitCase{
				{Name: "callCreate POST /calls", ClassName: "coverage.calls",
					SystemOut: "called 5 times; answered 201 (3), 400 (1); never answered 429, 429 RATE_LIMITED"},
				{Name: "callGet GET /calls/:id", ClassName: "coverage.calls", Skipped: &junitSkipped{Message: "never called"}},
			}},
			{Name: "notes", Tests: 1, Skipped: 1, Cases: []junitCase{
				{Name: "noteList GET /notes", ClassName: "coverage.notes", Skipped: &junitSkipped{Message: "never called"}},
			}},
		},
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("JUnit (-want +got):\n%s", diff)
	}
}
