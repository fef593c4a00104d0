package scenario

// Webhook targets: where the mock may send deliveries. handlers apply these
// rules when an endpoint changes and at delivery
// (docs/security.md#webhook-targets).

import (
	"fmt"
	"net/netip"
	"net/url"
	"strings"
)

// WebhookSettings is the instance-wide webhooks block.
type WebhookSettings struct {
	// AllowedTargets restricts deliveries to these hosts (HostList syntax:
	// name, .domain, IP, CIDR). Empty: any target the fixed rules allow,
	// loopback receivers included.
	AllowedTargets []string `yaml:"allowed_targets" json:"allowed_targets,omitempty"`
}

// TargetError is why a webhook target is refused: a rule, worded to
// follow the field name ("url must not point at ...").
type TargetError struct{ Rule string }

func (e *TargetError) Error() string { return e.Rule }

// metadataNames are cloud metadata services' names, refused before lookup.
var metadataNames = []string{"metadata", "metadata.google.internal", "metadata.goog",
	"instance-data", "instance-data.ec2.internal"}

// metadataAddrs are metadata services outside the link-local ranges.
var metadataAddrs = []netip.Addr{
	netip.MustParseAddr("fd00:ec2::254"),   // AWS IMDS over IPv6
	netip.MustParseAddr("100.100.100.200"), // Alibaba Cloud
}

// nat64 is the NAT64 prefix: an IPv4 address in the last 32 bits.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

var (
	errLinkLocal = &TargetError{"must not point at a link-local address (169.254.0.0/16, fe80::/10), where cloud metadata services answer"}
	errMetadata  = &TargetError{"must not point at a cloud metadata service"}
	errNoDest    = &TargetError{"must not point at an unspecified, multicast or broadcast address"}
	errControl   = &TargetError{"must not point at a mock's control plane (a path segment _mock)"}
)

// CheckTargetAddr reports which rule refuses an address, or nil. Loopback
// is allowed: test receivers listen there.
func CheckTargetAddr(a netip.Addr) error {
	a = a.Unmap()
	if nat64.Contains(a) {
		b := a.As16()
		a = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
	}
	for _, m := range metadataAddrs {
		if a == m {
			return errMetadata
		}
	}
	switch {
	case !a.IsValid(), a.IsUnspecified(), a.IsMulticast(), a == netip.AddrFrom4([4]byte{255, 255, 255, 255}):
		return errNoDest
	case a.IsLinkLocalUnicast():
		return errLinkLocal
	}
	return nil
}

// CheckTargetURL reports which rule refuses u by what the URL says, or
// nil: a metadata service, a link-local or other non-unicast address, a
// path through a mock's control plane (a "_mock" segment), or a host off
// an allow-list. A name's addresses are checked at delivery.
func CheckTargetURL(u *url.URL, lists ...*HostList) error {
	host := Hostname(u.Host)
	for _, n := range metadataNames {
		if host == n {
			return errMetadata
		}
	}
	if a, err := netip.ParseAddr(host); err == nil {
		if err := CheckTargetAddr(a); err != nil {
			return err
		}
	}
	for _, seg := range strings.Split(u.Path, "/") {
		if strings.EqualFold(seg, "_mock") {
			return errControl
		}
	}
	for _, l := range lists {
		if l != nil && l.Len() > 0 && !l.Allows(host) {
			return &TargetError{fmt.Sprintf("must point at an allowed target (%s)", l)}
		}
	}
	return nil
}

// TargetList is the webhooks block's allow-list (empty when none).
func (s *Scenario) TargetList() *HostList {
	var l HostList
	if s.Webhooks != nil {
		for _, e := range s.Webhooks.AllowedTargets {
			_ = l.Add(e) // validated at load
		}
	}
	return &l
}

// mergeWebhooks lets a later file's webhooks block replace dst's.
func mergeWebhooks(dst, src *Scenario) {
	if src.Webhooks != nil {
		w := *src.Webhooks
		dst.Webhooks = &w
	}
}
