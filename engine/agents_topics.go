package engine

// Knowledge-base topics of a branch (answered by the runtime: script.go).

import (
	"slices"
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

// MaxExampleQueries bounds a topic's example queries.
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

func findTopic(cont *BranchContent, id string) (int, *TopicRec) {
	for i, t := range cont.Topics {
		if t.ID == id {
			return i, t
		}
	}
	return -1, nil
}

func topicNameTaken(cont *BranchContent, name, except string) bool {
	for _, t := range cont.Topics {
		if t.ID != except && strings.EqualFold(t.Name, name) {
			return true
		}
	}
	return false
}

// TopicInput is a topic create or update; nil fields are not given.
type TopicInput struct {
	Name, Content, Actions *string
	ExampleQueries         *ExampleQuries
	IsActive               *bool
}

func (in TopicInput) apply(t *TopicRec) {
	if in.Name != nil {
		t.Name = *in.Name
	}
	if in.Content != nil {
		t.Content = *in.Content
	}
	if in.Actions != nil {
		t.Actions = *in.Actions
	}
	if in.ExampleQueries != nil {
		t.ExampleQueries = *in.ExampleQueries
	}
	if in.IsActive != nil {
		t.IsActive = *in.IsActive
	}
}

func errTopicNotFound() error { return Errf(KindNotFound, CodeTopicNotFound, MsgTopicNotFound) }

func errTopicExists() error { return Errf(KindConflict, CodeTopicExists, MsgTopicExists) }

// Topics lists a branch's knowledge-base topics.
func (a *Engine) Topics(p *Principal, agent, branch string) ([]*TopicRec, error) {
	cont, err := a.readBranch(p, agent, branch)
	if err != nil {
		return nil, err
	}
	return cont.Topics, nil
}

// Topic reads a topic of a branch.
func (a *Engine) Topic(p *Principal, agent, branch, id string) (*TopicRec, error) {
	cont, err := a.readBranch(p, agent, branch)
	if err != nil {
		return nil, err
	}
	_, t := findTopic(cont, id)
	if t == nil {
		return nil, errTopicNotFound()
	}
	return t, nil
}

// CreateTopic adds a topic (active by default) with a name new in the
// branch, in any case.
func (a *Engine) CreateTopic(p *Principal, agent, branch string, in TopicInput) (*TopicRec, error) {
	t := &TopicRec{ExampleQueries: ExampleQuries{Queries: []string{}}, IsActive: true}
	in.apply(t)
	t.ID = a.NewID("TOPICS-", hexDigits, 8)
	if err := a.editBranch(p, agent, branch, func(cont *BranchContent) error {
		if topicNameTaken(cont, t.Name, "") {
			return errTopicExists()
		}
		cont.Topics = append(cont.Topics, t)
		return nil
	}); err != nil {
		return nil, err
	}
	return t, nil
}

// UpdateTopic sets the given fields of a topic (docs/api.md#agents-topics).
func (a *Engine) UpdateTopic(p *Principal, agent, branch, id string, in TopicInput) error {
	return a.editBranch(p, agent, branch, func(cont *BranchContent) error {
		_, t := findTopic(cont, id)
		if t == nil {
			return errTopicNotFound()
		}
		if in.Name != nil && topicNameTaken(cont, *in.Name, id) {
			return errTopicExists()
		}
		in.apply(t)
		return nil
	})
}

// DeleteTopic deletes a topic of a branch.
func (a *Engine) DeleteTopic(p *Principal, agent, branch, id string) error {
	return a.editBranch(p, agent, branch, func(cont *BranchContent) error {
		i, _ := findTopic(cont, id)
		if i < 0 {
			return errTopicNotFound()
		}
		cont.Topics = slices.Delete(cont.Topics, i, i+1)
		return nil
	})
}
