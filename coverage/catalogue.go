// Package coverage counts what an instance's clients exercised of the API
// out of a catalogue of everything the mock can do (docs/coverage.md). It
// knows no HTTP: handlers record requests, the engine reports transitions
// and clock events through a Recorder. Recording keeps counts only, in
// fixed slots and bounded maps, whatever the traffic.
package coverage

import (
	"cmp"
	"fmt"
	"slices"
)

// Catalogue is everything the mock can be seen to do, family by family:
// operations with their statuses and codes, state machines and clock
// event kinds. It is read-only once made.
type Catalogue struct {
	Families []Family

	// Indexes of the items (made by Index), in catalogue order.
	opIndex     map[string]int
	ops         []*Operation
	transIndex  map[TransitionKey]int
	transitions []TransitionKey
	clockIndex  map[string]int
	clock       []string
	presetIndex map[string]int
	presets     []string
}

// Family is one API family's part of the catalogue.
type Family struct {
	Name        string
	Operations  []Operation
	Machines    []Machine
	ClockEvents []ClockEvent
	// Presets are the family's failure modes ("name:value" per value of a
	// one-of preset).
	Presets []string
}

// Operation is one operation (its id is the OpenAPI operationId).
type Operation struct {
	ID, Method, Path string
	// Statuses are what it can answer, ascending.
	Statuses []int
	Codes    []Code
}

// Code is an error code with the status it comes with.
type Code struct {
	Status int    `json:"status"`
	Code   string `json:"code"`
}

// Machine is the state machine of one kind of resource; a transition from
// "" is the resource coming into being.
type Machine struct {
	// Name names the machine ("outbound_call").
	Name        string
	Doc         string
	States      []string
	Transitions []Transition
}

// Check reports a machine that is empty or has a bad or repeated
// transition.
func (m *Machine) Check() error {
	if m.Name == "" || len(m.States) == 0 || len(m.Transitions) == 0 {
		return fmt.Errorf("machine %q needs a name, states and transitions", m.Name)
	}
	seen := map[Transition]bool{}
	for _, tr := range m.Transitions {
		k := Transition{From: tr.From, To: tr.To}
		if seen[k] || tr.From != "" && !slices.Contains(m.States, tr.From) || !slices.Contains(m.States, tr.To) {
			return fmt.Errorf("machine %s: bad or repeated transition %q → %q", m.Name, tr.From, tr.To)
		}
		seen[k] = true
	}
	return nil
}

// Transition is one allowed move of a machine.
type Transition struct {
	From, To string
	// Clock marks a move the virtual clock makes.
	Clock bool
}

// ClockEvent is a kind of work the virtual clock runs ("webhooks.retry").
type ClockEvent struct {
	Kind string
	Doc  string
}

// TransitionKey names a transition of a machine.
type TransitionKey struct {
	Machine, From, To string
}

// Index builds the catalogue's indexes; call it once, before use.
func (c *Catalogue) Index() *Catalogue {
	c.opIndex = map[string]int{}
	c.transIndex = map[TransitionKey]int{}
	c.clockIndex = map[string]int{}
	c.presetIndex = map[string]int{}
	c.ops, c.transitions, c.clock, c.presets = nil, nil, nil, nil
	for fi := range c.Families {
		f := &c.Families[fi]
		for oi := range f.Operations {
			op := &f.Operations[oi]
			if _, dup := c.opIndex[op.ID]; !dup {
				c.opIndex[op.ID] = len(c.ops)
				c.ops = append(c.ops, op)
			}
		}
		for _, m := range f.Machines {
			for _, t := range m.Transitions {
				k := TransitionKey{m.Name, t.From, t.To}
				if _, dup := c.transIndex[k]; !dup {
					c.transIndex[k] = len(c.transitions)
					c.transitions = append(c.transitions, k)
				}
			}
		}
		for _, e := range f.ClockEvents {
			if _, dup := c.clockIndex[e.Kind]; !dup {
				c.clockIndex[e.Kind] = len(c.clock)
				c.clock = append(c.clock, e.Kind)
			}
		}
		for _, p := range f.Presets {
			if _, dup := c.presetIndex[p]; !dup {
				c.presetIndex[p] = len(c.presets)
				c.presets = append(c.presets, p)
			}
		}
	}
	return c
}

// OperationIndex is the index of an operation id (-1 for none).
func (c *Catalogue) OperationIndex(id string) int {
	if i, ok := c.opIndex[id]; ok {
		return i
	}
	return -1
}

// Operations counts the catalogue's operations.
func (c *Catalogue) Operations() int { return len(c.ops) }

// Machine returns the machine of a name, or nil.
func (c *Catalogue) Machine(name string) *Machine {
	for fi := range c.Families {
		for mi := range c.Families[fi].Machines {
			if m := &c.Families[fi].Machines[mi]; m.Name == name {
				return m
			}
		}
	}
	return nil
}

func (op *Operation) hasStatus(status int) bool {
	_, ok := slices.BinarySearch(op.Statuses, status)
	return ok
}

func (op *Operation) hasCode(status int, code string) bool {
	_, ok := slices.BinarySearchFunc(op.Codes, Code{status, code}, compareCodes)
	return ok
}

func compareCodes(a, b Code) int {
	return cmp.Or(cmp.Compare(a.Status, b.Status), cmp.Compare(a.Code, b.Code))
}

// Normalize sorts and deduplicates an operation's statuses and codes.
func (op *Operation) Normalize() {
	slices.Sort(op.Statuses)
	op.Statuses = slices.Compact(op.Statuses)
	slices.SortFunc(op.Codes, compareCodes)
	op.Codes = slices.Compact(op.Codes)
}
