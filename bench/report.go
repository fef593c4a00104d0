package main

// The report: the machine, then one row per record count and load with
// medians over the slices, then mockd's memory per record count, then the
// targets (targets.go).

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

type report struct {
	cfg        *config
	machine    machine
	baseRSS    int64 // mockd with no records
	worlds     []*world
	loadBefore string
	loadAfter  string
}

type machine struct {
	cpus   int
	model  string
	memory int64 // bytes
	goVer  string
	kernel string
	mockd  string // git describe of the checkout
	date   string
}

func describeMachine(repo string) machine {
	m := machine{goVer: runtime.Version(), model: "unknown", mockd: "unknown",
		date: time.Now().UTC().Format("2006-01-02 15:04 MST")}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			key, val, ok := strings.Cut(line, ":")
			switch key = strings.TrimSpace(key); {
			case !ok:
			case key == "processor":
				m.cpus++
			case key == "model name" && m.model == "unknown":
				m.model = strings.TrimSpace(val)
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		for line := range strings.Lines(string(b)) {
			if rest, ok := strings.CutPrefix(line, "MemTotal:"); ok {
				kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
				if err == nil {
					m.memory = kb << 10
				}
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.kernel = strings.TrimSpace(string(b))
	}
	if repo != "" {
		if out, err := exec.Command("git", "-C", repo, "describe", "--always", "--dirty").Output(); err == nil {
			m.mockd = strings.TrimSpace(string(out))
		}
	}
	return m
}

// loadAverage is /proc/loadavg's 1-minute figure: how busy the machine
// was besides the benchmark.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) == 0 {
		return "?"
	}
	return f[0]
}

// summary is a load's medians over its slices. A latency of a load in
// which no slice completed a request is unknown (-1); a ratio with an
// unknown or zero side is NaN.
type summary struct {
	mockdRPS, bareRPS  float64
	ratio              float64 // mockdRPS / bareRPS
	pairMin, pairMax   float64 // the lowest and highest ratio of one pair
	mockdP50, mockdP99 time.Duration
	bareP50, bareP99   time.Duration
	p99Ratio           float64
	mockdCPU, bareCPU  time.Duration // CPU time per request, -1 when unknown
	mockdSys, bareSys  time.Duration // the part of it in the kernel, -1 when unknown
	cpuRatio           float64       // bareCPU / mockdCPU
	answerBytes        int64         // bytes mockd sent per answer, headers included
}

func summarize(r *result) summary {
	s := summary{pairMin: math.NaN(), pairMax: math.NaN(), answerBytes: -1}
	rps := func(sl []slice) []float64 {
		out := make([]float64, len(sl))
		for i, x := range sl {
			out[i] = x.rps()
		}
		return out
	}
	// lat is the median of a percentile over the slices that completed a
	// request (wrk's histogram holds only completed requests).
	lat := func(sl []slice, p func(slice) int64) time.Duration {
		var v []float64
		for _, x := range sl {
			if x.Requests > 0 {
				v = append(v, float64(p(x)))
			}
		}
		if len(v) == 0 {
			return -1
		}
		return time.Duration(median(v) * float64(time.Microsecond))
	}
	s.mockdRPS, s.bareRPS = median(rps(r.mockd)), median(rps(r.bare))
	s.ratio = ratio(s.mockdRPS, s.bareRPS)
	for i := range min(len(r.mockd), len(r.bare)) {
		pr := ratio(r.mockd[i].rps(), r.bare[i].rps())
		if math.IsNaN(s.pairMin) || pr < s.pairMin {
			s.pairMin = pr
		}
		if math.IsNaN(s.pairMax) || pr > s.pairMax {
			s.pairMax = pr
		}
	}
	p50 := func(x slice) int64 { return x.P50US }
	p99 := func(x slice) int64 { return x.P99US }
	s.mockdP50, s.mockdP99 = lat(r.mockd, p50), lat(r.mockd, p99)
	s.bareP50, s.bareP99 = lat(r.bare, p50), lat(r.bare, p99)
	s.p99Ratio = math.NaN()
	if s.mockdP99 >= 0 && s.bareP99 > 0 {
		s.p99Ratio = float64(s.mockdP99) / float64(s.bareP99)
	}
	s.mockdCPU, s.bareCPU = perRequest(r.mockd, func(x slice) time.Duration { return x.CPU }),
		perRequest(r.bare, func(x slice) time.Duration { return x.CPU })
	s.mockdSys, s.bareSys = perRequest(r.mockd, func(x slice) time.Duration { return x.Sys }),
		perRequest(r.bare, func(x slice) time.Duration { return x.Sys })
	s.cpuRatio = math.NaN()
	if s.mockdCPU > 0 && s.bareCPU > 0 {
		s.cpuRatio = float64(s.bareCPU) / float64(s.mockdCPU)
	}
	for _, x := range r.mockd {
		if x.Requests > 0 {
			s.answerBytes = x.Bytes / x.Requests
			break
		}
	}
	return s
}

