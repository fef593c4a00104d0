package main

// The calibration: what a ratio means on the machine of the run. The bare
// server with a fixed amount of busy work added before each answer is
// loaded against the plain bare server exactly as mockd is (v3-page-1's
// answer, the same slices, pairs, connections and CPUs). Its ratio is what
// a server that did only that much more work per request than the bare one
// scores here. On a small machine it falls faster than bare/(bare+work):
// a slower server leaves the load generator idle more often, and waking it
// for each answer costs the server's CPU too (docs/performance.md).

import (
	"context"
	"fmt"
	"strings"
	"time"
)

// calibration is the result of one amount of added work.
type calibration struct {
	spin   time.Duration
	result result // mockd's side holds the busy server's slices
}

// calibrationLoad is the load whose answer the calibration serves.
const calibrationLoad = "v3-page-1"

// calibrate runs the calibration against mockd s's answer to
// calibrationLoad's request.
func (b *bench) calibrate(ctx context.Context, s *server) ([]calibration, error) {
	l := findLoad(calibrationLoad)
	set, err := l.prepare(ctx, b.client, s.addr, b.cfg)
	if err != nil {
		return nil, err
	}
	bare, _, err := b.startBare(ctx, s, "calibration", set, 0)
	if err != nil {
		return nil, err
	}
	defer bare.stop()
	script, err := writeScript(b.tmp, "calibration", set, 0)
	if err != nil {
		return nil, err
	}
	var out []calibration
	for _, spin := range b.cfg.calibrate {
		busy, _, err := b.startBare(ctx, s, "calibration", set, spin)
		if err != nil {
			return nil, err
		}
		b.log.Info("calibration", "added_work", spin)
		r, err := b.measure(ctx, "calibration +"+spin.String(), script, [2]*server{busy, bare}, measuring{warm: true})
		busy.stop()
		if err != nil {
			return nil, fmt.Errorf("calibration +%v: %w", spin, err)
		}
		sum := summarize(r)
		b.log.Info("calibration done", "added_work", spin, "ratio", num(sum.ratio, 2), "cpu_ratio", num(sum.cpuRatio, 2),
			"p99_ratio", num(sum.p99Ratio, 1))
		out = append(out, calibration{spin: spin, result: *r})
	}
	return out, nil
}

// parseDurations parses a comma-separated list of durations; "none" is
// the empty list.
func parseDurations(s string) ([]time.Duration, error) {
	if s == "none" || s == "" {
		return nil, nil
	}
	var out []time.Duration
	for _, f := range strings.Split(s, ",") {
		d, err := time.ParseDuration(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		if d <= 0 || d > time.Second {
			return nil, fmt.Errorf("%v is not in (0, 1s]", d)
		}
		out = append(out, d)
	}
	return out, nil
}
