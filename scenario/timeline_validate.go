package scenario

// Validation of the timeline block; bounds are in timelineBounds, overlaps
// in timeline_overlap.go. A layer's references are checked once merged.

import (
	"slices"
	"strings"
	"time"
	"unicode"
)

var timingKeys = []string{"at", "for", "every", "from", "until"}

// timingsOf are the timing keys each kind takes.
var timingsOf = map[string][]string{
	EntryFault:    {"at", "for", "every", "until"},
	EntryTraffic:  {"from", "until"},
	EntryCalls:    {"from", "until"},
	EntrySessions: {"from", "until"},
	EntryAction:   {"at", "every", "until"},
}

// timeline validates the timeline and fills in its defaults.
func (v *validator) timeline(s *Scenario, faultIDs map[string]path) {
	ids := map[string]path{}
	bad := map[int]bool{} // entries with a problem: left out of the overlap checks
	for i := range s.Timeline {
		n := len(v.errs)
		v.timelineEntry(s, i, ids, faultIDs)
		if len(v.errs) > n || v.skipped(path{"timeline", i}) {
			bad[i] = true
		}
	}
	v.timelineOverlaps(s, bad)
}

func (v *validator) timelineEntry(s *Scenario, i int, ids, faultIDs map[string]path) {
	e := &s.Timeline[i]
	p := path{"timeline", i}
	v.unique(ids, e.ID, p.with("id"), "timeline id")
	var kinds []string
	for _, k := range EntryKinds {
		if entryHas(e, k) {
			kinds = append(kinds, k)
		}
	}
	switch {
	case len(kinds) == 0:
		v.reportf(p, "entry does nothing (want %s)", oneOf(EntryKinds))
		return
	case len(kinds) > 1:
		v.report(p.with(kinds[1]), true, "an entry is one of "+oneOf(EntryKinds)+" (this one is "+kinds[0]+" already)")
		return
	}
	kind := kinds[0]
	v.entryTiming(e, p, kind)
	switch kind {
	case EntryFault:
		fp := p.with("fault")
		v.faultRule(*e.Fault, fp)
		if id := e.FaultRuleID(); id != "" {
			at := fp.with("id")
			if e.Fault.ID == "" {
				at = p.with("id")
			}
			v.unique(faultIDs, id, at, "fault id")
		}
	case EntryTraffic:
		t, tp := e.Traffic, p.with("traffic")
		pr := v.projectRef(s, tp, &t.Account, &t.Project, "project")
		v.rate(tp.with("chats_per_minute"), tp, t.ChatsPerMinute, t.RampTo)
		v.flow(&t.Flow, tp)
		v.enum(tp.with("channel"), &t.Channel, ChatChannels, "api")
		v.enum(tp.with("environment"), &t.Environment, Environments, "live")
		if t.Variant != "" && pr != nil {
			t.Variant = v.variant(pr, tp.with("variant"), t.Variant)
		}
	case EntryCalls:
		c, cp := e.Calls, p.with("calls")
		v.dialled(s, cp.with("number"), c.Number)
		v.caller(cp.with("from"), c.From)
		v.rate(cp.with("calls_per_minute"), cp, c.CallsPerMinute, c.RampTo)
		v.flow(&c.Flow, cp)
	case EntrySessions:
		m, mp := e.Sessions, p.with("sessions")
		pr := v.projectRef(s, mp, &m.Account, &m.Project, "project")
		v.rate(mp.with("sessions_per_minute"), mp, m.SessionsPerMinute, m.RampTo)
		v.flow(&m.Flow, mp)
		v.enum(mp.with("environment"), &m.Environment, Environments, "live")
		if pr != nil && !hasSessionCredential(s, m.Account, pr.Slug, m.Environment) {
			v.reportf(mp.with("project"), "sessions need a connector credential of project %s (client_env %s) with hosts", pr.Slug, m.Environment)
		}
	case EntryAction:
		v.action(s, e, p)
	}
}

// entryHas reports whether the entry sets the block of kind k.
func entryHas(e *TimelineEntry, k string) bool {
	switch k {
	case EntryFault:
		return e.Fault != nil
	case EntryTraffic:
		return e.Traffic != nil
	case EntryCalls:
		return e.Calls != nil
	case EntrySessions:
		return e.Sessions != nil
	case EntryAction:
		return e.Do != nil
	}
	return false
}

// given reports whether a key is in the document (zero or null counts),
// or, built in Go, has a value.
func (v *validator) given(p path, set bool) bool { return set || v.loc.has(p) }

