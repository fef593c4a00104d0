package handlers

// The coverage catalogue (docs/coverage.md), derived from the family
// table: each operation's statuses and error codes, the families'
// machines, clock events and presets.

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	"github.com/agentplatform/mockplatform/coverage"
	"github.com/agentplatform/mockplatform/faults"
)

// Machine, Transition and ClockEvent are the coverage catalogue's (the
// engine declares its machines and clock events, engine/machines.go).
type (
	Machine    = coverage.Machine
	Transition = coverage.Transition
	ClockEvent = coverage.ClockEvent
)

// ErrorCode is an error code the family's operations of its status
// answer; Ops (by Op.ID), In (a path fragment) and Body limit which.
type ErrorCode struct {
	Status int
	Code   string
	Ops    []string
	In     string
	Body   bool
}

// answers reports whether the route answers the code.
func (c ErrorCode) answers(r Route) bool {
	return (len(c.Ops) == 0 || slices.Contains(c.Ops, r.Op.ID)) && strings.Contains(r.Path, c.In) && (!c.Body || r.Op.Body != nil)
}

// Catalogue is the family table's coverage catalogue (read-only).
func Catalogue() *coverage.Catalogue { return defaultTable().catalogue }

// Catalogue is the coverage catalogue of the table the API serves.
func (a *API) Catalogue() *coverage.Catalogue { return a.tab.catalogue }

// ErrorStatuses are the route's error statuses: its Op's and its family's.
func (r Route) ErrorStatuses() []int {
	errs := slices.Clone(r.Op.Errors)
	f := r.fam
	if f.Credential != "" {
		errs = append(errs, http.StatusUnauthorized)
	}
	if f.Forbid {
		errs = append(errs, http.StatusForbidden)
	}
	if f.Base != "messaging" {
		errs = append(errs, http.StatusNotFound)
	}
	if r.Op.Body != nil {
		errs = append(errs, http.StatusBadRequest, http.StatusRequestEntityTooLarge)
	}
	slices.Sort(errs)
	return slices.Compact(errs)
}

// statuses are every status the route answers, successes and errors.
func (r Route) statuses() []int {
	out := r.ErrorStatuses()
	for _, resp := range r.Op.Responses {
		out = append(out, resp.Status)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// edgeCodes are the codes the edge answers before the route's handler.
func (r Route) edgeCodes(statuses []int) []coverage.Code {
	f := r.fam
	var out []coverage.Code
	add := func(status int, code string) {
		if slices.Contains(statuses, status) {
			out = append(out, coverage.Code{Status: status, Code: code})
		}
	}
	if f.Base != "messaging" {
		add(http.StatusNotFound, "REGION_REQUIRED")
	}
	if r.Op.Body != nil {
		add(http.StatusRequestEntityTooLarge, "PAYLOAD_TOO_LARGE")
	}
	if f.Headers != nil {
		add(http.StatusUnauthorized, "UNAUTHORIZED")
		if f.Forbid || f.Connector {
			add(http.StatusForbidden, "FORBIDDEN")
		}
		if strings.Contains(r.Path, "/:account") {
			add(http.StatusNotFound, "ACCOUNT_NOT_FOUND")
		}
		if strings.Contains(r.Path, "/:project") {
			add(http.StatusNotFound, "PROJECT_NOT_FOUND")
		}
	}
	return out
}

// newCatalogue derives the table's catalogue (families of one name are
// one). It panics on a badly declared code, machine or clock event.
func (t *table) newCatalogue() *coverage.Catalogue {
	cat := &coverage.Catalogue{}
	machines := map[string]bool{}
	kinds := map[string]bool{}
	for _, f := range t.families {
		i := slices.IndexFunc(cat.Families, func(cf coverage.Family) bool { return cf.Name == f.Name })
		if i < 0 {
			cat.Families = append(cat.Families, coverage.Family{Name: f.Name})
			i = len(cat.Families) - 1
		}
		cf := &cat.Families[i]
		ops := map[string]bool{}
		for _, r := range FamilyRoutes(f) {
			ops[r.Op.ID] = true
			if slices.ContainsFunc(cf.Operations, func(op coverage.Operation) bool { return op.ID == r.Op.ID }) {
				continue
			}
			op := coverage.Operation{ID: r.Op.ID, Method: r.Method, Path: r.Path, Statuses: r.statuses()}
			op.Codes = r.edgeCodes(op.Statuses)
			for _, c := range f.Codes {
				if slices.Contains(op.Statuses, c.Status) && c.answers(r) {
					op.Codes = append(op.Codes, coverage.Code{Status: c.Status, Code: c.Code})
				}
			}
			op.Normalize()
			cf.Operations = append(cf.Operations, op)
		}
		for _, c := range f.Codes {
			mustCode(f, c, ops)
		}
		mustAnswerCodes(f)
		for _, m := range f.Machines {
			if err := m.Check(); err != nil {
				panic("handlers: " + err.Error())
			}
			if machines[m.Name] {
				panic("handlers: machine " + m.Name + " declared twice")
			}
			machines[m.Name] = true
			cf.Machines = append(cf.Machines, *m)
		}
		for _, e := range f.ClockEvents {
			if e.Kind == "" || kinds[e.Kind] {
				panic(fmt.Sprintf("handlers: clock event %q empty or declared twice", e.Kind))
			}
			kinds[e.Kind] = true
			cf.ClockEvents = append(cf.ClockEvents, e)
		}
		cf.Presets = append(cf.Presets, presetNames(f.Presets)...)
	}
	return cat.Index()
}

// presetNames are the presets' names, one per value ("outbound.outcome:busy").
func presetNames(ps []faults.Preset) []string {
	var out []string
	for _, p := range ps {
		if p.Arg == faults.ArgOneOf {
			for _, v := range p.Values {
				out = append(out, p.Name+":"+v)
			}
			continue
		}
		out = append(out, p.Name)
	}
	return out
}

// mustCode panics on a code without a code or an error status, or naming
// an operation the family lacks.
func mustCode(f *Family, c ErrorCode, ops map[string]bool) {
	if c.Code == "" || c.Status < 400 {
		panic(fmt.Sprintf("handlers: family %s: bad error code %+v", f.Name, c))
	}
	for _, id := range c.Ops {
		if !ops[id] {
			panic(fmt.Sprintf("handlers: family %s: code %s names operation %q, which it lacks", f.Name, c.Code, id))
		}
	}
}

// mustAnswerCodes panics on a code of the family no route answers.
func mustAnswerCodes(f *Family) {
	for _, c := range f.Codes {
		if !slices.ContainsFunc(FamilyRoutes(f), func(r Route) bool { return c.answers(r) && slices.Contains(r.statuses(), c.Status) }) {
			panic(fmt.Sprintf("handlers: family %s: no operation answers code %s %d", f.Name, c.Code, c.Status))
		}
	}
}
