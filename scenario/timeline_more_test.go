package scenario

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/agentplatform/mockplatform/faults"
)

// TestTimelineOverlaps: entries that cannot both hold are refused, at the
// later one; the rest pass.
func TestTimelineOverlaps(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, timeline string
		want           string // "" when valid
	}{
		{"down windows overlap", "- {at: 30m, do: {webhook_receiver: down, for: 15m}}\n- {at: 40m, do: {webhook_receiver: down, for: 15m}}",
			"t.yaml:17:19: timeline[1].do: webhook_receiver down at 40m0s overlaps the down window of timeline[0] (line 16)"},
		{"down windows touch", "- {at: 30m, do: {webhook_receiver: down, for: 15m}}\n- {at: 45m, do: {webhook_receiver: down, for: 15m}}", ""},
		{"down windows of other endpoints", "- {at: 30m, do: {webhook_receiver: down, for: 15m, endpoint: a}}\n- {at: 40m, do: {webhook_receiver: down, for: 15m, endpoint: b}}", ""},
		{"down for every endpoint and one", "- {at: 30m, do: {webhook_receiver: down, for: 15m}}\n- {at: 40m, do: {webhook_receiver: down, for: 15m, endpoint: b}}",
			"t.yaml:17:19: timeline[1].do: webhook_receiver down at 40m0s overlaps the down window of timeline[0] (line 16)"},
		{"repeated down windows meet", "- {every: 1h, do: {webhook_receiver: down, for: 10m}}\n- {at: 25m, every: 90m, do: {webhook_receiver: down, for: 10m}}",
			"t.yaml:17:31: timeline[1].do: webhook_receiver down at 2h0m0s overlaps the down window of timeline[0] (line 16)"},
		{"repeated down windows miss", "- {every: 1h, until: 2h, do: {webhook_receiver: down, for: 10m}}\n- {at: 25m, every: 90m, do: {webhook_receiver: down, for: 10m}}", ""},
		{"up inside a down window", "- {at: 30m, do: {webhook_receiver: down, for: 15m}}\n- {at: 40m, do: {webhook_receiver: up}}",
			"t.yaml:17:19: timeline[1].do: webhook_receiver up at 40m0s falls inside the down window of timeline[0] (line 16)"},
		{"up ends a down without for", "- {at: 30m, do: {webhook_receiver: down}}\n- {at: 40m, do: {webhook_receiver: up}}\n- {at: 50m, do: {webhook_receiver: down, for: 5m}}", ""},
		{"down without for, down again", "- {at: 30m, do: {webhook_receiver: down}}\n- {at: 50m, do: {webhook_receiver: down, for: 5m}}",
			"t.yaml:17:19: timeline[1].do: webhook_receiver down at 50m0s overlaps the down window of timeline[0] (line 16)"},
		{"up at the instant of a down", "- {at: 30m, do: {webhook_receiver: down}}\n- {at: 30m, do: {webhook_receiver: up}}",
			"t.yaml:17:19: timeline[1].do: webhook_receiver up at 30m0s is at the same time as the down of timeline[0] (line 16)"},
		{"two promotes at one instant", "- {at: 2h, do: {promote: {agent: support, to: live}}}\n- {at: 2h, do: {promote: {agent: \"2001\", to: pre-release}}}",
			"t.yaml:17:18: timeline[1].do: a deployment of agent support at 2h0m0s is at the same time as the one of timeline[0] (line 16)"},
		{"an hourly publish meets a promote", "- {at: 3h, do: {promote: {agent: support, to: live}}}\n- {every: 1h, do: {publish: {agent: support}}}",
			"t.yaml:17:21: timeline[1].do: a deployment of agent support at 3h0m0s is at the same time as the one of timeline[0] (line 16)"},
		{"deployments at other instants", "- {at: 2h, do: {promote: {agent: support, to: live}}}\n- {at: 30m, every: 1h, do: {publish: {agent: support}}}", ""},
		{"one config variable twice", "- {at: 1h, do: {real_time_config: {agent: support, variables: {a: 1, b: 2}}}}\n- {every: 30m, do: {real_time_config: {agent: support, variables: {b: 3}}}}",
			"t.yaml:17:22: timeline[1].do: a change of support's live variable b at 1h0m0s is at the same time as the one of timeline[0] (line 16)"},
		{"config variables apart", "- {at: 1h, do: {real_time_config: {agent: support, variables: {a: 1}}}}\n- {at: 1h, do: {real_time_config: {agent: support, variables: {b: 3}}}}\n" +
			"- {at: 1h, do: {real_time_config: {agent: support, environment: sandbox, variables: {a: 3}}}}", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			doc := timelineBase + "timeline:\n" + indentLines(tt.timeline, "  ")
			got := strings.Join(problems(t, doc), "\n")
			if got != tt.want {
				t.Errorf("problems:\n%s\nwant:\n%s", got, tt.want)
			}
		})
	}
}

