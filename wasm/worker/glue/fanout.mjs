// The fan-out plan of a tree object's live sockets (TreeObject.push in
// isolate.mjs) and their limits (TreeObject.handle), apart so that node can
// test them (fanout_test.mjs): make copies this file into build/ beside
// isolate.mjs.

// socketsOver is why a live socket is refused, or "" to accept it: n is the
// live sockets of its tree (those being opened counted) and m its tenant's,
// against perTree and perTenant (0: no limit). The reason is a close
// frame's (at most 123 bytes). The glue refuses in JavaScript, so a refused
// socket costs no call into Go (2,000 upgrades on one tree, 1,872 of them
// refused: the load's CPU in the isolate 6.4 -> 2.7-5.1 s).
export function socketsOver(n, m, perTree, perTenant) {
  if (perTree > 0 && n >= perTree) return `this tree has ${n} live sockets, its limit; close one first`;
  if (perTenant > 0 && m >= perTenant) return `this tenant has ${m} live sockets, its limit; close one first`;
  return "";
}

// fanOut plans the fan-out of a group of calls (push): for each socket of
// sockets (ws → {tags, batch}) that gets any of the results' messages, [ws,
// its details, its frames]. A result's messages go to every socket but the
// one its call came on (origins[i]) and those tagged with its pushExcept (its
// writer's client name). The frames are made once for each set of results
// sockets get, and shared: the sockets that get the same changes get the same
// strings, so the work per socket does not grow with the writes or the tree.
export function fanOut(origins, results, sockets) {
  const writes = [];
  results.forEach((res, i) => {
    if (res?.push && res.push.length > 0) writes.push(i);
  });
  const plan = [];
  if (writes.length === 0) return plan;
  const made = new Map(); // which results (their indexes, joined) → {msgs, batched: its one frame, made when asked}
  for (const [ws, info] of sockets) {
    let key = "";
    for (const i of writes) {
      if (ws === origins[i]) continue;
      const except = results[i].pushExcept;
      if (except && info.tags.includes(except)) continue;
      key += i + ",";
    }
    if (key === "") continue;
    let f = made.get(key);
    if (f === undefined) {
      f = { msgs: key.split(",").slice(0, -1).flatMap((i) => results[Number(i)].push), batched: null };
      made.set(key, f);
    }
    if (info.batch && f.msgs.length > 1) {
      f.batched ??= [`{"type":"changes","changes":[${f.msgs.join(",")}]}`];
      plan.push([ws, info, f.batched]);
    } else {
      plan.push([ws, info, f.msgs]);
    }
  }
  return plan;
}
