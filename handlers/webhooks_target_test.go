package handlers

import (
	"context"
	"errors"
	"net"
	"net/netip"
	"strings"
	"sync"
	"testing"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/google/go-cmp/cmp"
)

// Rule texts of the target policy (scenario/webhook_targets.go).
const (
	ruleLinkLocal = "must not point at a link-local address (169.254.0.0/16, fe80::/10), where cloud metadata services answer"
	ruleMetadata  = "must not point at a cloud metadata service"
	ruleNoDest    = "must not point at an unspecified, multicast or broadcast address"
	ruleControl   = "must not point at a mock's control plane (a path segment _mock)"
)

// fakeNet is the resolver and dialer of the delivery client in tests: names
// "resolve" to what the test says, and the dialer records the addresses it
// is asked for and connects only to loopback ones (the test receivers), so
// that no packet can leave the machine even if the rules were wrong.
type fakeNet struct {
	mu     sync.Mutex
	names  map[string][]string
	dialed []string
}

func (f *fakeNet) install(h *harness) {
	h.api.SetTargetNet(engine.TargetNet{Lookup: f.lookup, Dial: f.dial})
}

func (f *fakeNet) lookup(_ context.Context, host string) ([]netip.Addr, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	list, ok := f.names[host]
	if !ok {
		return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
	}
	var out []netip.Addr
	for _, s := range list {
		out = append(out, netip.MustParseAddr(s))
	}
	return out, nil
}

func (f *fakeNet) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	f.mu.Lock()
	f.dialed = append(f.dialed, addr)
	f.mu.Unlock()
	ap, err := netip.ParseAddrPort(addr)
	if err != nil || !ap.Addr().IsLoopback() {
		return nil, errors.New("test dialer: refusing to connect off the machine to " + addr)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

func (f *fakeNet) dials() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.dialed...)
}

// TestWebhookTargetURLs: create and update refuse link-local and metadata
// addresses and names and any mock's control plane, with a 400 on "url"
// that names the rule, and change nothing; loopback receivers and other
// hosts are accepted.
func TestWebhookTargetURLs(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	existing := h.webhookCreate(map[string]any{"name": "a", "url": "http://127.0.0.1:9/ok", "event_types": []string{"alerts.triggered"}})
	id := existing["id"].(string)
	for _, tc := range []struct {
		url, rule string
	}{
		{"http://169.254.169.254/latest/meta-data/", ruleLinkLocal},
		{"http://169.254.0.1:8080/x", ruleLinkLocal},
		{"http://[fe80::1]/x", ruleLinkLocal},
		{"http://[fe80::1%25eth0]/x", ruleLinkLocal},
		{"http://[::ffff:169.254.169.254]/x", ruleLinkLocal},
		{"http://[64:ff9b::a9fe:a9fe]/x", ruleLinkLocal},
		{"http://[fd00:ec2::254]/latest", ruleMetadata},
		{"http://100.100.100.200/latest/meta-data", ruleMetadata},
		{"http://metadata.google.internal/computeMetadata/v1/", ruleMetadata},
		{"http://METADATA.google.internal./x", ruleMetadata},
		{"http://metadata/x", ruleMetadata},
		{"http://instance-data/latest", ruleMetadata},
		{"http://0.0.0.0:8080/x", ruleNoDest},
		{"http://[::]:8080/x", ruleNoDest},
		{"http://224.0.0.1/x", ruleNoDest},
		{"http://255.255.255.255/x", ruleNoDest},
		{"http://127.0.0.1:8080/_mock/reset", ruleControl},
		{"http://localhost:8080/_mock", ruleControl},
		{"http://mockd:8080/_mock/scenario", ruleControl},
		{"http://127.0.0.1:8080/w/abc123/_mock/reset", ruleControl},
		{"http://127.0.0.1:8080/%5Fmock/reset", ruleControl},
		{"http://127.0.0.1:8080//_mock/reset", ruleControl},
		{"http://127.0.0.1:8080/a/..%2F_mock/reset", ruleControl},
		{"http://127.0.0.1:8080/_MOCK/reset", ruleControl},
	} {
		t.Run(tc.url, func(t *testing.T) {
			want := builderError{Message: engine.MsgValidationFailed, Errors: []engine.FieldError{{Field: "url", Message: tc.rule}}}
			h.unchanged(t, func() {
				r := h.do("POST", builderBase+"/v1/webhook-endpoints",
					map[string]any{"name": "x", "url": tc.url, "event_types": []string{"alerts.triggered"}}, builderHeaders...)
				mustStatus(t, r, 400)
				mustBody(t, r, want)
				r = h.do("PATCH", builderBase+"/v1/webhook-endpoints/"+id, map[string]any{"url": tc.url}, builderHeaders...)
				mustStatus(t, r, 400)
				mustBody(t, r, want)
			})
		})
	}
	for _, ok := range []string{"http://127.0.0.1:9/hook", "http://[::1]:9/hook", "http://localhost:9/hook",
		"https://hooks.example.test/x", "http://10.1.2.3/x", "http://127.0.0.1:9/mock/_mocked"} {
		r := h.do("PATCH", builderBase+"/v1/webhook-endpoints/"+id, map[string]any{"url": ok}, builderHeaders...)
		mustStatus(t, r, 200)
	}
}