// TestOverlapAt: the search over two repetitions, walked and by
// arithmetic.
func TestOverlapAt(t *testing.T) {
	t.Parallel()
	const h = int64(time.Hour)
	tests := []struct {
		name   string
		a, b   spans
		budget int64
		at     int64
		found  bool
	}{
		{"two points apart", spans{start: h, length: 1, n: 1}, spans{start: 2 * h, length: 1, n: 1}, 100, 0, false},
		{"two points together", spans{start: h, length: 1, n: 1}, spans{start: h, length: 1, n: 1}, 100, h, true},
		{"a window holds a point", spans{start: h, length: h, n: 1}, spans{start: 90 * h / 60, length: 1, n: 1}, 100, 90 * h / 60, true},
		{"a repetition reaches a point", spans{start: 0, every: h, length: 1, n: -1}, spans{start: 5 * h, length: 1, n: 1}, 100, 5 * h, true},
		{"a bounded repetition stops short", spans{start: 0, every: h, length: 1, n: 3}, spans{start: 5 * h, length: 1, n: 1}, 100, 0, false},
		{"repetitions meet at the lcm", spans{start: 0, every: 2 * h, length: 1, n: -1}, spans{start: 0, every: 3 * h, length: 1, n: -1}, 100, 0, true},
		{"repetitions meet later", spans{start: h, every: 2 * h, length: 1, n: -1}, spans{start: 0, every: 3 * h, length: 1, n: -1}, 100, 3 * h, true},
		{"repetitions never meet", spans{start: 0, every: 2 * h, length: 1, n: -1}, spans{start: h, every: 4 * h, length: 1, n: -1}, 100, 0, false},
		{"arithmetic past the budget", spans{start: 0, every: 1000 * h, length: 1, n: -1}, spans{start: 7, every: 1000*h + 1, length: 1, n: -1}, 3, -1, true},
		{"arithmetic says never", spans{start: 0, every: 2 * h, length: 1, n: -1}, spans{start: 1, every: 2 * h, length: 1, n: -1}, 3, 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			at, found := overlapAt(tt.a, tt.b, tt.budget)
			if at != tt.at || found != tt.found {
				t.Errorf("overlapAt = %d, %v; want %d, %v", at, found, tt.at, tt.found)
			}
		})
	}
}

// TestTimelineLayer: a layer's references wait for its base; merged onto
// it they are resolved, or refused at the layer's own positions.
func TestTimelineLayer(t *testing.T) {
	t.Parallel()
	layer := mustParse(t, "layer.yaml", y(`
		timeline:
		  - {from: 0m, until: 1h, traffic: {project: "2001", chats_per_minute: 5}}
		  - {at: 10m, for: 10m, fault: {match: {family: chat}, action: {status: 502}}}
	`))
	if !layer.IsLayer() || layer.Timeline[0].Traffic.Project != "2001" || layer.Timeline[0].Traffic.Account != "" {
		t.Fatalf("a layer's references are left as written: %+v", layer.Timeline[0].Traffic)
	}
	base := mustParse(t, "base.yaml", timelineBase)
	got, err := testVoc.Compose(base, layer)
	if err != nil {
		t.Fatal(err)
	}
	if tr := got.Timeline[0].Traffic; tr.Account != "acme" || tr.Project != "support" {
		t.Errorf("merged: account %q, project %q; want acme, support", tr.Account, tr.Project)
	}
	if tr := layer.Timeline[0].Traffic; tr.Account != "" || tr.Project != "2001" {
		t.Errorf("the merge wrote into its input: %+v", tr)
	}

	bad := mustParse(t, "bad.yaml", "name: x\ntimeline:\n  - {until: 1h, traffic: {project: sales, chats_per_minute: 5}}\n")
	_, err = testVoc.Compose(base, bad)
	want := `bad.yaml:3:36: timeline[0].traffic.project: unknown project "sales"`
	if err == nil || err.Error() != want {
		t.Errorf("Compose = %v, want %s", err, want)
	}
}

