package core

// Code is the stable, machine-readable kind of an Error, shared by Go, JS and HTTP.
type Code string

// The error codes of SPEC §4.
const (
	CodeNotFound           Code = "not_found"           // no node with that id
	CodeBranchNotFound     Code = "branch_not_found"    // no branch with that name
	CodeBranchExists       Code = "branch_exists"       // an explicit branch name is taken
	CodeEmptyBranch        Code = "empty_branch"        // the branch has no leaf yet
	CodeInvalidInput       Code = "invalid_input"       // an argument or message is malformed
	CodeCorrupt            Code = "corrupt"             // the tree or file is structurally broken
	CodeUnsupportedVersion Code = "unsupported_version" // a file from a newer format version
	CodeTooLarge           Code = "too_large"           // an input exceeds a limit
	CodeConflict           Code = "conflict"            // the operation contradicts the tree's state
)

// Error is the one error type of the package: a stable Code and a sentence that
// names the id, branch or position at fault.
type Error struct {
	Code    Code
	Message string
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Is makes errors.Is(err, ErrNotFound) and friends match on the code alone.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && (t.Message == "" || t.Message == e.Message)
}

// Sentinels for errors.Is; each carries only its code.
var (
	ErrNotFound           = &Error{Code: CodeNotFound}
	ErrBranchNotFound     = &Error{Code: CodeBranchNotFound}
	ErrBranchExists       = &Error{Code: CodeBranchExists}
	ErrEmptyBranch        = &Error{Code: CodeEmptyBranch}
	ErrInvalidInput       = &Error{Code: CodeInvalidInput}
	ErrCorrupt            = &Error{Code: CodeCorrupt}
	ErrUnsupportedVersion = &Error{Code: CodeUnsupportedVersion}
	ErrTooLarge           = &Error{Code: CodeTooLarge}
	ErrConflict           = &Error{Code: CodeConflict}
)

// newError makes an error with code. It and the helpers below are not inlined:
// they are cold, and one copy instead of one per call site keeps the wasm
// module small.
//
//go:noinline
func newError(code Code, msg string) *Error { return &Error{Code: code, Message: msg} }

// quote renders a user-supplied id or name for an error message.
//
//go:noinline
func quote(s string) string {
	const max = 80
	if len(s) > max {
		s = s[:max] + "…"
	}
	return `"` + s + `"`
}

//go:noinline
func errNodeNotFound(id string) error {
	return newError(CodeNotFound, "no node with id "+quote(id))
}

//go:noinline
func errBranchNotFound(name string) error {
	return newError(CodeBranchNotFound, "no branch named "+quote(name))
}

// errNoBranch is the error of a lookup of name that found no branch. A
// caller's unknown name is CodeBranchNotFound; but when name is the active
// branch (a loaded file whose "active_branch" names no branch) the tree itself
// is at fault: CodeCorrupt, which Repair fixes.
func (t *Tree) errNoBranch(name string) error {
	if name == t.active {
		return errActiveMissing(name)
	}
	return errBranchNotFound(name)
}

//go:noinline
func errActiveMissing(name string) error {
	return newError(CodeCorrupt, "the active branch "+quote(name)+" does not exist (the file's active_branch names no branch; Repair makes main active)")
}
