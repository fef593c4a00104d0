package scenario

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"

	"github.com/agentplatform/mockplatform/clock"
	"github.com/agentplatform/mockplatform/faults"
)

func TestDefaultContract(t *testing.T) {
	s := testVoc.Default()

	check := func(what string, got, want any) {
		t.Helper()
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", what, diff)
		}
	}
	check("seed", s.Seed, int64(1))
	// No start: a manual clock starts at clock.DefaultStart, a real one at
	// wall time (mockd's default, docs/fidelity.md M14.4).
	check("clock.start", s.Clock.Start, time.Time{})
	if len(s.Accounts) != 1 {
		t.Fatalf("accounts: got %d, want 1", len(s.Accounts))
	}
	a := s.Accounts[0]
	check("account slug", a.Slug, "acme")
	check("account id", a.ID, "1001")
	check("account region", a.Region, "us")
	if len(a.Projects) != 1 {
		t.Fatalf("projects: got %d, want 1", len(a.Projects))
	}
	p := a.Projects[0]
	check("project slug", p.Slug, "support")
	check("project id", p.ID, "2001")
	check("project name", p.Name, "Support Agent")
	check("variants", p.Variants, []Variant{
		{ID: "VARIANT-0000DEF0", Name: "Default", Default: true},
		{ID: "VARIANT-00000B2B", Name: "Spring Promo"},
	})
	check("faults", len(s.Faults), 0)

	// Exactly the credentials of docs/api.md#default-scenario.
	check("credentials", s.Credentials, []Credential{
		{Kind: KindChat, Key: "test-chat-key", Account: "acme", Project: "support"},
		{Kind: KindConnector, Key: "test-connector-token", Account: "acme", Project: "support", ClientEnv: "live", Hosts: []string{"localhost"}},
		{Kind: KindConnector, Key: "test-connector-token-sandbox", Account: "acme", Project: "support", ClientEnv: "sandbox", Hosts: []string{"localhost"}},
		{Kind: KindBuilder, Key: "test-builder-key", Account: "acme"},
		{Kind: KindConversations, Key: "test-conversations-key", Account: "acme"},
		{Kind: KindOutbound, Key: "test-outbound-token", Account: "acme"},
		{Kind: KindExternalEvents, Key: "test-external-events-key", Account: "acme"},
		{Kind: KindDNI, Key: "test-dni-key", Account: "acme", Project: "support"},
		{Kind: KindHandoff, Key: "test-handoff-key", Account: "acme"},
	})
	// Every kind has a key.
	for _, k := range testVoc.Kinds {
		found := false
		for _, c := range s.Credentials {
			found = found || c.Kind == k
		}
		if !found {
			t.Errorf("no credential of kind %s", k)
		}
	}

	d := p.Dialogue
	check("greeting", d.Greeting, "Hi, how can I help you today?")
	check("fallback", d.Fallback, "Sorry, I didn't understand that. Could you rephrase?")
	if len(d.Rules) != 4 {
		t.Fatalf("rules: got %d, want 4", len(d.Rules))
	}
	check("handoff rule", d.Rules[0], Rule{
		Name: "live_agent",
		When: Match{Regex: "(?i)agent|human"},
		Then: Actions{
			Reply: "Transferring you to a live agent.",
			Handoff: &Handoff{
				Destination: "live_agent_queue",
				Reason:      "customer_request",
				Data:        map[string]any{"customer_id": "{{.Attributes.customer_id}}", "last_message": "{{.Message}}"},
			},
		},
	})
	check("goodbye rule", d.Rules[1], Rule{Name: "goodbye", When: Match{Contains: "bye"}, Then: Actions{Reply: "Goodbye!", End: true}})
	check("order rule match", d.Rules[2].When, Match{Regex: `(?i)order\s+#?(\d+)`})
	check("order rule set", d.Rules[2].Then.Set, map[string]any{"order_id": "{{index .Match 1}}"})
	if !strings.Contains(d.Rules[2].Then.Reply, "{{index .Match 1}}") {
		t.Errorf("order reply %q does not mention the order number", d.Rules[2].Then.Reply)
	}
	check("hours rule", d.Rules[3], Rule{Name: "opening_hours", When: Match{Contains: "hours"}, Then: Actions{Reply: "We are open 9am to 5pm, Monday to Friday."}})
}

