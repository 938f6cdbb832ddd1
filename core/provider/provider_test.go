package provider

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/sessiontree/sessiontree/core"
)

func msgs(t *testing.T, lines ...string) []core.Message {
	t.Helper()
	out := make([]core.Message, len(lines))
	for i, l := range lines {
		m, err := core.ParseMessage([]byte(l))
		if err != nil {
			t.Fatalf("%s: %v", l, err)
		}
		out[i] = m
	}
	return out
}

// project runs Project and checks the body against the API's rules.
func mustProject(t *testing.T, api API, opts Options, lines ...string) Request {
	t.Helper()
	req, err := Project(msgs(t, lines...), api, opts)
	if err != nil {
		t.Fatalf("Project(%s): %v", api, err)
	}
	if ps := checkBody(api, req.Body()); len(ps) > 0 {
		t.Fatalf("%s body breaks its rules:\n%s\n%s", api, strings.Join(ps, "\n"), req.Body())
	}
	return req
}

func compact(t *testing.T, s string) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func sameJSON(t *testing.T, got []byte, want string) {
	t.Helper()
	if compact(t, string(got)) != compact(t, want) {
		t.Errorf("got  %s\nwant %s", got, want)
	}
}

// A Claude Code session with thinking, a two-tool reply split over two
// lines, the results, and a Claude Code system line.
var claudeSession = []string{
	`{"role":"user","content":"read both","claudecode":{"type":"user","uuid":"u1","message":0}}`,
	`{"role":"assistant","content":[{"type":"thinking","thinking":"two files","signature":"SIG"},{"type":"tool_use","id":"toolu_1","name":"Read","input":{"p":"a"}}],"claudecode":{"uuid":"a1","message":0}}`,
	`{"role":"assistant","content":[{"type":"tool_use","id":"toolu_2","name":"Read","input":{"p":"b"}}],"claudecode":{"uuid":"a2","message":0}}`,
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":"A"}],"claudecode":{"uuid":"r1","message":0}}`,
	`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_2","content":"B","is_error":true}],"claudecode":{"uuid":"r2","message":0}}`,
	`{"role":"system","content":"","claudecode":{"type":"system","subtype":"turn_duration","uuid":"s1"}}`,
	`{"role":"assistant","content":[{"type":"text","text":"A and B. "}],"claudecode":{"uuid":"a3","message":0}}`,
}

func TestChatCompletionsRules(t *testing.T) {
	req := mustProject(t, OpenAIChat, Options{}, claudeSession...)
	sameJSON(t, req.Body(), `{"messages":[
		{"role":"user","content":"read both"},
		{"role":"assistant","content":null,"tool_calls":[
			{"id":"toolu_1","type":"function","function":{"name":"Read","arguments":"{\"p\":\"a\"}"}},
			{"id":"toolu_2","type":"function","function":{"name":"Read","arguments":"{\"p\":\"b\"}"}}]},
		{"role":"tool","tool_call_id":"toolu_1","content":"A"},
		{"role":"tool","tool_call_id":"toolu_2","content":"B"},
		{"role":"assistant","content":"A and B. "}]}`)
	want := Report{Messages: 7, Sent: 5, Dropped: 1, Thinking: 1, Tokens: req.Report.Tokens}
	if !reflect.DeepEqual(req.Report, want) {
		t.Errorf("report %+v, want %+v", req.Report, want)
	}
}

func TestResponsesRules(t *testing.T) {
	req := mustProject(t, OpenAIResponses, Options{}, claudeSession...)
	sameJSON(t, req.Body(), `{"input":[
		{"type":"message","role":"user","content":"read both"},
		{"type":"function_call","call_id":"toolu_1","name":"Read","arguments":"{\"p\":\"a\"}"},
		{"type":"function_call","call_id":"toolu_2","name":"Read","arguments":"{\"p\":\"b\"}"},
		{"type":"function_call_output","call_id":"toolu_1","output":"A"},
		{"type":"function_call_output","call_id":"toolu_2","output":"B"},
		{"type":"message","role":"assistant","content":"A and B. "}]}`)
}

