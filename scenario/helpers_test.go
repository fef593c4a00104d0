package scenario

import (
	"errors"
	"github.com/agentplatform/mockplatform/faults"
	"regexp"
	"strings"
	"testing"
)

// y turns an indented raw string into YAML: it drops the first newline and
// the tabs that indent the Go source (YAML itself is indented with spaces).
func y(s string) string {
	s = strings.TrimPrefix(s, "\n")
	lines := strings.Split(s, "\n")
	indent := -1
	for _, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		n := len(l) - len(strings.TrimLeft(l, "\t"))
		if indent < 0 || n < indent {
			indent = n
		}
	}
	for i, l := range lines {
		if len(l) >= indent && indent > 0 {
			lines[i] = l[indent:]
		}
	}
	return strings.TrimRight(strings.Join(lines, "\n"), "\t")
}

// problems parses doc and returns its problems one per element (nil when
// the document is valid).
func problems(t *testing.T, doc string) []string {
	t.Helper()
	s, err := testVoc.Parse("t.yaml", []byte(doc))
	if err == nil {
		if s == nil {
			t.Fatal("Parse returned nil scenario and nil error")
		}
		return nil
	}
	if s != nil {
		t.Errorf("Parse returned a scenario with an error")
	}
	var errs Errors
	if !errors.As(err, &errs) {
		t.Fatalf("Parse error %T is not Errors: %v", err, err)
	}
	if len(errs) == 0 {
		t.Fatal("Parse returned an empty Errors")
	}
	return strings.Split(err.Error(), "\n")
}

// mustParse parses a valid document.
func mustParse(t *testing.T, name, doc string) *Scenario {
	t.Helper()
	s, err := testVoc.Parse(name, []byte(doc))
	if err != nil {
		t.Fatalf("Parse(%s):\n%v", name, err)
	}
	return s
}

func regexpMust(t *testing.T, expr string) *regexp.Regexp {
	t.Helper()
	re, err := regexp.Compile(expr)
	if err != nil {
		t.Fatal(err)
	}
	return re
}

const projectBase = `accounts:
  - slug: acme
    id: "1001"
    projects:
      - slug: support
        id: "2001"
        variants:
          - {id: VARIANT-A, name: Alpha, default: true}
          - {id: VARIANT-B, name: Beta}
`

// testVoc is the vocabulary of this package's tests: the platform's
// credential kinds, fault families and presets (its family table makes the
// real one; a test there checks that the two agree).
var testVoc = &Vocabulary{
	Kinds:        []string{KindChat, KindConnector, KindBuilder, KindConversations, KindOutbound, KindExternalEvents, KindDNI, KindHandoff},
	ProjectKinds: []string{KindChat, KindConnector, KindDNI},
	Faults: &faults.Vocabulary{
		Families: []string{"chat", "messaging", "agents", "alerts", "webhooks", "conversations",
			"concurrency", "outbound", "external_events", "dni", "handoff"},
		Presets: []faults.Preset{
			{Name: "alerts_limit", Family: "alerts"},
			{Name: "monitoring_backend_failure", Family: "alerts"},
			{Name: "messaging.expire_session", Family: "messaging"},
			{Name: "messaging.expire_session_after", Family: "messaging", Arg: faults.ArgCount},
			{Name: "messaging.expire_token", Family: "messaging"},
			{Name: "messaging.drop_socket", Family: "messaging"},
			{Name: "messaging.stall_chunks", Family: "messaging"},
			{Name: "messaging.delay_chunks", Family: "messaging", Arg: faults.ArgDuration},
			{Name: "outbound.outcome", Family: "outbound", Arg: faults.ArgOneOf, Values: Outcomes},
		},
	},
}
