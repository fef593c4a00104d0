package engine

// Webhook targets (docs/security.md#webhook-targets): where deliveries may
// go. The rules are scenario's (webhook_targets.go); here they are
// applied twice: to the URL when an endpoint is created or changed (400
// on "url"), and at delivery to every address the URL's host resolves to,
// in the delivery client's dialer, which connects only to an address it
// has checked (so a name cannot resolve around the rules, whatever DNS
// answers later), and checks it once more in the socket's Control hook
// before the connection is made. The client uses no proxy (a proxy would
// connect where the dialer cannot see) and follows no redirect.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"syscall"
	"time"

	"github.com/agentplatform/mockplatform/scenario"
)

// TargetNet is how deliveries reach the network: a resolver and a dialer.
// Tests replace both (a name that "resolves" to a refused address, a
// dialer that records instead of connecting), so that no test ever sends
// a packet off the machine, even if the rules were wrong.
type TargetNet struct {
	Lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	Dial   func(ctx context.Context, network, addr string) (net.Conn, error)
}

// defaultTargetNet resolves with the system resolver and dials with a
// dialer whose Control hook refuses a refused address at the socket.
func defaultTargetNet() TargetNet {
	d := &net.Dialer{Timeout: 30 * time.Second, Control: TargetControl}
	return TargetNet{
		Lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		},
		Dial: d.DialContext,
	}
}

// TargetControl is the delivery dialer's socket hook: the last check of
// the address about to be connected.
func TargetControl(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return &targetRefused{reason: "unreadable address " + address}
	}
	if err := scenario.CheckTargetAddr(ap.Addr()); err != nil {
		return &targetRefused{reason: fmt.Sprintf("%s resolves to %s, which %s", address, ap.Addr(), err)}
	}
	return nil
}

// targetRefused is a delivery the rules refused: it is logged and not
// retried.
type targetRefused struct{ reason string }

func (e *targetRefused) Error() string { return "target refused: " + e.reason }

// newDeliveryClient is an instance's client of deliveries: its own
// transport, no proxy, no redirect followed, connections only through
// dialTarget, and none kept between attempts (a pooled connection whose
// server had gone, a receiver closed or another one on the same port,
// failed an attempt with an EOF that another run of the same session did
// not see).
func (a *Engine) newDeliveryClient() *http.Client {
	return &http.Client{
		Transport: &http.Transport{
			Proxy:               nil,
			DialContext:         a.dialTarget,
			ForceAttemptHTTP2:   true,
			DisableKeepAlives:   true,
			TLSHandshakeTimeout: 10 * time.Second,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// targetLists are the allow-lists in force: the scenario's
// (webhooks.allowed_targets) and the instance's (Config.WebhookTargets);
// a target must satisfy each that is not empty.
func (a *Engine) targetLists() []*scenario.HostList {
	return []*scenario.HostList{a.View().targets, a.webhooks.allow}
}

// CheckWebhookURL checks an endpoint's url as written: an absolute http
// or https URL (https only under the fidelity switch webhook_url, G2) that
// the target rules allow. The error is the url field's message.
func (a *Engine) CheckWebhookURL(s string) error {
	u, err := url.Parse(s)
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
		return errors.New("must be an absolute http or https URL")
	case a.View().Fidelity(switchWebhookURL) == "https" && u.Scheme != "https":
		return errors.New("must start with https://")
	}
	return a.checkTargetURL(u)
}

// checkTargetURL applies the target rules to a URL as written.
func (a *Engine) checkTargetURL(u *url.URL) error {
	return scenario.CheckTargetURL(u, a.targetLists()...)
}

// dialTarget resolves a delivery's host, checks every address it
// resolves to (all must pass, so that a name cannot mix a refused
// address among allowed ones), and connects to the first that answers.
func (a *Engine) dialTarget(ctx context.Context, network, hostport string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return nil, err
	}
	name := scenario.Hostname(host)
	tn := a.webhooks.net
	var addrs []netip.Addr
	if ip, err := netip.ParseAddr(name); err == nil {
		addrs = []netip.Addr{ip}
	} else if addrs, err = tn.Lookup(ctx, name); err != nil {
		return nil, err
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%s has no address", name)
	}
	for _, ip := range addrs {
		if err := scenario.CheckTargetAddr(ip); err != nil {
			return nil, &targetRefused{reason: fmt.Sprintf("%s resolves to %s, which %s", name, ip.Unmap(), err)}
		}
		for _, l := range a.targetLists() {
			if l.Len() > 0 && !l.AllowsName(name) && !l.AllowsAddr(ip) {
				return nil, &targetRefused{reason: fmt.Sprintf("%s resolves to %s, which is not an allowed target (%s)", name, ip.Unmap(), l)}
			}
		}
	}
	var errs []error
	for _, ip := range addrs {
		conn, err := tn.Dial(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
		if err == nil {
			return conn, nil
		}
		errs = append(errs, err)
		if ctx.Err() != nil {
			break
		}
	}
	return nil, errors.Join(errs...)
}

// checkSeededTargets applies the instance's allow-list to a scenario's
// seeded endpoints (the scenario's own rules are checked when it is
// parsed): a refused one is a problem at its url.
func (a *Engine) checkSeededTargets(sc *scenario.Scenario) error {
	if a.webhooks.allow.Len() == 0 {
		return nil
	}
	var errs scenario.Errors
	for i := range sc.Accounts {
		for j, e := range sc.Accounts[i].WebhookEndpoints {
			u, err := url.Parse(e.URL)
			if err == nil {
				err = scenario.CheckTargetURL(u, a.webhooks.allow)
			}
			if err != nil {
				errs = append(errs, sc.ErrorAt(err.Error()+" (mockd --webhook-allow; mockplatform.WithWebhookTargets)",
					"accounts", i, "webhook_endpoints", j, "url"))
			}
		}
	}
	if len(errs) > 0 {
		return errs
	}
	return nil
}
