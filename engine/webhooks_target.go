package engine

// Webhook targets (docs/security.md#webhook-targets): the scenario's rules
// on where deliveries may go, applied to an endpoint's URL on write (400)
// and to every resolved address at delivery, in a dialer that connects
// only to checked addresses (no proxy, no redirects).

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

// TargetNet is how deliveries resolve and dial; tests replace both so no
// test sends a packet off the machine even if the rules were wrong.
type TargetNet struct {
	Lookup func(ctx context.Context, host string) ([]netip.Addr, error)
	Dial   func(ctx context.Context, network, addr string) (net.Conn, error)
}

// defaultTargetNet is the system resolver and a dialer whose Control hook
// refuses refused addresses.
func defaultTargetNet() TargetNet {
	d := &net.Dialer{Timeout: 30 * time.Second, Control: TargetControl}
	return TargetNet{
		Lookup: func(ctx context.Context, host string) ([]netip.Addr, error) {
			return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
		},
		Dial: d.DialContext,
	}
}

// TargetControl is the delivery dialer's socket hook: the last check.
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

// targetRefused is a refused delivery: logged, not retried.
type targetRefused struct{ reason string }

func (e *targetRefused) Error() string { return "target refused: " + e.reason }

// newDeliveryClient is the delivery client: no proxy, no redirects, dials
// through dialTarget, and no kept connections (a stale pooled one made
// attempts fail unreproducibly).
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

// targetLists are the allow-lists in force (scenario's and instance's);
// a target must satisfy each non-empty one.
func (a *Engine) targetLists() []*scenario.HostList {
	return []*scenario.HostList{a.View().targets, a.webhooks.allow}
}

// CheckWebhookURL checks an endpoint's url: absolute http(s) (https only
// under webhook_url, G2) and allowed by the target rules.
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

func (a *Engine) checkTargetURL(u *url.URL) error {
	return scenario.CheckTargetURL(u, a.targetLists()...)
}

// dialTarget resolves a host, checks every address (all must pass), and
// connects to the first that answers.
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

// checkSeededTargets applies the instance's allow-list to the scenario's
// seeded endpoints.
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