// perRequest is the server's CPU time of all slices (all of it, or its
// part in the kernel) divided by the requests they completed (totals: the
// CPU clock ticks in 10 ms steps).
func perRequest(sl []slice, cpu func(slice) time.Duration) time.Duration {
	var sum time.Duration
	var n int64
	for _, x := range sl {
		sum += cpu(x)
		n += x.Requests
	}
	if n == 0 {
		return -1
	}
	return sum / time.Duration(n)
}

// ratio is a/b, NaN when b is 0.
func ratio(a, b float64) float64 {
	if b == 0 {
		return math.NaN()
	}
	return a / b
}

// median of v (the mean of the middle two for an even count).
func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.SortFunc(s, cmp.Compare)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

func (r *report) write(w io.Writer, format string) error {
	c, m := r.cfg, r.machine
	pin := "not pinned"
	if c.pin {
		pin = fmt.Sprintf("servers on CPU %s, wrk on CPU %s", c.serverCPUs, c.loadCPUs)
	}
	warm := ""
	if c.warmup > 0 {
		warm = fmt.Sprintf(" after a %v warm-up each", c.warmup)
	}
	head := []string{
		fmt.Sprintf("mockd %s, %s, mode %s", m.mockd, m.date, c.mode),
		fmt.Sprintf("machine: %d CPUs (%s), %.1f GiB, Linux %s, %s", m.cpus, m.model, float64(m.memory)/(1<<30), m.kernel, m.goVer),
		fmt.Sprintf("%s (wrk: %d thread(s), %d connections); %d pair(s) of %v slices per load, alternating%s; medians",
			pin, c.loadThreads(), c.conns, c.pairs, c.slice, warm),
		fmt.Sprintf("load average (1 min) before %s, after %s", r.loadBefore, r.loadAfter),
	}
	loadsHead := []string{"records", "load", "mockd req/s", "bare req/s", "ratio", "pair ratios",
		"mockd CPU/req", "bare CPU/req", "CPU ratio", "mockd kernel/req", "bare kernel/req",
		"mockd p50", "mockd p99", "bare p50", "bare p99", "p99 ratio", "bytes/answer", "notes"}
	var loadRows [][]string
	for _, wd := range r.worlds {
		for i := range wd.results {
			res := &wd.results[i]
			s := summarize(res)
			loadRows = append(loadRows, []string{
				count(wd.records), res.load, fmt.Sprintf("%.0f", s.mockdRPS), fmt.Sprintf("%.0f", s.bareRPS),
				num(s.ratio, 2), num(s.pairMin, 2) + "–" + num(s.pairMax, 2),
				dur(s.mockdCPU), dur(s.bareCPU), num(s.cpuRatio, 2), dur(s.mockdSys), dur(s.bareSys),
				dur(s.mockdP50), dur(s.mockdP99), dur(s.bareP50), dur(s.bareP99),
				num(s.p99Ratio, 1), bytesPer(s.answerBytes), strings.Join(res.notes, "; ")})
		}
	}
	pacedHead := []string{"records", "load", "offered req/s", "mockd req/s", "bare req/s",
		"mockd p50", "mockd p99", "bare p50", "bare p99", "p99 ratio", "notes"}
	var pacedRows [][]string
	for _, wd := range r.worlds {
		for i := range wd.results {
			res := &wd.results[i]
			if res.paced == nil {
				continue
			}
			s := summarize(res.paced)
			pacedRows = append(pacedRows, []string{
				count(wd.records), res.load, fmt.Sprintf("%.0f", res.pacedRate()),
				fmt.Sprintf("%.0f", s.mockdRPS), fmt.Sprintf("%.0f", s.bareRPS),
				dur(s.mockdP50), dur(s.mockdP99), dur(s.bareP50), dur(s.bareP99),
				num(s.p99Ratio, 1), strings.Join(res.paced.notes, "; ")})
		}
	}
	pacedNote := fmt.Sprintf("latency at a fixed rate: the same loads offered to both servers at %g× mockd's throughput above "+
		"(each connection waits a random time before each request), in the same pairs of slices", pacedShare)
	memHead := []string{"records", "ready in", "RSS loaded", "per record", "per record added over HTTP", "RSS after loads", "peak RSS"}
	var memRows [][]string
	for _, wd := range r.worlds {
		per, perHTTP := "-", "-"
		if wd.records > 0 {
			per = fmt.Sprintf("%.2f KiB", float64(wd.loaded.rss-r.baseRSS)/float64(wd.records)/1024)
		}
		if wd.created > 0 {
			perHTTP = fmt.Sprintf("%.2f KiB (%d records)", float64(wd.grown)/float64(wd.created)/1024, wd.created)
		}
		memRows = append(memRows, []string{count(wd.records), wd.ready.Round(time.Millisecond).String(),
			mib(wd.loaded.rss), per, perHTTP, mib(wd.after.rss), mib(wd.after.hwm)})
	}
	memNote := fmt.Sprintf("mockd with no records: RSS %s; per record = (RSS loaded - that) / records; "+
		"per record added over HTTP = RSS growth during the chat-create load (its closed loop; the paced slices after it add more) / records it created there", mib(r.baseRSS))
	targetHead := []string{"target", "measured", "met"}
	var targetRows [][]string
	for _, t := range r.targets() {
		targetRows = append(targetRows, []string{t.target, t.measured, t.met})
	}
	const targetNote = "targets (docs/performance.md#targets): each against every world of this run that measured it"

	if format == "markdown" {
		for _, h := range head {
			fmt.Fprintf(w, "%s  \n", h)
		}
		fmt.Fprintln(w)
		mdTable(w, loadsHead, loadRows)
		fmt.Fprintln(w)
		if len(pacedRows) > 0 {
			fmt.Fprintln(w, pacedNote+".")
			fmt.Fprintln(w)
			mdTable(w, pacedHead, pacedRows)
			fmt.Fprintln(w)
		}
		fmt.Fprintln(w, memNote+".")
		fmt.Fprintln(w)
		mdTable(w, memHead, memRows)
		fmt.Fprintln(w)
		fmt.Fprintln(w, targetNote+".")
		fmt.Fprintln(w)
		mdTable(w, targetHead, targetRows)
		return nil
	}
	for _, h := range head {
		fmt.Fprintln(w, h)
	}
	fmt.Fprintln(w)
	if err := textTable(w, loadsHead, loadRows); err != nil {
		return err
	}
	if len(pacedRows) > 0 {
		fmt.Fprintln(w)
		fmt.Fprintln(w, pacedNote)
		if err := textTable(w, pacedHead, pacedRows); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, memNote)
	if err := textTable(w, memHead, memRows); err != nil {
		return err
	}
	fmt.Fprintln(w)
	fmt.Fprintln(w, targetNote)
	return textTable(w, targetHead, targetRows)
}