func TestDefaultIsFreshAndMatchesYAML(t *testing.T) {
	a, b := testVoc.Default(), testVoc.Default()
	if a == b {
		t.Fatal("Default returned the same pointer twice")
	}
	a.Accounts[0].Slug = "changed"
	a.Accounts[0].Projects[0].Dialogue.Rules[0].Then.Handoff.Data["customer_id"] = "changed"
	c := testVoc.Default()
	if diff := cmp.Diff(b, c); diff != "" {
		t.Errorf("changing one Default changed another (-before +after):\n%s", diff)
	}
	fromBytes := mustParse(t, "default.yaml", string(DefaultYAML()))
	if diff := cmp.Diff(c, fromBytes); diff != "" {
		t.Errorf("DefaultYAML parses differently (-Default +parsed):\n%s", diff)
	}
	y := DefaultYAML()
	y[0] = 'X'
	if bytes.Equal(y, DefaultYAML()) {
		t.Error("DefaultYAML returns the embedded slice itself")
	}
}

func TestDefaultRegexMatches(t *testing.T) {
	// The embedded dialogue's regexes do what its comments say.
	d := testVoc.Default().Accounts[0].Projects[0].Dialogue
	m := func(i int, msg string) []string {
		return regexpMust(t, d.Rules[i].When.Regex).FindStringSubmatch(msg)
	}
	if m(0, "Can I talk to a HUMAN please") == nil || m(0, "I want an agent") == nil || m(0, "hello") != nil {
		t.Error("handoff regex")
	}
	if got := m(2, "where is Order #12345?"); len(got) != 2 || got[1] != "12345" {
		t.Errorf("order regex submatches = %q", got)
	}
}

