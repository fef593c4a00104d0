package handlers

import (
	"fmt"
	"testing"

	"github.com/agentplatform/mockplatform/engine"
)

// BenchmarkPublish1000Topics: publishing a main branch with 1,000
// knowledge-base topics.
func BenchmarkPublish1000Topics(b *testing.B) {
	h := newHarness(b)
	var d engine.AgentDoc
	if err := h.store.GetDoc(engine.DocAgent, "us", "2001", &d); err != nil {
		b.Fatal(err)
	}
	main := d.Branch(engine.MainBranch)
	for i := range 1000 {
		main.Content.Topics = append(main.Content.Topics, &engine.TopicRec{ID: fmt.Sprintf("TOPICS-%08x", i), Name: fmt.Sprint("topic ", i),
			Content: "Some content of a knowledge-base topic, a sentence or two long, for the benchmark.", ExampleQueries: engine.ExampleQuries{Queries: []string{"q1", "q2"}}, IsActive: true})
	}
	if err := h.store.PutDoc(engine.DocAgent, "us", "2001", &d); err != nil {
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
		_ = h.store.UpdateDoc(engine.DocAgent, "us", "2001", &d, func() error { d.Deployments = d.Deployments[:0]; return nil })
		b.StartTimer()
	}
}
