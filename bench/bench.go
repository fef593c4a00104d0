package main

// The run: for each record count, one mockd with that world; for each load,
// a bare server that answers mockd's bytes, then paired slices of wrk on
// each, alternating which goes first, so that what the machine does
// meanwhile falls on both.

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"text/template"
	"time"

	_ "embed"
)

//go:embed scenario.yaml.tmpl
var scenarioTemplate string

var scenarioTmpl = template.Must(template.New("scenario").Parse(scenarioTemplate))

// world is one mockd: its record count, memory and the loads' results.
type world struct {
	records int
	ready   time.Duration // from start until mockd listened (records loaded)
	loaded  memory        // after it listened
	after   memory        // after every load
	results []result
	// created is the records the chat-create load added and grown the
	// RSS it added meanwhile (0: the load did not run).
	created int64
	grown   int64
}

// result is one load's slices on both servers, in the order they ran, and
// what went wrong in them: a slice in which no request completed, or with
// failed requests, is kept (0 requests per second) and noted.
type result struct {
	load        string
	mockd, bare []slice
	notes       []string
	// failures are the notes of failed requests or slices (note's
	// others only say a server stayed busy after its slice).
	failures []string
	// mockdRequests counts every request mockd completed in the closed
	// loop, warm-up included, and grown is mockd's RSS growth from before
	// the load's preparation to the end of its closed loop (the paced
	// slices come after: a write load's records are counted once).
	mockdRequests int64
	grown         int64
	// paced is the same load offered at a fixed rate (pacedRate, paced.go);
	// nil when it did not run.
	paced *result
}

func (r *result) note(s string) {
	if !slices.Contains(r.notes, s) {
		r.notes = append(r.notes, s)
	}
}

// fail notes a failure of the load (a failed request or slice).
func (r *result) fail(s string) {
	r.note(s)
	if !slices.Contains(r.failures, s) {
		r.failures = append(r.failures, s)
	}
}

// check notes the failure of a server's slice, if any (slice.failure).
func (r *result) check(server string, sl slice, errorAnswers bool) {
	if f := sl.failure(errorAnswers); f != "" {
		r.fail(server + ": " + f)
	}
}

func benchmark(ctx context.Context, cfg *config, log *slog.Logger) (*report, error) {
	for _, tool := range []string{cfg.wrk, "taskset"} {
		if tool == "taskset" && !cfg.pin {
			continue
		}
		if _, err := exec.LookPath(tool); err != nil {
			return nil, fmt.Errorf("%s is not on PATH (Debian and Ubuntu: apt-get install wrk util-linux)", tool)
		}
	}
	if cfg.repo == "" && cfg.mockd == "" {
		wd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		if cfg.repo, err = findRepo(wd); err != nil {
			return nil, err
		}
	}
	tmp, err := os.MkdirTemp("", "mockbench-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	mockd := cfg.mockd
	if mockd == "" {
		log.Info("building mockd", "repo", cfg.repo)
		if mockd, err = buildMockd(ctx, cfg.repo, tmp); err != nil {
			return nil, err
		}
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	rep := &report{cfg: cfg, machine: describeMachine(cfg.repo), loadBefore: loadAverage()}
	b := &bench{cfg: cfg, log: log, tmp: tmp, mockd: mockd, self: self,
		client: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}, Timeout: time.Minute}}
	defer b.client.CloseIdleConnections()

	// mockd's memory with no records, the base of the per-record figure.
	s, err := b.startMockd(ctx, 0)
	if err != nil {
		return nil, err
	}
	m, err := readMemory(s.pid)
	s.stop()
	if err != nil {
		return nil, err
	}
	rep.baseRSS = m.rss

	for _, n := range cfg.records {
		w, err := b.world(ctx, n)
		if err != nil {
			return nil, err
		}
		rep.worlds = append(rep.worlds, w)
	}
	rep.loadAfter = loadAverage()
	return rep, nil
}