// A float that is a whole number is the integer it writes, as in JSON
// Schema; one with a fraction is refused (TestDecodeErrors), never rounded.
func TestWholeFloatsAreIntegers(t *testing.T) {
	s, err := testVoc.Parse("t.yaml", []byte("name: a\nseed: -2.0\nlimits: {max_body_bytes: 2e3, journal_size: 1.0e2}\n"))
	if err != nil {
		t.Fatal(err)
	}
	if s.Seed != -2 || s.Limits.MaxBodyBytes != 2000 || s.Limits.JournalSize != 100 {
		t.Errorf("seed %d, max_body_bytes %d, journal_size %d; want -2, 2000, 100", s.Seed, s.Limits.MaxBodyBytes, s.Limits.JournalSize)
	}
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		want []string
	}{
		{"empty", "", []string{"t.yaml:1:1: empty scenario"}},
		{"only comments", "# nothing\n\n", []string{"t.yaml:1:1: empty scenario"}},
		{"null document", "---\n~\n", []string{"t.yaml:1:1: empty scenario"}},
		{"not a mapping", "- a\n- b\n", []string{"t.yaml:1:1: want a mapping, got a list"}},
		{"trailing empty document is fine, then a real one is not", "name: a\n---\n---\nname: b\n", []string{"t.yaml:3:1: more than one document (use one file per scenario)"}},
		{"two documents", "name: a\n---\nname: b\n", []string{"t.yaml:2:1: more than one document (use one file per scenario)"}},
		// yaml.v3 reports syntax errors with a line only.
		{"syntax error", "name: a\nseed: x: y\n", []string{"t.yaml:2:1: syntax error: mapping values are not allowed in this context"}},
		{"unterminated quote", "name: a\nseed: 'x\n", []string{"t.yaml:2:1: syntax error: found unexpected end of stream"}},
		{"unknown anchor", "name: a\nseed: *x\n", []string{"t.yaml:1:1: syntax error: unknown anchor 'x' referenced"}},
		{"tab indentation", "accounts:\n\t- slug: a\n", []string{"t.yaml:2:1: syntax error: found character that cannot start any token"}},
		{"unknown top-level key", "name: a\nsede: 1\n", []string{"t.yaml:2:1: sede: unknown field (did you mean seed?)"}},
		{"unknown key, no suggestion", "name: a\nzzzzzz: 1\n",
			[]string{"t.yaml:2:1: zzzzzz: unknown field (want name, seed, clock, accounts, credentials, limits, faults, timeline, fidelity, alerts, messaging, outbound or webhooks)"}},
		{"unknown nested keys", y(`
			accounts:
			  - slug: acme
			    id: "1"
			    Region: us
			    projects:
			      - slug: p
			        id: "2"
			        variants: [{id: V1, name: One}]
			        dialogue:
			          variants:
			            V1:
			              rules:
			                - then: {reply: hi, replay: x}
			faults:
			  - match: {family: chat, verb: GET}
			    action: {status: 500}
		`), []string{
			"t.yaml:4:5: accounts[0].Region: unknown field (did you mean region?)",
			"t.yaml:13:37: accounts[0].projects[0].dialogue.variants.V1.rules[0].then.replay: unknown field (did you mean reply?)",
			"t.yaml:15:27: faults[0].match.verb: unknown field (want family, method, path, region, headers or query)",
		}},
		{"type errors", y(`
			name: [a]
			seed: abc
			clock:
			  start: yesterday
			accounts:
			  - slug: acme
			    id: 1001
			    projects: {slug: p}
			limits:
			  alert_rules: 2.5x
			  session_idle: 10 minutes
			faults:
			  - action: {drop: maybe, delay: -1s}
			    probability: high
			fidelity:
			  v3_limit: {a: b}
		`), []string{
			"t.yaml:1:7: name: want a string, got a list",
			`t.yaml:2:7: seed: want an integer, got "abc"`,
			`t.yaml:4:10: clock.start: want a timestamp (RFC 3339, e.g. 2026-01-01T00:00:00Z), got "yesterday"`,
			"t.yaml:8:15: accounts[0].projects: want a list, got a mapping",
			`t.yaml:10:16: limits.alert_rules: want an integer, got "2.5x"`,
			`t.yaml:11:17: limits.session_idle: invalid duration "10 minutes" (want e.g. 500ms, 5m, 1h)`,
			`t.yaml:13:20: faults[0].action.drop: want true or false, got "maybe"`,
			`t.yaml:13:34: faults[0].action.delay: invalid duration "-1s": must not be negative`,
			`t.yaml:14:18: faults[0].probability: want a number, got "high"`,
			"t.yaml:16:13: fidelity.v3_limit: want a string, got a mapping",
		}},
		// yaml.v3 would truncate a float into an integer field (1.5 → 1).
		{"a number with a fraction is not an integer", y(`
			seed: 9.3e18
			limits: {max_body_bytes: 1.5, alert_rules: .inf}
			faults:
			  - action: {status: 500.5, drop: true}
			    probability: 1
		`), []string{
			`t.yaml:1:7: seed: want an integer, got "9.3e18"`,
			`t.yaml:2:26: limits.max_body_bytes: want an integer, got "1.5"`,
			`t.yaml:2:44: limits.alert_rules: want an integer, got ".inf"`,
			`t.yaml:4:22: faults[0].action.status: want an integer, got "500.5"`,
		}},
		{"duplicate keys", y(`
			name: a
			seed: 1
			name: b
			accounts:
			  - slug: acme
			    id: "1"
			    slug: acme2
		`), []string{
			"t.yaml:3:1: name: duplicate key (first at line 1)",
			"t.yaml:7:5: accounts[0].slug: duplicate key (first at line 5)",
		}},
		{"decoding and semantic problems together, in order", y(`
			seed: x
			accounts:
			  - slug: Acme
			    id: "1"
			    colour: red
			    region: mars
			credentials:
			  - {kind: chat, key: k, account: acme, project: p}
		`), []string{
			`t.yaml:1:7: seed: want an integer, got "x"`,
			`t.yaml:3:11: accounts[0].slug: invalid slug "Acme" (want lowercase letters, digits and dashes, not starting with a dash)`,
			"t.yaml:5:5: accounts[0].colour: unknown field (want slug, id, region, projects, alert_rules, webhook_endpoints, outbound or voices)",
			`t.yaml:6:13: accounts[0].region: unknown region "mars" (want us, uk or eu)`,
			`t.yaml:8:35: credentials[0].account: unknown account "acme"`,
		}},
		{"a bad value is not reported twice", y(`
			accounts:
			  - slug: acme
			    id: "1"
			    projects:
			      - slug: p
			        id: "2"
			        conversations:
			          - id: c
			            channel: CHAT
			            started_at: not-a-time
		`), []string{
			`t.yaml:10:25: accounts[0].projects[0].conversations[0].started_at: want a timestamp (RFC 3339, e.g. 2026-01-01T00:00:00Z), got "not-a-time"`,
		}},
		{"recursive alias", "accounts: &x [*x]\n", []string{"t.yaml:1:11: accounts[0]: want a mapping, got a list"}},
		{"non-scalar key", "? [a]\n: b\n", []string{"t.yaml:1:3: mapping keys must be plain values"}},
		{"bad merge key", "accounts:\n  - <<: [1]\n    slug: a\n    id: '1'\n", []string{"t.yaml:2:5: accounts[0]: merge key << wants a mapping or a list of mappings"}},
		{"anchors under unknown keys are refused", y(`
			x-base: &base
			  slug: acme
			accounts:
			  - <<: *base
			    id: "1"
		`), []string{
			"t.yaml:1:1: x-base: unknown field (want name, seed, clock, accounts, credentials, limits, faults, timeline, fidelity, alerts, messaging, outbound or webhooks)",
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := problems(t, tt.doc)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("problems (-want +got):\n%s\ndocument:\n%s", diff, tt.doc)
			}
		})
	}
}

