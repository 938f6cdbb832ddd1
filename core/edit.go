package core

// nodeBlock is how many nodes appendValid allocates at a time.
const nodeBlock = 32

// Append adds msg as a child of the active branch's leaf (a new root when the
// branch has no leaf), moves the leaf to it and returns the new node's id.
func (t *Tree) Append(msg Message, atMs int64) (string, error) {
	tick()
	msg, err := parseMessage(msg, &t.keys)
	if err != nil {
		return "", err
	}
	return t.appendValid(msg, atMs)
}

// appendValid is Append of a message already checked by ParseMessage.
func (t *Tree) appendValid(msg Message, atMs int64) (string, error) {
	b, err := t.activeBranch()
	if err != nil {
		return "", err
	}
	var up *node
	if b.leaf != "" {
		if up = t.nodes[b.leaf]; up == nil {
			return "", newError(CodeCorrupt, "branch "+quote(b.name)+" has leaf "+quote(b.leaf)+", which is not a node")
		}
	}
	id, err := t.freshID()
	if err != nil {
		return "", err
	}
	n := t.newNode()
	*n = node{id: id, parent: b.leaf, up: up, msg: msg, created: atMs}
	t.addNode(n)
	t.setLeaf(b, id, atMs)
	t.touch(b)
	return id, nil
}

// newNode returns a zero node for an append, an edit or a regenerate to fill.
// Nodes come in blocks: one allocation per nodeBlock new nodes. A node is
// rarely freed (Prune), so a block rarely outlives its use.
func (t *Tree) newNode() *node { return fromSlab(&t.slab, nodeBlock) }

// newBranch returns a zero branch for Edit, Open, Rewind and the like to
// fill, from blocks of branchBlock as newNode's nodes: a chat regenerated a
// thousand times allocates 16 blocks, not a thousand branches.
func (t *Tree) newBranch() *branch { return fromSlab(&t.branchSlab, branchBlock) }

// fromSlab takes the next zero value of *slab, making a block of n first
// when it is used up.
func fromSlab[T any](slab *[]T, n int) *T {
	if len(*slab) == 0 {
		*slab = make([]T, n)
	}
	x := &(*slab)[0]
	*slab = (*slab)[1:]
	return x
}

// branchBlock is how many branches newBranch allocates at a time.
const branchBlock = 64

func (t *Tree) activeBranch() (*branch, error) {
	// Appends and rewinds ask for it on every call: a memo saves a map lookup.
	// The memo's branch is still the map's entry while no branch was added or
	// removed since, and still the active one while the names agree.
	if b := t.act; b != nil && t.actGen == t.branchGen && b.name == t.active {
		return b, nil
	}
	b := t.branches[t.active]
	t.act, t.actGen = b, t.branchGen
	if b == nil {
		return nil, errActiveMissing(t.active)
	}
	return b, nil
}

// Rewind moves the active branch's leaf back (or anywhere) to nodeID. Nothing is
// deleted: the old leaf is kept under a fresh "branch-N", whose name is returned.
// Rewinding to the current leaf, or on a leafless branch, is a no-op returning "".
// The next Append forks at nodeID.
func (t *Tree) Rewind(nodeID string, atMs int64) (string, error) {
	if t.nodes[nodeID] == nil {
		return "", errNodeNotFound(nodeID)
	}
	b, err := t.activeBranch()
	if err != nil {
		return "", err
	}
	return t.moveLeaf(b, nodeID, atMs), nil
}

// moveLeaf points b at leaf, keeping b's old leaf (and the summary written for it)
// under a fresh branch. It returns that branch's name, or "" when nothing moved.
func (t *Tree) moveLeaf(b *branch, leaf string, atMs int64) string {
	if b.leaf == "" || b.leaf == leaf {
		return ""
	}
	kept := &branch{name: t.freshName(), leaf: b.leaf, created: atMs, moved: atMs, used: b.used}
	t.addBranch(kept)
	if s := b.summary; s != nil {
		moved := *s
		moved.Branch = kept.name
		t.setSummary(kept, &moved)
		t.setSummary(b, nil)
	}
	t.setLeaf(b, leaf, atMs)
	t.touch(b)
	return kept.name
}

// Branch forks at fromNode: a new branch named name (or a fresh "branch-N" when
// name is "") whose leaf is fromNode becomes active. An explicit name that is
// taken fails with CodeBranchExists.
func (t *Tree) Branch(fromNode, name string, atMs int64) (string, error) {
	if t.nodes[fromNode] == nil {
		return "", errNodeNotFound(fromNode)
	}
	if name == "" {
		name = t.freshName()
	} else if err := checkName("branch name", name); err != nil {
		return "", err
	} else if t.branches[name] != nil {
		return "", newError(CodeBranchExists, "a branch named "+quote(name)+" already exists")
	}
	b := &branch{name: name, leaf: fromNode, created: atMs, moved: atMs}
	t.addBranch(b)
	t.setActive(name)
	t.touch(b)
	return name, nil
}

