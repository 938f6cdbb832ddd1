// The fan-out plan of a tree object's live sockets (TreeObject.push in
// isolate.mjs), apart so that node can test it (fanout_test.mjs): make
// copies this file into build/ beside isolate.mjs.

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
