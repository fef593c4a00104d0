package handlers

// Knowledge-base topics of a branch; the active deployment's answer its
// environment's runtime (the engine's script.go).

import (
	"net/http"

	"github.com/agentplatform/mockplatform/engine"

	"github.com/gin-gonic/gin"
)

var agentTopicsRoutes = []Route{
	route("GET /v1/agents/:agent/branches/:branch/knowledge-base/topics", (*API).handleTopicList, opTopicList),
	route("POST /v1/agents/:agent/branches/:branch/knowledge-base/topics", (*API).handleTopicCreate, opTopicCreate),
	route("GET /v1/agents/:agent/branches/:branch/knowledge-base/topics/:item", (*API).handleTopicGet, opTopicGet),
	route("PATCH /v1/agents/:agent/branches/:branch/knowledge-base/topics/:item", (*API).handleTopicUpdate, opTopicUpdate),
	route("DELETE /v1/agents/:agent/branches/:branch/knowledge-base/topics/:item", (*API).handleTopicDelete, opTopicDelete),
}

var (
	opTopicList = &Op{ID: "topicList", Summary: "List knowledge-base topics",
		Doc: "A bare array (docs/api.md#agents-topics).", Responses: []Response{ok(200, []engine.TopicRec{})}, Errors: []int{404}}
	opTopicCreate = &Op{ID: "topicCreate", Summary: "Create a topic",
		Body: topicBody{}, Responses: []Response{ok(201, engine.TopicRec{})}, Errors: []int{400, 404, 409, 422}}
	opTopicGet = &Op{ID: "topicGet", Summary: "Read a topic",
		Responses: []Response{ok(200, engine.TopicRec{})}, Errors: []int{404}}
	opTopicUpdate = &Op{ID: "topicUpdate", Summary: "Update a topic",
		Body: topicBody{}, BodyPartial: true, Responses: []Response{{Status: 204}}, Errors: []int{400, 404, 409, 422}}
	opTopicDelete = &Op{ID: "topicDelete", Summary: "Delete a topic",
		Responses: []Response{{Status: 204}}, Errors: []int{404, 422}}
)

// topicBody is the body of a topic create or update.
type topicBody struct {
	Name            string               `json:"name"`
	Content         string               `json:"content"`
	Actions         string               `json:"actions"`
	ExampleQueries  engine.ExampleQuries `json:"exampleQueries"`
	IsActive        bool                 `json:"isActive"`
	SampleQuestions any                  `json:"sampleQuestions"`
}

func (topicBody) FieldRules() map[string]engine.FieldRule { return engine.TopicRules }

// --- knowledge-base topics ---

// readTopic validates the topic fields of the body.
func readTopic(c *gin.Context, create bool) (engine.TopicInput, error) {
	var in engine.TopicInput
	f, err := readFields(c, false, engine.BodyFields(topicBody{})...)
	if err != nil {
		return in, err
	}
	if f.has("sampleQuestions") {
		f.fail("sampleQuestions", "is not supported: use exampleQueries")
	}
	if create {
		f.requireAll(topicBody{})
	}
	if s, ok := f.text("name", engine.TopicRules["name"]); ok {
		in.Name = &s
	}
	if s, ok := f.text("content", engine.TopicRules["content"]); ok {
		in.Content = &s
	}
	if s, ok := f.str("actions"); ok {
		in.Actions = &s
	}
	if f.has("exampleQueries") {
		var q engine.ExampleQuries
		if f.object("exampleQueries", &q, "must be an object {queries: [string]}") {
			if len(q.Queries) > engine.MaxExampleQueries {
				f.fail("exampleQueries", "at most %d queries", engine.MaxExampleQueries)
			}
			if q.Queries == nil {
				q.Queries = []string{}
			}
			in.ExampleQueries = &q
		}
	}
	if b, ok := f.boolean("isActive"); ok {
		in.IsActive = &b
	}
	return in, f.err()
}

// handleTopicList handles "GET .../knowledge-base/topics" (a bare array).
func (a *API) handleTopicList(c *gin.Context) error {
	list, err := a.Topics(principal(c), c.Param("agent"), c.Param("branch"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, list)
	return nil
}

// handleTopicCreate handles "POST .../knowledge-base/topics" (201).
func (a *API) handleTopicCreate(c *gin.Context) error {
	in, err := readTopic(c, true)
	if err != nil {
		return err
	}
	t, err := a.CreateTopic(principal(c), c.Param("agent"), c.Param("branch"), in)
	if err != nil {
		return err
	}
	c.JSON(http.StatusCreated, t)
	return nil
}

// handleTopicGet handles "GET .../knowledge-base/topics/{topicId}".
func (a *API) handleTopicGet(c *gin.Context) error {
	t, err := a.Topic(principal(c), c.Param("agent"), c.Param("branch"), c.Param("item"))
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, t)
	return nil
}

// handleTopicUpdate handles "PATCH .../knowledge-base/topics/{topicId}"
// (204, docs/api.md#agents-topics).
func (a *API) handleTopicUpdate(c *gin.Context) error {
	in, err := readTopic(c, false)
	if err != nil {
		return err
	}
	if err := a.UpdateTopic(principal(c), c.Param("agent"), c.Param("branch"), c.Param("item"), in); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}

// handleTopicDelete handles "DELETE .../knowledge-base/topics/{topicId}" (204).
func (a *API) handleTopicDelete(c *gin.Context) error {
	if err := a.DeleteTopic(principal(c), c.Param("agent"), c.Param("branch"), c.Param("item")); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}
