package scenario

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"text/template"

	"gopkg.in/yaml.v3"

	"github.com/agentplatform/mockplatform/faults"
)

// Environments are the client environments.
var Environments = []string{"live", "pre-release", "sandbox"}

var (
	FaultMethods = []string{"GET", "POST", "PUT", "PATCH", "DELETE"}
	FaultRegions = regionNames()
	DelayClocks  = []string{"real", "virtual"}

	SlugRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)
	IDRE   = regexp.MustCompile(`^[A-Za-z0-9-]+$`)
)

// ParseTemplate parses a dialogue template as validation does: Go
// text/template, missing keys render as zero values.
func ParseTemplate(text string) (*template.Template, error) {
	return template.New("").Option("missingkey=zero").Parse(text)
}

// Account finds an account by slug, id, "ACCOUNT-<id>" or "ws-<id>", or nil.
func (s *Scenario) Account(ref string) *Account {
	if s == nil || ref == "" {
		return nil
	}
	for i := range s.Accounts {
		if s.Accounts[i].Slug == ref {
			return &s.Accounts[i]
		}
	}
	id := ref
	if rest, ok := cutPrefixFold(ref, "ACCOUNT-"); ok {
		id = rest
	} else if rest, ok := cutPrefixFold(ref, "ws-"); ok {
		id = rest
	}
	for _, cand := range []string{ref, id} {
		for i := range s.Accounts {
			if s.Accounts[i].ID == cand {
				return &s.Accounts[i]
			}
		}
	}
	return nil
}

// Project finds a project of the account by slug, id or "PROJECT-<id>", or nil.
func (a *Account) Project(ref string) *Project {
	if a == nil || ref == "" {
		return nil
	}
	for i := range a.Projects {
		if a.Projects[i].Slug == ref {
			return &a.Projects[i]
		}
	}
	for i := range a.Projects {
		if a.Projects[i].ID == ref {
			return &a.Projects[i]
		}
	}
	if rest, ok := cutPrefixFold(ref, "PROJECT-"); ok {
		for i := range a.Projects {
			if a.Projects[i].ID == rest {
				return &a.Projects[i]
			}
		}
	}
	return nil
}

// Variant finds a variant of the project by id or name, or nil.
func (p *Project) Variant(ref string) *Variant {
	if p == nil || ref == "" {
		return nil
	}
	for i := range p.Variants {
		if p.Variants[i].ID == ref {
			return &p.Variants[i]
		}
	}
	for i := range p.Variants {
		if p.Variants[i].Name == ref {
			return &p.Variants[i]
		}
	}
	return nil
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) > len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return "", false
}

// validator collects the problems of a scenario at their positions.
type validator struct {
	voc  *Vocabulary
	loc  locator
	errs Errors
	// skip holds the paths whose value could not be decoded; their
	// problem is reported already, so checks of them, below them and of
	// their containers ("rule does nothing") stay quiet. skipUp holds the
	// containers: every proper ancestor of a skipped path. Both are sets,
	// so that a document with a problem in every record costs no more
	// than one with a few.
	skip, skipUp map[string]bool
	// filled are the fidelity switches the profile filled in
	// (fidelity.go).
	filled []string
}

// skipPath marks a path whose problem is reported.
func (v *validator) skipPath(p path) {
	if v.skip == nil {
		v.skip, v.skipUp = map[string]bool{}, map[string]bool{}
	}
	ps := p.prefixes()
	v.skip[ps[len(ps)-1]] = true
	for _, s := range ps[:len(ps)-1] {
		v.skipUp[s] = true
	}
}

// skipped reports whether p, an ancestor or a descendant is skipped.
func (v *validator) skipped(p path) bool {
	if len(v.skip) == 0 {
		return false
	}
	ps := p.prefixes()
	for _, s := range ps {
		if v.skip[s] {
			return true
		}
	}
	return v.skipUp[ps[len(ps)-1]]
}