func timing(e *TimelineEntry, key string) Duration {
	switch key {
	case "at":
		return e.At
	case "for":
		return e.For
	case "every":
		return e.Every
	case "from":
		return e.From
	case "until":
		return e.Until
	}
	return 0
}

// entryTiming checks the timing keys of an entry of kind k.
func (v *validator) entryTiming(e *TimelineEntry, p path, k string) {
	allowed := timingsOf[k]
	for _, key := range timingKeys {
		if !v.given(p.with(key), timing(e, key) != 0) {
			continue
		}
		if !slices.Contains(allowed, key) {
			v.report(p.with(key), true, key+" is not for "+kindName(k)+" (they take "+strings.Join(allowed, ", ")+")")
			continue
		}
		if d := timing(e, key).D(); d > MaxClockSetting {
			v.reportf(p.with(key), "must be at most 8760h (a year)")
		}
	}
	every := e.Every.D()
	if v.given(p.with("every"), every != 0) && slices.Contains(allowed, "every") {
		v.length(p.with("every"), e.Every, "no repetition")
	}
	until := e.Until.D()
	switch k {
	case EntryTraffic, EntryCalls, EntrySessions:
		switch {
		case until == 0:
			v.reportf(p.with("until"), "required (traffic stops at until)")
		case until <= e.From.D():
			v.reportf(p.with("until"), "must be after from (%s)", e.From)
		}
	case EntryFault, EntryAction:
		if v.given(p.with("until"), until != 0) {
			switch {
			case every == 0:
				v.reportf(p.with("until"), "only with every (it ends the repetitions)")
			case until <= e.At.D():
				v.reportf(p.with("until"), "must be after at (%s)", e.At)
			}
		}
	}
	if k == EntryFault && v.given(p.with("for"), e.For != 0) {
		v.length(p.with("for"), e.For, "a window without end")
		if every != 0 && e.For >= e.Every && e.For.D() <= MaxClockSetting {
			v.reportf(p.with("for"), "must be shorter than every (%s)", e.Every)
		}
	}
	if k == EntryFault && every != 0 && e.For == 0 && !v.loc.has(p.with("for")) {
		v.reportf(p.with("every"), "a repeated window needs for (how long it stays open)")
	}
}

// length reports an every or for outside 1s to 8760h.
func (v *validator) length(p path, d Duration, without string) {
	if d.D() < MinClockSetting || d.D() > MaxClockSetting {
		v.reportf(p, "must be from 1s to 8760h (a year); leave it out for %s", without)
	}
}

func kindName(k string) string {
	switch k {
	case EntryFault:
		return "fault windows"
	case EntryAction:
		return "actions"
	}
	return k
}

// rate checks a background traffic rate and its ramp.
func (v *validator) rate(p, block path, start float64, rampTo *float64) {
	check := func(p path, r float64) {
		if !(r >= 0) {
			v.reportf(p, "must be a number of conversations per minute, 0 or more")
		}
	}
	check(p, start)
	end := start
	if rampTo != nil {
		check(block.with("ramp_to"), *rampTo)
		end = *rampTo
	}
	if start == 0 && end == 0 {
		v.reportf(p, "no traffic: the rate is 0 from start to end (set it, or ramp_to)")
	}
}

// flow checks background traffic's shared keys and fills in defaults.
func (v *validator) flow(f *Flow, p path) {
	v.enum(p.with("arrivals"), &f.Arrivals, []string{ArrivalsPoisson, ArrivalsEven}, ArrivalsPoisson)
	if v.given(p.with("turns"), f.Turns != Range{}) {
		if f.Turns.Min < 1 {
			v.reportf(p.with("turns"), "want at least 1 message (got %s)", f.Turns)
		}
	} else {
		f.Turns = DefaultTurns
	}
	v.think(p.with("think"), &f.Think)
	if len(f.Messages) == 0 {
		f.Messages = slices.Clone(DefaultMessages)
	}
}

// think fills in the default of a pause range ("0s" is no pause).
func (v *validator) think(p path, t *DurationSpan) {
	if !v.given(p, *t != DurationSpan{}) {
		*t = DefaultThink
	}
}

// enum checks a value against a list and fills in its default when empty.
func (v *validator) enum(p path, val *string, list []string, def string) {
	if *val == "" {
		*val = def
		return
	}
	if !slices.Contains(list, *val) {
		v.reportf(p, "unknown value %q (want %s)", *val, oneOf(list))
	}
}

