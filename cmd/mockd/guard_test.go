package main

import (
	"net"
	"strings"
	"testing"
)

func TestExposureWarning(t *testing.T) {
	t.Parallel()
	network := "the control plane is open to the network without a token: anyone who reaches this address can reset, " +
		"replace or sabotage the mock; set a token with --control-token or MOCKD_CONTROL_TOKEN (docs/security.md)"
	rebinding := "--allow-host * without a control token: any web page can reach the control plane through DNS rebinding; " +
		"set a token with --control-token or MOCKD_CONTROL_TOKEN (docs/security.md)"
	for _, tc := range []struct {
		addr string
		o    options
		want string
	}{
		{"127.0.0.1", options{}, ""},
		{"::1", options{}, ""},
		{"0.0.0.0", options{}, network},
		{"::", options{}, network},
		{"192.0.2.10", options{}, network},
		{"0.0.0.0", options{controlToken: "t"}, ""},
		{"127.0.0.1", options{allowHosts: listFlag{"mockd", "*"}}, rebinding},
		{"127.0.0.1", options{allowHosts: listFlag{"*"}, controlToken: "t"}, ""},
	} {
		if got := exposure(&net.TCPAddr{IP: net.ParseIP(tc.addr), Port: 8080}, &tc.o); got != tc.want {
			t.Errorf("%s %+v: %q, want %q", tc.addr, tc.o, got, tc.want)
		}
	}
}

// TestControlFlags: --control-token (or MOCKD_CONTROL_TOKEN) guards the
// control plane, --allow-host (or MOCKD_ALLOW_HOST) admits hosts, and the
// token never reaches the output.
func TestControlFlags(t *testing.T) {
	t.Parallel()
	const token = "tok-4d1f0c"
	for _, tc := range []struct {
		name   string
		args   []string
		getenv func(string) string
	}{
		{"flags", []string{"--addr", "127.0.0.1:0", "--log-level", "debug", "--control-token", token, "--allow-host", "mockd", "--allow-host", ".corp.test"}, env()},
		{"env", []string{"--log-level", "debug"}, env("MOCKD_ADDR", "127.0.0.1:0", "MOCKD_CONTROL_TOKEN", token, "MOCKD_ALLOW_HOST", "mockd, .corp.test")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			s := startServer(t, tc.args, tc.getenv)
			auth := []string{"Authorization", "Bearer " + token}
			for _, c := range []struct {
				host    string
				headers []string
				status  int
			}{
				{"", nil, 401},
				{"", auth, 200},
				{"mockd:8080", auth, 200},
				{"ci.corp.test", auth, 200},
				{"evil.example", auth, 403},
			} {
				req := append([]string(nil), c.headers...)
				if c.host != "" {
					req = append(req, "Host", c.host)
				}
				if status, body := s.do("GET", "/_mock/clock", "", req...); status != c.status {
					t.Errorf("host %q %v: %d %s, want %d", c.host, c.headers, status, body, c.status)
				}
			}
			if status, _ := s.do("GET", "/_mock/health", ""); status != 200 {
				t.Errorf("health: %d", status)
			}
			s.stop()
			if out := s.stdout.String() + s.stderr.String(); strings.Contains(out, token) {
				t.Errorf("the output holds the token:\n%s", out)
			}
			if strings.Contains(s.stderr.String(), "level=WARN") {
				t.Errorf("a warning with a token on loopback:\n%s", s.stderr.String())
			}
		})
	}
	t.Run("any host without a token warns", func(t *testing.T) {
		t.Parallel()
		s := startServer(t, []string{"--addr", "127.0.0.1:0", "--allow-host", "*"}, env())
		s.stop()
		if want := `level=WARN msg="--allow-host * without a control token`; !strings.Contains(s.stderr.String(), want) {
			t.Errorf("logs lack %q:\n%s", want, s.stderr.String())
		}
	})
	t.Run("a bad host", func(t *testing.T) {
		t.Parallel()
		code, _, stderr := runNoServe(t, []string{"--addr", "127.0.0.1:0", "--allow-host", "mockd:8080"}, env())
		want := "mockplatform: allowed host \"mockd:8080\": want a host name without port, .domain, an IP address, a CIDR prefix or *\nmockd: not started\n"
		if code != 1 || stderr != want {
			t.Errorf("exit %d, stderr %q", code, stderr)
		}
	})
}
