package engine

// Test runs (docs/api.md#agents-testing; docs/fidelity.md G30): the kit's
// test runs and test history, which no real document lists (their shapes
// come from the kit's code). A run plays test cases (the scenario's
// projects[].agent.test_cases) against the agent's dialogue on a branch's
// current content, without a deployment, each case as a debug chat
// (debug_chat.go: not live traffic). Every case starts when the run is
// triggered and says its next message each TestTurnTime on the virtual
// clock, inside the Advance that makes it due; when its last message is
// answered (or the conversation ends first) its assertions are judged and
// its entry joins the test history. The run is running until every case
// has finished, then completed.

import (
	"cmp"
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

func (TestRunBody) FieldRules() map[string]FieldRule {
	return map[string]FieldRule{
		"testCaseIds": {Required: true, MinItems: 1, Doc: "Ids of the agent's test cases (scenario agent.test_cases)."},
		"branchId":    {Doc: "The branch whose current content answers (a branch id or main; default main)."},
	}
}

// testRunDoc is a stored run.
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

// caseRun is a case within a run: its script, progress and result.
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

// TriggerTestRun starts a run of the agent's test cases ids on a branch
// (default main): 400 for no ids or unknown ones, 404 for an unknown
// branch.
func (a *Engine) TriggerTestRun(p *Principal, agent string, b TestRunBody) (TestRunStarted, error) {
	if len(b.TestCaseIDs) == 0 {
		msg := "must hold at least 1 id"
		if b.TestCaseIDs == nil {
			msg = "is required"
		}
		return TestRunStarted{}, Invalid(CodeValidation, MsgValidationFailed, FieldError{Field: "testCaseIds", Message: msg})
	}
	d, err := a.Agent(p, agent)
	if err != nil {
		return TestRunStarted{}, err
	}
	var all []scenario.TestCase
	if proj := p.Account.Project(d.AgentID); proj != nil && proj.Agent != nil {
		all = proj.Agent.TestCases
	}
	var cases []scenario.TestCase
	var unknown []string
	var fields []FieldError
	for i, id := range b.TestCaseIDs {
		k := slices.IndexFunc(all, func(tc scenario.TestCase) bool { return tc.ID == id })
		switch {
		case k < 0:
			unknown = append(unknown, id)
			fields = append(fields, FieldError{Field: fmt.Sprintf("testCaseIds/%d", i), Message: "unknown test case"})
		case !slices.ContainsFunc(cases, func(tc scenario.TestCase) bool { return tc.ID == id }):
			cases = append(cases, all[k])
		}
	}
	if len(unknown) > 0 {
		return TestRunStarted{}, Invalid(CodeTestCaseNotFound, fmt.Sprintf(MsgTestCaseNotFound, strings.Join(unknown, ", ")), fields...)
	}
	branch := cmp.Or(Deref(b.BranchID), MainBranch)
	if d.Branch(branch) == nil {
		return TestRunStarted{}, Errf(KindNotFound, CodeBranchNotFound, MsgBranchNotFound)
	}
	id, err := a.startTestRun(p, d, branch, "api", cases)
	if err != nil {
		return TestRunStarted{}, err
	}
	return TestRunStarted{ID: id, TestCaseCount: len(cases)}, nil
}

// TestDeployment runs every test case of the agent on main, as a publish
// does, and returns the runs' ids: none when the agent has no test case.
func (a *Engine) TestDeployment(p *Principal, agent string) ([]string, error) {
	d, err := a.Agent(p, agent)
	if err != nil {
		return nil, err
	}
	proj := p.Account.Project(d.AgentID)
	if proj == nil || proj.Agent == nil || len(proj.Agent.TestCases) == 0 {
		return []string{}, nil
	}
	id, err := a.startTestRun(p, d, MainBranch, "deployment", proj.Agent.TestCases)
	if err != nil {
		return nil, err
	}
	return []string{id}, nil
}

// startTestRun stores a run whose cases have greeted, and arms their
// first messages.
func (a *Engine) startTestRun(p *Principal, d *AgentDoc, branch, by string, cases []scenario.TestCase) (string, error) {
	proj := runtimeProject(p.Account, d)
	script, err := a.debugScript(p.Region, d, proj, "sandbox", branch)
	if err != nil {
		return "", err
	}
	now := a.clock.Now()
	run := &testRunDoc{ID: a.newUUIDv7(now), Region: p.Region, AccountID: d.AccountID, AgentID: d.AgentID, Branch: branch,
		StartedAt: now, StartedBy: by}
	for _, tc := range cases {
		id := debugChatPrefix + a.NewUUID()
		conv, out := a.openConversation(ConvStart{ID: id, Region: p.Region, Account: p.Account, Project: proj,
			Environment: "sandbox", Channel: "CHAT", Variant: SessionVariant(proj, ""),
			State: map[string]any{"debug": true, "branch_id": branch, "test_run_id": run.ID, "test_case_id": tc.ID}},
			func(*store.Conversation) runtimeScript { return script })
		if err := a.store.InsertDoc(DocDebugChat, p.Region, id, &debugChatDoc{Conversation: conv, Branch: branch}); err != nil {
			return "", err
		}
		a.afterDebugTurn(conv, out)
		c := &caseRun{CaseID: tc.ID, Name: tc.Name, Conversation: id, Turns: tc.Turns, Assertions: tc.Assertions, Status: testRunning}
		if len(tc.Turns) == 0 { // nothing to say (a scenario built in Go, unchecked): judged on the greeting
			c.FinishedAt = now
			c.judge(conv)
		}
		run.Cases = append(run.Cases, c)
	}
	if err := a.store.InsertDoc(DocTestRun, p.Region, run.ID, run); err != nil {
		return "", err
	}
	a.armTestRun(run)
	return run.ID, nil
}

// armTestRun arms the next message of each running case of a run.
func (a *Engine) armTestRun(run *testRunDoc) {
	for i, c := range run.Cases {
		if c.Status == testRunning {
			region, id := run.Region, run.ID
			a.clock.At(run.StartedAt.Add(time.Duration(c.Said+1)*TestTurnTime), func(now time.Time) { a.stepTestCase(region, id, i, now) })
		}
	}
}

// resetTestRuns arms the runs the restored store holds (the clock has no
// timer left after a reset; with a data file they survive a restart).
func (a *Engine) resetTestRuns() {
	for _, region := range scenario.Regions {
		var runs []*testRunDoc
		err := store.ListDocs(a.store, DocTestRun, region, func(_ string, r *testRunDoc) bool {
			runs = append(runs, r)
			return true
		})
		if err != nil {
			a.Log.Error("test runs: rearm", "region", region, "err", err)
		}
		for _, r := range runs {
			a.armTestRun(r)
		}
	}
}

// stepTestCase says case i's next message and, after the last one (or
// when the conversation has ended), judges the case.
func (a *Engine) stepTestCase(region, runID string, i int, now time.Time) {
	var run testRunDoc
	if err := a.store.GetDoc(DocTestRun, region, runID, &run); err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			a.Log.Error("test run step", "run", runID, "err", err)
		}
		return
	}
	if i >= len(run.Cases) || run.Cases[i].Status != testRunning {
		return
	}
	c := run.Cases[i]
	var conv *store.Conversation
	var stepErr error
	acct := a.View().Account(run.AccountID)
	var d *AgentDoc
	if acct == nil {
		stepErr = errAgentNotFound()
	} else {
		d, stepErr = a.Agent(&Principal{Account: acct, Region: region}, run.AgentID)
	}
	if stepErr == nil {
		var script runtimeScript
		if script, stepErr = a.debugScript(region, d, runtimeProject(acct, d), "sandbox", run.Branch); stepErr == nil {
			conv, _, stepErr = a.debugTurn(region, c.Conversation, script, UserTurn{Text: c.Turns[c.Said]})
		}
	}
	err := a.store.UpdateDoc(DocTestRun, region, runID, &run, func() error {
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
		a.Log.Error("test run step", "run", runID, "err", err)
		return
	}
	if c := run.Cases[i]; c.Status == testRunning {
		a.clock.At(now.Add(TestTurnTime), func(now time.Time) { a.stepTestCase(region, runID, i, now) })
	}
}

