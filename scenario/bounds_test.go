package scenario

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

// TestBounds: every bounded setting over its maximum, and every bounded
// list over its length, is a problem at its file:line:column.
func TestBounds(t *testing.T) {
	t.Parallel()
	project := "accounts:\n  - slug: a\n    id: \"1\"\n    projects:\n      - slug: p\n        id: \"2\"\n"
	for _, tc := range []struct {
		name, doc string
		want      []string
	}{
		{"limits", y(`
			limits: {journal_size: 2000000000, max_body_bytes: 100000000000, journal_body_bytes: 1048577,
			  alert_rules: 1001, webhook_endpoints: 101, ws_send_queue_messages: 100001, ws_send_queue_bytes: 67108865}
			`), []string{
			"t.yaml:1:24: limits.journal_size: must be at most 100000 (it is 2000000000)",
			"t.yaml:1:52: limits.max_body_bytes: must be at most 16777216 (it is 100000000000)",
			"t.yaml:1:86: limits.journal_body_bytes: must be at most 1048576 (it is 1048577)",
			"t.yaml:2:16: limits.alert_rules: must be at most 1000 (it is 1001)",
			"t.yaml:2:41: limits.webhook_endpoints: must be at most 100 (it is 101)",
			"t.yaml:2:70: limits.ws_send_queue_messages: must be at most 100000 (it is 100001)",
			"t.yaml:2:99: limits.ws_send_queue_bytes: must be at most 67108864 (it is 67108865)",
		}},
		{"at the maxima", y(`
			limits: {journal_size: 100000, max_body_bytes: 16777216, journal_body_bytes: 1048576, alert_rules: 1000, webhook_endpoints: 100,
			  ws_send_queue_messages: 100000, ws_send_queue_bytes: 67108864}
			messaging: {max_connections: 1000, max_message_bytes: 16777216, chunk_words: 1000}
			`), nil},
		{"messaging", "messaging: {max_connections: 1001, max_message_bytes: 16777217, chunk_words: 1001}\n", []string{
			"t.yaml:1:30: messaging.max_connections: must be at most 1000 (it is 1001)",
			"t.yaml:1:55: messaging.max_message_bytes: must be at most 16777216 (it is 16777217)",
			"t.yaml:1:78: messaging.chunk_words: must be at most 1000 (it is 1001)",
		}},
		{"rate limit", "accounts: [{slug: a, id: \"1\", outbound: {rate_limit: {calls: 1000001}}}]\n", []string{
			"t.yaml:1:62: accounts[0].outbound.rate_limit.calls: must be at most 1000000 (it is 1000001)",
		}},
		{"generated", project + "        generate:\n" +
			"          - {count: 1500000, from: 2026-01-01T00:00:00Z, to: 2026-01-02T00:00:00Z}\n" +
			"          - {count: 500001, from: 2026-01-01T00:00:00Z, to: 2026-01-02T00:00:00Z}\n", []string{
			"t.yaml:9:21: accounts[0].projects[0].generate[1].count: more than 2000000 conversations in the scenario, seeded and generated",
		}},
		{"accounts", accounts(MaxAccounts + 1), []string{
			fmt.Sprintf("t.yaml:%d:5: accounts[1000]: more than 1000 accounts (there are 1001)", MaxAccounts+2),
		}},
		{"credentials", "credentials:\n" + strings.Repeat("  - {kind: chat, key: k, account: a}\n", MaxCredentials+1), nil},
		{"faults", "faults:\n" + strings.Repeat("  - {action: {status: 500}}\n", MaxFaults+1), []string{
			fmt.Sprintf("t.yaml:%d:5: faults[1000]: more than 1000 fault rules (there are 1001)", MaxFaults+2),
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			got := problems(t, tc.doc)
			if tc.name == "credentials" { // the list bound, among the other problems of these credentials
				want := fmt.Sprintf("t.yaml:%d:5: credentials[10000]: more than 10000 credentials (there are 10001)", MaxCredentials+2)
				if !contains(got, want) {
					t.Fatalf("no %q among %d problems", want, len(got))
				}
				return
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Fatalf("problems (-want +got):\n%s", diff)
			}
		})
	}

	big := bytes.Repeat([]byte("#"), MaxScenarioBytes+1)
	if diff := cmp.Diff([]string{"t.yaml:1:1: the scenario is 16777217 bytes, more than the 16777216 allowed (generate large data sets with generate:)"},
		problems(t, string(big))); diff != "" {
		t.Fatalf("size (-want +got):\n%s", diff)
	}
}