func TestAnchorsAndMergeKeys(t *testing.T) {
	s := mustParse(t, "t.yaml", y(`
		accounts:
		  - slug: acme
		    id: "1"
		    projects:
		      - &proj
		        slug: p1
		        id: "11"
		        dialogue: &dlg
		          greeting: hello
		      - <<: *proj
		        slug: p2
		        id: "12"
		credentials:
		  - &chat {kind: chat, key: k1, account: acme, project: p1}
		  - {<<: *chat, key: k2}
	`))
	p2 := s.Accounts[0].Projects[1]
	if p2.Slug != "p2" || p2.Dialogue.Greeting != "hello" {
		t.Errorf("merged project = %+v", p2)
	}
	if c := s.Credentials[1]; c.Key != "k2" || c.Project != "p1" {
		t.Errorf("merged credential = %+v", c)
	}
	// An unknown key inside an anchored mapping is reported at the anchor.
	got := problems(t, y(`
		accounts:
		  - &a
		    slug: acme
		    id: "1"
		    colour: red
		  - <<: *a
		    slug: other
		    id: "2"
	`))
	want := []string{"t.yaml:5:5: accounts[0].colour: unknown field (want slug, id, region, projects, alert_rules, webhook_endpoints, outbound or voices)"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("problems (-want +got):\n%s", diff)
	}
}