// TestTimelineMerge: timelines are appended in order; ids are unique
// across files, reported where the second one is.
func TestTimelineMerge(t *testing.T) {
	t.Parallel()
	a := mustParse(t, "a.yaml", timelineBase+y(`
		faults:
		  - {id: f1, action: {status: 500}}
		timeline:
		  - {id: one, at: 1m, do: {evaluate_alerts: true}}
	`))
	b := mustParse(t, "b.yaml", y(`
		timeline:
		  - {id: two, at: 2m, do: {evaluate_alerts: true}}
		  - {id: three, at: 3m, do: {evaluate_alerts: true}}
	`))
	m, err := testVoc.Merge(a, b)
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, e := range m.Timeline {
		ids = append(ids, e.ID)
	}
	if diff := cmp.Diff([]string{"one", "two", "three"}, ids); diff != "" {
		t.Errorf("merged ids (-want +got):\n%s", diff)
	}
	if e := m.ErrorAt("x", "timeline", 2, "at"); e.File != "b.yaml" || e.Line != 3 {
		t.Errorf("ErrorAt(timeline[2].at) = %v, want b.yaml:3", e)
	}

	c := mustParse(t, "c.yaml", y(`
		timeline:
		  - {at: 5m, do: {evaluate_alerts: true}}
		  - {id: one, at: 2m, do: {evaluate_alerts: true}}
		  - {at: 10m, for: 1m, fault: {id: f1, action: {status: 503}}}
	`))
	_, err = testVoc.Merge(a, c)
	want := `c.yaml:3:10: timeline[1].id: duplicate timeline id "one" (first at a.yaml:18)` + "\n" +
		`c.yaml:4:36: timeline[2].fault.id: duplicate fault id "f1" (first at a.yaml:16)`
	if err == nil || err.Error() != want {
		t.Errorf("Merge:\n%v\nwant:\n%s", err, want)
	}
}

// TestTimelineBounds: the count of entries and the traffic expected are
// bounded, for files and for scenarios built in Go.
func TestTimelineBounds(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := range MaxTimelineEntries + 1 {
		fmt.Fprintf(&b, "  - {at: %ds, do: {evaluate_alerts: true}}\n", i)
	}
	got := problems(t, "timeline:\n"+b.String())
	if want := "t.yaml:1002:5: timeline[1000]: more than 1000 timeline entries (there are 1001)"; len(got) != 1 || got[0] != want {
		t.Errorf("problems %v, want %s", got, want)
	}

	// 600 a minute for two days is 1.7 million conversations.
	got = problems(t, timelineBase+"timeline:\n  - {until: 48h, traffic: {project: support, chats_per_minute: 600}}\n")
	if want := "t.yaml:16:27: timeline[0].traffic: more than 1000000 conversations of background traffic in the timeline (expected from the rates)"; len(got) != 1 || got[0] != want {
		t.Errorf("problems %v, want %s", got, want)
	}

	inGo := &Scenario{Timeline: []TimelineEntry{{Until: dur(time.Hour), Calls: &CallTraffic{Number: "+14155550150", CallsPerMinute: 601,
		Flow: Flow{Turns: Range{1, 101}, Messages: make([]string, MaxTrafficMessages+1)}}}}}
	err := CheckBounds(inGo)
	want := strings.Join([]string{
		"<scenario>:1:1: timeline[0].calls.calls_per_minute: must be at most 600 per minute (it is 601)",
		"<scenario>:1:1: timeline[0].calls.turns: must be at most 100 (it is 101)",
		"<scenario>:1:1: timeline[0].calls.messages[1000]: more than 1000 messages (there are 1001)",
	}, "\n")
	var errs Errors
	if !errors.As(err, &errs) || err.Error() != want {
		t.Errorf("CheckBounds:\n%v\nwant:\n%s", err, want)
	}
}