func accounts(n int) string {
	var b strings.Builder
	b.WriteString("accounts:\n")
	for i := range n {
		fmt.Fprintf(&b, "  - {slug: a%d, id: \"%d\"}\n", i, i)
	}
	return b.String()
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// TestManyProblemsLinear: a document with a problem in each of many
// records is reported in full (every problem once); the checks that keep
// the problems of a patched value quiet are sets, so the time grows with
// the number of problems, not with its square (BenchmarkParseManyProblems
// measures it).
func TestManyProblemsLinear(t *testing.T) {
	t.Parallel()
	got := problems(t, manyBadConversations(2000))
	if len(got) != 2000 {
		t.Fatalf("%d problems, want 2000", len(got))
	}
	if want := "t.yaml:10:25: accounts[0].projects[0].conversations[0].started_at: want a timestamp (RFC 3339, e.g. 2026-01-01T00:00:00Z), got \"soon\""; got[0] != want {
		t.Fatalf("first problem %q, want %q", got[0], want)
	}
}

// manyBadConversations is a scenario of n seeded conversations, each with
// a bad timestamp.
func manyBadConversations(n int) string {
	var b strings.Builder
	b.WriteString("accounts:\n  - slug: a\n    id: \"1\"\n    projects:\n      - slug: p\n        id: \"2\"\n        conversations:\n")
	for i := range n {
		fmt.Fprintf(&b, "          - id: CONV-%d\n            channel: CHAT\n            started_at: soon\n", i)
	}
	return b.String()
}

func BenchmarkParseManyProblems(b *testing.B) {
	for _, n := range []int{1000, 4000} {
		doc := []byte(manyBadConversations(n))
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			b.SetBytes(int64(len(doc)))
			for b.Loop() {
				if _, err := testVoc.Parse("t.yaml", doc); err == nil {
					b.Fatal("no problems")
				}
			}
		})
	}
}

// TestWalkerAgreesWithStrictDecoder: Parse, which no longer runs yaml.v3's
// strict decoder after its own walk (a second full parse), refuses every
// document the strict decoder refuses for an unknown field, at any depth.
func TestWalkerAgreesWithStrictDecoder(t *testing.T) {
	t.Parallel()
	docs := []string{
		"nmae: x\n",
		"clock: {stat: 2026-01-01T00:00:00Z}\n",
		"limits: {journal: 5}\n",
		"accounts: [{slug: a, id: \"1\", regoin: us}]\n",
		"accounts: [{slug: a, id: \"1\", projects: [{slug: p, id: \"2\", dialog: {}}]}]\n",
		"accounts: [{slug: a, id: \"1\", projects: [{slug: p, id: \"2\", dialogue: {rules: [{when: {contain: x}}]}}]}]\n",
		"accounts: [{slug: a, id: \"1\", projects: [{slug: p, id: \"2\", conversations: [{id: C, turns: [{usr: x}]}]}]}]\n",
		"accounts: [{slug: a, id: \"1\", webhook_endpoints: [{name: a, url: \"http://127.0.0.1/\", secret: x}]}]\n",
		"credentials: [{kind: chat, key: k, acount: a}]\n",
		"faults: [{match: {famly: chat}, action: {status: 500}}]\n",
		"faults: [{action: {status: 500, delay_clok: real}}]\n",
		"messaging: {token: 1h}\n",
		"webhooks: {allowed: [x]}\n",
		"x-base: &b {slug: a}\naccounts: [{<<: *b, id: \"1\", nope: 1}]\n",
		string(DefaultYAML()) + "\nzz: 1\n",
	}
	for _, doc := range docs {
		strict := yaml.NewDecoder(strings.NewReader(doc))
		strict.KnownFields(true)
		if strict.Decode(new(Scenario)) == nil {
			t.Errorf("the strict decoder accepts %q: not a test of an unknown field", doc)
			continue
		}
		if _, err := testVoc.Parse("t.yaml", []byte(doc)); err == nil {
			t.Errorf("Parse accepts what the strict decoder refuses: %q", doc)
		}
	}
}
