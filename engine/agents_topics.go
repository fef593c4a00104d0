package engine

// Knowledge-base topics of a branch. The topics of the
// deployment active in an environment answer that environment's runtime
// (engine_script.go).

import (
	"strings"
)

var TopicRules = map[string]FieldRule{
	"name":            {Required: true, MinLen: 1, MaxLen: 255, Doc: "Unique in the branch, in any case."},
	"content":         {Required: true, MinLen: 1, MaxLen: BehaviorMaxLen},
	"isActive":        {Doc: "Default true."},
	"sampleQuestions": {Doc: "Refused (400): the field is exampleQueries."},
}

func (ExampleQuries) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{"queries": {MaxItems: MaxExampleQueries}}
}

// maxExampleQueries bounds a topic's example queries.
const MaxExampleQueries = 100

type TopicRec struct {
	ID             string        `json:"id"`
	Name           string        `json:"name"`
	Content        string        `json:"content"`
	Actions        string        `json:"actions"`
	ExampleQueries ExampleQuries `json:"exampleQueries"`
	IsActive       bool          `json:"isActive"`
}

type ExampleQuries struct {
	Queries []string `json:"queries"`
}

func FindTopic(cont *BranchContent, id string) (int, *TopicRec) {
	for i, t := range cont.Topics {
		if t.ID == id {
			return i, t
		}
	}
	return -1, nil
}

func TopicNameTaken(cont *BranchContent, name, except string) bool {
	for _, t := range cont.Topics {
		if t.ID != except && strings.EqualFold(t.Name, name) {
			return true
		}
	}
	return false
}