// SwitchBranch makes the branch called name active. There is no fallback: an
// unknown name fails with CodeBranchNotFound.
func (t *Tree) SwitchBranch(name string) error {
	b := t.branches[name]
	if b == nil {
		return errBranchNotFound(name)
	}
	if name == t.active && b.used == t.clock {
		return nil // active and the most recently used already: nothing changes
	}
	t.setActive(name)
	t.touch(b)
	return nil
}

// DeleteBranch removes the name of a branch; its nodes stay (see Prune). The
// main branch and the active branch cannot be deleted. It is DeleteBranchAt
// with no time of its own: the deletion counts as of the branch's last move.
func (t *Tree) DeleteBranch(name string) error { return t.DeleteBranchAt(name, 0) }

// DeleteBranchAt is DeleteBranch recording atMs as the time of the deletion, so
// that Merge keeps the branch deleted against copies where it is older. What
// is deleted is this copy's branch of that name (and the values of it that a
// merge keeps hidden), not another copy's branch that has the same name.
func (t *Tree) DeleteBranchAt(name string, atMs int64) error {
	b := t.branches[name]
	if b == nil {
		return errBranchNotFound(name)
	}
	if name == MainBranch {
		return newError(CodeInvalidInput, "the main branch cannot be deleted")
	}
	if name == t.active {
		return newError(CodeConflict, "branch "+quote(name)+" is active; switch to another branch before deleting it")
	}
	t.removeBranch(b)
	at := max(atMs, b.moved)
	t.setTomb(name, b.created, at, b.leaf)
	for key, h := range t.hidden {
		if t.branches[key] == nil && registerOf(key, h.leaf) == name {
			t.setTomb(name, h.created, max(at, h.moved), h.leaf)
		}
	}
	return nil
}

// maxLabel bounds a label's length in bytes.
const maxLabel = 4096

// Label sets the label of node id. An empty label fails; use ClearLabel. It is
// LabelAt with no time of its own.
func (t *Tree) Label(id, label string) error { return t.LabelAt(id, label, 0) }

// LabelAt is Label recording atMs as the time of the change, which Merge uses
// to pick between labels two copies set apart.
func (t *Tree) LabelAt(id, label string, atMs int64) error {
	n := t.nodes[id]
	if n == nil {
		return errNodeNotFound(id)
	}
	if label == "" {
		return newError(CodeInvalidInput, "label must be a non-empty string; use ClearLabel to remove one")
	}
	if len(label) > maxLabel {
		return newError(CodeTooLarge, "label for "+quote(id)+" is longer than 4096 bytes")
	}
	if !validUTF8(label) {
		return newError(CodeInvalidInput, "label for "+quote(id)+" is not valid UTF-8")
	}
	t.setLabel(n, label, atMs)
	return nil
}

// ClearLabel removes the label of node id, if it has one.
func (t *Tree) ClearLabel(id string) error { return t.ClearLabelAt(id, 0) }

// ClearLabelAt is ClearLabel recording atMs as the time of the change (see
// LabelAt).
func (t *Tree) ClearLabelAt(id string, atMs int64) error {
	n := t.nodes[id]
	if n == nil {
		return errNodeNotFound(id)
	}
	if n.labelText() == "" && n.labelTime() >= atMs {
		return nil
	}
	t.setLabel(n, "", atMs)
	return nil
}

// Edit adds msg as a new sibling of node id (same parent), on a fresh branch of
// its own that becomes active, and returns the new node's id. The edited node and
// everything after it stay where they were.
func (t *Tree) Edit(id string, msg Message, atMs int64) (string, error) {
	n := t.nodes[id]
	if n == nil {
		return "", errNodeNotFound(id)
	}
	msg, err := parseMessage(msg, &t.keys)
	if err != nil {
		return "", err
	}
	// n.up is the node called n.parent, nil when there is none (tree.go):
	// no map lookup for it here or in addNode.
	if n.parent != "" && n.up == nil {
		return "", newError(CodeCorrupt, "node "+quote(id)+" has parent "+quote(n.parent)+", which is not a node")
	}
	newID, err := t.freshID()
	if err != nil {
		return "", err
	}
	nn := t.newNode()
	*nn = node{id: newID, parent: n.parent, up: n.up, msg: msg, created: atMs}
	t.addNode(nn)
	t.startBranch(newID, atMs)
	return newID, nil
}

// startBranch puts leaf on a fresh branch of its own, made at atMs, and makes
// it the active one: what Edit and Open do.
func (t *Tree) startBranch(leaf string, atMs int64) *branch {
	b := t.newBranch()
	*b = branch{name: t.freshName(), leaf: leaf, created: atMs, moved: atMs}
	t.addBranch(b)
	t.use(b)
	return b
}

// use makes b the active branch and its most recently used.
func (t *Tree) use(b *branch) {
	t.setActive(b.name)
	t.touch(b)
}

