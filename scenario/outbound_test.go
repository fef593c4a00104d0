package scenario

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

const outboundBase = `
accounts:
  - slug: acme
    id: "1001"
    outbound:
      rate_limit: {calls: 5}
    projects:
      - slug: support
        id: "2001"
        messaging: {agent_name: Ava, agent_avatar_url: "https://example.com/a.png"}
        outbound:
          enabled: true
          from_number: "+15550001111"
          ring: 20s
          destinations:
            - {match: "*0000", outcome: no_answer}
            - {match: "+44*", outcome: queue_timeout, queue: 1m, reason: full}
`

func TestOutboundAndMessagingDefaults(t *testing.T) {
	s := mustParse(t, "t.yaml", outboundBase)
	o := s.Accounts[0].Projects[0].Outbound
	want := &ProjectOutbound{Enabled: true, FromNumber: "+15550001111",
		CallTiming: CallTiming{Queue: Duration(5 * time.Second), Ring: Duration(20 * time.Second), Talk: Duration(25 * time.Second)},
		Destinations: []OutboundDestination{
			{Match: "*0000", Outcome: OutcomeNoAnswer, CallTiming: CallTiming{Queue: Duration(5 * time.Second), Ring: Duration(20 * time.Second), Talk: Duration(25 * time.Second)}},
			{Match: "+44*", Outcome: OutcomeQueueTimeout, Reason: "full", CallTiming: CallTiming{Queue: Duration(time.Minute), Ring: Duration(20 * time.Second), Talk: Duration(25 * time.Second)}},
		}}
	if diff := cmp.Diff(want, o); diff != "" {
		t.Fatalf("outbound (-want +got):\n%s", diff)
	}
	if rl := s.Accounts[0].Outbound.RateLimit; rl.Calls != 5 || rl.Window.D() != time.Minute {
		t.Fatalf("rate limit %+v", rl)
	}
	if d := o.Destination("+14155550000"); d == nil || d.Outcome != OutcomeNoAnswer {
		t.Fatalf("destination %+v", d)
	}
	if d := o.Destination("+14155552671"); d != nil {
		t.Fatalf("destination %+v", d)
	}
	m := s.MessagingConfig()
	if m != (MessagingSettings{TokenTTL: Duration(24 * time.Hour), MaxConnections: 10, MaxMessageBytes: 131072, ChunkWords: 3}) {
		t.Fatalf("messaging %+v", m)
	}
	if s.SessionIdle() != 10*time.Minute || s.OutboundRetention() != 2*time.Hour {
		t.Fatal("defaults")
	}
	s = mustParse(t, "t.yaml", "messaging: {token_ttl: 1h, max_connections: 2, max_message_bytes: 1024, chunk_words: 1}\n"+
		"outbound: {retention: 10m}\nlimits: {session_idle: 30s}\n"+outboundBase)
	if m := s.MessagingConfig(); m.TokenTTL.D() != time.Hour || m.MaxConnections != 2 || m.MaxMessageBytes != 1024 || m.ChunkWords != 1 {
		t.Fatalf("messaging %+v", m)
	}
	if s.SessionIdle() != 30*time.Second || s.OutboundRetention() != 10*time.Minute {
		t.Fatal("overrides")
	}
}

func TestOutboundAndMessagingProblems(t *testing.T) {
	for _, tc := range []struct{ doc, want string }{
		{"messaging: {token_ttl: -1s}\n", "messaging.token_ttl: invalid duration"},
		{"messaging: {max_connections: -1}\n", "messaging.max_connections: must not be negative"},
		{"messaging: {signing_key: short}\n", "t.yaml:1:26: messaging.signing_key: must be at least 32 bytes (it is 5)"},
		{"outbound: {retention: -1m}\n", "outbound.retention: invalid duration"},
		{"limits: {session_idle: -1m}\n", "limits.session_idle: invalid duration"},
		{`accounts:
  - slug: acme
    id: "1"
    outbound: {rate_limit: {calls: 0}}
`, "accounts[0].outbound.rate_limit.calls: must be at least 1"},
		{`accounts:
  - slug: acme
    id: "1"
    projects:
      - slug: p
        id: "2"
        outbound:
          enabled: true
          destinations: [{outcome: maybe, ring: -1s}, {match: "[", outcome: busy}]
`, "outcome: unknown outcome \"maybe\""},
	} {
		got := strings.Join(problems(t, tc.doc), "\n")
		if !strings.Contains(got, tc.want) {
			t.Errorf("%q: problems\n%s\nwant %q", tc.doc, got, tc.want)
		}
	}
	got := strings.Join(problems(t, `accounts:
  - slug: acme
    id: "1"
    projects:
      - slug: p
        id: "2"
        outbound:
          destinations: [{outcome: busy, ring: -1s}, {match: "[", outcome: busy}]
`), "\n")
	for _, want := range []string{"destinations[0].match: required", "destinations[0].ring: invalid duration", "destinations[1].match: invalid pattern"} {
		if !strings.Contains(got, want) {
			t.Errorf("problems\n%s\nwant %q", got, want)
		}
	}
}

func TestOutboundDefaultScenario(t *testing.T) {
	o := testVoc.Default().Accounts[0].Projects[0].Outbound
	if o == nil || !o.Enabled {
		t.Fatal("the default project has outbound calling disabled")
	}
}