// judge sets a finished case's status and results from its conversation:
// a reply assertion passes when some reply contains its text (any case),
// a function call one when its dialogue rule answered a turn; a case
// whose conversation ended before its last message is an error.
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

// summary is the run as the list shows it.
func (r *testRunDoc) summary() TestRunSummary {
	s := TestRunSummary{ID: r.ID, Status: testCompleted, BranchID: r.Branch, TestCaseCount: len(r.Cases),
		StartedAt: FmtAgentTime(r.StartedAt), StartedBy: r.StartedBy}
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

// entry is a finished case's history entry.
func (r *testRunDoc) entry(c *caseRun) TestHistoryEntry {
	return TestHistoryEntry{TestCaseID: c.CaseID, TestRunID: r.ID, BranchID: r.Branch, Status: c.Status,
		TestCaseSnapshot: TestCaseSnapshot{Name: c.Name, Turns: c.Turns}, Results: c.Results, RawConversation: c.Raw,
		FinishedAt: FmtAgentTime(c.FinishedAt)}
}

// testRuns lists the agent's runs, newest first.
func (a *Engine) testRuns(p *Principal, agent string) ([]*testRunDoc, error) {
	d, err := a.Agent(p, agent)
	if err != nil {
		return nil, err
	}
	var out []*testRunDoc
	err = store.ListDocs(a.store, DocTestRun, p.Region, func(_ string, r *testRunDoc) bool {
		if r.AccountID == d.AccountID && r.AgentID == d.AgentID {
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

// TestRuns is a page of the agent's runs, newest first: limit 1 to 100
// (default 100), offset, and the filters branchId and testSetId (the
// mock's runs belong to no test set: a testSetId matches none).
func (a *Engine) TestRuns(p *Principal, agent string, vals url.Values) (TestRunList, error) {
	limit, offset, err := core.ReadPage(vals, 100, 100)
	if err != nil {
		return TestRunList{}, err
	}
	runs, err := a.testRuns(p, agent)
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

// TestRun reads a run with the entries of its finished cases.
func (a *Engine) TestRun(p *Principal, agent, id string) (TestRunDetail, error) {
	runs, err := a.testRuns(p, agent)
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
	return TestRunDetail{}, Errf(KindNotFound, CodeTestRunNotFound, MsgTestRunNotFound)
}

// TestHistory is a page of the finished cases of the agent's runs,
// newest first: limit 1 to 100 (default 100), offset, and the filters
// testCaseId and branchId.
func (a *Engine) TestHistory(p *Principal, agent string, vals url.Values) (TestHistoryPage, error) {
	limit, offset, err := core.ReadPage(vals, 100, 100)
	if err != nil {
		return TestHistoryPage{}, err
	}
	runs, err := a.testRuns(p, agent)
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
