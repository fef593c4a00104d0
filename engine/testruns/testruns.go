package testruns

// Test runs (docs/api.md#agents-testing; docs/fidelity.md G30): a run plays
// the agent's test cases against a branch's current content, each as a
// debug chat, one message per TestTurnTime on the virtual clock; a finished
// case is judged and joins the test history.

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/agentplatform/mockplatform/engine/core"
	"github.com/agentplatform/mockplatform/scenario"
	"github.com/agentplatform/mockplatform/store"
)

// Service is one instance's test runs.
type Service struct {
	env    core.Env
	agents Agents
}

// Agents is what test runs need of the Agents API.
type Agents interface {
	// Agent resolves an agent of the principal's account (404 or 403).
	Agent(p *core.Principal, agent string) (Agent, error)
}

// Agent is a resolved agent: its ids, its branches and its debug chats.
type Agent interface {
	AccountID() string
	ID() string
	// Branch resolves a branch id ("" is main), or the Agents API's 404.
	Branch(id string) (string, error)
	// Opener fixes a branch's content now (in sandbox) for a run's debug
	// chats and returns what opens one.
	Opener(p *core.Principal, branch string) (func(state map[string]any) (*store.Conversation, error), error)
	// Say takes the user's turn in a debug chat on a branch.
	Say(p *core.Principal, branch, id, text string) (*store.Conversation, error)
}

// New returns the test runs of an instance.
func New(env core.Env, agents Agents) *Service { return &Service{env: env, agents: agents} }

// DocTestRun is the store kind of test runs: id = run id.
const DocTestRun = "test_run"

// TestTurnTime is the virtual time between two messages of a case.
const TestTurnTime = time.Second

// Test run error codes and messages.
const (
	CodeTestRunNotFound  = "TEST_RUN_NOT_FOUND"
	CodeTestCaseNotFound = "TEST_CASE_NOT_FOUND"
	MsgTestRunNotFound   = "Test run not found."
	MsgTestCaseNotFound  = "Test cases not found: %s."
)

// Statuses of runs and cases.
const (
	testRunning   = "running"
	testCompleted = "completed"
	testPassed    = "passed"
	testFailed    = "failed"
	testError     = "error"
)

// TestRunBody is the body of a trigger (the kit's trigger_test_run).
type TestRunBody struct {
	TestCaseIDs []string `json:"testCaseIds"`
	BranchID    *string  `json:"branchId"`
}

func (TestRunBody) FieldRules() map[string]core.FieldRule {
	return map[string]core.FieldRule{
		"testCaseIds": {Required: true, MinItems: 1, Doc: "Ids of the agent's test cases (scenario agent.test_cases)."},
		"branchId":    {Doc: "The branch whose current content answers (a branch id or main; default main)."},
	}
}

type testRunDoc struct {
	ID        string     `json:"id"`
	Region    string     `json:"region"`
	AccountID string     `json:"account_id"`
	AgentID   string     `json:"agent_id"`
	Branch    string     `json:"branch"`
	StartedAt time.Time  `json:"started_at"`
	StartedBy string     `json:"started_by"`
	Cases     []*caseRun `json:"cases"`
}

type caseRun struct {
	CaseID       string                   `json:"case_id"`
	Name         string                   `json:"name"`
	Conversation string                   `json:"conversation"`
	Turns        []string                 `json:"turns"`
	Assertions   []scenario.TestAssertion `json:"assertions,omitempty"`
	Said         int                      `json:"said"`
	Status       string                   `json:"status"`
	FinishedAt   time.Time                `json:"finished_at"`
	Results      TestResults              `json:"results"`
	Raw          TestRawConversation      `json:"raw"`
}

