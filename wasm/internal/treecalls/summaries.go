package treecalls

import "github.com/sessiontree/sessiontree/core/rawjson"

func summarizeBranch(r *Request) ([]byte, error) {
	name, err := r.str(0, "branch")
	if err != nil {
		return nil, err
	}
	text, err := r.str(1, "summary")
	if err != nil {
		return nil, err
	}
	model, err := r.str(2, "modelId")
	if err != nil {
		return nil, err
	}
	return nil, r.tree.SummarizeBranch(name, text, model, r.at)
}

// summaryInput returns {"text","stub"} for an asynchronous summarizer in JS.
func summaryInput(r *Request) ([]byte, error) {
	name, err := r.str(0, "branch")
	if err != nil {
		return nil, err
	}
	text, stub, err := r.tree.SummaryInput(name)
	if err != nil {
		return nil, err
	}
	b := append([]byte(`{"text":`), rawjson.AppendString(nil, text)...)
	b = append(b, `,"stub":`...)
	b = appendSummary(b, &stub)
	return append(b, '}'), nil
}

func summarizeBranchAsOf(r *Request) ([]byte, error) {
	var s [4]string
	for i, name := range []string{"branch", "asOf", "summary", "modelId"} {
		var err error
		if s[i], err = r.str(i, name); err != nil {
			return nil, err
		}
	}
	return nil, r.tree.SummarizeBranchAsOf(s[0], s[1], s[2], s[3], r.at)
}

func stubSummary(r *Request) ([]byte, error) {
	name, err := r.str(0, "branch")
	if err != nil {
		return nil, err
	}
	s, err := r.tree.StubSummary(name)
	if err != nil {
		return nil, err
	}
	return appendSummary(nil, &s), nil
}

func renderBranchText(r *Request) ([]byte, error) {
	name, err := r.str(0, "branch")
	if err != nil {
		return nil, err
	}
	text, err := r.tree.RenderBranchText(name)
	return []byte(text), err
}

// splice returns {"messages":[…],"summaries":[…]}.
func splice(r *Request) ([]byte, error) {
	s, err := r.tree.SpliceForLinearExport()
	if err != nil {
		return nil, err
	}
	b := appendMessages([]byte(`{"messages":`), s.Messages)
	b = append(b, `,"summaries":[`...)
	for i := range s.Summaries {
		if i > 0 {
			b = append(b, ',')
		}
		b = appendSummary(b, &s.Summaries[i])
	}
	return append(b, "]}"...), nil
}
