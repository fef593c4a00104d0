package main

import (
	"bytes"
	"context"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestMain makes the test binary the bare server when the benchmark starts
// it again (as it does with its own binary).
func TestMain(m *testing.M) {
	if os.Getenv(bareEnv) != "" {
		os.Exit(bareMain(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(m.Run())
}

// TestSmoke runs the whole benchmark in smoke mode (a few seconds): mockd
// built from this checkout, every load on both servers, the report. It
// needs wrk (and taskset on a machine with two CPUs or more).
func TestSmoke(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: the smoke run builds mockd and takes about 20 s")
	}
	if _, err := exec.LookPath("wrk"); err != nil {
		t.Skip("wrk is not on PATH (apt-get install wrk): the load benchmark cannot run")
	}
	args := []string{"-mode", "smoke"}
	if _, err := exec.LookPath("taskset"); err != nil || runtime.NumCPU() < 2 {
		args = append(args, "-pin=false")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	if code := run(ctx, args, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", code, &stdout, &stderr)
	}
	out := stdout.String()
	// A main row: 17 columns and no notes; the CPU per request and its
	// kernel part known.
	rows := map[string]bool{}
	for line := range strings.Lines(out) {
		if f := strings.Fields(line); len(f) == 17 && f[0] == "200" {
			if f[6] == "—" || f[7] == "—" || f[9] == "—" || f[10] == "—" {
				t.Errorf("main row %q: CPU per request unknown", line)
			}
			rows[f[1]] = true
		}
	}
	for _, name := range loadNames() {
		if !rows[name] {
			t.Errorf("no row for load %s in\n%s", name, out)
		}
	}
	// A paced row: records, load, offered, mockd and bare req/s, four
	// latencies and a p99 ratio (then notes, if any).
	paced := map[string]bool{}
	for line := range strings.Lines(out) {
		f := strings.Fields(line)
		if len(f) < 10 || f[0] != "200" || !slices.Contains(ratioLoads, f[1]) || strings.Contains(f[5], "–") {
			continue // not a paced row (a main row's sixth field is its pair ratios' range)
		}
		if rps, err := strconv.ParseFloat(f[3], 64); err != nil || rps <= 0 || f[9] == "—" {
			t.Errorf("paced row %q: no answers or no p99 ratio", line)
		}
		paced[f[1]] = true
	}
	for _, name := range ratioLoads {
		if !paced[name] {
			t.Errorf("no paced row for load %s in\n%s", name, out)
		}
	}
	if !strings.Contains(out, "RSS loaded") {
		t.Errorf("no memory table in\n%s", out)
	}
	if !strings.Contains(out, "targets (docs/performance.md#targets)") || !strings.Contains(out, ratioTarget("chat-create")) {
		t.Errorf("no targets table in\n%s", out)
	}
}

// TestPacedScript: the paced script waits a random time of the mean
// paceFor gives before each request; the closed-loop one never waits.
func TestPacedScript(t *testing.T) {
	if got, want := paceFor(50, 10_000), 5*time.Millisecond; got != want {
		t.Errorf("paceFor(50, 10000) = %v, want %v", got, want)
	}
	if got := paceFor(50, 0); got != 0 {
		t.Errorf("paceFor(50, 0) = %v, want 0", got)
	}
	set := &requestSet{method: "GET", items: []item{{uri: "/a"}}}
	if s := luaScript("x", set, 0); strings.Contains(s, "function delay") {
		t.Errorf("closed-loop script waits:\n%s", s)
	}
	s := luaScript("x", set, 4500*time.Microsecond)
	if !strings.Contains(s, "local pace_ms = 4.5\n") || !strings.Contains(s, "function delay()") {
		t.Errorf("paced script:\n%s", s)
	}
}

func TestParseConfigPresetsAndOverrides(t *testing.T) {
	for _, tc := range []struct {
		args      []string
		records   []int
		pairs     int
		slice     time.Duration
		conns     int
		convs     int
		warmup    time.Duration
		loadNames []string
	}{
		{args: nil, records: []int{10_000}, pairs: 3, slice: time.Second, conns: 50, convs: 2_000},
		{args: []string{"-mode", "full"}, records: []int{1_000, 100_000, 1_000_000}, pairs: 5, slice: 3 * time.Second,
			conns: 50, convs: 10_000, warmup: time.Second},
		{args: []string{"-mode", "full", "-records", "1k,100k,1M", "-pairs", "7", "-warmup", "0s"},
			records: []int{1_000, 100_000, 1_000_000}, pairs: 7, slice: 3 * time.Second, conns: 50, convs: 10_000},
		{args: []string{"-mode", "smoke", "-loads", "chat-create,v3-page-1", "-conns", "4"},
			records: []int{200}, pairs: 1, slice: time.Second, conns: 4, convs: 20,
			loadNames: []string{"chat-create", "v3-page-1"}},
	} {
		c, err := parseConfig(tc.args, &bytes.Buffer{})
		if err != nil {
			t.Fatalf("%q: %v", tc.args, err)
		}
		if !equal(c.records, tc.records) || c.pairs != tc.pairs || c.slice != tc.slice || c.conns != tc.conns ||
			c.convs != tc.convs || c.warmup != tc.warmup || !equal(c.loads, tc.loadNames) {
			t.Errorf("%q: records %v pairs %d slice %v conns %d convs %d warmup %v loads %q", tc.args,
				c.records, c.pairs, c.slice, c.conns, c.convs, c.warmup, c.loads)
		}
	}
}

func TestParseConfigRejects(t *testing.T) {
	for _, args := range [][]string{
		{"-mode", "huge"},
		{"-slice", "1500ms"},
		{"-warmup", "500ms"},
		{"-pairs", "0"},
		{"-records", "3M"},
		{"-records", "ten"},
		{"-loads", "chat-delete"},
		{"-format", "html"},
		{"-convs", "0"},
		{"-load-cpus", "1-2", "-conns", "1"},
		{"extra"},
	} {
		if _, err := parseConfig(args, &bytes.Buffer{}); err == nil {
			t.Errorf("%q: no error", args)
		}
	}
}

func equal[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestLuaString(t *testing.T) {
	for in, want := range map[string]string{
		`plain /path?x=1`:         `"plain /path?x=1"`,
		`{"a":"b\c"}`:             `"{\"a\":\"b\\c\"}"`,
		"line\nbreak\x00\xc3\xa9": `"line\010break\000\195\169"`,
	} {
		if got := luaString(in); got != want {
			t.Errorf("luaString(%q) = %s, want %s", in, got, want)
		}
	}
}

func TestMedian(t *testing.T) {
	for _, tc := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(tc.in); got != tc.want {
			t.Errorf("median(%v) = %v, want %v", tc.in, got, tc.want)
		}
	}
}

func TestCountCPUs(t *testing.T) {
	for list, want := range map[string]int{"0": 1, "0-3": 4, "0,2": 2, "0-1,4-5,7": 5} {
		if got, err := countCPUs(list); err != nil || got != want {
			t.Errorf("countCPUs(%q) = %d, %v; want %d", list, got, err, want)
		}
	}
	for _, list := range []string{"", "a", "3-1", "0-"} {
		if _, err := countCPUs(list); err == nil {
			t.Errorf("countCPUs(%q): no error", list)
		}
	}
}

// TestBareAnswersMockdBytes: the bare server gives back a captured answer
// whole (status, headers, body and framing), and 404 for anything else.
func TestBareAnswersMockdBytes(t *testing.T) {
	big := strings.Repeat(`{"x":1},`, 4000)
	orig := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("X-Request-Id", "r-1")
		w.WriteHeader(http.StatusCreated)
		if r.URL.Query().Get("big") != "" {
			_, _ = w.Write([]byte(big)) // chunked
			return
		}
		_, _ = w.Write([]byte(`{"ok":true}`)) // with Content-Length
	}))
	defer orig.Close()
	for _, uri := range []string{"/a?small=1", "/a?big=1"} {
		resp, err := http.Post(orig.URL+uri, "application/json", strings.NewReader(`{}`))
		if err != nil {
			t.Fatal(err)
		}
		want, err := captureAnswer(resp)
		if err != nil {
			t.Fatal(err)
		}
		bare := httptest.NewServer(bareHandler{answerKey("POST", uri): want})
		resp, err = http.Post(bare.URL+uri, "application/json", strings.NewReader(`{"other":"body"}`))
		if err != nil {
			t.Fatal(err)
		}
		got, err := captureAnswer(resp)
		if err != nil {
			t.Fatal(err)
		}
		if diff := sameAnswer(want, got); diff != "" {
			t.Errorf("%s: %s", uri, diff)
		}
		resp, err = http.Get(bare.URL + uri)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", uri, resp.StatusCode)
		}
		bare.Close()
	}
}