// report records msg at the node of p (its key when key is set), or at
// its nearest existing parent.
func (v *validator) report(p path, key bool, msg string) {
	if v.skipped(p) {
		return
	}
	at, local := v.loc.locate(p, key)
	if s := local.String(); s != "" {
		msg = s + ": " + msg
	}
	v.errs = append(v.errs, Error{File: at.file, Line: at.line, Column: at.col, Msg: msg})
}

// reportAt records msg at node n of the (single) file being parsed.
func (v *validator) reportAt(n *yaml.Node, p path, msg string) {
	if s := p.String(); s != "" {
		msg = s + ": " + msg
	}
	v.errs = append(v.errs, Error{File: v.loc.files()[0], Line: n.Line, Column: n.Column, Msg: msg})
}

func (v *validator) reportf(p path, format string, args ...any) {
	v.report(p, false, fmt.Sprintf(format, args...))
}

// firstAt describes where first is relative to cur's file: "line 3" or
// "a.yaml:3".
func (v *validator) firstAt(cur, first path) string { return v.firstAtNode(cur, first, false) }

func (v *validator) firstAtNode(cur, first path, key bool) string {
	c, _ := v.loc.locate(cur, false)
	f, _ := v.loc.locate(first, key)
	if c.file == f.file {
		return fmt.Sprintf("line %d", f.line)
	}
	return fmt.Sprintf("%s:%d", f.file, f.line)
}

// result returns the problems sorted by position, without repeats.
func (v *validator) result() Errors {
	if len(v.errs) == 0 {
		return nil
	}
	files := v.loc.files()
	rank := func(f string) int {
		if i := slices.Index(files, f); i >= 0 {
			return i
		}
		return len(files)
	}
	out := slices.Clone(v.errs)
	slices.SortStableFunc(out, func(a, b Error) int {
		return cmp.Or(cmp.Compare(rank(a.File), rank(b.File)), cmp.Compare(a.File, b.File),
			cmp.Compare(a.Line, b.Line), cmp.Compare(a.Column, b.Column))
	})
	return slices.Compact(out)
}

// scenario validates s and fills in its defaults.
func (v *validator) scenario(s *Scenario) {
	v.accounts(s)
	v.credentials(s)
	faultIDs := v.faults(s.Faults)
	v.limits(s.Limits)
	v.bounds(s)
	v.dni(s)
	v.generators(s)
	v.agents(s)
	v.telephony(s)
	v.voices(s)
	v.alertRules(s)
	v.webhookEndpoints(s)
	v.messaging(s)
	v.outbound(s)
	v.fidelity(s)
	v.timeline(s, faultIDs)
}

func (v *validator) slug(p path, s string) {
	switch {
	case s == "":
		v.reportf(p, "required")
	case !SlugRE.MatchString(s):
		v.reportf(p, "invalid slug %q (want lowercase letters, digits and dashes, not starting with a dash)", s)
	}
}

func (v *validator) id(p path, s string) {
	switch {
	case s == "":
		v.reportf(p, "required")
	case !IDRE.MatchString(s):
		v.reportf(p, "invalid id %q (want letters, digits and dashes)", s)
	}
}

// unique reports a repeated value; seen maps values to their first path.
func (v *validator) unique(seen map[string]path, val string, p path, what string) {
	if val == "" {
		return
	}
	if first, ok := seen[val]; ok {
		v.reportf(p, "duplicate %s %q (first at %s)", what, val, v.firstAt(p, first))
		return
	}
	seen[val] = p
}