func TestAnthropicRules(t *testing.T) {
	req := mustProject(t, Anthropic, Options{}, claudeSession...)
	sameJSON(t, req.Body(), `{"messages":[
		{"role":"user","content":[{"type":"text","text":"read both"}]},
		{"role":"assistant","content":[
			{"type":"thinking","thinking":"two files","signature":"SIG"},
			{"type":"tool_use","id":"toolu_1","name":"Read","input":{"p":"a"}},
			{"type":"tool_use","id":"toolu_2","name":"Read","input":{"p":"b"}}]},
		{"role":"user","content":[
			{"type":"tool_result","tool_use_id":"toolu_1","content":"A"},
			{"type":"tool_result","tool_use_id":"toolu_2","content":"B","is_error":true}]},
		{"role":"assistant","content":[{"type":"text","text":"A and B."}]}],
		"tools":[{"name":"Read","description":"A tool this conversation's history calls.","input_schema":{"type":"object"}}]}`)
}

// pi: a call made after seeing a result stays in its own message; a
// toolResult is a tool message; OpenAI reasoning JSON is no Anthropic
// signature.
var piSession = []string{
	`{"role":"user","content":[{"type":"text","text":"go"}],"pi":{"type":"message","id":"1","message":0}}`,
	`{"role":"assistant","content":[{"type":"thinking","thinking":"t","thinkingSignature":"{\"id\":\"rs_1\"}"},{"type":"toolCall","id":"c1","name":"ls","arguments":{}}],"pi":{"id":"2","message":0}}`,
	`{"role":"toolResult","toolCallId":"c1","toolName":"ls","content":[{"type":"text","text":"x"}],"isError":false,"pi":{"id":"3","message":0}}`,
	`{"role":"assistant","content":[{"type":"toolCall","id":"c2","name":"cat","arguments":{"f":"x"}}],"pi":{"id":"4","message":0}}`,
	`{"role":"toolResult","toolCallId":"c2","toolName":"cat","content":[{"type":"text","text":"hello"}],"pi":{"id":"5","message":0}}`,
}

func TestACallMadeAfterAResultStaysInALaterMessage(t *testing.T) {
	req := mustProject(t, Anthropic, Options{}, piSession...)
	sameJSON(t, req.Messages, `[
		{"role":"user","content":[{"type":"text","text":"go"}]},
		{"role":"assistant","content":[{"type":"tool_use","id":"c1","name":"ls","input":{}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"c1","content":"x"}]},
		{"role":"assistant","content":[{"type":"tool_use","id":"c2","name":"cat","input":{"f":"x"}}]},
		{"role":"user","content":[{"type":"tool_result","tool_use_id":"c2","content":"hello"}]}]`)
	if req.Report.Thinking != 1 {
		t.Errorf("thinking with an OpenAI signature must be left out for Anthropic: %+v", req.Report)
	}
	mustProject(t, OpenAIChat, Options{}, piSession...)
	mustProject(t, OpenAIResponses, Options{}, piSession...)
}

func TestOrphansBecomeText(t *testing.T) {
	lines := []string{
		`{"role":"user","content":"q"}`,
		`{"role":"tool","tool_call_id":"early","content":"r0"}`,
		`{"role":"assistant","content":null,"tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}},{"id":"c2","type":"function","function":{"name":"g","arguments":"{\"x\":1}"}}]}`,
		`{"role":"tool","tool_call_id":"c1","content":"r1"}`,
		`{"role":"tool","tool_call_id":"c1","content":"again"}`,
	}
	for _, api := range APIs {
		req := mustProject(t, api, Options{}, lines...)
		if !reflect.DeepEqual(req.Report.OrphanCalls, []string{"c2"}) || !reflect.DeepEqual(req.Report.OrphanResults, []string{"early", "c1"}) {
			t.Errorf("%s: orphans %v %v", api, req.Report.OrphanCalls, req.Report.OrphanResults)
		}
		body := string(req.Body())
		for _, s := range []string{`[tool call g({\"x\":1}): no result]`, `[tool result for early: r0]`, `[tool result for c1: again]`} {
			if !strings.Contains(body, s) {
				t.Errorf("%s: body lacks %s: %s", api, s, body)
			}
		}
	}
	req := mustProject(t, OpenAIChat, Options{}, lines...)
	sameJSON(t, req.Messages, `[
		{"role":"user","content":"q"},
		{"role":"user","content":"[tool result for early: r0]"},
		{"role":"assistant","content":"[tool call g({\"x\":1}): no result]","tool_calls":[{"id":"c1","type":"function","function":{"name":"f","arguments":"{}"}}]},
		{"role":"tool","tool_call_id":"c1","content":"r1"},
		{"role":"user","content":"[tool result for c1: again]"}]`)
}