func TestSameAnswerReportsDifferences(t *testing.T) {
	base := func() *answer {
		return &answer{Status: 200, Header: http.Header{"Content-Type": {"application/json"}}, Body: []byte(`{}`)}
	}
	if d := sameAnswer(base(), base()); d != "" {
		t.Errorf("equal answers: %s", d)
	}
	for name, change := range map[string]func(*answer){
		"status":       func(a *answer) { a.Status = 201 },
		"body":         func(a *answer) { a.Body = []byte(`{ }`) },
		"header value": func(a *answer) { a.Header.Set("Content-Type", "text/plain") },
		"extra header": func(a *answer) { a.Header.Set("X-Extra", "1") },
		"chunked":      func(a *answer) { a.Header.Set("Transfer-Encoding", "chunked") },
	} {
		b := base()
		change(b)
		if d := sameAnswer(base(), b); d == "" {
			t.Errorf("%s: no difference reported", name)
		}
	}
}

func TestReadMemory(t *testing.T) {
	m, err := readMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.rss <= 0 || m.hwm < m.rss {
		t.Errorf("rss %d hwm %d", m.rss, m.hwm)
	}
}

func TestSummarize(t *testing.T) {
	sl := func(rps, p50, p99 int64) slice {
		return slice{Requests: rps, DurationUS: 1e6, Bytes: rps * 100, P50US: p50, P99US: p99,
			CPU: time.Duration(rps) * 10 * time.Microsecond, Sys: time.Duration(rps) * 4 * time.Microsecond}
	}
	r := &result{load: "x",
		mockd: []slice{sl(500, 10, 100), sl(400, 12, 140), sl(600, 11, 90)},
		bare:  []slice{sl(1000, 5, 50), sl(1000, 6, 60), sl(1000, 4, 40)}}
	s := summarize(r)
	if s.mockdRPS != 500 || s.bareRPS != 1000 || s.ratio != 0.5 || s.pairMin != 0.4 || s.pairMax != 0.6 ||
		s.mockdP50 != 11*time.Microsecond || s.mockdP99 != 100*time.Microsecond || s.bareP99 != 50*time.Microsecond ||
		s.p99Ratio != 2 || s.answerBytes != 100 || s.mockdCPU != 10*time.Microsecond || s.cpuRatio != 1 ||
		s.mockdSys != 4*time.Microsecond || s.bareSys != 4*time.Microsecond {
		t.Errorf("summary %+v", s)
	}

	// A slice in which nothing completed counts as 0 requests per second
	// and has no latencies; with none completed the latency is unknown.
	r = &result{load: "slow",
		mockd: []slice{sl(0, 0, 0), sl(2, 900_000, 1_500_000), sl(0, 0, 0)},
		bare:  []slice{sl(1000, 5, 50), sl(1000, 6, 60), sl(1000, 4, 40)}}
	s = summarize(r)
	if s.mockdRPS != 0 || s.ratio != 0 || s.pairMin != 0 || s.pairMax != 0.002 ||
		s.mockdP50 != 900*time.Millisecond || s.answerBytes != 100 {
		t.Errorf("summary %+v", s)
	}
	r.mockd = []slice{sl(0, 0, 0)}
	r.bare = r.bare[:1]
	s = summarize(r)
	if s.mockdP50 != -1 || !math.IsNaN(s.p99Ratio) || s.answerBytes != -1 ||
		dur(s.mockdP50) != "—" || num(s.p99Ratio, 1) != "—" {
		t.Errorf("summary %+v", s)
	}
}

