package handlers

import (
	"net/http"
	"slices"
	"strconv"
	"sync"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/agentplatform/mockplatform/faults"
)

// A throwaway family, declared as a family's own file declares itself: a
// route, a credential of its own, in-memory state that resets, a count, a
// preset and its documentation. Adding it to the table is one line (below,
// in widgetsTable); everything else derives from the table.

var famWidgets = &Family{
	Name: "widgets", Base: "runtime", Shape: shapeErrorMessage,
	Credential: "widgets", Headers: []string{"X-Api-Key"},
	Marks: []string{"/widgets"},
	Doc:   "Widgets, a family of the tests.",
	Schemes: map[string]Scheme{
		"widgetsKey": {Type: "apiKey", In: "header", Name: "x-api-key", Doc: "A widgets key."},
	},
	Security: [][]string{{"widgetsKey"}},
	Routes: []Route{
		route("POST /v1/:account/widgets", (*API).handleWidgetAdd, &Op{ID: "widgetAdd", Summary: "Add a widget"}),
	},
	State:       func(*API) FamilyState { return &widgetsState{} },
	Counts:      []Counted{{What: "widgets", N: func(a *API) (int, error) { return widgets(a).count(), nil }}},
	Presets:     []faults.Preset{{Name: "widgets.jam", Family: "widgets"}},
	ApplyPreset: func(*API, faults.PresetCall) presetFunc { return jamWidgets },
}

// widgetsState counts the widgets added since the last reset.
type widgetsState struct {
	mu sync.Mutex
	n  int
}

func (s *widgetsState) Reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.n = 0
}

func (s *widgetsState) count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

func widgets(a *API) *widgetsState { return familyState[*widgetsState](a) }

func (a *API) handleWidgetAdd(c *gin.Context) error {
	s := widgets(a)
	s.mu.Lock()
	s.n++
	n := s.n
	s.mu.Unlock()
	c.JSON(http.StatusCreated, gin.H{"widgets": n, "account": principal(c).Account.Slug})
	return nil
}

func jamWidgets(*gin.Context, faults.Rule) (bool, error) {
	return true, &Error{Kind: KindUnavailable, Message: "Widgets are jammed."}
}

// widgetsTable is the table with the throwaway family: one line more.
var widgetsTable = sync.OnceValue(func() *table { return newTable(append(slices.Clone(families), famWidgets)) })

// TestFamilyTableAddsAFamily: a family declared in its own files and added
// to the table by one line is routed, authenticated with its own
// credential kind, named by fault rules and scenarios, counted, reset,
// broken by its preset, and answers its unrouted paths in its own shape.
func TestFamilyTableAddsAFamily(t *testing.T) {
	t.Parallel()
	tab := widgetsTable()
	if !slices.Contains(tab.scenario.Kinds, "widgets") || !slices.Contains(tab.faults.Families, "widgets") ||
		!tab.faults.KnownPreset("widgets.jam") {
		t.Fatalf("vocabulary: kinds %v, families %v", tab.scenario.Kinds, tab.faults.Families)
	}
	yml := string(scenarioDefaultYAML()) + `
  - {kind: widgets, key: test-widgets-key, account: acme}
`
	h := newHarnessTable(t, yml, Config{}, tab)
	add := func() response {
		return h.do("POST", "/runtime/us-1/v1/acme/widgets", nil, "X-Api-Key", "test-widgets-key")
	}
	r := add()
	mustStatus(t, r, http.StatusCreated)
	mustBody(t, r, map[string]any{"widgets": 1.0, "account": "acme"})
	if r := h.do("POST", "/runtime/us-1/v1/acme/widgets", nil, "X-Api-Key", "test-chat-key"); r.Status != http.StatusUnauthorized {
		t.Errorf("another family's key: %d %s", r.Status, r.Body)
	}

	counts, err := h.api.Counts()
	if err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(counts, func(c Count) bool { return c.Family == "widgets" }); i < 0 || counts[i].N != 1 {
		t.Errorf("counts = %+v", counts)
	}

	if _, err := h.faults.Add(faults.Rule{Match: faults.Match{Family: "widgets"}, Action: faults.Action{Preset: "widgets.jam"}, Times: 1}); err != nil {
		t.Fatal(err)
	}
	r = add()
	mustStatus(t, r, http.StatusServiceUnavailable)
	mustBody(t, r, map[string]any{"error_message": "Widgets are jammed."})
	if all := h.journalAll(); all[len(all)-1].Family != "widgets" || all[len(all)-1].Fault == "" {
		t.Errorf("journal: %+v", all[len(all)-1])
	}

	r = h.do("GET", "/runtime/us-1/v1/acme/widgets/nope", nil)
	mustStatus(t, r, http.StatusNotFound)
	mustBody(t, r, map[string]any{"error_message": "No route for GET /runtime/us-1/v1/acme/widgets/nope."})

	if err := h.api.Reset(); err != nil {
		t.Fatal(err)
	}
	if n := widgets(h.api).count(); n != 0 {
		t.Errorf("after reset: %d widgets", n)
	}
	if r := add(); r.Status != http.StatusCreated || string(r.Body) != `{"account":"acme","widgets":1}` {
		t.Errorf("after reset: %d %s", r.Status, r.Body)
	}
}

