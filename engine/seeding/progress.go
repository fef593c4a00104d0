package seeding

// Progress of generating or loading many records: logged now and then over
// progressLogMin records, and reported to Config.Progress.

import (
	"log/slog"
	"sync"
	"time"

	"github.com/agentplatform/mockplatform/clock"
	"github.com/agentplatform/mockplatform/scenario"
)

// Progress is a report of a long load.
type Progress struct {
	// Stage is what runs.
	Stage string `json:"stage"`
	// Records of Total are done.
	Records int `json:"records"`
	Total   int `json:"total"`
	// Rate is records per second; SecondsLeft the time left at that rate.
	Rate        float64 `json:"rate"`
	SecondsLeft float64 `json:"seconds_left"`
}

const progressLogMin = 100_000

const progressLogEvery = time.Second

// Reporter reports the progress of one load.
type Reporter struct {
	log     *slog.Logger
	fn      func(Progress)
	total   int
	elapsed func() time.Duration

	mu      sync.Mutex
	base    int // records of earlier parts (generators)
	lastLog time.Duration
}

// NewReporter returns the reporter of a load of total records (0: see
// SetTotal).
func NewReporter(log *slog.Logger, fn func(Progress), total int) *Reporter {
	return &Reporter{log: log, fn: fn, total: total, elapsed: clock.Stopwatch()}
}

// Generated is the number of records a scenario's generators make.
func Generated(sc *scenario.Scenario) int {
	n := 0
	for _, a := range sc.Accounts {
		for _, p := range a.Projects {
			for _, g := range p.Generate {
				n += g.Count
			}
		}
	}
	return n
}

// part returns the callback of a part of n records, counted after earlier
// parts.
func (p *Reporter) part(stage string, n int) func(done, total int) {
	if p == nil || (p.fn == nil && p.total < progressLogMin) {
		return nil
	}
	p.mu.Lock()
	base := p.base
	p.base += n
	p.mu.Unlock()
	return func(done, _ int) { p.Report(stage, base+done) }
}

// SetTotal sets the number of records the load will have done.
func (p *Reporter) SetTotal(total int) { p.total = total }

// Report reports done records of the load's stage.
func (p *Reporter) Report(stage string, done int) {
	el := p.elapsed()
	r := Progress{Stage: stage, Records: done, Total: p.total}
	if s := el.Seconds(); s > 0 {
		r.Rate = float64(done) / s
		if r.Rate > 0 {
			r.SecondsLeft = float64(p.total-done) / r.Rate
		}
	}
	if p.fn != nil {
		p.fn(r)
	}
	if p.total < progressLogMin {
		return
	}
	p.mu.Lock()
	due := done == p.total || el-p.lastLog >= progressLogEvery
	if due {
		p.lastLog = el
	}
	p.mu.Unlock()
	if due {
		p.log.Info(stage, "records", done, "total", p.total, "rate_per_s", int(r.Rate),
			"left", (time.Duration(r.SecondsLeft * float64(time.Second))).Round(100*time.Millisecond).String())
	}
}