// idleLimit bounds the wait for a server to go idle between slices.
const idleLimit = 2 * time.Minute

type bench struct {
	cfg    *config
	log    *slog.Logger
	tmp    string
	mockd  string
	self   string
	client *http.Client
}

// startMockd starts mockd with a world of n generated records.
func (b *bench) startMockd(ctx context.Context, n int) (*server, error) {
	path := filepath.Join(b.tmp, "scenario-"+strconv.Itoa(n)+".yaml")
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	err = scenarioTmpl.Execute(f, map[string]any{"Records": n, "From": genFrom, "To": genTo})
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}
	return startServer(ctx, "mockd", b.cfg, nil, filepath.Join(b.tmp, "mockd.log"), b.cfg.readyTimeout,
		b.mockd, "--addr", "127.0.0.1:0", "--scenario", path)
}

// world runs every load against one mockd of n records.
func (b *bench) world(ctx context.Context, n int) (*world, error) {
	b.log.Info("starting mockd", "records", n)
	s, err := b.startMockd(ctx, n)
	if err != nil {
		return nil, err
	}
	defer s.stop()
	w := &world{records: n, ready: s.ready}
	if w.loaded, err = readMemory(s.pid); err != nil {
		return nil, err
	}
	b.log.Info("mockd ready", "records", n, "in", w.ready.Round(time.Millisecond), "rss_mib", w.loaded.rss>>20)
	for _, l := range loads {
		if len(b.cfg.loads) > 0 && !slices.Contains(b.cfg.loads, l.name) {
			continue
		}
		r, err := b.load(ctx, s, &l)
		if err != nil {
			return nil, fmt.Errorf("%d records, %s: %w", n, l.name, err)
		}
		if l.name == "chat-create" {
			w.created, w.grown = r.mockdRequests+1, r.grown // +1: the captured answer
		}
		w.results = append(w.results, *r)
	}
	if w.after, err = readMemory(s.pid); err != nil {
		return nil, err
	}
	return w, nil
}

// load measures one load: it prepares its requests, starts a bare server
// with mockd's answer and runs the slices, then, for the loads the
// targets name, the paced slices (paced.go).
func (b *bench) load(ctx context.Context, s *server, l *load) (*result, error) {
	before, err := readMemory(s.pid)
	if err != nil {
		return nil, err
	}
	set, err := l.prepare(ctx, b.client, s.addr, b.cfg)
	if err != nil {
		return nil, err
	}
	bare, want, err := b.startBare(ctx, s, l.name, set)
	if err != nil {
		return nil, err
	}
	defer bare.stop()
	script, err := writeScript(b.tmp, l.name, set, 0)
	if err != nil {
		return nil, err
	}
	b.log.Info("load", "name", l.name, "requests", len(set.items), "answer_bytes", len(want.Body))
	servers := [2]*server{s, bare}
	r, err := b.measure(ctx, l.name, script, servers, measuring{errorAnswers: set.status >= 400, warm: true})
	if err != nil {
		return nil, err
	}
	m, err := readMemory(s.pid)
	if err != nil {
		return nil, err
	}
	r.grown = m.rss - before.rss
	sum := summarize(r)
	b.log.Info("load done", "name", l.name, "mockd_rps", int(sum.mockdRPS), "bare_rps", int(sum.bareRPS),
		"ratio", num(sum.ratio, 2), "cpu_ratio", num(sum.cpuRatio, 2), "mockd_p99", dur(sum.mockdP99),
		"bare_p99", dur(sum.bareP99), "notes", r.notes)
	if slices.Contains(ratioLoads, l.name) {
		if err := b.pace(ctx, r, l.name, set, servers); err != nil {
			return nil, err
		}
	}
	return r, nil
}