// textTable writes a table in aligned columns.
func textTable(w io.Writer, head []string, rows [][]string) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, strings.Join(head, "\t"))
	for _, row := range rows {
		fmt.Fprintln(tw, strings.Join(row, "\t"))
	}
	return tw.Flush()
}

func mdTable(w io.Writer, head []string, rows [][]string) {
	fmt.Fprintln(w, "| "+strings.Join(head, " | ")+" |")
	sep := make([]string, len(head))
	for i := range sep {
		sep[i] = "---"
	}
	fmt.Fprintln(w, "|"+strings.Join(sep, "|")+"|")
	for _, row := range rows {
		fmt.Fprintln(w, "| "+strings.Join(row, " | ")+" |")
	}
}

// count writes a record count as 100k or 1M where it is round.
func count(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + "M"
	case n >= 1_000 && n%1_000 == 0:
		return strconv.Itoa(n/1_000) + "k"
	}
	return strconv.Itoa(n)
}

// num formats a ratio, "—" when it is unknown.
func num(v float64, prec int) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return strconv.FormatFloat(v, 'f', prec, 64)
}

func bytesPer(n int64) string {
	if n < 0 {
		return "—"
	}
	return strconv.FormatInt(n, 10)
}

// dur formats a latency, "—" when it is unknown.
func dur(d time.Duration) string {
	switch {
	case d < 0:
		return "—"
	case d >= 10*time.Millisecond:
		return d.Round(time.Millisecond).String()
	case d >= time.Millisecond:
		return d.Round(10 * time.Microsecond).String()
	}
	return d.Round(time.Microsecond).String()
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }
