package scenario

// Host lists: the syntax of allowed hosts, for mockd --allow-host and the
// webhook target allow-list.

import (
	"errors"
	"net"
	"net/netip"
	"strings"
)

// HostList is a list of allowed hosts: names ("mockd"), domains with their
// subdomains (".corp.test"), IP addresses, CIDR prefixes ("10.0.0.0/8"),
// or "*" (any host). Names carry no port and match without case. The zero
// HostList allows nothing.
type HostList struct {
	any     bool
	names   []string // lower case
	domains []string // without the leading dot
	addrs   []netip.Prefix
	entries []string // as given, for messages
}

var errHostSyntax = errors.New("want a host name without port, .domain, an IP address, a CIDR prefix or *")

// Add adds one entry.
func (l *HostList) Add(entry string) error {
	h := strings.ToLower(strings.TrimSpace(entry))
	switch {
	case h == "*":
		l.any = true
	case h == "":
		return errors.New("empty")
	case strings.Contains(h, "/"):
		p, err := netip.ParsePrefix(h)
		if err != nil {
			return errors.New("want a host name, .domain, an IP address, a CIDR prefix or *")
		}
		l.addrs = append(l.addrs, p.Masked())
	default:
		if a, err := netip.ParseAddr(strings.Trim(h, "[]")); err == nil {
			l.addrs = append(l.addrs, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
			break
		}
		name := strings.TrimSuffix(strings.TrimPrefix(h, "."), ".")
		if name == "" || strings.ContainsAny(name, ":@?#[]/ \t") {
			return errHostSyntax
		}
		if strings.HasPrefix(h, ".") {
			l.domains = append(l.domains, name)
		} else {
			l.names = append(l.names, name)
		}
	}
	l.entries = append(l.entries, strings.TrimSpace(entry))
	return nil
}

// Len is the number of entries.
func (l *HostList) Len() int { return len(l.entries) }

// String lists the entries as given, comma-separated.
func (l *HostList) String() string { return strings.Join(l.entries, ", ") }

// Any reports whether the list has "*".
func (l *HostList) Any() bool { return l.any }

// Allows reports whether a host (as Hostname gives it) is on the list.
func (l *HostList) Allows(host string) bool {
	if l.any {
		return true
	}
	if a, err := netip.ParseAddr(host); err == nil {
		return l.AllowsAddr(a)
	}
	return l.AllowsName(host)
}

// AllowsName reports whether a host name is on the list by name or domain.
func (l *HostList) AllowsName(name string) bool {
	for _, n := range l.names {
		if name == n {
			return true
		}
	}
	for _, d := range l.domains {
		if name == d || strings.HasSuffix(name, "."+d) {
			return true
		}
	}
	return false
}

// AllowsAddr reports whether an address is on the list.
func (l *HostList) AllowsAddr(a netip.Addr) bool {
	if l.any {
		return true
	}
	a = a.Unmap()
	for _, p := range l.addrs {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// Hostname is the lower-case host of a Host header or URL host.
func Hostname(hostport string) string {
	h := hostport
	if host, _, err := net.SplitHostPort(hostport); err == nil {
		h = host
	}
	return strings.TrimSuffix(strings.ToLower(strings.Trim(h, "[]")), ".")
}
