package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/coverage"
)

// maxReport bounds a coverage report read from a file or a mockd.
const maxReport = 64 << 20

// cmdCoverage adds up coverage reports (a running mockd's, saved files),
// prints the sum and checks the thresholds: exit 0 met, 1 missed or
// unreadable, 2 misused.
func cmdCoverage(inv *invocation, o *options, files []string) int {
	if o.url == "" && len(files) == 0 {
		fmt.Fprintln(inv.stderr, "usage: mockd coverage [--url URL] [FILE...]: a running mockd (--url) or saved reports, or both")
		return 2
	}
	reqs, err := coverageRequirements(o)
	if err != nil {
		fmt.Fprintln(inv.stderr, "mockd coverage:", err)
		return 2
	}
	write, err := reportWriter(o.format)
	if err != nil {
		fmt.Fprintln(inv.stderr, "mockd coverage:", err)
		return 2
	}
	var reports []*coverage.Report
	if o.url != "" {
		r, err := fetchCoverage(inv.ctx, o.url, o.controlToken)
		if err != nil {
			fmt.Fprintln(inv.stderr, "mockd coverage:", err)
			return 1
		}
		reports = append(reports, r)
	}
	for _, f := range files {
		r, err := readCoverage(f)
		if err != nil {
			fmt.Fprintln(inv.stderr, "mockd coverage:", err)
			return 1
		}
		reports = append(reports, r)
	}
	sum := reports[0]
	if len(reports) > 1 {
		sum = coverage.Merge(reports...)
	}
	if err := write(sum, inv.stdout); err != nil {
		fmt.Fprintln(inv.stderr, "mockd coverage:", err)
		return 1
	}
	if fails := sum.Check(reqs...); len(fails) > 0 {
		for _, f := range fails {
			fmt.Fprintln(inv.stderr, "mockd coverage:", f)
		}
		return 1
	}
	return 0
}

// coverageRequirements are the thresholds and transitions the flags ask for.
func coverageRequirements(o *options) ([]coverage.Requirement, error) {
	var out []coverage.Requirement
	for _, m := range []struct {
		flag, value string
		req         func(float64) coverage.Requirement
	}{
		{"min-operations", o.minOperations, coverage.MinOperations},
		{"min-statuses", o.minStatuses, coverage.MinStatuses},
		{"min-codes", o.minCodes, coverage.MinCodes},
		{"min-transitions", o.minTransitions, coverage.MinTransitions},
		{"min-clock-events", o.minClockEvents, coverage.MinClockEvents},
	} {
		if m.value == "" {
			continue
		}
		pct, err := strconv.ParseFloat(strings.TrimSuffix(m.value, "%"), 64)
		if err != nil || pct < 0 || pct > 100 {
			return nil, fmt.Errorf("--%s %q: want a percentage from 0 to 100", m.flag, m.value)
		}
		out = append(out, m.req(pct))
	}
	for _, t := range o.requireTransitions {
		q, err := coverage.ParseTransition(t)
		if err != nil {
			return nil, fmt.Errorf("--require-transition: %w", err)
		}
		out = append(out, q)
	}
	return out, nil
}

func reportWriter(format string) (func(*coverage.Report, io.Writer) error, error) {
	switch format {
	case "", "markdown":
		return (*coverage.Report).Markdown, nil
	case "junit":
		return (*coverage.Report).JUnit, nil
	case "json":
		return func(r *coverage.Report, w io.Writer) error {
			enc := json.NewEncoder(w)
			enc.SetIndent("", "  ")
			return enc.Encode(r)
		}, nil
	}
	return nil, fmt.Errorf("--format %q: want markdown, json or junit", format)
}

// fetchCoverage reads GET {base}/_mock/coverage.
func fetchCoverage(ctx context.Context, base, token string) (*coverage.Report, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	u := strings.TrimSuffix(base, "/") + "/_mock/coverage"
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("--url %q: %w", base, err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxReport+1))
	if err != nil {
		return nil, fmt.Errorf("GET %s: %w", u, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: %s: %s", u, resp.Status, strings.TrimSpace(string(data[:min(len(data), 300)])))
	}
	return decodeReport(u, data)
}

func readCoverage(path string) (*coverage.Report, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxReport+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return decodeReport(path, data)
}

// decodeReport reads a report's JSON, of a version this mockd knows.
func decodeReport(name string, data []byte) (*coverage.Report, error) {
	if len(data) > maxReport {
		return nil, fmt.Errorf("%s: larger than %d bytes", name, maxReport)
	}
	var r coverage.Report
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: not a coverage report: %w", name, err)
	}
	if r.Version != coverage.ReportVersion {
		return nil, errors.New(name + ": not a coverage report of version " + strconv.Itoa(coverage.ReportVersion) +
			" (GET /_mock/coverage saves one)")
	}
	return &r, nil
}