// Answers (the names the kit reads).
type (
	// TestRunStarted is a trigger's answer.
	TestRunStarted struct {
		ID            string `json:"id"`
		TestCaseCount int    `json:"test_case_count"`
	}
	// TestRunSummary is a run in the list.
	TestRunSummary struct {
		ID            string `json:"id"`
		Status        string `json:"status"`
		BranchID      string `json:"branchId"`
		TestCaseCount int    `json:"testCaseCount"`
		PassedCount   int    `json:"passedCount"`
		FailedCount   int    `json:"failedCount"`
		ErrorCount    int    `json:"errorCount"`
		StartedAt     string `json:"startedAt"`
		StartedBy     string `json:"startedBy"`
	}
	// TestRunDetail is a run with the entries of its finished cases.
	TestRunDetail struct {
		TestRunSummary
		TestHistory []TestHistoryEntry `json:"testHistory"`
	}
	TestRunList struct {
		TestRuns []TestRunSummary `json:"testRuns"`
	}
	TestHistoryPage struct {
		TestHistory []TestHistoryEntry `json:"testHistory"`
	}
	// TestHistoryEntry is a finished case of a run.
	TestHistoryEntry struct {
		TestCaseID       string              `json:"testCaseId"`
		TestRunID        string              `json:"testRunId"`
		BranchID         string              `json:"branchId"`
		Status           string              `json:"status"`
		TestCaseSnapshot TestCaseSnapshot    `json:"testCaseSnapshot"`
		Results          TestResults         `json:"results"`
		RawConversation  TestRawConversation `json:"rawConversation"`
		FinishedAt       string              `json:"finishedAt"`
	}
	TestCaseSnapshot struct {
		Name  string   `json:"name"`
		Turns []string `json:"turns"`
	}
	TestResults struct {
		PromptAssertionResults []PromptAssertionResult `json:"prompt_assertion_results"`
		FunctionCallFailures   []FunctionCallFailure   `json:"function_call_failures"`
	}
	PromptAssertionResult struct {
		Prompt string `json:"prompt"`
		IsPass bool   `json:"is_pass"`
		Reason string `json:"reason"`
	}
	FunctionCallFailure struct {
		Name          string `json:"name"`
		FailureReason string `json:"failure_reason"`
		Error         string `json:"error"`
	}
	TestRawConversation struct {
		ID    string        `json:"id"`
		Turns []TestRawTurn `json:"turns"`
	}
	TestRawTurn struct {
		UserInput     string             `json:"user_input"`
		AgentResponse string             `json:"agent_response"`
		FunctionCalls []TestFunctionCall `json:"function_calls"`
	}
	TestFunctionCall struct {
		Name      string         `json:"name"`
		Arguments map[string]any `json:"arguments"`
	}
)

// Trigger starts a run of the agent's test cases ids on a branch (default
// main): 400 for no or unknown ids, 404 for an unknown branch.
func (s *Service) Trigger(p *core.Principal, agent string, b TestRunBody) (TestRunStarted, error) {
	if len(b.TestCaseIDs) == 0 {
		msg := "must hold at least 1 id"
		if b.TestCaseIDs == nil {
			msg = "is required"
		}
		return TestRunStarted{}, core.Invalid(core.CodeValidation, core.MsgValidationFailed, core.FieldError{Field: "testCaseIds", Message: msg})
	}
	ag, err := s.agents.Agent(p, agent)
	if err != nil {
		return TestRunStarted{}, err
	}
	var all []scenario.TestCase
	if proj := p.Account.Project(ag.ID()); proj != nil && proj.Agent != nil {
		all = proj.Agent.TestCases
	}
	var cases []scenario.TestCase
	var unknown []string
	var fields []core.FieldError
	for i, id := range b.TestCaseIDs {
		k := slices.IndexFunc(all, func(tc scenario.TestCase) bool { return tc.ID == id })
		switch {
		case k < 0:
			unknown = append(unknown, id)
			fields = append(fields, core.FieldError{Field: fmt.Sprintf("testCaseIds/%d", i), Message: "unknown test case"})
		case !slices.ContainsFunc(cases, func(tc scenario.TestCase) bool { return tc.ID == id }):
			cases = append(cases, all[k])
		}
	}
	if len(unknown) > 0 {
		return TestRunStarted{}, core.Invalid(CodeTestCaseNotFound, fmt.Sprintf(MsgTestCaseNotFound, strings.Join(unknown, ", ")), fields...)
	}
	branch, err := ag.Branch(core.Deref(b.BranchID))
	if err != nil {
		return TestRunStarted{}, err
	}
	id, err := s.start(p, ag, branch, "api", cases)
	if err != nil {
		return TestRunStarted{}, err
	}
	return TestRunStarted{ID: id, TestCaseCount: len(cases)}, nil
}

