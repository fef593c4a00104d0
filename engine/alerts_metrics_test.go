package engine

import (
	"testing"

	"github.com/agentplatform/mockplatform/store"
)

// TestNoteRuntimeAnswer: an answer of status 500 or more naming an
// account and project of the account's runtime region is an API error of
// the project at the request's time; any other answer records nothing.
func TestNoteRuntimeAnswer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		ans  RuntimeAnswer
		want int64
	}{
		{"500 by slugs", RuntimeAnswer{Region: "us-1", Account: "acme", Project: "support", Status: 500}, 1},
		{"503 by path ids", RuntimeAnswer{Region: "us-1", Account: "ACCOUNT-1001", Project: "PROJECT-2001", Status: 503}, 1},
		{"499", RuntimeAnswer{Region: "us-1", Account: "acme", Project: "support", Status: 499}, 0},
		{"another account's region", RuntimeAnswer{Region: "uk-1", Account: "acme", Project: "support", Status: 500}, 0},
		{"unknown region", RuntimeAnswer{Region: "mars-1", Account: "acme", Project: "support", Status: 500}, 0},
		{"unknown account", RuntimeAnswer{Region: "us-1", Account: "nope", Project: "support", Status: 500}, 0},
		{"unknown project", RuntimeAnswer{Region: "us-1", Account: "acme", Project: "nope", Status: 500}, 0},
		{"no project", RuntimeAnswer{Region: "us-1", Account: "acme", Status: 500}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e := openTestEngine(t)
			now := e.clock.Now()
			tc.ans.At = now
			e.NoteRuntimeAnswer(tc.ans)
			m, err := e.store.QueryMetrics(store.MetricsQuery{
				Projects: []store.ProjectRef{{Region: "us", AccountID: "1001", ProjectID: "2001"}}, From: now, To: now})
			if err != nil {
				t.Fatal(err)
			}
			if m.APIErrors != tc.want {
				t.Fatalf("api errors %d, want %d", m.APIErrors, tc.want)
			}
		})
	}
}
