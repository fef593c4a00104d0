package faults

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// A preset is a family's own failure mode, named by Action.Preset, with an
// optional argument: "messaging.expire_session_after:3".

// ArgKind is the kind of a preset's argument.
type ArgKind int

// Argument kinds.
const (
	ArgNone     ArgKind = iota // no argument
	ArgCount                   // a non-negative integer
	ArgDuration                // a non-negative Go duration
	ArgOneOf                   // one of Preset.Values
)

// Preset describes a named failure mode.
type Preset struct {
	// Name is the name before any ":argument".
	Name string
	// Family is the family that applies it (alerts presets also apply to
	// webhooks).
	Family string
	// Arg is the kind of its argument.
	Arg ArgKind
	// Values are the accepted arguments of an ArgOneOf preset.
	Values []string
}

// PresetCall is a preset name parsed with its argument.
type PresetCall struct {
	Preset
	// N is the argument of an ArgCount preset.
	N int
	// D is the argument of an ArgDuration preset.
	D time.Duration
	// Value is the argument of an ArgOneOf preset.
	Value string
}

// ParsePreset parses "name" or "name:arg"; it fails for an unknown name or
// a bad argument.
func (v *Vocabulary) ParsePreset(s string) (PresetCall, error) {
	name, arg, hasArg := strings.Cut(s, ":")
	i := slices.IndexFunc(v.Presets, func(p Preset) bool { return p.Name == name })
	if i < 0 {
		return PresetCall{}, fmt.Errorf("unknown preset %q", s)
	}
	call := PresetCall{Preset: v.Presets[i]}
	bad := func(want string) (PresetCall, error) {
		return PresetCall{}, fmt.Errorf("unknown preset %q (%s takes %s)", s, name, want)
	}
	switch call.Arg {
	case ArgNone:
		if hasArg {
			return bad("no argument")
		}
	case ArgCount:
		n, err := strconv.Atoi(arg)
		if err != nil || n < 0 {
			return bad(`a count, e.g. "` + name + `:3"`)
		}
		call.N = n
	case ArgDuration:
		d, err := time.ParseDuration(arg)
		if err != nil || d < 0 {
			return bad(`a duration, e.g. "` + name + `:200ms"`)
		}
		call.D = d
	case ArgOneOf:
		if !slices.Contains(call.Values, arg) {
			return bad("one of " + strings.Join(call.Values, ", "))
		}
		call.Value = arg
	}
	return call, nil
}

// KnownPreset reports whether s names a preset with a valid argument.
func (v *Vocabulary) KnownPreset(s string) bool {
	_, err := v.ParsePreset(s)
	return err == nil
}

// CheckPresets reports the first rule whose preset is unknown.
func (v *Vocabulary) CheckPresets(rules []Rule) error {
	for i, r := range rules {
		if r.Action.Preset == "" {
			continue
		}
		if _, err := v.ParsePreset(r.Action.Preset); err != nil {
			id := r.ID
			if id == "" {
				id = fmt.Sprintf("#%d", i+1)
			}
			return fmt.Errorf("fault rule %s: %w", id, err)
		}
	}
	return nil
}