func TestDefaultsFilledIn(t *testing.T) {
	s := mustParse(t, "t.yaml", y(`
		accounts:
		  - slug: acme
		    id: "1"
		    projects:
		      - slug: support
		        id: "2"
		        variants:
		          - {id: V1, name: One}
		          - {id: V2, name: Two}
		        dialogue:
		          variants:
		            Two: {greeting: hi two}
		        conversations:
		          - {id: C1, channel: CHAT, started_at: 2026-01-01T00:00:00Z, variant: One}
		          - {id: C2, channel: CHAT, started_at: 2026-01-01T00:00:00Z, environment: sandbox}
		  - slug: euro
		    id: "9"
		    region: eu
		credentials:
		  - {kind: connector, key: k1, account: ACCOUNT-1, project: PROJECT-2, variant: Two}
		  - {kind: connector, key: k2, account: ws-1, project: "2", client_env: sandbox}
		  - {kind: chat, key: k3, account: "1", project: support}
		  - {kind: builder, key: k4, account: euro}
	`))
	a := s.Accounts[0]
	if a.Region != "us" || s.Accounts[1].Region != "eu" {
		t.Errorf("regions = %q, %q; want us (default), eu", a.Region, s.Accounts[1].Region)
	}
	p := a.Projects[0]
	if p.Name != "support" {
		t.Errorf("project name = %q, want the slug", p.Name)
	}
	if diff := cmp.Diff(map[string]Dialogue{"V2": {Greeting: "hi two"}}, p.Dialogue.Variants); diff != "" {
		t.Errorf("dialogue variants are keyed by variant id (-want +got):\n%s", diff)
	}
	if c := p.Conversations[0]; c.Environment != "live" || c.Variant != "V1" {
		t.Errorf("conversation 0: environment %q variant %q; want live, V1", c.Environment, c.Variant)
	}
	if c := p.Conversations[1]; c.Environment != "sandbox" {
		t.Errorf("conversation 1: environment %q; want sandbox", c.Environment)
	}
	want := []Credential{
		{Kind: KindConnector, Key: "k1", Account: "acme", Project: "support", ClientEnv: "live", Variant: "V2"},
		{Kind: KindConnector, Key: "k2", Account: "acme", Project: "support", ClientEnv: "sandbox"},
		{Kind: KindChat, Key: "k3", Account: "acme", Project: "support"},
		{Kind: KindBuilder, Key: "k4", Account: "euro"},
	}
	if diff := cmp.Diff(want, s.Credentials); diff != "" {
		t.Errorf("credentials are normalised (-want +got):\n%s", diff)
	}
}

func TestValidDocuments(t *testing.T) {
	docs := map[string]string{
		"empty mapping":    "{}\n",
		"only a name":      "name: x\n",
		"document markers": "---\nname: x\n...\n---\n",
		"only faults":      "faults:\n  - action: {status: 503}\n",
		"null blocks":      "accounts:\ncredentials:\nlimits:\nfaults:\nfidelity:\nclock:\n",
		"yaml 1.1 bools":   "faults:\n  - action: {drop: yes}\n",
		"handoff state with empty data": base + y(`
			        handoff_states:
			          - {id: C1, data: {}}
		`),
		"conversation turns at equal offsets": base + y(`
			        conversations:
			          - id: C1
			            channel: CHAT
			            started_at: 2026-01-01
			            turns: [{at: 1s}, {at: 1s}, {at: 2s}]
		`),
	}
	for name, doc := range docs {
		t.Run(name, func(t *testing.T) { mustParse(t, "t.yaml", doc) })
	}
}

func TestStrictDecoderAgrees(t *testing.T) {
	// The walker replaces yaml.v3's KnownFields check for positions; it
	// must accept what the strict decoder accepts and refuse what it
	// refuses.
	accept := []string{string(DefaultYAML())}
	files, _ := filepath.Glob("../fixtures/*.yaml")
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		accept = append(accept, string(b))
	}
	for i, doc := range accept {
		dec := yaml.NewDecoder(strings.NewReader(doc))
		dec.KnownFields(true)
		if err := dec.Decode(new(Scenario)); err != nil {
			t.Errorf("document %d: strict decoder: %v", i, err)
		}
	}
	refuse := []string{
		"nmae: x\n",
		"faults: [{match: {familly: chat}, action: {status: 500}}]\n",
		"accounts: [{slug: a, id: '1', projects: [{slug: p, id: '2', dialogue: {rules: [{when: {contans: x}, then: {end: true}}]}}]}]\n",
	}
	for _, doc := range refuse {
		dec := yaml.NewDecoder(strings.NewReader(doc))
		dec.KnownFields(true)
		if err := dec.Decode(new(Scenario)); err == nil {
			t.Errorf("strict decoder accepts %q", doc)
		}
		if got := problems(t, doc); len(got) != 1 || !strings.Contains(got[0], "unknown field") {
			t.Errorf("Parse(%q) = %q, want one unknown field", doc, got)
		}
	}
}