// projectRef resolves a timeline block's account and project to slugs
// (left as they are in a layer) and returns the project, nil when unknown.
func (v *validator) projectRef(s *Scenario, block path, acct, proj *string, key string) *Project {
	if *proj == "" {
		v.reportf(block.with(key), "required")
		return nil
	}
	if s.IsLayer() {
		return nil
	}
	if *acct != "" {
		a := s.Account(*acct)
		if a == nil {
			v.reportf(block.with("account"), "unknown account %q", *acct)
			return nil
		}
		pr := a.Project(*proj)
		if pr == nil {
			v.reportf(block.with(key), "unknown project %q in account %s", *proj, a.Slug)
			return nil
		}
		*acct, *proj = a.Slug, pr.Slug
		return pr
	}
	var found *Project
	var in []string
	for i := range s.Accounts {
		if pr := s.Accounts[i].Project(*proj); pr != nil {
			found = pr
			in = append(in, s.Accounts[i].Slug)
		}
	}
	switch len(in) {
	case 0:
		v.reportf(block.with(key), "unknown project %q", *proj)
		return nil
	case 1:
		*acct, *proj = in[0], found.Slug
		return found
	}
	v.reportf(block.with(key), "project %q is in several accounts (%s): give account", *proj, oneOf(in))
	return nil
}

// hasSessionCredential reports whether a connector credential of the
// project and environment has hosts.
func hasSessionCredential(s *Scenario, acct, proj, env string) bool {
	a := s.Account(acct)
	for _, c := range s.Credentials {
		if c.Kind == KindConnector && !c.Disabled && s.Account(c.Account) == a && c.Project == proj &&
			c.ClientEnv == env && len(c.Hosts) > 0 {
			return true
		}
	}
	return false
}

// dialled checks a dialled number: E.164, and a connector's or a dni
// pool's number.
func (v *validator) dialled(s *Scenario, p path, n string) {
	switch {
	case n == "":
		v.reportf(p, "required")
	case !E164RE.MatchString(n):
		v.reportf(p, "invalid number %q (want E.164, e.g. +14155550150)", n)
	case !s.IsLayer() && !routedNumber(s, n):
		v.reportf(p, "no connector routes %s and no dni pool has it", n)
	}
}

func (v *validator) caller(p path, n string) {
	if n != "" && !E164RE.MatchString(n) {
		v.reportf(p, "invalid number %q (want E.164, e.g. +447700900123)", n)
	}
}

// routedNumber reports whether a connector or dni pool has the number.
func routedNumber(s *Scenario, n string) bool {
	for _, a := range s.Accounts {
		for _, pr := range a.Projects {
			if pr.DNI != nil && slices.Contains(pr.DNI.Numbers, n) {
				return true
			}
			for _, c := range pr.Connectors {
				if slices.Contains(c.PhoneNumbers, n) {
					return true
				}
			}
		}
	}
	return false
}

// action validates a scheduled action and fills in its defaults.
func (v *validator) action(s *Scenario, e *TimelineEntry, p path) {
	a, ap := e.Do, p.with("do")
	names := a.names()
	switch {
	case len(names) == 0:
		v.reportf(ap, "no action (want %s)", oneOf(ActionNames))
		return
	case len(names) > 1:
		v.report(ap.with(names[1]), true, "one action per entry (this one has "+names[0]+" already)")
		return
	}
	if a.WebhookReceiver == "" {
		for _, k := range []string{"for", "status", "endpoint"} {
			if v.given(ap.with(k), k == "for" && a.For != 0 || k == "status" && a.Status != 0 || k == "endpoint" && a.Endpoint != "") {
				v.report(ap.with(k), true, k+" is only for webhook_receiver")
			}
		}
	}
	switch names[0] {
	case ActionInboundCall:
		c, cp := a.InboundCall, ap.with(ActionInboundCall)
		v.dialled(s, cp.with("number"), c.Number)
		v.caller(cp.with("from"), c.From)
		v.think(cp.with("think"), &c.Think)
		if e.Every != 0 {
			if d := time.Duration(len(c.Say)+1) * c.Think.Max.D(); d >= e.Every.D() {
				v.reportf(cp, "a call lasts up to %s, not shorter than every (%s): calls would overlap", d, e.Every)
			}
		}
	case ActionWebhookReceiver:
		v.receiver(a, ap)
	case ActionOutboundCampaign:
		v.campaign(s, e, ap.with(ActionOutboundCampaign))
	case ActionPublish:
		x := a.Publish
		v.projectRef(s, ap.with(ActionPublish), &x.Account, &x.Agent, "agent")
	case ActionPromote:
		x, xp := a.Promote, ap.with(ActionPromote)
		v.projectRef(s, xp, &x.Account, &x.Agent, "agent")
		to := slices.Index(promoteOrder, x.To)
		switch {
		case x.To == "":
			v.reportf(xp.with("to"), "required (pre-release or live)")
		case to < 1:
			v.reportf(xp.with("to"), "unknown environment %q (want pre-release or live)", x.To)
		case x.From == "":
			x.From = promoteOrder[to-1]
		default:
			if from := slices.Index(promoteOrder, x.From); from < 0 || from >= to {
				v.reportf(xp.with("from"), "want an environment before %s (%s)", x.To, oneOf(promoteOrder[:to]))
			}
		}
	case ActionRealTimeConfig:
		x, xp := a.RealTimeConfig, ap.with(ActionRealTimeConfig)
		v.projectRef(s, xp, &x.Account, &x.Agent, "agent")
		v.enum(xp.with("environment"), &x.Environment, Environments, "live")
		if len(x.Variables) == 0 {
			v.reportf(xp.with("variables"), "required: at least one variable")
		}
	case ActionExternalEvent:
		x, xp := a.ExternalEvent, ap.with(ActionExternalEvent)
		v.projectRef(s, xp, &x.Account, &x.Project, "project")
		switch {
		case x.EventID == "":
			v.reportf(xp.with("event_id"), "required")
		case len(x.EventID) > MaxEventIDLength || strings.IndexFunc(x.EventID, unicode.IsSpace) >= 0:
			v.reportf(xp.with("event_id"), "want 1 to %d characters without whitespace", MaxEventIDLength)
		}
	case ActionAPIErrors:
		x, xp := a.APIErrors, ap.with(ActionAPIErrors)
		v.projectRef(s, xp, &x.Account, &x.Project, "project")
		if v.given(xp.with("count"), x.Count != 0) {
			if x.Count < 1 {
				v.reportf(xp.with("count"), "must be at least 1")
			}
		} else {
			x.Count = 1
		}
	}
}

