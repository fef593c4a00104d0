package core

import (
	"fmt"
	"testing"
)

// TestFormatUUID: correlation ids and resource UUIDs have the version 4
// layout, as fmt writes it.
func TestFormatUUID(t *testing.T) {
	t.Parallel()
	for _, v := range [][2]uint64{{0, 0}, {^uint64(0), ^uint64(0)}, {0x0123456789abcdef, 0xfedcba9876543210}, {1 << 63, 1}} {
		hi, lo := v[0]&^0xf000|0x4000, v[1]&^(0xc<<60)|0x8<<60
		want := fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", hi>>32, (hi>>16)&0xffff, hi&0xffff, lo>>48, lo&0xffffffffffff)
		if got := formatUUID(v[0], v[1]); got != want {
			t.Errorf("formatUUID(%#x, %#x) = %s, want %s", v[0], v[1], got, want)
		}
	}
}