func (v *validator) accounts(s *Scenario) {
	slugs, ids := map[string]path{}, map[string]path{}
	// Conversation ids are unique per region: the store keys by both.
	convs := map[string]map[string]path{}
	for i := range s.Accounts {
		a := &s.Accounts[i]
		p := path{"accounts", i}
		v.slug(p.with("slug"), a.Slug)
		v.id(p.with("id"), a.ID)
		v.unique(slugs, a.Slug, p.with("slug"), "account slug")
		v.unique(ids, a.ID, p.with("id"), "account id")
		if a.Region != "" && !slices.Contains(Regions, a.Region) {
			v.reportf(p.with("region"), "unknown region %q (want %s)", a.Region, oneOf(Regions))
		}
		region := cmp.Or(a.Region, "us")
		if convs[region] == nil {
			convs[region] = map[string]path{}
		}
		v.projects(a, p, convs[region])
	}
	// A slug that is another account's id would make references ambiguous.
	for i, a := range s.Accounts {
		if first, ok := ids[a.Slug]; ok && first[1] != i {
			p := path{"accounts", i, "slug"}
			v.reportf(p, "slug %q is the id of another account (at %s)", a.Slug, v.firstAt(p, first))
		}
	}
	for i := range s.Accounts {
		if s.Accounts[i].Region == "" {
			s.Accounts[i].Region = "us"
		}
	}
}

func (v *validator) projects(a *Account, ap path, convs map[string]path) {
	slugs, ids := map[string]path{}, map[string]path{}
	for j := range a.Projects {
		pr := &a.Projects[j]
		p := ap.with("projects", j)
		v.slug(p.with("slug"), pr.Slug)
		v.id(p.with("id"), pr.ID)
		v.unique(slugs, pr.Slug, p.with("slug"), "project slug")
		v.unique(ids, pr.ID, p.with("id"), "project id")
		if pr.Name == "" {
			pr.Name = pr.Slug
		}
		v.variants(pr, p)
		v.dialogue(&pr.Dialogue, p.with("dialogue"), pr, true)
		v.conversations(pr, p, convs)
		v.handoffStates(pr, p)
	}
	for j, pr := range a.Projects {
		if first, ok := ids[pr.Slug]; ok && first[len(first)-2] != j {
			p := ap.with("projects", j, "slug")
			v.reportf(p, "slug %q is the id of another project (at %s)", pr.Slug, v.firstAt(p, first))
		}
	}
}

func (v *validator) variants(pr *Project, pp path) {
	ids, names := map[string]path{}, map[string]path{}
	var def path
	for k := range pr.Variants {
		vr := &pr.Variants[k]
		p := pp.with("variants", k)
		if vr.ID == "" {
			v.reportf(p.with("id"), "required")
		}
		if vr.Name == "" {
			v.reportf(p.with("name"), "required")
		}
		v.unique(ids, vr.ID, p.with("id"), "variant id")
		v.unique(names, vr.Name, p.with("name"), "variant name")
		if vr.Default {
			if def != nil {
				v.reportf(p.with("default"), "more than one default variant (first at %s)", v.firstAt(p.with("default"), def))
			} else {
				def = p.with("default")
			}
		}
	}
}

func variantIDs(pr *Project) string {
	if len(pr.Variants) == 0 {
		return "the project has no variants"
	}
	var ids []string
	for _, vr := range pr.Variants {
		ids = append(ids, vr.ID)
	}
	return "want " + oneOf(ids)
}

// variant checks a variant reference and returns the variant's id.
func (v *validator) variant(pr *Project, p path, ref string) string {
	vr := pr.Variant(ref)
	if vr == nil {
		v.reportf(p, "unknown variant %q (%s)", ref, variantIDs(pr))
		return ref
	}
	return vr.ID
}