// TestWebhookTargetResolved: a name accepted at create is checked again at
// delivery, on every address it resolves to: a name that resolves to a
// refused address, or to a refused one among allowed ones, is never
// dialed, and the attempt is logged as refused and not retried.
func TestWebhookTargetResolved(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name  string
		addrs []string
		want  string
	}{
		{"metadata", []string{"169.254.169.254"}, "target refused: hook.test resolves to 169.254.169.254, which " + ruleLinkLocal},
		{"mixed", []string{"127.0.0.1", "fe80::1"}, "target refused: hook.test resolves to fe80::1, which " + ruleLinkLocal},
		{"mapped", []string{"::ffff:100.100.100.200"}, "target refused: hook.test resolves to 100.100.100.200, which " + ruleMetadata},
		{"unspecified", []string{"0.0.0.0"}, "target refused: hook.test resolves to 0.0.0.0, which " + ruleNoDest},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			h := newHarness(t)
			fn := &fakeNet{names: map[string][]string{"hook.test": tc.addrs}}
			fn.install(h)
			h.webhookCreate(map[string]any{"name": "a", "url": "http://hook.test:8080/hooks", "event_types": []string{"alerts.triggered"}})
			webhookTrigger(h)
			log := h.api.Deliveries()
			if len(log) != 1 {
				t.Fatalf("delivery log: %+v", log)
			}
			if !strings.HasSuffix(log[0].Error, tc.want) || log[0].NextAttemptAt != nil || log[0].Delivered {
				t.Fatalf("attempt: %+v\nwant error ending %q, no retry", log[0], tc.want)
			}
			if d := fn.dials(); len(d) != 0 {
				t.Fatalf("the dialer was asked for %v", d)
			}
		})
	}

	// A name that resolves to a loopback receiver is delivered to.
	h := newHarness(t)
	rc := newReceiver(t, nil)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(rc.srv.URL, "http://"))
	fn := &fakeNet{names: map[string][]string{"receiver.test": {"127.0.0.1"}}}
	fn.install(h)
	h.webhookCreate(map[string]any{"name": "a", "url": "http://receiver.test:" + port + "/hooks", "event_types": []string{"alerts.triggered"}})
	webhookTrigger(h)
	if log := h.api.Deliveries(); len(log) != 1 || !log[0].Delivered {
		t.Fatalf("delivery log: %+v", log)
	}
	if diff := cmp.Diff([]string{"127.0.0.1:" + port}, fn.dials()); diff != "" {
		t.Fatalf("dials (-want +got):\n%s", diff)
	}
}