// TestDeployment runs every test case of the agent on main, as a publish
// does, and returns the runs' ids.
func (s *Service) TestDeployment(p *core.Principal, agent string) ([]string, error) {
	ag, err := s.agents.Agent(p, agent)
	if err != nil {
		return nil, err
	}
	proj := p.Account.Project(ag.ID())
	if proj == nil || proj.Agent == nil || len(proj.Agent.TestCases) == 0 {
		return []string{}, nil
	}
	main, err := ag.Branch("")
	if err != nil {
		return nil, err
	}
	id, err := s.start(p, ag, main, "deployment", proj.Agent.TestCases)
	if err != nil {
		return nil, err
	}
	return []string{id}, nil
}

// start stores a run whose cases have greeted and arms their first messages.
func (s *Service) start(p *core.Principal, ag Agent, branch, by string, cases []scenario.TestCase) (string, error) {
	open, err := ag.Opener(p, branch)
	if err != nil {
		return "", err
	}
	now := s.env.Clock.Now()
	run := &testRunDoc{ID: s.env.IDs.NewUUIDv7(now), Region: p.Region, AccountID: ag.AccountID(), AgentID: ag.ID(),
		Branch: branch, StartedAt: now, StartedBy: by}
	for _, tc := range cases {
		conv, err := open(map[string]any{"debug": true, "branch_id": branch, "test_run_id": run.ID, "test_case_id": tc.ID})
		if err != nil {
			return "", err
		}
		c := &caseRun{CaseID: tc.ID, Name: tc.Name, Conversation: conv.ID, Turns: tc.Turns, Assertions: tc.Assertions, Status: testRunning}
		if len(tc.Turns) == 0 { // nothing to say (a scenario built in Go, unchecked): judged on the greeting
			c.FinishedAt = now
			c.judge(conv)
		}
		run.Cases = append(run.Cases, c)
	}
	if err := s.env.Store.InsertDoc(DocTestRun, p.Region, run.ID, run); err != nil {
		return "", err
	}
	s.arm(run)
	return run.ID, nil
}

func (s *Service) arm(run *testRunDoc) {
	for i, c := range run.Cases {
		if c.Status == testRunning {
			region, id := run.Region, run.ID
			s.env.Clock.At(run.StartedAt.Add(time.Duration(c.Said+1)*TestTurnTime), func(now time.Time) { s.step(region, id, i, now) })
		}
	}
}

// Reset arms the runs the restored store holds.
func (s *Service) Reset() {
	for _, region := range scenario.Regions {
		var runs []*testRunDoc
		err := store.ListDocs(s.env.Store, DocTestRun, region, func(_ string, r *testRunDoc) bool {
			runs = append(runs, r)
			return true
		})
		if err != nil {
			s.env.Log.Error("test runs: rearm", "region", region, "err", err)
		}
		for _, r := range runs {
			s.arm(r)
		}
	}
}

