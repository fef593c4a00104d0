package main

// wrk drives the load: a generated Lua script pre-formats the load's
// requests once per thread, cycles through them, and at the end prints one
// line of results (throughput and latency percentiles from wrk's own
// histogram) that the benchmark reads.

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// wrkDone is the Lua done() that prints the results line.
const wrkDone = `
function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "BENCHRESULT {\"requests\":%d,\"duration_us\":%d,\"bytes\":%d,\"connect\":%d,\"read\":%d," ..
    "\"write\":%d,\"status\":%d,\"timeout\":%d,\"p50_us\":%d,\"p99_us\":%d,\"max_us\":%d}\n",
    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(99), latency.max))
end
`

// luaScript is the wrk script of a request set. With pace > 0 each
// connection waits before each request for a random time (exponential, of
// mean pace), so that the connections together offer conns/pace requests
// per second (paced.go).
func luaScript(name string, set *requestSet, pace time.Duration) string {
	var b strings.Builder
	fmt.Fprintf(&b, "-- wrk script of the %s load, written by mockplatform's bench.\n", name)
	b.WriteString("local method = " + luaString(set.method) + "\n")
	b.WriteString("local headers = {")
	for _, h := range set.header {
		b.WriteString("[" + luaString(h[0]) + "] = " + luaString(h[1]) + ", ")
	}
	b.WriteString("}\n")
	b.WriteString("local items = {\n")
	for _, it := range set.items {
		body := "nil"
		if it.body != "" {
			body = luaString(it.body)
		}
		b.WriteString("  {" + luaString(it.uri) + ", " + body + "},\n")
	}
	b.WriteString("}\n")
	// Each thread starts at a different place in the list (setup numbers
	// them), formats every request once in init and then only indexes.
	b.WriteString(`local threads = 0
function setup(thread)
  thread:set("thread_index", threads)
  threads = threads + 1
end
local reqs, n, i = {}, 0, 0
function init(args)
  for k, it in ipairs(items) do
    local h = {}
    for hk, hv in pairs(headers) do h[hk] = hv end
    reqs[k] = wrk.format(method, it[1], h, it[2])
  end
  n = #reqs
  i = ((thread_index or 0) * 7919) % n
  math.randomseed(7919 + (thread_index or 0))
end
function request()
  i = i % n + 1
  return reqs[i]
end
`)
	if pace > 0 {
		fmt.Fprintf(&b, "local pace_ms = %g\n", float64(pace)/float64(time.Millisecond))
		// wrk waits whole milliseconds: the fraction each wait leaves is
		// carried to the next, so the mean is kept below a millisecond too.
		b.WriteString(`local owed = 0
function delay()
  owed = owed - pace_ms * math.log(1 - math.random())
  local ms = math.floor(owed)
  owed = owed - ms
  return ms
end
`)
	}
	b.WriteString(wrkDone)
	return b.String()
}

// luaString quotes s as a Lua string literal (ASCII, decimal escapes).
func luaString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '"' || c == '\\':
			b.WriteByte('\\')
			b.WriteByte(c)
		case c < 0x20 || c >= 0x7f:
			fmt.Fprintf(&b, "\\%03d", c)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// slice is one wrk run against one server.
type slice struct {
	Requests   int64 `json:"requests"`
	DurationUS int64 `json:"duration_us"`
	Bytes      int64 `json:"bytes"`
	Connect    int64 `json:"connect"`
	Read       int64 `json:"read"`
	Write      int64 `json:"write"`
	Status     int64 `json:"status"`
	Timeout    int64 `json:"timeout"`
	P50US      int64 `json:"p50_us"`
	P99US      int64 `json:"p99_us"`
	MaxUS      int64 `json:"max_us"`

	// CPU is the server's CPU time for the slice: from its start until
	// the server is idle again (filled in by the benchmark, not wrk).
	CPU time.Duration `json:"-"`
	// Sys is the part of CPU spent in the kernel.
	Sys time.Duration `json:"-"`
}

func (s slice) rps() float64 {
	if s.DurationUS <= 0 {
		return 0
	}
	return float64(s.Requests) / (float64(s.DurationUS) / 1e6)
}

// failure describes what went wrong in the slice, or is "". errorAnswers:
// the load's answers are errors (a status above 399 is what it measures;
// one below is then the failure).
func (s slice) failure(errorAnswers bool) string {
	switch {
	case s.Status > 0 && !errorAnswers:
		return fmt.Sprintf("answers with a status above 399 (%d in a slice)", s.Status)
	case errorAnswers && s.Status < s.Requests:
		return fmt.Sprintf("answers with a status below 400 (%d in a slice)", s.Requests-s.Status)
	case s.Connect+s.Read+s.Write > 0:
		return fmt.Sprintf("socket errors (connect %d, read %d, write %d in a slice)", s.Connect, s.Read, s.Write)
	case s.Requests == 0:
		return "no answer within a slice"
	case s.Timeout > 0:
		return "answers slower than 10 s"
	}
	return ""
}

// runWrk loads addr for d with the script and returns wrk's results.
func runWrk(ctx context.Context, cfg *config, script, addr string, d time.Duration) (slice, error) {
	argv := []string{cfg.wrk, "-t", strconv.Itoa(cfg.loadThreads()), "-c", strconv.Itoa(cfg.conns),
		"-d", strconv.Itoa(int(d/time.Second)) + "s", "--timeout", "10s", "-s", script, "http://" + addr + "/"}
	if cfg.pin {
		argv = append([]string{"taskset", "-c", cfg.loadCPUs}, argv...)
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return slice{}, fmt.Errorf("wrk: %v\n%s%s", err, stdout.Bytes(), stderr.Bytes())
	}
	for line := range strings.Lines(stdout.String()) {
		if rest, ok := strings.CutPrefix(line, "BENCHRESULT "); ok {
			var s slice
			if err := json.Unmarshal([]byte(rest), &s); err != nil {
				return slice{}, fmt.Errorf("wrk results %q: %w", rest, err)
			}
			return s, nil
		}
	}
	return slice{}, fmt.Errorf("wrk printed no results:\n%s%s", stdout.Bytes(), stderr.Bytes())
}

// writeScript writes the load's wrk script into dir (paced when pace > 0).
func writeScript(dir, name string, set *requestSet, pace time.Duration) (string, error) {
	path := dir + "/" + name + ".lua"
	if pace > 0 {
		path = dir + "/" + name + ".paced.lua"
	}
	return path, os.WriteFile(path, []byte(luaScript(name, set, pace)), 0o644)
}