func (v *validator) receiver(a *TimelineAction, ap path) {
	switch a.WebhookReceiver {
	case ReceiverDown:
		if v.given(ap.with("for"), a.For != 0) {
			v.length(ap.with("for"), a.For, "down until up")
		}
		if v.given(ap.with("status"), a.Status != 0) {
			if a.Status < 400 || a.Status > 599 {
				v.reportf(ap.with("status"), "must be from 400 to 599 (an answer that fails the delivery)")
			}
		} else {
			a.Status = DefaultReceiverStatus
		}
	case ReceiverUp:
		for _, k := range []string{"for", "status"} {
			if v.given(ap.with(k), k == "for" && a.For != 0 || k == "status" && a.Status != 0) {
				v.report(ap.with(k), true, k+" is only for webhook_receiver: down")
			}
		}
	default:
		v.reportf(ap.with(ActionWebhookReceiver), "unknown value %q (want down or up)", a.WebhookReceiver)
	}
}

func (v *validator) campaign(s *Scenario, e *TimelineEntry, p path) {
	c := e.Do.OutboundCampaign
	pr := v.projectRef(s, p, &c.Account, &c.Project, "project")
	if pr != nil && (pr.Outbound == nil || !pr.Outbound.Enabled) {
		v.reportf(p.with("project"), "project %s has no outbound calling (outbound: {enabled: true})", pr.Slug)
	}
	switch {
	case len(c.Numbers) > 0 && (c.First != "" || c.Count != 0):
		v.report(p.with("first"), true, "give numbers, or first and count, not both")
	case len(c.Numbers) > 0:
		for i, n := range c.Numbers {
			if !E164RE.MatchString(n) {
				v.reportf(p.with("numbers", i), "invalid number %q (want E.164, e.g. +15550100000)", n)
			}
		}
	case c.First == "":
		v.reportf(p, "no numbers to call (give numbers, or first and count)")
	case !E164RE.MatchString(c.First):
		v.reportf(p.with("first"), "invalid number %q (want E.164, e.g. +15550100000)", c.First)
	case c.Count < 1:
		v.reportf(p.with("count"), "must be at least 1")
	case c.Count <= MaxCampaignCalls && !lastNumberFits(c):
		v.reportf(p.with("count"), "the numbers from %s run past E.164's 15 digits", c.First)
	}
	n := max(len(c.Numbers), c.Count)
	if e.Every != 0 && n > 0 && n <= MaxCampaignCalls {
		if d := time.Duration(n-1) * c.CampaignPace(); d >= e.Every.D() {
			v.reportf(p.with("pace"), "the campaign's calls take %s, not shorter than every (%s): runs would overlap", d, e.Every)
		}
	}
}

// lastNumberFits reports whether a campaign's last number is still E.164.
func lastNumberFits(c *OutboundCampaign) bool {
	list := c.CampaignNumbers()
	return len(list) == c.Count && E164RE.MatchString(list[len(list)-1])
}
