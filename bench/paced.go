package main

// The paced slices: the load again, offered to both servers at one fixed
// rate, half of mockd's throughput in the closed loop just measured. In
// the closed loop (each connection sends its next request when the last
// is answered), a server's latency is mostly the connections' queue: by
// Little's law its mean is the connection count divided by its
// throughput, and its p99 adds the tail to that. At one rate both
// servers sustain, the latency is what a client at that load waits, and
// the p99 ratio compares the servers' tails, not their throughputs
// (docs/performance.md#latency-at-a-fixed-rate).

import (
	"context"
	"fmt"
	"time"
)

// pacedShare is the share of mockd's closed-loop throughput that the
// paced slices offer.
const pacedShare = 0.5

// paceFor is the mean wait before each request of each of conns
// connections that offers rate requests per second (0: no rate).
func paceFor(conns int, rate float64) time.Duration {
	if rate <= 0 {
		return 0
	}
	return time.Duration(float64(conns) / rate * float64(time.Second))
}

// pacedRate is the rate the paced slices of r offer: a share of mockd's
// closed-loop throughput.
func (r *result) pacedRate() float64 { return summarize(r).mockdRPS * pacedShare }

// pacedDrift is how far apart the two servers' completed rates may be
// before the load notes it.
const pacedDrift = 0.15

// pace measures the load's paced slices into r.paced.
func (b *bench) pace(ctx context.Context, r *result, name string, set *requestSet, servers [2]*server) error {
	if len(r.failures) > 0 {
		r.note("not paced: the closed loop failed")
		return nil
	}
	rate := r.pacedRate()
	// wrk gives each thread conns/threads connections.
	conns := b.cfg.conns / b.cfg.loadThreads() * b.cfg.loadThreads()
	p := paceFor(conns, rate)
	if p <= 0 {
		r.note("not paced: no throughput to offer a share of")
		return nil
	}
	script, err := writeScript(b.tmp, name, set, p)
	if err != nil {
		return err
	}
	b.log.Info("paced", "name", name, "rate", int(rate), "wait", p.Round(time.Microsecond))
	pr, err := b.measure(ctx, name+" (paced)", script, servers, measuring{errorAnswers: set.status >= 400})
	if err != nil {
		return err
	}
	r.paced = pr
	ps := summarize(pr)
	// Each connection waits, sends and waits for the answer, so both
	// complete a little less than the offer (the answer's time adds to
	// the wait); what must hold is that they were loaded alike.
	if d := ratio(ps.mockdRPS, ps.bareRPS); !(d >= 1-pacedDrift && d <= 1+pacedDrift) {
		pr.note(fmt.Sprintf("the servers completed different rates: mockd %.0f, bare %.0f req/s", ps.mockdRPS, ps.bareRPS))
	}
	b.log.Info("paced done", "name", name, "mockd_rps", int(ps.mockdRPS), "bare_rps", int(ps.bareRPS),
		"mockd_p99", dur(ps.mockdP99), "bare_p99", dur(ps.bareP99), "p99_ratio", num(ps.p99Ratio, 1), "notes", pr.notes)
	return nil
}
