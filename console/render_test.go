package console

import (
	"testing"
	"time"
)

func TestFmtDuration(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		d    time.Duration
		want string
	}{
		{0, "0ms"}, {250 * time.Millisecond, "250ms"}, {time.Second, "1s"}, {90 * time.Second, "1m30s"},
		{2*time.Minute + 30*time.Second, "2m30s"}, {10 * time.Minute, "10m"}, {time.Hour, "1h"},
		{time.Hour + 30*time.Minute, "1h30m"}, {time.Hour + 5*time.Second, "1h0m5s"}, {24 * time.Hour, "1d"},
		{26*time.Hour + 3*time.Minute, "1d2h3m"}, {-time.Minute, "-1m"}, {1500 * time.Millisecond, "1s"},
	} {
		if got := fmtDuration(tc.d); got != tc.want {
			t.Errorf("fmtDuration(%v) = %q, want %q", tc.d, got, tc.want)
		}
	}
}

func TestFmtSince(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 1, 1, 0, 10, 0, 0, time.UTC)
	for _, tc := range []struct {
		t    time.Time
		want string
	}{
		{now, "now"}, {now.Add(-3 * time.Minute), "3m ago"}, {now.Add(90 * time.Second), "in 1m30s"}, {time.Time{}, ""},
	} {
		if got := fmtSince(now, tc.t); got != tc.want {
			t.Errorf("fmtSince(%v) = %q, want %q", tc.t, got, tc.want)
		}
	}
}