// step says case i's next message, or judges the case after its last.
func (s *Service) step(region, runID string, i int, now time.Time) {
	var run testRunDoc
	if err := s.env.Store.GetDoc(DocTestRun, region, runID, &run); err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			s.env.Log.Error("test run step", "run", runID, "err", err)
		}
		return
	}
	if i >= len(run.Cases) || run.Cases[i].Status != testRunning {
		return
	}
	c := run.Cases[i]
	var conv *store.Conversation
	var stepErr error
	if acct := s.env.View().Account(run.AccountID); acct == nil {
		stepErr = errors.New("the run's account is gone")
	} else {
		p := &core.Principal{Account: acct, Region: region}
		var ag Agent
		if ag, stepErr = s.agents.Agent(p, run.AgentID); stepErr == nil {
			conv, stepErr = ag.Say(p, run.Branch, c.Conversation, c.Turns[c.Said])
		}
	}
	err := s.env.Store.UpdateDoc(DocTestRun, region, runID, &run, func() error {
		c := run.Cases[i]
		c.Said++
		switch {
		case stepErr != nil:
			c.Status, c.FinishedAt = testError, now
			c.Results = TestResults{PromptAssertionResults: []PromptAssertionResult{}, FunctionCallFailures: []FunctionCallFailure{}}
			c.Raw = TestRawConversation{ID: c.Conversation, Turns: []TestRawTurn{}}
		case c.Said == len(c.Turns) || !conv.InProgress:
			c.FinishedAt = now
			c.judge(conv)
		}
		return nil
	})
	if err != nil {
		s.env.Log.Error("test run step", "run", runID, "err", err)
		return
	}
	if c := run.Cases[i]; c.Status == testRunning {
		s.env.Clock.At(now.Add(TestTurnTime), func(now time.Time) { s.step(region, runID, i, now) })
	}
}

// judge sets a finished case's results: a reply assertion passes when some
// reply contains its text, a function call one when its rule answered; a
// conversation ended early is an error.
func (c *caseRun) judge(conv *store.Conversation) {
	c.Results = TestResults{PromptAssertionResults: []PromptAssertionResult{}, FunctionCallFailures: []FunctionCallFailure{}}
	c.Raw = TestRawConversation{ID: conv.ID, Turns: []TestRawTurn{}}
	for _, t := range conv.Turns {
		calls := []TestFunctionCall{}
		for _, r := range t.Intents {
			calls = append(calls, TestFunctionCall{Name: r, Arguments: map[string]any{}})
		}
		c.Raw.Turns = append(c.Raw.Turns, TestRawTurn{UserInput: t.UserInput, AgentResponse: t.AgentResponse, FunctionCalls: calls})
	}
	pass := true
	for _, as := range c.Assertions {
		switch {
		case as.ReplyContains != "":
			r := PromptAssertionResult{Prompt: "The agent says: " + as.ReplyContains,
				Reason: fmt.Sprintf("No reply contains %q.", as.ReplyContains)}
			for k, t := range conv.Turns {
				if strings.Contains(strings.ToLower(t.AgentResponse), strings.ToLower(as.ReplyContains)) {
					r.IsPass, r.Reason = true, fmt.Sprintf("Reply %d contains %q.", k+1, as.ReplyContains)
					break
				}
			}
			pass = pass && r.IsPass
			c.Results.PromptAssertionResults = append(c.Results.PromptAssertionResults, r)
		default:
			if !slices.ContainsFunc(conv.Turns, func(t store.Turn) bool { return slices.Contains(t.Intents, as.FunctionCall) }) {
				pass = false
				c.Results.FunctionCallFailures = append(c.Results.FunctionCallFailures, FunctionCallFailure{Name: as.FunctionCall,
					FailureReason: "The function was not called."})
			}
		}
	}
	switch {
	case c.Said < len(c.Turns):
		c.Status = testError
	case pass:
		c.Status = testPassed
	default:
		c.Status = testFailed
	}
}

func (r *testRunDoc) summary() TestRunSummary {
	s := TestRunSummary{ID: r.ID, Status: testCompleted, BranchID: r.Branch, TestCaseCount: len(r.Cases),
		StartedAt: core.FmtAgentTime(r.StartedAt), StartedBy: r.StartedBy}
	for _, c := range r.Cases {
		switch c.Status {
		case testRunning:
			s.Status = testRunning
		case testPassed:
			s.PassedCount++
		case testFailed:
			s.FailedCount++
		case testError:
			s.ErrorCount++
		}
	}
	return s
}

