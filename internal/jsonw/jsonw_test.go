package jsonw

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"
	"unicode/utf8"
)

// TestAppendISOTime: AppendISOTime writes what AppendFormat(RFC3339Nano)
// writes in UTC, over the whole range and its edges (years 0 to 9999 and
// beyond, leap days, fractions with trailing zeros, other zones).
func TestAppendISOTime(t *testing.T) {
	t.Parallel()
	want := func(tm time.Time) string { return `"` + tm.UTC().Format(time.RFC3339Nano) + `"` }
	times := []time.Time{
		time.Unix(0, 0), time.Unix(-1, 0), time.Unix(-1, 999_999_999), time.Unix(minISOSec, 0), time.Unix(maxISOSec, 999_999_999),
		time.Unix(minISOSec-1, 0), time.Unix(maxISOSec+1, 0), time.Date(2024, 2, 29, 23, 59, 59, 100_000_000, time.UTC),
		time.Date(2000, 3, 1, 0, 0, 0, 1, time.UTC), time.Date(1900, 2, 28, 12, 0, 0, 120_000, time.UTC),
		time.Date(2026, 2, 10, 8, 0, 0, 0, time.FixedZone("X", -7*3600)), time.Date(-5, 1, 1, 0, 0, 0, 0, time.UTC), {},
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		sec := minISOSec - 1e9 + rng.Int64N(maxISOSec-minISOSec+2e9)
		ns := rng.Int64N(1e9)
		switch rng.IntN(4) {
		case 0:
			ns = 0
		case 1:
			ns -= ns % 1_000_000
		}
		times = append(times, time.Unix(sec, ns))
	}
	for _, tm := range times {
		if got := string(AppendISOTime(nil, tm)); got != want(tm) {
			t.Fatalf("AppendISOTime(%v) = %s, want %s", tm, got, want(tm))
		}
	}
}

// TestJSONSafeWord: the eight-byte test agrees with the byte table for
// every byte value in every lane, and strings with any byte at any place
// of their words are written as encoding/json writes them.
func TestJSONSafeWord(t *testing.T) {
	t.Parallel()
	for b := range 256 {
		for lane := range 8 {
			w := []byte("abcdefgh")
			w[lane] = byte(b)
			want := b < utf8.RuneSelf && safe[b]
			if got := safeWord(string(w), 0); got != want {
				t.Fatalf("byte %#x in lane %d: safe %v, want %v", b, lane, got, want)
			}
		}
		for at := range 19 {
			s := []byte("0123456789abcdefghi")
			s[at] = byte(b)
			want, err := json.Marshal(string(s))
			if err != nil {
				t.Fatal(err)
			}
			if got := AppendString(nil, string(s)); string(got) != string(want) {
				t.Fatalf("byte %#x at %d: %s, want %s", b, at, got, want)
			}
		}
	}
	for _, s := range []string{"", "short", "exactly8", "sixteen bytes ok", "héllo wörld, 16+", "a\u2028b\u2029c long enough text"} {
		want, _ := json.Marshal(s)
		if got := AppendString(nil, s); string(got) != string(want) {
			t.Errorf("%q: %s, want %s", s, got, want)
		}
	}
}