func (v *validator) dialogue(d *Dialogue, p path, pr *Project, top bool) {
	v.template(p.with("greeting"), d.Greeting)
	v.template(p.with("fallback"), d.Fallback)
	for k := range d.Rules {
		v.rule(&d.Rules[k], p.with("rules", k))
	}
	if len(d.Variants) == 0 {
		return
	}
	if !top {
		v.report(p.with("variants"), true, "variants cannot be nested")
		return
	}
	keys := make([]string, 0, len(d.Variants))
	for k := range d.Variants {
		keys = append(keys, k)
	}
	// In document order, so that "given twice" names the later key.
	slices.SortFunc(keys, func(a, b string) int {
		pa, _ := v.loc.locate(p.with("variants", a), true)
		pb, _ := v.loc.locate(p.with("variants", b), true)
		return cmp.Or(cmp.Compare(pa.line, pb.line), cmp.Compare(pa.col, pb.col), cmp.Compare(a, b))
	})
	norm := make(map[string]Dialogue, len(d.Variants))
	firsts := make(map[string]path, len(d.Variants))
	for _, key := range keys {
		kp := p.with("variants", key)
		vd := d.Variants[key]
		v.dialogue(&vd, kp, pr, false)
		vr := pr.Variant(key)
		if vr == nil {
			v.report(kp, true, fmt.Sprintf("unknown variant %q (%s)", key, variantIDs(pr)))
			norm[key] = vd
			continue
		}
		if first, dup := firsts[vr.ID]; dup {
			v.report(kp, true, fmt.Sprintf("variant %s is given twice (first at %s)", vr.ID, v.firstAtNode(kp, first, true)))
			continue
		}
		firsts[vr.ID] = kp
		norm[vr.ID] = vd
	}
	d.Variants = norm
}

var ruleActions = []string{"reply", "handoff", "end", "set", "metric", "function_error", "crash", "await_event"}