func (r *testRunDoc) entry(c *caseRun) TestHistoryEntry {
	return TestHistoryEntry{TestCaseID: c.CaseID, TestRunID: r.ID, BranchID: r.Branch, Status: c.Status,
		TestCaseSnapshot: TestCaseSnapshot{Name: c.Name, Turns: c.Turns}, Results: c.Results, RawConversation: c.Raw,
		FinishedAt: core.FmtAgentTime(c.FinishedAt)}
}

func (s *Service) runs(p *core.Principal, agent string) ([]*testRunDoc, error) {
	ag, err := s.agents.Agent(p, agent)
	if err != nil {
		return nil, err
	}
	var out []*testRunDoc
	err = store.ListDocs(s.env.Store, DocTestRun, p.Region, func(_ string, r *testRunDoc) bool {
		if r.AccountID == ag.AccountID() && r.AgentID == ag.ID() {
			out = append(out, r)
		}
		return true
	})
	slices.SortFunc(out, func(x, y *testRunDoc) int {
		if c := y.StartedAt.Compare(x.StartedAt); c != 0 {
			return c
		}
		return strings.Compare(y.ID, x.ID)
	})
	return out, err
}

// List is a page of the agent's runs, newest first (limit 1 to 100,
// offset, branchId, testSetId: the mock's runs belong to no test set).
func (s *Service) List(p *core.Principal, agent string, vals url.Values) (TestRunList, error) {
	limit, offset, err := core.ReadPage(vals, 100, 100)
	if err != nil {
		return TestRunList{}, err
	}
	runs, err := s.runs(p, agent)
	if err != nil {
		return TestRunList{}, err
	}
	out := TestRunList{TestRuns: []TestRunSummary{}}
	for _, r := range runs {
		if vals.Get("testSetId") == "" && (vals.Get("branchId") == "" || vals.Get("branchId") == r.Branch) {
			out.TestRuns = append(out.TestRuns, r.summary())
		}
	}
	out.TestRuns = out.TestRuns[min(offset, len(out.TestRuns)):min(offset+limit, len(out.TestRuns))]
	return out, nil
}

// Get reads a run with the entries of its finished cases.
func (s *Service) Get(p *core.Principal, agent, id string) (TestRunDetail, error) {
	runs, err := s.runs(p, agent)
	if err != nil {
		return TestRunDetail{}, err
	}
	for _, r := range runs {
		if r.ID == id {
			out := TestRunDetail{TestRunSummary: r.summary(), TestHistory: []TestHistoryEntry{}}
			for _, c := range r.Cases {
				if c.Status != testRunning {
					out.TestHistory = append(out.TestHistory, r.entry(c))
				}
			}
			return out, nil
		}
	}
	return TestRunDetail{}, core.Errf(core.KindNotFound, CodeTestRunNotFound, MsgTestRunNotFound)
}

// History is a page of the finished cases of the agent's runs, newest
// first (limit, offset, testCaseId, branchId).
func (s *Service) History(p *core.Principal, agent string, vals url.Values) (TestHistoryPage, error) {
	limit, offset, err := core.ReadPage(vals, 100, 100)
	if err != nil {
		return TestHistoryPage{}, err
	}
	runs, err := s.runs(p, agent)
	if err != nil {
		return TestHistoryPage{}, err
	}
	type finished struct {
		at time.Time
		e  TestHistoryEntry
	}
	var all []finished
	for _, r := range runs {
		for _, c := range r.Cases {
			if c.Status != testRunning && (vals.Get("testCaseId") == "" || vals.Get("testCaseId") == c.CaseID) &&
				(vals.Get("branchId") == "" || vals.Get("branchId") == r.Branch) {
				all = append(all, finished{c.FinishedAt, r.entry(c)})
			}
		}
	}
	slices.SortStableFunc(all, func(x, y finished) int { return y.at.Compare(x.at) }) // runs are newest first already
	out := TestHistoryPage{TestHistory: []TestHistoryEntry{}}
	for _, f := range all[min(offset, len(all)):min(offset+limit, len(all))] {
		out.TestHistory = append(out.TestHistory, f.e)
	}
	return out, nil
}