func TestCPUTimeAndWaitIdle(t *testing.T) {
	cmd := exec.Command("sleep", "30")
	if err := cmd.Start(); err != nil {
		t.Skip("no sleep command:", err)
	}
	defer func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	}()
	cpu, ok, err := waitIdle(context.Background(), cmd.Process.Pid, 10*time.Second)
	if err != nil || !ok || cpu.user < 0 || cpu.sys < 0 || cpu.total() > time.Second {
		t.Errorf("waitIdle(sleep) = %+v, %v, %v", cpu, ok, err)
	}
	// The process's own use: a busy loop is user time, read from its
	// field (it runs until the user time moved, at most 10 s; each read of
	// /proc is kernel time, so it reads every 5 ms).
	before, err := cpuTime(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	var used cpuUse
	for start := time.Now(); used.user < 3*clockTick && time.Since(start) < 10*time.Second; {
		for spin := time.Now(); time.Since(spin) < 5*time.Millisecond; {
		}
		after, err := cpuTime(os.Getpid())
		if err != nil {
			t.Fatal(err)
		}
		used = after.sub(before)
	}
	if used.user < 3*clockTick || used.sys < 0 || used.sys >= used.user {
		t.Errorf("cpuTime around a busy loop: %+v", used)
	}
	if _, err := cpuTime(-1); err == nil {
		t.Error("cpuTime(-1): no error")
	}
}