func TestDecodeErrorFallback(t *testing.T) {
	// Errors of yaml.v3's decoder that the walker did not pre-empt are
	// placed at the node on their line.
	doc := "name: x\naccounts:\n  - slug: acme\n    idd: \"1\"\n    region: marsupial-land\n"
	var root yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &root); err != nil {
		t.Fatal(err)
	}
	v := &validator{loc: &fileLocator{file: "t.yaml", root: root.Content[0]}}
	v.decodeError(&yaml.TypeError{Errors: []string{
		"line 4: field idd not found in type scenario.Account",
		"line 5: cannot unmarshal !!str `marsupi...` into int",
		"line 9: something else",
		"no line at all",
	}})
	v.decodeError(errors.New("yaml: boom"))
	want := Errors{
		{File: "t.yaml", Line: 4, Column: 5, Msg: "accounts[0].idd: unknown field"},
		{File: "t.yaml", Line: 5, Column: 13, Msg: "accounts[0].region: cannot unmarshal !!str `marsupi...` into int"},
		{File: "t.yaml", Line: 9, Column: 1, Msg: "something else"},
		{File: "t.yaml", Line: 1, Column: 1, Msg: "no line at all"},
		{File: "t.yaml", Line: 1, Column: 1, Msg: "boom"},
	}
	if diff := cmp.Diff(want, v.errs); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
}