func TestIDsAndNamesAreMadeLegal(t *testing.T) {
	lines := []string{
		`{"role":"user","content":"q"}`,
		`{"role":"assistant","content":null,"function_call":{"name":"dalle.text2im","arguments":"{}"}}`,
		`{"role":"function","name":"dalle.text2im","content":"img"}`,
		`{"role":"assistant","content":null,"tool_calls":[{"id":"` + strings.Repeat("x", 80) + `","type":"function","function":{"name":"f","arguments":"{}"}}]}`,
		`{"role":"tool","tool_call_id":"` + strings.Repeat("x", 80) + `","content":"r"}`,
	}
	for _, api := range APIs {
		req := mustProject(t, api, Options{}, lines...)
		if req.Report.RenamedIDs != 2 || req.Report.RenamedTools != 1 {
			t.Errorf("%s: %+v", api, req.Report)
		}
	}
	id, _ := legal("function:dalle.text2im", "call")
	again, _ := legal("function:dalle.text2im", "call")
	if id != again || !legalID.MatchString(id) {
		t.Errorf("legal id %q is not stable or not legal", id)
	}
}

func TestSystemMessages(t *testing.T) {
	lines := []string{
		`{"role":"system","content":""}`,
		`{"role":"developer","content":"rules"}`,
		`{"role":"user","content":"q"}`,
		`{"role":"system","content":"late"}`,
	}
	req := mustProject(t, Anthropic, Options{}, lines...)
	sameJSON(t, req.System, `"rules\n\nlate"`)
	if req.Report.Dropped != 1 {
		t.Errorf("an empty system message is dropped: %+v", req.Report)
	}
	chatReq := mustProject(t, OpenAIChat, Options{}, lines...)
	sameJSON(t, chatReq.Messages, `[{"role":"system","content":"rules"},{"role":"user","content":"q"},{"role":"system","content":"late"}]`)
}

func TestAnthropicFirstMessageIsTheUsers(t *testing.T) {
	req := mustProject(t, Anthropic, Options{}, `{"role":"assistant","content":"Hello!"}`, `{"role":"user","content":"hi"}`, `{"role":"user","content":"there"}`)
	sameJSON(t, req.Messages, `[{"role":"user","content":[{"type":"text","text":"(conversation continues)"}]},
		{"role":"assistant","content":[{"type":"text","text":"Hello!"}]},
		{"role":"user","content":[{"type":"text","text":"hi"},{"type":"text","text":"there"}]}]`)
	if !req.Report.Placeholder || req.Report.Merged != 1 {
		t.Errorf("%+v", req.Report)
	}
}

func TestImages(t *testing.T) {
	lines := []string{`{"role":"user","content":[{"type":"text","text":"see"},{"type":"image_url","image_url":{"url":"data:image/png;base64,AAAA"}},{"type":"image","source":{"type":"base64","media_type":"image/svg+xml","data":"PHN2Zz4="}}]}`}
	sameJSON(t, mustProject(t, Anthropic, Options{}, lines...).Messages, `[{"role":"user","content":[{"type":"text","text":"see"},
		{"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAA"}},{"type":"text","text":"[image]"}]}]`)
	sameJSON(t, mustProject(t, OpenAIResponses, Options{}, lines...).Messages, `[{"type":"message","role":"user","content":[{"type":"input_text","text":"see"},
		{"type":"input_image","image_url":"data:image/png;base64,AAAA","detail":"auto"},{"type":"input_text","text":"[image]"}]}]`)
	mustProject(t, OpenAIChat, Options{}, lines...)
}