func (v *validator) rule(r *Rule, p path) {
	if r.When.Regex != "" {
		if _, err := regexp.Compile(r.When.Regex); err != nil {
			v.reportf(p.with("when", "regex"), "invalid regex: %s", strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
	}
	if r.When.Turn < 0 {
		v.reportf(p.with("when", "turn"), "must not be negative")
	}
	t := &r.Then
	tp := p.with("then")
	v.template(tp.with("reply"), t.Reply)
	v.template(tp.with("await_event"), t.AwaitEvent)
	for k, x := range t.Set {
		if str, ok := x.(string); ok {
			v.template(tp.with("set", k), str)
		}
	}
	for k, x := range t.Metric {
		v.template(tp.with("metric", k), x)
	}
	if t.Handoff != nil {
		v.template(tp.with("handoff", "shared_id"), t.Handoff.SharedID)
		v.templates(tp.with("handoff", "data"), t.Handoff.Data)
	}
	if t.Reply == "" && t.Handoff == nil && !t.End && len(t.Set) == 0 && len(t.Metric) == 0 &&
		!t.FunctionError && !t.Crash && t.AwaitEvent == "" {
		v.reportf(tp, "rule does nothing (want %s)", oneOf(ruleActions))
	}
}

var templateErrRE = regexp.MustCompile(`^template: :(\d+):\s*(.*)$`)

func (v *validator) template(p path, text string) {
	if text == "" {
		return
	}
	if _, err := ParseTemplate(text); err != nil {
		msg := err.Error()
		if m := templateErrRE.FindStringSubmatch(msg); m != nil {
			msg = m[2]
			if m[1] != "1" {
				msg = "line " + m[1] + ": " + msg
			}
		}
		v.reportf(p, "invalid template: %s", msg)
	}
}

// templates checks handoff.data's strings, templates down through nested
// mappings.
func (v *validator) templates(p path, m map[string]any) {
	for k, x := range m {
		switch x := x.(type) {
		case string:
			v.template(p.with(k), x)
		case map[string]any:
			v.templates(p.with(k), x)
		}
	}
}

func (v *validator) conversations(pr *Project, pp path, ids map[string]path) {
	for k := range pr.Conversations {
		c := &pr.Conversations[k]
		p := pp.with("conversations", k)
		if c.ID == "" {
			v.reportf(p.with("id"), "required")
		}
		v.unique(ids, c.ID, p.with("id"), "conversation id")
		switch {
		case c.Environment == "":
			c.Environment = "live"
		case !slices.Contains(Environments, c.Environment):
			v.reportf(p.with("environment"), "unknown environment %q (want %s)", c.Environment, oneOf(Environments))
		}
		if c.Channel == "" {
			v.reportf(p.with("channel"), "required (e.g. VOICE-SIP, WEBCHAT or CHAT)")
		}
		if c.StartedAt.IsZero() {
			v.reportf(p.with("started_at"), "required")
		}
		if c.Variant != "" {
			c.Variant = v.variant(pr, p.with("variant"), c.Variant)
		}
		var prev Duration
		for t, turn := range c.Turns {
			if turn.At < prev {
				v.reportf(p.with("turns", t, "at"), "%s is before the previous turn's %s", turn.At, prev)
			}
			prev = max(prev, turn.At)
		}
	}
}

func (v *validator) handoffStates(pr *Project, pp path) {
	ids, shared := map[string]path{}, map[string]path{}
	for k, h := range pr.HandoffStates {
		p := pp.with("handoff_states", k)
		if h.ID == "" {
			v.reportf(p.with("id"), "required")
		}
		v.unique(ids, h.ID, p.with("id"), "handoff state id")
		v.unique(shared, h.SharedID, p.with("shared_id"), "shared_id")
		if h.Data == nil {
			v.reportf(p.with("data"), "required (use {} for no data)")
		}
	}
}

func (v *validator) credentials(s *Scenario) {
	keys := map[string]path{}
	for i := range s.Credentials {
		c := &s.Credentials[i]
		p := path{"credentials", i}
		switch {
		case c.Kind == "":
			v.reportf(p.with("kind"), "required (want %s)", oneOf(v.voc.Kinds))
		case !slices.Contains(v.voc.Kinds, c.Kind):
			v.reportf(p.with("kind"), "unknown kind %q (want %s)", c.Kind, oneOf(v.voc.Kinds))
		}
		if c.Key == "" {
			v.reportf(p.with("key"), "required")
		}
		v.unique(keys, c.Key, p.with("key"), "key")

		var a *Account
		switch {
		case c.Account == "":
			v.reportf(p.with("account"), "required")
		default:
			if a = s.Account(c.Account); a == nil {
				v.reportf(p.with("account"), "unknown account %q", c.Account)
			} else {
				c.Account = a.Slug
			}
		}
		var pr *Project
		switch {
		case c.Project == "":
			if slices.Contains(v.voc.ProjectKinds, c.Kind) {
				v.reportf(p.with("project"), "required for kind %s", c.Kind)
			}
		case a != nil:
			if pr = a.Project(c.Project); pr == nil {
				v.reportf(p.with("project"), "unknown project %q in account %s", c.Project, a.Slug)
			} else {
				c.Project = pr.Slug
			}
		}
		switch {
		case c.ClientEnv == "":
			if c.Kind == KindConnector {
				c.ClientEnv = "live"
			}
		case !slices.Contains(Environments, c.ClientEnv):
			v.reportf(p.with("client_env"), "unknown client environment %q (want %s)", c.ClientEnv, oneOf(Environments))
		}
		if c.Variant != "" {
			switch {
			case c.Project == "":
				v.reportf(p.with("variant"), "needs a project")
			case pr != nil:
				c.Variant = v.variant(pr, p.with("variant"), c.Variant)
			}
		}
		if len(c.Hosts) > 0 && c.Kind != KindConnector {
			v.reportf(p.with("hosts"), "only for kind connector")
		}
		for h, host := range c.Hosts {
			if strings.TrimSpace(host) == "" {
				v.reportf(p.with("hosts", h), "empty host")
			}
		}
	}
}

// faults validates the fault rules and returns their ids with their paths.
func (v *validator) faults(rules []faults.Rule) map[string]path {
	ids := map[string]path{}
	for i, r := range rules {
		p := path{"faults", i}
		v.unique(ids, r.ID, p.with("id"), "fault id")
		v.faultRule(r, p)
	}
	return ids
}

func (v *validator) faultRule(r faults.Rule, p path) {
	n := len(v.errs)
	m, mp := r.Match, p.with("match")
	if m.Family != "" && !slices.Contains(v.voc.Faults.Families, m.Family) {
		v.reportf(mp.with("family"), "unknown family %q (want %s)", m.Family, oneOf(v.voc.Faults.Families))
	}
	if m.Method != "" && !slices.Contains(FaultMethods, strings.ToUpper(m.Method)) {
		v.reportf(mp.with("method"), "unknown method %q (want %s)", m.Method, oneOf(FaultMethods))
	}
	if m.Path != "" && !strings.HasPrefix(m.Path, "/") {
		v.reportf(mp.with("path"), "must start with \"/\"")
	}
	if m.Region != "" && !slices.Contains(FaultRegions, m.Region) {
		v.reportf(mp.with("region"), "unknown region %q (want %s)", m.Region, oneOf(FaultRegions))
	}
	a, ap := r.Action, p.with("action")
	if a.Status != 0 && (a.Status < 100 || a.Status > 599) {
		v.reportf(ap.with("status"), "%d is not an HTTP status (want 100 to 599)", a.Status)
	}
	if a.Preset != "" && !v.voc.Faults.KnownPreset(a.Preset) {
		v.reportf(ap.with("preset"), "unknown fault preset %q (docs/scenarios.md lists the presets)", a.Preset)
	}
	if a.Status == 0 && a.Body == "" && a.Delay == 0 && !a.Drop && a.Preset == "" {
		v.reportf(ap, "fault does nothing (want status, body, delay, drop or preset)")
	}
	if a.DelayClock != "" && !slices.Contains(DelayClocks, a.DelayClock) {
		v.reportf(ap.with("delay_clock"), "unknown delay clock %q (want real or virtual)", a.DelayClock)
	}
	if !(r.Probability >= 0 && r.Probability <= 1) {
		v.reportf(p.with("probability"), "must be between 0 and 1")
	}
	if r.Times < 0 {
		v.reportf(p.with("times"), "must not be negative")
	}
	if r.After < 0 {
		v.reportf(p.with("after"), "must not be negative")
	}
	// The fault set has the last word, so that a valid scenario always
	// applies.
	if n == len(v.errs) {
		var ve *faults.ValidationError
		if err := v.voc.Faults.Validate(r); errors.As(err, &ve) {
			fp := p
			for _, f := range strings.Split(ve.Field, ".") {
				fp = fp.with(f)
			}
			v.reportf(fp, "%s", ve.Msg)
		} else if err != nil {
			v.reportf(p, "%s", strings.TrimPrefix(err.Error(), "faults: "))
		}
	}
}

func (v *validator) limits(l Limits) {
	p := path{"limits"}
	for _, f := range []struct {
		name string
		val  int64
	}{
		{"alert_rules", int64(l.AlertRules)},
		{"webhook_endpoints", int64(l.WebhookEndpoints)},
		{"max_body_bytes", l.MaxBodyBytes},
		{"journal_size", int64(l.JournalSize)},
		{"journal_body_bytes", int64(l.JournalBodyBytes)},
		{"ws_send_queue_messages", int64(l.WSSendQueueMessages)},
		{"ws_send_queue_bytes", l.WSSendQueueBytes},
	} {
		if f.val < 0 {
			v.reportf(p.with(f.name), "must not be negative")
		}
	}
}

func (v *validator) oneOf(p path, val string, list []string) {
	if !slices.Contains(list, val) {
		v.reportf(p, "%q is not one of %s", val, strings.Join(list, ", "))
	}
}

func (v *validator) nonNegative(p path, n int64) {
	if n < 0 {
		v.reportf(p, "must not be negative")
	}
}