// startBare captures mockd's answer to the load's first request and starts
// a bare server that gives it for each of the load's requests, after
// checking that it answers the same bytes.
func (b *bench) startBare(ctx context.Context, s *server, name string, set *requestSet) (*server, *answer, error) {
	it := set.items[0]
	resp, err := send(ctx, b.client, s.addr, set.method, set.header, it)
	if err != nil {
		return nil, nil, err
	}
	want, err := captureAnswer(resp)
	if err != nil {
		return nil, nil, err
	}
	if !set.expects(want.Status) {
		return nil, nil, fmt.Errorf("mockd answered %d: %s", want.Status, want.Body)
	}
	answers := map[string]*answer{}
	for _, it := range set.items {
		answers[answerKey(set.method, it.uri)] = want
	}
	ans, err := json.Marshal(answers)
	if err != nil {
		return nil, nil, err
	}
	ansPath := filepath.Join(b.tmp, name+".answers.json")
	if err := os.WriteFile(ansPath, ans, 0o644); err != nil {
		return nil, nil, err
	}
	bare, err := startServer(ctx, "bare server", b.cfg, []string{bareEnv + "=1"}, filepath.Join(b.tmp, "bare.log"),
		30*time.Second, b.self, "-answers", ansPath)
	if err != nil {
		return nil, nil, err
	}
	defer b.client.CloseIdleConnections()
	resp, err = send(ctx, b.client, bare.addr, set.method, set.header, it)
	if err == nil {
		var got *answer
		if got, err = captureAnswer(resp); err == nil {
			if diff := sameAnswer(want, got); diff != "" {
				err = fmt.Errorf("the bare server does not answer mockd's bytes: %s", diff)
			}
		}
	}
	if err != nil {
		bare.stop()
		return nil, nil, err
	}
	return bare, want, nil
}

// measuring is how measure runs a load's slices.
type measuring struct {
	errorAnswers bool // the load's answers are errors (slice.failure)
	warm         bool // run the warm-up slices (the servers have not served the load yet)
}

// measure runs the warm-up and the slice pairs of a load on servers
// (mockd, bare). Each slice begins with both servers idle: both are idle
// before the first, and each slice ends only when its server is idle
// again. A slice's CPU time is its server's from its start until then, so
// the work it left behind (garbage collection) counts.
func (b *bench) measure(ctx context.Context, name, script string, servers [2]*server, how measuring) (*result, error) {
	r := &result{load: name}
	var cpu [2]cpuUse
	idle := func(j int) error {
		var ok bool
		var err error
		cpu[j], ok, err = waitIdle(ctx, servers[j].pid, idleLimit)
		if err == nil && !ok {
			r.note(fmt.Sprintf("%s: still busy after %v", servers[j].name, idleLimit))
		}
		return err
	}
	for j := range servers {
		if err := idle(j); err != nil {
			return nil, err
		}
	}
	runSlice := func(i int, d time.Duration) (slice, error) {
		sl, err := runWrk(ctx, b.cfg, script, servers[i].addr, d)
		if err != nil {
			return sl, err
		}
		if err := servers[i].alive(); err != nil {
			return sl, err
		}
		before := cpu[i]
		if err := idle(i); err != nil {
			return sl, err
		}
		if i == 0 {
			r.mockdRequests += sl.Requests
		}
		used := cpu[i].sub(before)
		sl.CPU, sl.Sys = used.total(), used.sys
		r.check(servers[i].name, sl, how.errorAnswers)
		return sl, nil
	}
	if how.warm && b.cfg.warmup > 0 {
		for i := range servers {
			if _, err := runSlice(i, b.cfg.warmup); err != nil {
				return nil, err
			}
		}
	}
	for p := range b.cfg.pairs {
		order := [2]int{0, 1} // mockd first in even pairs, the bare server in odd ones
		if p%2 == 1 {
			order = [2]int{1, 0}
		}
		for _, i := range order {
			sl, err := runSlice(i, b.cfg.slice)
			if err != nil {
				return nil, err
			}
			if i == 0 {
				r.mockd = append(r.mockd, sl)
			} else {
				r.bare = append(r.bare, sl)
			}
		}
	}
	return r, nil
}