// TestVocabularyFromTable: the vocabulary the faults and scenarios read is
// the table's: every family name once, in order; every credential kind of
// a family; every preset of a family, naming it.
func TestVocabularyFromTable(t *testing.T) {
	t.Parallel()
	v := Vocabulary()
	var names, kinds []string
	for _, f := range families {
		if !slices.Contains(names, f.Name) {
			names = append(names, f.Name)
		}
		for _, k := range []string{f.Credential, map[bool]string{true: "connector"}[f.Connector]} {
			if k != "" && !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
		for _, p := range f.Presets {
			if p.Family != f.Name || !v.Faults.KnownPreset(p.Name+presetArg(p)) {
				t.Errorf("preset %s of %s", p.Name, f.Name)
			}
		}
	}
	if !slices.Equal(v.Faults.Families, names) || !slices.Equal(v.Kinds, kinds) {
		t.Errorf("families %v (want %v), kinds %v (want %v)", v.Faults.Families, names, v.Kinds, kinds)
	}
	if want := []string{"chat", "connector", "dni"}; !slices.Equal(v.ProjectKinds, want) {
		t.Errorf("project kinds %v, want %v", v.ProjectKinds, want)
	}
}

// presetArg is a valid argument of a preset ("" for none).
func presetArg(p faults.Preset) string {
	switch p.Arg {
	case faults.ArgCount:
		return ":" + strconv.Itoa(2)
	case faults.ArgDuration:
		return ":1s"
	case faults.ArgOneOf:
		return ":" + p.Values[0]
	}
	return ""
}

// TestFamilyOfPath: an unrouted path belongs to the family of its base
// with the longest mark in it, else to the base's family without marks.
func TestFamilyOfPath(t *testing.T) {
	t.Parallel()
	tab := defaultTable()
	for _, tc := range []struct {
		path string
		want *Family
	}{
		{"/runtime/us-1/v1/acme/support/chat/nope", famChat},
		{"/runtime/us-1/v1/acme/support/conversations/concurrency/x", famConcurrency},
		{"/runtime/us-1/v1/acme/support/nope", famConversationsV1},
		{"/runtime/us-1/v3/acme/support/nope", famConversations},
		{"/runtime/us-1/v1/outbound-calling/x/y", famOutbound},
		{"/runtime/us-1/v1/external-events/x", famExternalEvents},
		{"/runtime/us-1/v1/conversations/dni-reservation/x", famDNI},
		{"/runtime/us-1/v1/acme/support/handoff_state/x", famHandoff},
		{"/builder/us/v1/alert-rules/x/y", famAlerts},
		{"/builder/us/v1/webhook-endpoints/x/y", famWebhooks},
		{"/builder/us/v1/nope", famAgents},
		{"/builder", famAgents},
		{"/messaging/nope", famMessaging},
		{"/nothing", nil},
		{"/runtimes/x", nil},
	} {
		if got := tab.familyOfPath(tc.path); got != tc.want {
			t.Errorf("%s: %v, want %v", tc.path, got, tc.want)
		}
	}
}