func TestRangeText(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		in, out string
		want    Range
		err     bool
	}{
		{"2-6", "2-6", Range{2, 6}, false},
		{"3", "3", Range{3, 3}, false},
		{" 1 - 4 ", "1-4", Range{1, 4}, false},
		{"4-4", "4", Range{4, 4}, false},
		{"6-2", "", Range{}, true},
		{"-1", "", Range{}, true},
		{"a-b", "", Range{}, true},
		{"", "", Range{}, true},
	} {
		var r Range
		err := r.UnmarshalText([]byte(tc.in))
		if (err != nil) != tc.err || r != tc.want {
			t.Errorf("Range %q: %v, %v; want %v, error %v", tc.in, r, err, tc.want, tc.err)
			continue
		}
		if b, _ := r.MarshalText(); !tc.err && string(b) != tc.out {
			t.Errorf("Range %q marshals as %q, want %q", tc.in, b, tc.out)
		}
	}
	for _, tc := range []struct {
		in, out string
		want    DurationSpan
		err     bool
	}{
		{"10s-30s", "10s-30s", DurationSpan{dur(10 * time.Second), dur(30 * time.Second)}, false},
		{"20s", "20s", DurationSpan{dur(20 * time.Second), dur(20 * time.Second)}, false},
		{"1m - 1h30m", "1m0s-1h30m0s", DurationSpan{dur(time.Minute), dur(90 * time.Minute)}, false},
		{"0s", "0s", DurationSpan{}, false},
		{"30s-10s", "", DurationSpan{}, true},
		{"5", "", DurationSpan{}, true},
		{"-5s", "", DurationSpan{}, true},
	} {
		var d DurationSpan
		err := d.UnmarshalText([]byte(tc.in))
		if (err != nil) != tc.err || d != tc.want {
			t.Errorf("DurationSpan %q: %v, %v; want %v, error %v", tc.in, d, err, tc.want, tc.err)
			continue
		}
		if b, _ := d.MarshalText(); !tc.err && string(b) != tc.out {
			t.Errorf("DurationSpan %q marshals as %q, want %q", tc.in, b, tc.out)
		}
	}
}

