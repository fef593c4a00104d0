package handlers

import (
	"fmt"
	"testing"
)

// BenchmarkPublish1000Topics: publishing a main branch with 1,000
// knowledge-base topics.
func BenchmarkPublish1000Topics(b *testing.B) {
	h := newHarness(b)
	var d agentDoc
	if err := h.store.GetDoc(docAgent, "us", "2001", &d); err != nil {
		b.Fatal(err)
	}
	main := d.branch(mainBranch)
	for i := range 1000 {
		main.Content.Topics = append(main.Content.Topics, &topicRec{ID: fmt.Sprintf("TOPICS-%08x", i), Name: fmt.Sprint("topic ", i),
			Content: "Some content of a knowledge-base topic, a sentence or two long, for the benchmark.", ExampleQueries: exampleQuries{Queries: []string{"q1", "q2"}}, IsActive: true})
	}
	if err := h.store.PutDoc(docAgent, "us", "2001", &d); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		r := h.do("POST", agentsBase+"/support/deployments/publish", nil, builderHeaders...)
		if r.Status != 201 {
			b.Fatalf("status %d", r.Status)
		}
		b.StopTimer()
		// Keep the deployment list short so that every iteration measures
		// the same work.
		_ = h.store.UpdateDoc(docAgent, "us", "2001", &d, func() error { d.Deployments = d.Deployments[:0]; return nil })
		b.StartTimer()
	}
}