func TestUnknownAPI(t *testing.T) {
	_, err := Project(nil, "gemini", Options{})
	if !errors.Is(err, core.ErrInvalidInput) {
		t.Fatalf("err = %v", err)
	}
}

func TestBudgetDropsTheOldestTurnsAndNotesTheSummaries(t *testing.T) {
	var lines []string
	lines = append(lines, `{"role":"system","content":"be brief"}`)
	for i := 0; i < 10; i++ {
		lines = append(lines, `{"role":"user","content":"question `+strings.Repeat("q", 200)+`"}`)
		lines = append(lines, `{"role":"assistant","content":null,"tool_calls":[{"id":"c`+itoa(i)+`","type":"function","function":{"name":"f","arguments":"{}"}}]}`)
		lines = append(lines, `{"role":"tool","tool_call_id":"c`+itoa(i)+`","content":"`+strings.Repeat("r", 200)+`"}`)
	}
	opts := Options{Budget: 400, Summaries: []core.Summary{{Branch: "idea", Summary: "tried X"}}}
	for _, api := range APIs {
		req := mustProject(t, api, opts, lines...)
		if req.Report.Tokens > 400 || req.Report.OverBudget || req.Report.BudgetDropped == 0 {
			t.Errorf("%s: %+v", api, req.Report)
		}
		body := string(req.Body())
		if !strings.Contains(body, "be brief") || !strings.Contains(body, "idea: tried X") || !strings.Contains(body, "left out to fit") {
			t.Errorf("%s: the system message and the note with the summaries are kept: %s", api, body)
		}
		if req.Report.OrphanCalls != nil || req.Report.OrphanResults != nil {
			t.Errorf("%s: a budget never splits a call from its result", api)
		}
	}
	small := mustProject(t, OpenAIChat, Options{Budget: 1}, lines...)
	if !small.Report.OverBudget {
		t.Errorf("the newest turn is kept over the budget, and said so: %+v", small.Report)
	}
	if !strings.Contains(string(small.Messages), "question") {
		t.Errorf("the kept tail starts with the user's message: %s", small.Messages)
	}
}