func TestErrorFormat(t *testing.T) {
	es := Errors{
		{File: "a.yaml", Line: 3, Column: 7, Msg: "seed: want an integer, got \"x\""},
		{File: "a.yaml", Line: 9, Column: 1, Msg: "bogus: unknown field"},
	}
	want := "a.yaml:3:7: seed: want an integer, got \"x\"\na.yaml:9:1: bogus: unknown field"
	if got := es.Error(); got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var err error = es
	var target Errors
	if !errors.As(err, &target) || len(target) != 2 {
		t.Error("errors.As(Errors)")
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(f, []byte("name: x\nseed: y\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err := testVoc.Load(f)
	if want := f + `:2:7: seed: want an integer, got "y"`; err == nil || err.Error() != want {
		t.Errorf("Load = %v, want %s", err, want)
	}
	if _, err := testVoc.Load(filepath.Join(dir, "missing.yaml")); err == nil || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load(missing) = %v, want a not-exist error", err)
	}
}

func TestFixturesLoad(t *testing.T) {
	files, err := filepath.Glob("../fixtures/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"support-bot.yaml", "multi-project.yaml", "faults.yaml"} {
		found := false
		for _, f := range files {
			found = found || filepath.Base(f) == want
		}
		if !found {
			t.Errorf("fixture %s is missing", want)
		}
	}
	for _, f := range files {
		t.Run(filepath.Base(f), func(t *testing.T) {
			s, err := testVoc.Load(f)
			if err != nil {
				t.Fatalf("Load:\n%v", err)
			}
			if len(s.Accounts) == 0 || len(s.Credentials) == 0 {
				t.Errorf("fixture has no accounts or credentials")
			}
			// Fault rules are accepted by the fault set as well.
			set := faults.NewSet(testVoc.Faults, s.Seed)
			for _, r := range s.Faults {
				if _, err := set.Add(r); err != nil {
					t.Errorf("fault %q: %v", r.ID, err)
				}
			}
		})
	}
}

func TestFixtureContents(t *testing.T) {
	mp, err := testVoc.Load("../fixtures/multi-project.yaml")
	if err != nil {
		t.Fatal(err)
	}
	regions := map[string]bool{}
	for _, a := range mp.Accounts {
		regions[a.Region] = true
	}
	if acme := mp.Account("acme"); acme == nil || len(acme.Projects) < 3 || !regions["eu"] || !regions["us"] {
		t.Errorf("multi-project: want acme with several projects and accounts in us and eu")
	}
	sb, err := testVoc.Load("../fixtures/support-bot.yaml")
	if err != nil {
		t.Fatal(err)
	}
	handoffs := 0
	for _, r := range sb.Accounts[0].Projects[0].Dialogue.Rules {
		if r.Then.Handoff != nil {
			handoffs++
		}
	}
	if handoffs < 2 {
		t.Errorf("support-bot: %d handoff rules, want several", handoffs)
	}
	fs, err := testVoc.Load("../fixtures/faults.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(fs.Faults) < 3 {
		t.Errorf("faults: %d rules", len(fs.Faults))
	}
}

func TestLookup(t *testing.T) {
	s := mustParse(t, "t.yaml", y(`
		accounts:
		  - slug: acme
		    id: "1001"
		    projects:
		      - slug: support
		        id: "2001"
		        variants:
		          - {id: VARIANT-1, name: Spring Promo}
		      - slug: sales
		        id: ABC
		  - slug: globex
		    id: G-7
	`))
	acme, globex := &s.Accounts[0], &s.Accounts[1]
	for ref, want := range map[string]*Account{
		"acme": acme, "1001": acme, "ACCOUNT-1001": acme, "account-1001": acme, "ws-1001": acme, "WS-1001": acme,
		"globex": globex, "G-7": globex, "ACCOUNT-G-7": globex, "ws-G-7": globex,
		"ACCOUNT-g-7": nil, "Acme": nil, "": nil, "ACCOUNT-": nil, "2001": nil, "ws-acme": nil,
	} {
		if got := s.Account(ref); got != want {
			t.Errorf("Account(%q) = %v, want %v", ref, got, want)
		}
	}
	support, sales := &acme.Projects[0], &acme.Projects[1]
	for ref, want := range map[string]*Project{
		"support": support, "2001": support, "PROJECT-2001": support, "project-2001": support,
		"sales": sales, "ABC": sales, "PROJECT-ABC": sales,
		"PROJECT-abc": nil, "Support": nil, "": nil, "ws-2001": nil,
	} {
		if got := acme.Project(ref); got != want {
			t.Errorf("Project(%q) = %v, want %v", ref, got, want)
		}
	}
	v := &support.Variants[0]
	for ref, want := range map[string]*Variant{"VARIANT-1": v, "Spring Promo": v, "spring promo": nil, "": nil} {
		if got := support.Variant(ref); got != want {
			t.Errorf("Variant(%q) = %v, want %v", ref, got, want)
		}
	}
	// Nil receivers are safe.
	var ns *Scenario
	var na *Account
	var np *Project
	if ns.Account("acme") != nil || na.Project("x") != nil || np.Variant("x") != nil {
		t.Error("nil receivers")
	}
}

func TestMerge(t *testing.T) {
	a := mustParse(t, "a.yaml", y(`
		name: a
		seed: 1
		clock: {start: 2026-01-01T00:00:00Z}
		accounts:
		  - slug: acme
		    id: "1"
		credentials:
		  - {kind: builder, key: ka, account: acme}
		limits: {alert_rules: 3, journal_size: 10}
		fidelity: {v3_limit: oas, builder_errors: spec}
		faults:
		  - {id: f1, action: {status: 500}}
	`))
	b := mustParse(t, "b.yaml", y(`
		seed: 2
		accounts:
		  - slug: globex
		    id: "2"
		    region: eu
		credentials:
		  - {kind: builder, key: kb, account: globex}
		limits: {journal_size: 20}
		fidelity: {builder_errors: envelope}
		faults:
		  - {id: f2, action: {drop: true}}
	`))
	aBefore, bBefore := testVoc.Default(), testVoc.Default()
	*aBefore, *bBefore = *a, *b

	m, err := testVoc.Merge(a, nil, b)
	if err != nil {
		t.Fatal(err)
	}
	want := &Scenario{
		Name:  "a",
		Seed:  2,
		Clock: Clock{Start: time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)},
		Accounts: []Account{
			{Slug: "acme", ID: "1", Region: "us"},
			{Slug: "globex", ID: "2", Region: "eu"},
		},
		Credentials: []Credential{
			{Kind: KindBuilder, Key: "ka", Account: "acme"},
			{Kind: KindBuilder, Key: "kb", Account: "globex"},
		},
		Limits: Limits{AlertRules: 3, JournalSize: 20},
		Faults: []faults.Rule{
			{ID: "f1", Action: faults.Action{Status: 500}},
			{ID: "f2", Action: faults.Action{Drop: true}},
		},
		Fidelity: map[string]string{"v3_limit": "oas", "builder_errors": "envelope"},
	}
	if diff := cmp.Diff(want, m); diff != "" {
		t.Errorf("Merge (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(aBefore, a); diff != "" {
		t.Errorf("Merge modified its first input:\n%s", diff)
	}
	if diff := cmp.Diff(bBefore, b); diff != "" {
		t.Errorf("Merge modified its second input:\n%s", diff)
	}

	// A later non-zero clock and name win.
	c := mustParse(t, "c.yaml", "name: c\nclock: {start: 2027-05-05T00:00:00Z}\nlimits: {session_idle: 1m}\n")
	m2, err := testVoc.Merge(m, c)
	if err != nil {
		t.Fatal(err)
	}
	if m2.Name != "c" || !m2.Clock.Start.Equal(time.Date(2027, 5, 5, 0, 0, 0, 0, time.UTC)) ||
		m2.Limits.SessionIdle != clock.Duration(time.Minute) || m2.Limits.AlertRules != 3 || len(m2.Accounts) != 2 {
		t.Errorf("Merge(merged, c) = %+v", m2)
	}

	// No inputs: an empty scenario.
	if e, err := testVoc.Merge(); err != nil || e == nil || len(e.Accounts) != 0 {
		t.Errorf("Merge() = %v, %v", e, err)
	}
}

func TestMergeDuplicates(t *testing.T) {
	a := mustParse(t, "a.yaml", y(`
		accounts:
		  - slug: acme
		    id: "1"
		credentials:
		  - {kind: builder, key: k1, account: acme}
		faults:
		  - {id: f1, action: {status: 500}}
	`))
	b := mustParse(t, "b.yaml", y(`
		faults:
		  - {id: f1, action: {status: 503}}
		accounts:
		  - slug: globex
		    id: "2"
		  - slug: acme
		    id: "3"
		credentials:
		  - {kind: builder, key: k2, account: globex}
		  - {kind: builder, key: k1, account: globex}
	`))
	_, err := testVoc.Merge(a, b)
	want := strings.Join([]string{
		`b.yaml:2:10: faults[0].id: duplicate fault id "f1" (first at a.yaml:7)`,
		`b.yaml:6:11: accounts[1].slug: duplicate account slug "acme" (first at a.yaml:2)`,
		`b.yaml:10:26: credentials[1].key: duplicate key "k1" (first at a.yaml:5)`,
	}, "\n")
	if err == nil || err.Error() != want {
		t.Errorf("Merge error:\n%v\nwant:\n%s", err, want)
	}

	// Duplicates within the later of two files keep "line N".
	c := mustParse(t, "c.yaml", "accounts:\n  - {slug: x, id: \"9\"}\n")
	m, err := testVoc.Merge(a, c)
	if err != nil {
		t.Fatal(err)
	}
	_, err = testVoc.Merge(m, a)
	want = strings.Join([]string{
		`a.yaml:2:11: accounts[0].slug: duplicate account slug "acme" (first at line 2)`,
		`a.yaml:3:9: accounts[0].id: duplicate account id "1" (first at line 3)`,
		`a.yaml:5:26: credentials[0].key: duplicate key "k1" (first at line 5)`,
		`a.yaml:7:10: faults[0].id: duplicate fault id "f1" (first at line 7)`,
	}, "\n")
	if err == nil || err.Error() != want {
		t.Errorf("Merge(merged, a) error:\n%v\nwant:\n%s", err, want)
	}

	// Scenarios built in Go have no positions.
	g := &Scenario{Accounts: []Account{{Slug: "acme", ID: "7"}}}
	_, err = testVoc.Merge(a, g)
	want = `<scenario 2>:1:1: accounts[0].slug: duplicate account slug "acme" (first at a.yaml:2)`
	if err == nil || err.Error() != want {
		t.Errorf("Merge(a, go-built) error:\n%v\nwant:\n%s", err, want)
	}
}

func TestParseConcurrently(t *testing.T) {
	done := make(chan *Scenario)
	for range 8 {
		go func() { done <- testVoc.Default() }()
	}
	first := <-done
	for range 7 {
		if diff := cmp.Diff(first, <-done); diff != "" {
			t.Errorf("concurrent Default differs:\n%s", diff)
		}
	}
}