// TestWebhookTargetAllowList: with an allow-list (the scenario's
// webhooks.allowed_targets, or the instance's Config.WebhookTargets) a
// target must be on it: by name at create, and by name or address at
// delivery; the fixed rules still hold.
func TestWebhookTargetAllowList(t *testing.T) {
	t.Parallel()
	h := newHarness(t, string(scenarioDefaultYAML())+"\nwebhooks: {allowed_targets: [receiver.test, .hooks.test, 127.0.0.2]}\n")
	fn := &fakeNet{names: map[string][]string{"a.hooks.test": {"169.254.169.254"}, "other.test": {"127.0.0.1"}}}
	fn.install(h)
	allowed := "must point at an allowed target (receiver.test, .hooks.test, 127.0.0.2)"
	for url, rule := range map[string]string{
		"http://127.0.0.1:9/x":            allowed,
		"http://localhost:9/x":            allowed,
		"http://other.test/x":             allowed,
		"http://receiver.test/_mock/x":    ruleControl,
		"http://169.254.169.254/x":        ruleLinkLocal,
		"http://receiver.test.evil.com/x": allowed,
	} {
		r := h.do("POST", builderBase+"/v1/webhook-endpoints", map[string]any{"name": "x", "url": url, "event_types": []string{"alerts.triggered"}}, builderHeaders...)
		mustStatus(t, r, 400)
		mustBody(t, r, builderError{Message: engine.MsgValidationFailed, Errors: []engine.FieldError{{Field: "url", Message: rule}}})
	}
	for _, url := range []string{"http://receiver.test/x", "http://a.hooks.test/x", "http://127.0.0.2:9/x"} {
		r := h.do("POST", builderBase+"/v1/webhook-endpoints", map[string]any{"name": "x", "url": url, "event_types": []string{"alerts.resolved"}}, builderHeaders...)
		mustStatus(t, r, 201)
	}
	// An allowed name that resolves to a metadata address is still refused.
	h.webhookCreate(map[string]any{"name": "m", "url": "http://a.hooks.test/x", "event_types": []string{"alerts.triggered"}})
	webhookTrigger(h)
	if log := h.api.Deliveries(); len(log) != 1 || !strings.Contains(log[0].Error, "target refused: a.hooks.test resolves to 169.254.169.254") {
		t.Fatalf("delivery log: %+v", log)
	}
	if d := fn.dials(); len(d) != 0 {
		t.Fatalf("dialed %v", d)
	}

	// The scenario's list is checked at load, and seeded endpoints too.
	_, err := Vocabulary().Parse("t.yaml", []byte(string(scenarioDefaultYAML())+`
webhooks: {allowed_targets: ["http://x"]}
`))
	if err == nil || !strings.Contains(err.Error(), "webhooks.allowed_targets[0]: want a host name, .domain, an IP address, a CIDR prefix or *") {
		t.Fatalf("bad entry: %v", err)
	}
	_, err = Vocabulary().Parse("t.yaml", []byte(`webhooks: {allowed_targets: [receiver.test]}
accounts:
  - slug: acme
    id: "1"
    webhook_endpoints:
      - {name: a, url: "http://127.0.0.1:9/x", signing_secret: whsec_x}
      - {name: b, url: "http://169.254.169.254/x", signing_secret: whsec_y}
`))
	if diff := cmp.Diff("t.yaml:6:24: accounts[0].webhook_endpoints[0].url: must point at an allowed target (receiver.test)\n"+
		"t.yaml:7:24: accounts[0].webhook_endpoints[1].url: "+ruleLinkLocal, errString(err)); diff != "" {
		t.Fatalf("seeded endpoints (-want +got):\n%s", diff)
	}

	// The instance's list applies to seeded endpoints when a scenario loads.
	sc, err := Vocabulary().Parse("seeded.yaml", []byte(`accounts:
  - slug: acme
    id: "1"
    webhook_endpoints:
      - {name: a, url: "http://127.0.0.1:9/x", signing_secret: whsec_x}
`))
	if err != nil {
		t.Fatal(err)
	}
	_, err = Open(engine.Config{Scenario: sc, WebhookTargets: []string{"receiver.test"}}, nil)
	if diff := cmp.Diff("seeded.yaml:5:24: accounts[0].webhook_endpoints[0].url: must point at an allowed target (receiver.test) "+
		"(mockd --webhook-allow; mockplatform.WithWebhookTargets)", errString(err)); diff != "" {
		t.Fatalf("instance list (-want +got):\n%s", diff)
	}
	if _, err := Open(engine.Config{WebhookTargets: []string{"a/b"}}, nil); err == nil {
		t.Fatal("a bad instance list was accepted")
	}
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// TestTargetControl: the delivery dialer's socket hook refuses a refused
// address before the connection is made (called here directly: no socket).
func TestTargetControl(t *testing.T) {
	t.Parallel()
	for addr, want := range map[string]string{
		"169.254.169.254:80":  "target refused: 169.254.169.254:80 resolves to 169.254.169.254, which " + ruleLinkLocal,
		"[fe80::1]:80":        "target refused: [fe80::1]:80 resolves to fe80::1, which " + ruleLinkLocal,
		"[fd00:ec2::254]:80":  "target refused: [fd00:ec2::254]:80 resolves to fd00:ec2::254, which " + ruleMetadata,
		"127.0.0.1:8080":      "",
		"[::1]:8080":          "",
		"192.0.2.10:443":      "",
		"not an address:1234": "target refused: unreadable address not an address:1234",
	} {
		if got := errString(engine.TargetControl("tcp", addr, nil)); got != want {
			t.Errorf("targetControl(%s) = %q, want %q", addr, got, want)
		}
	}
}