// Regenerate adds msg as an alternative to the reply id: a new sibling on a fresh
// branch of its own, active. It is Edit under the name a chat client uses for
// replies.
func (t *Tree) Regenerate(id string, msg Message, atMs int64) (string, error) {
	return t.Edit(id, msg, atMs)
}

// Checkout makes node id visible on the active path: it switches to the most
// recently used branch whose path contains id; failing that, it moves the active
// branch to the newest leaf below id, keeping the old leaf under a fresh branch as
// Rewind does. It returns the name of the active branch.
func (t *Tree) Checkout(id string, atMs int64) (string, error) {
	if t.nodes[id] == nil {
		return "", errNodeNotFound(id)
	}
	if best := t.latestBranchThrough(id); best != nil {
		t.use(best)
		return best.name, nil
	}
	b, err := t.activeBranch()
	if err != nil {
		return "", err
	}
	leaf := t.newestLeafBelow(id)
	if b.leaf == "" {
		t.setLeaf(b, leaf, atMs)
		t.touch(b)
	} else {
		t.moveLeaf(b, leaf, atMs)
	}
	return b.name, nil
}

// Open makes node id visible on the active path without moving any branch: it
// switches to the most recently used branch whose path contains id, as Checkout
// does; failing that (id's branch name was deleted, say), the newest leaf below
// id gets a fresh branch of its own, which becomes active. It returns the name
// of the active branch. Every other branch, main included, ends where it did.
func (t *Tree) Open(id string, atMs int64) (string, error) {
	if t.nodes[id] == nil {
		return "", errNodeNotFound(id)
	}
	if best := t.latestBranchThrough(id); best != nil {
		t.use(best)
		return best.name, nil
	}
	return t.startBranch(t.newestLeafBelow(id), atMs).name, nil
}

// latestBranchThrough returns the most recently used branch whose path
// contains id (the active one, then the smallest name, on a tie), or nil.
func (t *Tree) latestBranchThrough(id string) *branch {
	target := t.nodes[id]
	if target == nil {
		return nil
	}
	// Branches are asked from the most recently used (recent.go), and only
	// while one could still beat the best found; each answers from the
	// depths (depth.go) in O(log depth) steps. A ‹ › switch in a
	// 200k-message chat walked every branch to its root.
	var best *branch
	for b := t.recentBranches(); b != nil; b = b.older {
		if best != nil && b.used < best.used {
			break
		}
		if o := b.older; o != nil && o.used > b.used {
			// Out of order: a change the chain missed. Ask every branch.
			t.recentOK = false
			return t.latestBranchThroughAll(target)
		}
		if best != nil && !t.usedLater(b, best) {
			continue
		}
		if on, _ := t.onPathOf(t.nodes[b.leaf], target); on {
			best = b
		}
	}
	if best != nil && t.branches[best.name] != best {
		// A record replaced behind the chain's back: ask every branch.
		t.recentOK = false
		return t.latestBranchThroughAll(target)
	}
	return best
}

// latestBranchThroughAll is latestBranchThrough asking every branch.
func (t *Tree) latestBranchThroughAll(target *node) *branch {
	var best *branch
	for _, b := range t.branches {
		if best != nil && !t.usedLater(b, best) {
			continue
		}
		if on, _ := t.onPathOf(t.nodes[b.leaf], target); on {
			best = b
		}
	}
	return best
}

// usedLater reports whether a was used more recently than b, the active
// branch and then the smaller name first on a tie.
func (t *Tree) usedLater(a, b *branch) bool {
	if a.used != b.used {
		return a.used > b.used
	}
	return a.name == t.active || (b.name != t.active && a.name < b.name)
}

// pathContains reports whether id lies on the path from leaf to its root. A
// broken path (dangling or cyclic) counts as not containing it.
func (t *Tree) pathContains(leaf, id string) bool {
	// Nodes compared by pointer along the up pointers (each node's up is
	// the node its parent names): a string comparison a step made a switch
	// in a 100k-message chat cost twice as much.
	target := t.nodes[id]
	if target == nil {
		return false
	}
	n := t.nodes[leaf]
	for steps, limit := 0, len(t.nodes); n != nil && steps <= limit; steps++ {
		if n == target {
			return true
		}
		n = n.up
	}
	return false
}

// newestLeafBelow returns the childless node with the greatest (created, id) in
// the subtree of id, walking iteratively and visiting each node at most once.
func (t *Tree) newestLeafBelow(id string) string {
	best, bestN := id, t.nodes[id]
	stack := []string{id}
	seen := map[string]bool{id: true}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n := t.nodes[cur]
		live := 0
		for _, c := range n.children {
			if t.nodes[c] != nil && !seen[c] {
				seen[c] = true
				stack = append(stack, c)
				live++
			}
		}
		if live == 0 && cur != id && (bestN == nil || best == id || before(bestN.created, best, n.created, cur)) {
			best, bestN = cur, n
		}
	}
	return best
}
