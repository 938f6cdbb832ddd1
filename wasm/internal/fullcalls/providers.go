package fullcalls

import (
	"strconv"

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
// thinking ("false": leave every thinking part out; else ""). It returns
// {"request":body,"report":report}.
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
	req, err := provider.ProjectTree(t, branch, api, opts)
	if err != nil {
		return nil, err
	}
	b := req.AppendBody(append(make([]byte, 0, 512+len(req.Messages)+len(req.System)+len(req.Tools)), `{"request":`...))
	b = append(b, `,"report":`...)
	b = req.Report.AppendJSON(b)
	return append(b, '}'), nil
}
