// sessiontree/react: React hooks over a SessionTree's change events and a
// sessiontree/idb store. Each hook is a useSyncExternalStore over t.subscribe /
// store.subscribe whose snapshot is kept while what it reads did not change, so
// a component re-renders only when its own slice did. React is a peer
// dependency; nothing here is bundled with it. See react.d.ts.
import { useCallback, useEffect, useRef, useState, useSyncExternalStore } from "react";

const fail = (message) => {
  throw new TypeError(message);
};

/** The store's conversation list (newest first), re-rendered when it changes here or in another tab. */
export function useConversations(store) {
  if (!store || typeof store.subscribe !== "function") fail(`"store" must be what openStore resolves to`);
  const subscribe = useCallback((tell) => store.subscribe(tell), [store]);
  return useSyncExternalStore(subscribe, () => store.conversations, () => store.conversations);
}

/**
 * Opens conversation id of store while the component is mounted (closed when
 * it unmounts or id changes): { conversation, tree, loading, error }. tree
 * follows the conversation (another tab's reload hands a new one).
 */
export function useTree(store, id, options) {
  const [state, setState] = useState({ conversation: null, error: null, id: null });
  const opts = useRef(options);
  opts.current = options;
  useEffect(() => {
    if (!store || id === null || id === undefined) return undefined;
    let cancelled = false;
    let conv = null;
    store.open(id, opts.current).then(
      (c) => {
        if (cancelled) return void c?.close();
        conv = c;
        setState({ conversation: c, error: null, id });
      },
      (error) => cancelled || setState({ conversation: null, error, id }),
    );
    return () => {
      cancelled = true;
      conv?.close();
      // Not this component's any more: a render before the next open (the
      // effect run again under <Activity>, another store) is loading.
      setState((s) => (s.id === id ? { conversation: null, error: null, id: null } : s));
    };
  }, [store, id]);
  const current = state.id === id ? state.conversation : null;
  const subscribe = useCallback((tell) => (current ? current.subscribe(tell) : () => {}), [current]);
  const tree = useSyncExternalStore(subscribe, () => (current && !current.closed ? current.tree : null), () => null);
  return {
    conversation: current,
    tree,
    loading: id !== null && id !== undefined && state.id !== id,
    error: state.id === id ? state.error : null,
  };
}

/**
 * The core of the tree hooks: read(t) as a snapshot kept while the tree's
 * version is the same, and while same(old, new, changed) says so after a change
 * (changed: the events' node ids since the last read, and all: true when
 * anything may have changed: an event said so, or the tree changed when no
 * event was heard, as between a component's first render and its
 * subscription, where a layout effect or another tab's delta can change it).
 */
function useTreeRead(t, key, read, same) {
  const cache = useRef(null);
  const dirty = useRef({ nodes: new Set(), all: false, version: -1 });
  const subscribe = useCallback((tell) => {
    if (!t) return () => {};
    // A change since the last read, before this subscription, told nothing.
    if (t.version !== dirty.current.version) dirty.current.all = true;
    return t.subscribe((e) => {
      const d = dirty.current;
      if (e.all) d.all = true;
      for (const id of e.nodes) d.nodes.add(id);
      // The event's version, not the tree's: a listener told before this one
      // may have changed the tree again, and that change is told next.
      d.version = Math.max(d.version, e.version);
      tell();
    });
  }, [t]);
  const snapshot = () => {
    if (!t) return null;
    const version = t.version;
    const c = cache.current;
    if (c && c.t === t && c.key === key && c.version === version) return c.value;
    const value = read(t);
    const d = dirty.current;
    dirty.current = { nodes: new Set(), all: false, version };
    // The events heard tell every change since the cached read only if the
    // last of them came after the tree's last change (a listener before this
    // one may have had React read the tree first).
    if (c && c.t === t && c.key === key && d.version === version && !d.all && same(c.value, value, d)) {
      c.version = version;
      return c.value;
    }
    cache.current = { t, key, version, value };
    return value;
  };
  return useSyncExternalStore(subscribe, snapshot, snapshot);
}

const sameIds = (a, b) => a.length === b.length && a.every((x, i) => x === b[i]);

/**
 * A window of the active path for a virtualized list: { start, ids, messages,
 * length } where length is the whole path's. start may be negative (from the
 * leaf: the default is the last count, 50). Re-renders only when the window's
 * nodes, their messages or labels, or the path's length change.
 */
export function useActivePath(t, options = {}) {
  const count = options.count ?? 50;
  const start = options.start ?? -count;
  if (!Number.isInteger(count) || count < 1) fail(`"count" must be a whole number above 0`);
  if (!Number.isInteger(start)) fail(`"start" must be a whole number (negative: from the leaf)`);
  return useTreeRead(
    t,
    `${start}:${count}`,
    (tree) => {
      const length = tree.pathLength();
      const end = start < 0 && start + count >= 0 ? undefined : start + count;
      const w = tree.pathWindow(start, end);
      const first = start < 0 ? Math.max(0, length + start) : Math.min(start, length);
      return { start: first, ids: w.ids, messages: w.messages, length };
    },
    (a, b, changed) => a.length === b.length && a.start === b.start && sameIds(a.ids, b.ids) && !a.ids.some((id) => changed.nodes.has(id)),
  );
}

// siblingsOf: tree.siblings(id), none for an id the tree does not hold (a
// message useChat shows before it is synced, under useChat's own id).
function siblingsOf(tree, id) {
  try {
    return tree.siblings(id);
  } catch (e) {
    if (e?.code === "not_found") return { siblings: [], index: -1 };
    throw e;
  }
}

/**
 * The alternatives at node id for a ‹ n/m › switcher: { siblings, index,
 * select(i) } (select opens the i-th with t.open: it comes back with its own
 * continuation); none for an id the tree does not hold. Re-renders only when
 * they change.
 */
export function useSiblings(t, id) {
  const value = useTreeRead(
    t,
    id ?? "",
    (tree) => (id ? siblingsOf(tree, id) : { siblings: [], index: -1 }),
    (a, b) => a.index === b.index && sameIds(a.siblings, b.siblings),
  );
  const select = useCallback((i) => {
    const to = value?.siblings[i];
    if (!t || to === undefined) fail(`no sibling ${i} of ${id}`);
    return t.open(to);
  }, [t, id, value]);
  return value ? { siblings: value.siblings, index: value.index, select } : { siblings: [], index: -1, select };
}

/** Every branch ({ name, leaf, … }) and the active one's name: { active, branches }; re-renders only when they change. */
export function useBranches(t) {
  return useTreeRead(
    t,
    "",
    (tree) => {
      const branches = tree.branches();
      return { active: tree.activeBranch, branches, key: JSON.stringify(branches) };
    },
    (a, b) => a.active === b.active && a.key === b.key,
  );
}