// TestSliceFailure: a slice of error answers is a failure unless the
// load measures error answers (unknown-route); other failures stay.
func TestSliceFailure(t *testing.T) {
	for _, tc := range []struct {
		s            slice
		errorAnswers bool
		want         string
	}{
		{slice{Requests: 10}, false, ""},
		{slice{Requests: 10, Status: 10}, false, "answers with a status above 399 (10 in a slice)"},
		{slice{Requests: 10, Status: 10}, true, ""},
		{slice{Requests: 10, Status: 7}, true, "answers with a status below 400 (3 in a slice)"},
		{slice{Requests: 10, Status: 10, Read: 1}, true, "socket errors (connect 0, read 1, write 0 in a slice)"},
		{slice{}, true, "no answer within a slice"},
	} {
		if got := tc.s.failure(tc.errorAnswers); got != tc.want {
			t.Errorf("%+v, errorAnswers %v: %q, want %q", tc.s, tc.errorAnswers, got, tc.want)
		}
	}
}

// TestResultCheck: a failed slice is noted and counted as a failure of
// the load (which meets no target), once however many slices fail; a
// server still busy after its slice is only noted.
func TestResultCheck(t *testing.T) {
	var r result
	r.check("mockd", slice{Requests: 10}, false)
	r.check("mockd", slice{}, false)
	r.check("bare", slice{}, false)
	r.check("mockd", slice{}, false)
	r.note("mockd: still busy after 2m0s")
	want := []string{"mockd: no answer within a slice", "bare: no answer within a slice"}
	if !slices.Equal(r.failures, want) || !slices.Equal(r.notes, append(want, "mockd: still busy after 2m0s")) {
		t.Errorf("failures %q, notes %q", r.failures, r.notes)
	}
}

// TestRequestSetExpects: a load measures answers below 400, or exactly
// its error status (unknown-route's 404); mockd's first answer must be
// one of those.
func TestRequestSetExpects(t *testing.T) {
	for _, tc := range []struct {
		status, answer int
		want           bool
	}{
		{0, 200, true}, {0, 201, true}, {0, 404, false}, {0, 500, false},
		{404, 404, true}, {404, 200, false}, {404, 401, false},
	} {
		set := &requestSet{status: tc.status}
		if got := set.expects(tc.answer); got != tc.want {
			t.Errorf("load status %d, answer %d: %v, want %v", tc.status, tc.answer, got, tc.want)
		}
	}
}
