package fullcalls

import (
	"strconv"
	"strings"

	"github.com/sessiontree/sessiontree/core"
	"github.com/sessiontree/sessiontree/core/provider"
	"github.com/sessiontree/sessiontree/core/rawjson"
	"github.com/sessiontree/sessiontree/wasm/internal/bridge"
	"github.com/sessiontree/sessiontree/wasm/internal/treecalls"
)

// The projections for model APIs (core/provider) live in the full module:
// they cost the lean one ~80 KB gzipped.

// projectTree projects the live tree: arguments api, branch ("" for the
// active one), budget (decimal approximate tokens; "" or "0": none) and
// thinking ("false": leave every thinking part out; else ""), then upTo
// ("": the leaf) and held (see projectFor), both optional. It returns
// {"request":body,"report":report}, with "serials" when held was given.
func projectTree(r *treecalls.Request) ([]byte, error) {
	return projectFor(r.Tree(), r, 0, 4)
}

// projectFile is projectTree on a saved tree, argument 4 (the .tree.json
// bytes the lean module saved): the helper's call.
func projectFile(r *treecalls.Request) ([]byte, error) {
	data, err := r.Arg(4, "tree")
	if err != nil {
		return nil, err
	}
	t, err := core.Unmarshal(data) // copies data
	if err != nil {
		return nil, err
	}
	defer scratch(t, len(data))
	return projectFor(t, r, 0, 5)
}

// projectFor reads the arguments api, branch, budget and thinking from first
// on, and upTo (the node the path ends at) at upTo when there is one.
func projectFor(t *core.Tree, r *treecalls.Request, first, upTo int) ([]byte, error) {
	name, err := r.Str(first, "api")
	if err != nil {
		return nil, err
	}
	api, ok := provider.ParseAPI(name)
	if !ok {
		return nil, bridge.Invalid(`"api" must be "openai-chat", "openai-responses" or "anthropic", not ` + string(rawjson.AppendString(nil, name)))
	}
	branch, err := r.Str(first+1, "branch")
	if err != nil {
		return nil, err
	}
	budget, err := r.Str(first+2, "budget")
	if err != nil {
		return nil, err
	}
	var opts provider.Options
	if budget != "" {
		n, err := strconv.Atoi(budget)
		if err != nil || n < 0 {
			return nil, bridge.Invalid(`"budget" must be a whole number of tokens, 0 or more`)
		}
		opts.Budget = n
	}
	thinking, err := r.Str(first+3, "thinking")
	if err != nil {
		return nil, err
	}
	opts.DropThinking = thinking == "false"
	if upTo < r.NArgs() {
		if opts.UpTo, err = r.Str(upTo, "upTo"); err != nil {
			return nil, err
		}
	}
	// held (after upTo): the serials of the messages the caller keeps from
	// its last request, in its order, as runs (heldList); with it the answer
	// also holds "serials", this request's as runs (provider.Options.Held,
	// Request.Serials): what the caller sends as held next time.
	serials := upTo+1 < r.NArgs()
	if serials {
		list, err := r.Str(upTo+1, "held")
		if err != nil {
			return nil, err
		}
		if opts.HeldRuns, err = heldRuns(list); err != nil {
			return nil, err
		}
	}
	req, err := provider.ProjectTree(t, branch, api, opts)
	if err != nil {
		return nil, err
	}
	b := req.AppendBody(append(make([]byte, 0, 512+len(req.Messages)+len(req.System)+len(req.Tools)+8*len(req.SerialRuns)), `{"request":`...))
	b = append(b, `,"report":`...)
	b = req.Report.AppendJSON(b)
	if serials {
		b = append(b, `,"serials":"`...)
		b = appendRuns(b, req.SerialRuns)
		b = append(b, '"')
	}
	return append(b, '}'), nil
}

// appendRuns writes serials' runs: "a-b" for a, a+1, …, b; "a" alone; 0
// (a message written for one request) as "0"; comma-separated. A request's
// serials are mostly runs: the messages of a stretch of the path were
// numbered in turn when it was first written.
func appendRuns(b []byte, runs []provider.Run) []byte {
	for i, r := range runs {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendUint(b, r.First, 10)
		if r.Last != r.First {
			b = append(b, '-')
			b = strconv.AppendUint(b, r.Last, 10)
		}
	}
	return b
}

// heldRuns reads the serials a caller holds, in its order, as appendRuns
// writes them ("" for none): the list is less than 1<<20 serials long.
func heldRuns(list string) ([]provider.Run, error) {
	runs := make([]provider.Run, 0, strings.Count(list, ",")+1)
	total := 0
	for list != "" {
		item, rest, _ := strings.Cut(list, ",")
		a, b, isRun := strings.Cut(item, "-")
		lo, err1 := strconv.ParseUint(a, 10, 64)
		hi, err2 := lo, error(nil)
		if isRun {
			hi, err2 = strconv.ParseUint(b, 10, 64)
		}
		if err1 != nil || err2 != nil || hi < lo || isRun && lo == 0 || hi-lo >= 1<<20 || total+int(hi-lo) >= 1<<20 {
			return nil, bridge.Invalid(`"held" must be serials or runs of them ("3-9"), whole numbers, 0 alone, separated by commas`)
		}
		runs = append(runs, provider.Run{First: lo, Last: hi})
		total += int(hi-lo) + 1
		list = rest
	}
	return runs, nil
}