// TestTimelineJSON: the timeline as GET /_mock/scenario shows it, fault
// predicates on credentials redacted, the scenario itself unchanged.
func TestTimelineJSON(t *testing.T) {
	t.Parallel()
	s := mustParse(t, "t.yaml", timelineBase+y(`
		timeline:
		  - {id: w, at: 1m, for: 1m, fault: {match: {headers: {X-Api-Key: secret}}, action: {status: 502}}}
		  - {until: 1h, calls: {number: "+14155550150", calls_per_minute: 2, turns: 1-3, think: 5s-10s, messages: [hi]}}
	`))
	b, err := json.Marshal(s.Redacted().Timeline)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"id":"w","at":"1m0s","for":"1m0s","fault":{"match":{"headers":{"X-Api-Key":"[REDACTED]"}},"action":{"status":502}}},` +
		`{"until":"1h0m0s","calls":{"number":"+14155550150","calls_per_minute":2,"arrivals":"poisson","turns":"1-3","think":"5s-10s","messages":["hi"]}}]`
	if string(b) != want {
		t.Errorf("JSON\n got %s\nwant %s", b, want)
	}
	if s.Timeline[0].Fault.Match.Headers["X-Api-Key"] != "secret" {
		t.Error("Redacted changed the scenario")
	}
}

// TestTimelineFaultsApply: a valid timeline's fault windows are accepted
// by the fault set, so that a valid scenario always applies.
func TestTimelineFaultsApply(t *testing.T) {
	t.Parallel()
	s := mustParse(t, "t.yaml", timelineBase+y(`
		timeline:
		  - {at: 1m, for: 1m, every: 1h, until: 5h, fault: {match: {family: chat, path: "/v1/*/*/chat/**"}, action: {preset: "outbound.outcome:busy"}}}
	`))
	set := faults.NewSet(testVoc.Faults, 1)
	e := s.Timeline[0]
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	w := faults.Window{Start: start.Add(e.At.D()), For: e.For, Every: e.Every, Stop: start.Add(e.Until.D())}
	if _, err := set.AddWindowed(*e.Fault, w); err != nil {
		t.Fatal(err)
	}
}

// TestTimelineSchema: the JSON schema accepts a timeline of every kind
// and refuses what the loader refuses, at the same place.
func TestTimelineSchema(t *testing.T) {
	t.Parallel()
	sch := compiledSchema(t)
	good := timelineBase + y(`
		timeline:
		  - {id: outage, at: 10m, for: 10m, fault: {match: {family: chat}, action: {status: 502}}}
		  - {at: 1m, for: 1m, every: 1h, until: 5h, fault: {action: {status: 503}}}
		  - {from: 0m, until: 2h, traffic: {project: support, chats_per_minute: 5, ramp_to: 40, channel: webchat, turns: 2-6, think: 5s-10s}}
		  - {until: 1h, calls: {number: "+14155550150", calls_per_minute: 1.5, turns: 3, arrivals: even}}
		  - {until: 1h, sessions: {project: support, sessions_per_minute: 2, messages: [hi]}}
		  - {at: 30m, do: {webhook_receiver: down, for: 15m, status: 500, endpoint: ops}}
		  - {every: 1h, do: {outbound_campaign: {project: support, first: "+15550100000", count: 3, pace: 0s}}}
		  - {at: 2h, do: {promote: {agent: support, to: live}}}
		  - {at: 1h, do: {inbound_call: {number: "+14155550100", say: [hi]}}}
		  - {at: 3h, do: {real_time_config: {agent: support, variables: {hours: "24/7"}}}}
		  - {at: 3h, do: {external_event: {project: support, event_id: order-1}}}
		  - {at: 4h, do: {api_errors: {project: support, count: 3}}}
		  - {at: 4h, do: {expire_messaging_tokens: true}}
	`)
	mustParse(t, "good.yaml", good)
	if err := sch.Validate(instance(t, []byte(good))); err != nil {
		t.Fatalf("the schema refuses a valid timeline:\n%v", err)
	}
	for _, tc := range []struct {
		name, entry string
		loader      string // in the loader's message
		at          string // the schema's instance location
	}{
		{"two kinds", `{fault: {action: {status: 500}}, do: {evaluate_alerts: true}}`, "an entry is one of", "/timeline/0"},
		{"no kind", `{at: 1m}`, "entry does nothing", "/timeline/0"},
		{"traffic without until", `{traffic: {project: support, chats_per_minute: 1}}`, "required (traffic stops at until)", "/timeline/0"},
		{"traffic at", `{at: 1m, until: 1h, traffic: {project: support, chats_per_minute: 1}}`, "at is not for traffic", "/timeline/0"},
		{"fault from", `{from: 1m, fault: {action: {status: 500}}}`, "from is not for fault windows", "/timeline/0"},
		{"rate", `{until: 1h, calls: {number: "+14155550150", calls_per_minute: 601}}`, "must be at most 600", "/timeline/0/calls/calls_per_minute"},
		{"turns", `{until: 1h, sessions: {project: support, sessions_per_minute: 1, turns: 0}}`, "want at least 1 message", "/timeline/0/sessions/turns"},
		{"think", `{until: 1h, traffic: {project: support, chats_per_minute: 1, think: soon}}`, "invalid duration range", "/timeline/0/traffic/think"},
		{"two actions", `{do: {evaluate_alerts: true, expire_messaging_tokens: true}}`, "one action per entry", "/timeline/0/do"},
		{"receiver status elsewhere", `{do: {evaluate_alerts: true, status: 503}}`, "status is only for webhook_receiver", "/timeline/0/do"},
		{"receiver state", `{do: {webhook_receiver: flaky}}`, `unknown value "flaky"`, "/timeline/0/do/webhook_receiver"},
		{"campaign numbers and first", `{do: {outbound_campaign: {project: support, numbers: ["+15550100000"], first: "+15550100000", count: 2}}}`,
			"not both", "/timeline/0/do/outbound_campaign"},
		{"promote target", `{do: {promote: {agent: support, to: sandbox}}}`, `unknown environment "sandbox"`, "/timeline/0/do/promote/to"},
		{"event id", `{do: {external_event: {project: support, event_id: "a b"}}}`, "without whitespace", "/timeline/0/do/external_event/event_id"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := timelineBase + "timeline:\n  - " + tc.entry + "\n"
			_, err := testVoc.Parse("t.yaml", []byte(doc))
			if err == nil || !strings.Contains(err.Error(), tc.loader) {
				t.Errorf("loader: got %v, want a problem containing %q", err, tc.loader)
			}
			err = sch.Validate(instance(t, []byte(doc)))
			if err == nil {
				t.Fatalf("the schema accepts it")
			}
			if !schemaErrorAt(err, tc.at) {
				t.Errorf("schema: no problem at %s:\n%v", tc.at, err)
			}
		})
	}
}

// TestConversationLength: a background conversation lasts at most an
// hour.
func TestConversationLength(t *testing.T) {
	t.Parallel()
	got := problems(t, timelineBase+"timeline:\n  - {until: 2h, traffic: {project: support, chats_per_minute: 1, turns: 10-20, think: 1m-3m}}\n")
	want := "t.yaml:16:87: timeline[0].traffic.think: a conversation may last 1h3m0s ((turns + 1) × think), more than 1h0m0s"
	if len(got) != 1 || got[0] != want {
		t.Errorf("problems %v, want %s", got, want)
	}
}
