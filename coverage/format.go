package coverage

import (
	"encoding/xml"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
)

// MarkdownItems is how many never-exercised items Markdown lists.
const MarkdownItems = 25

// Markdown writes a short report: totals, a line per family, and the first
// of what was never exercised.
func (r *Report) Markdown(w io.Writer) error {
	var b strings.Builder
	b.WriteString("# API coverage\n\n")
	b.WriteString("| | covered | total | % |\n|---|---:|---:|---:|\n")
	for _, row := range []struct {
		name  string
		ratio Ratio
	}{
		{"operations", r.Totals.Operations},
		{"statuses", r.Totals.Statuses},
		{"error codes", r.Totals.Codes},
		{"transitions", r.Totals.Transitions},
		{"clock events", r.Totals.ClockEvents},
		{"presets", r.Totals.Presets},
		{"fault rules", r.Totals.FaultRules},
	} {
		fmt.Fprintf(&b, "| %s | %d | %d | %s |\n", row.name, row.ratio.Covered, row.ratio.Total, pct(row.ratio))
	}
	b.WriteString("\n| family | operations | statuses | codes | transitions | clock events |\n|---|---:|---:|---:|---:|---:|\n")
	for _, f := range r.Families {
		t := f.Totals
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s |\n", f.Name, frac(t.Operations), frac(t.Statuses), frac(t.Codes),
			frac(t.Transitions), frac(t.ClockEvents))
	}
	if n := len(r.NeverExercised); n > 0 {
		shown := min(n, MarkdownItems)
		fmt.Fprintf(&b, "\n## Never exercised (%d of %d, most often got wrong first)\n\n", shown, n)
		for _, it := range r.NeverExercised[:shown] {
			fmt.Fprintf(&b, "- %s\n", it.Text)
		}
	}
	if lines := r.Outside(nil); len(lines) > 0 {
		b.WriteString("\n## Outside the catalogue\n\n")
		for _, l := range lines {
			fmt.Fprintf(&b, "- %s\n", l)
		}
	}
	if r.Unrouted > 0 {
		fmt.Fprintf(&b, "\nRequests no route served: %d.\n", r.Unrouted)
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// Outside describes, one line each, what was recorded outside the
// catalogue (codes only for families where codes(family) is true; nil:
// all). A suite that leaves none keeps the catalogue complete.
func (r *Report) Outside(codes func(family string) bool) []string {
	var out []string
	for _, f := range r.Families {
		for _, op := range f.Operations {
			for _, a := range op.Answers {
				if !a.Uncatalogued || a.Fault {
					continue
				}
				known := slices.ContainsFunc(op.Statuses, func(s StatusCount) bool { return s.Status == a.Status })
				if !known || codes == nil || codes(f.Name) {
					out = append(out, fmt.Sprintf("%s answered %s (×%d)", op.ID, answerText(a.Status, a.Code), a.Count))
				}
			}
		}
	}
	for _, u := range r.Uncatalogued {
		switch u.Kind {
		case "transition":
			out = append(out, fmt.Sprintf("transition %s %s (×%d)", u.Machine, arrow(u.From, u.To), u.N))
		default:
			out = append(out, fmt.Sprintf("%s %s (×%d)", strings.ReplaceAll(u.Kind, "_", " "), u.Name, u.N))
		}
	}
	return out
}

func answerText(status int, code string) string {
	if code == "" {
		return strconv.Itoa(status)
	}
	return strconv.Itoa(status) + " " + code
}

func pct(r Ratio) string {
	if r.Total == 0 {
		return "–"
	}
	return strconv.FormatFloat(r.Percent, 'f', 1, 64) + "%"
}

func frac(r Ratio) string {
	if r.Total == 0 {
		return "–"
	}
	return fmt.Sprintf("%d/%d", r.Covered, r.Total)
}

// JUnit XML: a suite per family, a case per operation; one never called is
// skipped, so CI shows the gap without failing (thresholds do: Check).
type (
	junitSuites struct {
		XMLName  xml.Name     `xml:"testsuites"`
		Name     string       `xml:"name,attr"`
		Tests    int          `xml:"tests,attr"`
		Failures int          `xml:"failures,attr"`
		Skipped  int          `xml:"skipped,attr"`
		Suites   []junitSuite `xml:"testsuite"`
	}
	junitSuite struct {
		Name     string      `xml:"name,attr"`
		Tests    int         `xml:"tests,attr"`
		Failures int         `xml:"failures,attr"`
		Skipped  int         `xml:"skipped,attr"`
		Cases    []junitCase `xml:"testcase"`
	}
	junitCase struct {
		Name      string        `xml:"name,attr"`
		ClassName string        `xml:"classname,attr"`
		Skipped   *junitSkipped `xml:"skipped,omitempty"`
		SystemOut string        `xml:"system-out,omitempty"`
	}
	junitSkipped struct {
		Message string `xml:"message,attr"`
	}
)

// JUnit writes the report as JUnit XML.
func (r *Report) JUnit(w io.Writer) error {
	all := junitSuites{Name: "mockplatform API coverage"}
	for _, f := range r.Families {
		s := junitSuite{Name: f.Name}
		for _, op := range f.Operations {
			c := junitCase{Name: op.ID + " " + op.Method + " " + op.Path, ClassName: "coverage." + f.Name}
			if op.Calls == 0 {
				c.Skipped = &junitSkipped{Message: "never called"}
				s.Skipped++
			} else {
				c.SystemOut = operationSummary(op)
			}
			s.Tests++
			s.Cases = append(s.Cases, c)
		}
		all.Tests += s.Tests
		all.Skipped += s.Skipped
		all.Suites = append(all.Suites, s)
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(all); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

func operationSummary(op OperationReport) string {
	var got, never []string
	for _, s := range op.Statuses {
		if s.Count > 0 {
			got = append(got, fmt.Sprintf("%d (%d)", s.Status, s.Count))
		} else {
			never = append(never, strconv.Itoa(s.Status))
		}
	}
	for _, c := range op.Codes {
		if c.Count == 0 {
			never = append(never, answerText(c.Status, c.Code))
		}
	}
	out := fmt.Sprintf("called %d times; answered %s", op.Calls, orNone(got))
	if len(never) > 0 {
		out += "; never answered " + strings.Join(never, ", ")
	}
	return out
}

func orNone(l []string) string {
	if len(l) == 0 {
		return "nothing in its catalogue"
	}
	return strings.Join(l, ", ")
}