func TestProjectTreeUsesTheSplice(t *testing.T) {
	tr := core.New()
	var last string
	for i := 0; i < 6; i++ {
		id, err := tr.Append(msgs(t, `{"role":"user","content":"`+strings.Repeat("u", 400)+`"}`)[0], int64(i))
		if err != nil {
			t.Fatal(err)
		}
		if i == 2 {
			last = id
		}
		if _, err := tr.Append(msgs(t, `{"role":"assistant","content":"ok"}`)[0], int64(i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := tr.Branch(last, "idea", 10); err != nil {
		t.Fatal(err)
	}
	if err := tr.SummarizeBranch("idea", "the idea branch", "", 11); err != nil {
		t.Fatal(err)
	}
	if err := tr.SwitchBranch("main"); err != nil {
		t.Fatal(err)
	}
	req, err := ProjectTree(tr, "", OpenAIChat, Options{Budget: 300})
	if err != nil {
		t.Fatal(err)
	}
	if ps := checkBody(OpenAIChat, req.Body()); len(ps) > 0 {
		t.Fatal(ps)
	}
	if !strings.Contains(string(req.Messages), "idea: the idea branch") {
		t.Errorf("the note holds the other branches' summaries: %s", req.Messages)
	}
	if _, err := ProjectTree(tr, "nope", OpenAIChat, Options{}); !errors.Is(err, core.ErrBranchNotFound) {
		t.Errorf("unknown branch: %v", err)
	}
	other, err := ProjectTree(tr, "idea", Anthropic, Options{Budget: 300})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(other.System), "no summary") || strings.Contains(string(other.System), "unsummarized") {
		t.Errorf("a stub is neither quoted nor counted in the note: %s", other.System)
	}
	if r := other.Report; r.Unsummarized != 1 || !reflect.DeepEqual(r.Summarized, []string{"idea"}) {
		t.Errorf("the report says which summaries stood in and how many branches had none: %+v", r)
	}
	if !strings.Contains(string(other.System), "Summary of this conversation up to then:\\nthe idea branch") {
		t.Errorf("the branch's own summary, as of a node after the dropped ones, is in the note: %s", other.System)
	}
}

// ChatGPT answers one browser call with several tool messages, each the
// child of the one before: they are one result for the call, not orphans.
func TestChainedChatGPTResultsJoinTheirCall(t *testing.T) {
	entry := func(id, parent, role, name, recipient, content string) core.Message {
		return msgs(t, `{"role":"`+role+`","content":"","chatgpt":{"id":"`+id+`","parent":"`+parent+`","message":{"id":"`+id+
			`","author":{"role":"`+role+`","name":`+name+`},"content":`+content+`,"metadata":{},"recipient":"`+recipient+`"}}}`)[0]
	}
	tr := core.New()
	nodes := []struct {
		id, parent string
		msg        core.Message
	}{
		{"u", "", entry("u", "", "user", "null", "all", `{"content_type":"text","parts":["fuel?"]}`)},
		{"c", "u", entry("c", "u", "assistant", "null", "browser", `{"content_type":"code","text":"mclick([0, 3])"}`)},
		{"q1", "c", entry("q1", "c", "tool", `"browser"`, "all", `{"content_type":"tether_quote","title":"A","text":"one"}`)},
		{"q2", "q1", entry("q2", "q1", "tool", `"browser"`, "all", `{"content_type":"tether_quote","title":"B","text":"two"}`)},
		{"a", "q2", entry("a", "q2", "assistant", "null", "all", `{"content_type":"text","parts":["8 l/100km"]}`)},
	}
	for _, n := range nodes {
		if err := tr.InsertNode(n.id, n.parent, n.msg, "", 1); err != nil {
			t.Fatal(err)
		}
	}
	if err := tr.SetBranch("main", "a", 1); err != nil {
		t.Fatal(err)
	}
	for _, api := range APIs {
		req, err := ProjectTree(tr, "", api, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if ps := checkBody(api, req.Body()); len(ps) > 0 {
			t.Fatalf("%s: %v", api, ps)
		}
		if req.Report.OrphanResults != nil || !strings.Contains(string(req.Body()), `A\n\none\n\nB\n\ntwo`) {
			t.Errorf("%s: %+v %s", api, req.Report, req.Body())
		}
	}
}

func TestDropThinkingLeavesOutEvenASignedBlock(t *testing.T) {
	req := mustProject(t, Anthropic, Options{DropThinking: true}, claudeSession...)
	if strings.Contains(string(req.Messages), `"thinking"`) || req.Report.Thinking != 1 {
		t.Errorf("%+v %s", req.Report, req.Messages)
	}
}

// A call id used again by a later call (Kimi K2 names a turn's first call
// "functions.NAME:0" at every turn, other servers "call_0") keeps each
// result with its own call, and the later call gets a new id, the same on
// its result: Anthropic refuses a request whose tool_use ids repeat.
func TestACallIDUsedAgainKeepsEachResultWithItsCall(t *testing.T) {
	lines := []string{
		`{"role":"user","content":"weather in Paris then Rome"}`,
		`{"role":"assistant","content":null,"tool_calls":[{"id":"functions.weather:0","type":"function","function":{"name":"weather","arguments":"{\"q\":\"CALL-ONE\"}"}}]}`,
		`{"role":"tool","tool_call_id":"functions.weather:0","content":"PARIS: 21C"}`,
		`{"role":"assistant","content":null,"tool_calls":[{"id":"functions.weather:0","type":"function","function":{"name":"weather","arguments":"{\"q\":\"CALL-TWO\"}"}}]}`,
		`{"role":"tool","tool_call_id":"functions.weather:0","content":"ROME: 25C"}`,
		`{"role":"assistant","content":"Paris 21C, Rome 25C."}`,
		`{"role":"user","content":"thanks"}`,
	}
	for _, api := range APIs {
		req := mustProject(t, api, Options{}, lines...)
		body := string(req.Body())
		// Each result right after its own call, each once.
		one, paris := strings.Index(body, "CALL-ONE"), strings.Index(body, "PARIS: 21C")
		two, rome := strings.Index(body, "CALL-TWO"), strings.Index(body, "ROME: 25C")
		if one < 0 || strings.Count(body, "PARIS: 21C") != 1 || strings.Count(body, "ROME: 25C") != 1 || !(one < paris && paris < two && two < rome) {
			t.Errorf("%s: a result is lost, repeated or after another call:\n%s", api, body)
		}
		if req.Report.RenamedIDs != 3 { // both to legal characters, then the second to a new id
			t.Errorf("%s: %d ids renamed, want 3", api, req.Report.RenamedIDs)
		}
	}
	// The same on both sides and from request to request.
	a := mustProject(t, OpenAIChat, Options{}, lines...)
	b := mustProject(t, OpenAIChat, Options{}, lines...)
	if !reflect.DeepEqual(a.Body(), b.Body()) {
		t.Errorf("two projections differ:\n%s\n%s", a.Body(), b.Body())
	}
}

// An assistant message never ends with thinking: Anthropic refuses it ("The
// final block in an assistant message cannot be `thinking`"). Claude Code
// writes each block of a reply on its own line, so a reply interrupted
// after its thinking leaves a line of thinking alone; that message goes,
// and the user's messages around it are merged. Thinking followed by the
// reply's text stays.
func TestAnAssistantMessageNeverEndsWithThinking(t *testing.T) {
	req := mustProject(t, Anthropic, Options{},
		`{"role":"user","content":"fix the bug","claudecode":{"type":"user","uuid":"u1","message":0}}`,
		`{"role":"assistant","id":"msg_1","content":[{"type":"thinking","thinking":"Let me look at the code.","signature":"EqQBSIG"}],"claudecode":{"uuid":"a1","message":0}}`,
		`{"role":"user","content":"[Request interrupted by user]","claudecode":{"type":"user","uuid":"u2","message":0}}`,
		`{"role":"user","content":"try again, look at main.go","claudecode":{"type":"user","uuid":"u3","message":0}}`,
		`{"role":"assistant","id":"msg_2","content":[{"type":"thinking","thinking":"main.go it is.","signature":"EqQBSIG2"}]}`,
		`{"role":"assistant","id":"msg_2","content":[{"type":"text","text":"Found it."}]}`,
		`{"role":"assistant","id":"msg_3","content":[{"type":"text","text":"Also:"},{"type":"redacted_thinking","data":"EqQBRED"}]}`,
		`{"role":"user","content":"thanks"}`,
	)
	want := `[{"role":"user","content":[{"type":"text","text":"fix the bug"},{"type":"text","text":"[Request interrupted by user]"},{"type":"text","text":"try again, look at main.go"}]},` +
		`{"role":"assistant","content":[{"type":"thinking","thinking":"main.go it is.","signature":"EqQBSIG2"},{"type":"text","text":"Found it."},{"type":"text","text":"Also:"}]},` +
		`{"role":"user","content":[{"type":"text","text":"thanks"}]}]`
	if string(req.Messages) != want {
		t.Errorf("messages\n got %s\nwant %s", req.Messages, want)
	}
	if req.Report.Thinking != 2 || len(req.Serials) != 7 {
		t.Errorf("report thinking %d (want 2), %d serials (want 7)", req.Report.Thinking, len(req.Serials))
	}
}

// A request up to a node (Options.UpTo: the demo's Regenerate asks for the
// path up to the reply's parent) never adopts the path's node below it,
// though it is the next line of the same Claude Code reply: it is the
// reply being replaced, and sending it asks the model for what it was
// asked to replace.
func TestARequestUpToANodeDoesNotSendTheReplyBelowIt(t *testing.T) {
	tr := core.New(core.WithIDSource(seqIDs()))
	var ids []string
	for i, line := range []string{
		`{"role":"user","content":"fix the bug","claudecode":{"type":"user","uuid":"u1","message":0}}`,
		`{"role":"assistant","id":"msg_1","content":[{"type":"thinking","thinking":"Let me look at the code.","signature":"EqQBSIG"}],"claudecode":{"uuid":"a1","message":0}}`,
		`{"role":"assistant","id":"msg_1","content":[{"type":"text","text":"The OLD reply being regenerated."}],"claudecode":{"uuid":"a2","message":0}}`,
		`{"role":"user","content":"and then?"}`,
	} {
		id, err := tr.Append(core.Message(line), int64(i+1))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	for _, api := range APIs {
		for _, budget := range []int{0, 32000} {
			full, err := ProjectTree(tr, "", api, Options{Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			req, err := ProjectTree(tr, "", api, Options{Budget: budget, UpTo: ids[1]})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(full.Body()), "The OLD reply") {
				t.Fatalf("%s: the whole path's request lacks the reply:\n%s", api, full.Body())
			}
			if strings.Contains(string(req.Body()), "The OLD reply") || req.Report.Adopted != 0 {
				t.Errorf("%s, budget %d: the request up to %s holds node %s below it (adopted %d):\n%s", api, budget, ids[1], ids[2], req.Report.Adopted, req.Body())
			}
		}
	}
}

// The budget counts the branch's own summary in the note that holds it: a
// long chat the demo summarized, with a budget, stays within it (the note
// was sized without the summary, so the request went over the budget while
// older turns could still go).
func TestTheBudgetCountsTheBranchsOwnSummaryInItsNote(t *testing.T) {
	tr := core.New(core.WithIDSource(seqIDs()))
	at := int64(0)
	add := func(line string) {
		at++
		if _, err := tr.Append(core.Message(line), at); err != nil {
			t.Fatal(err)
		}
	}
	for i := 0; i < 40; i++ {
		add(`{"role":"user","content":"question ` + strings.Repeat("q", 200) + `"}`)
		add(`{"role":"assistant","content":"answer ` + strings.Repeat("a", 200) + `"}`)
	}
	at++
	summary := strings.Repeat("summary of the chat so far. ", 80)
	if err := tr.SummarizeBranch(tr.ActiveBranch(), summary, "", at); err != nil {
		t.Fatal(err)
	}
	add(`{"role":"user","content":"and now?"}`)
	for _, api := range APIs {
		for _, budget := range []int{700, 1500, 3000} {
			req, err := ProjectTree(tr, "", api, Options{Budget: budget})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(req.Body()), summary) {
				t.Errorf("%s, budget %d: the note lacks the branch's own summary:\n%s", api, budget, req.Body())
			}
			if req.Report.Tokens > budget || req.Report.OverBudget {
				t.Errorf("%s, budget %d: %d tokens (over budget %v), %d messages dropped", api, budget, req.Report.Tokens, req.Report.OverBudget, req.Report.BudgetDropped)
			}
		}
	}
}

// An AI SDK reasoning part goes back to Anthropic with the signature its
// providerMetadata keeps (useChat stores it there), and its redacted data
// as redacted_thinking: a tool loop that goes on after thinking must give
// it back, or Anthropic refuses the request ("Expected `thinking` or
// `redacted_thinking`, but found `tool_use`").
func TestAnAISDKReasoningGoesBackToAnthropicWithItsSignature(t *testing.T) {
	req := mustProject(t, Anthropic, Options{},
		`{"role":"user","parts":[{"type":"text","text":"weather in Oslo?"}]}`,
		`{"role":"assistant","parts":[{"type":"step-start"},{"type":"reasoning","text":"","state":"done","providerMetadata":{"anthropic":{"redactedData":"EqREDACTED"}}},{"type":"reasoning","text":"look it up","state":"done","providerMetadata":{"anthropic":{"signature":"EqQBCkYIBxgCKkBsig"}}},{"type":"tool-weather","toolCallId":"toolu_01","state":"output-available","input":{"city":"Oslo"},"output":{"t":3}}]}`,
	)
	want := `{"role":"assistant","content":[{"type":"redacted_thinking","data":"EqREDACTED"},{"type":"thinking","thinking":"look it up","signature":"EqQBCkYIBxgCKkBsig"},{"type":"tool_use"`
	if !strings.Contains(string(req.Messages), want) || req.Report.Thinking != 0 {
		t.Errorf("the thinking is not given back as it was signed (report thinking %d):\n%s", req.Report.Thinking, req.Messages)
	}
}

// OpenAI is sent only the images it decodes: an http(s) URL, or a data URL
// of PNG, JPEG, GIF or WebP; another (an AI SDK file part of an SVG, a BMP)
// is "[image]" and counted in Report.Parts, as Anthropic's writer does.
// OpenAI refuses the whole request for one: "You uploaded an unsupported
// image".
func TestOpenAIGetsOnlyTheImagesItDecodes(t *testing.T) {
	lines := []string{
		`{"role":"user","parts":[{"type":"text","text":"what does this logo say?"},{"type":"file","mediaType":"image/svg+xml","url":"data:image/svg+xml;base64,PHN2Zz48L3N2Zz4="}]}`,
		`{"role":"user","content":[{"type":"text","text":"and these?"},{"type":"image_url","image_url":{"url":"data:image/bmp;base64,Qk0="}},{"type":"image_url","image_url":{"url":"data:image/webp;base64,UklG"}},{"type":"image_url","image_url":{"url":"https://x/y.png"}}]}`,
	}
	for api, want := range map[API]string{
		OpenAIChat: `[{"role":"user","content":[{"type":"text","text":"what does this logo say?"},{"type":"text","text":"[image]"}]},
			{"role":"user","content":[{"type":"text","text":"and these?"},{"type":"text","text":"[image]"},{"type":"image_url","image_url":{"url":"data:image/webp;base64,UklG"}},{"type":"image_url","image_url":{"url":"https://x/y.png"}}]}]`,
		OpenAIResponses: `[{"type":"message","role":"user","content":[{"type":"input_text","text":"what does this logo say?"},{"type":"input_text","text":"[image]"}]},
			{"type":"message","role":"user","content":[{"type":"input_text","text":"and these?"},{"type":"input_text","text":"[image]"},{"type":"input_image","image_url":"data:image/webp;base64,UklG","detail":"auto"},{"type":"input_image","image_url":"https://x/y.png","detail":"auto"}]}]`,
	} {
		req := mustProject(t, api, Options{}, lines...)
		sameJSON(t, req.Messages, want)
		if req.Report.Parts != 2 {
			t.Errorf("%s: report parts %d, want 2", api, req.Report.Parts)
		}
	}
}

// A request over its budget says so (Report.OverBudget) when nothing can
// be dropped: a path of system messages alone, its preamble, always stays.
func TestOverBudgetIsReportedWhenNothingCanGo(t *testing.T) {
	rules := `{"role":"system","content":"` + strings.Repeat("rules ", 200) + `"}`
	for _, api := range APIs {
		req, err := Project(msgs(t, rules), api, Options{Budget: 64})
		if err != nil {
			t.Fatal(err)
		}
		if req.Report.Tokens <= 64 || !req.Report.OverBudget {
			t.Errorf("%s: %d tokens for a budget of 64, over budget %v", api, req.Report.Tokens, req.Report.OverBudget)
		}
	}
	tr := core.New(core.WithIDSource(seqIDs()))
	if _, err := tr.Append(core.Message(rules), 1); err != nil {
		t.Fatal(err)
	}
	req, err := ProjectTree(tr, "", OpenAIChat, Options{Budget: 64})
	if err != nil || !req.Report.OverBudget {
		t.Errorf("ProjectTree: over budget %v (%v)", req.Report.OverBudget, err)
	}
}
