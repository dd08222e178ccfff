// The engine's views of a table, asked over its WebSocket (docs/protocol.md,
// "The engine's views"): `preview` (what a decision of the current step
// would do: each figure option's feature, its tiles, value, holders and
// parts) and `feature` (a feature on the board now). The client keeps no
// rule of its own: the placing hints, a figure's feature on hover, a scored
// feature's outline and who held it come from here.
//
// Answers are kept per step (a preview of step k is good while the game is
// at step k; a feature view until the next move) and asked once. A request
// made while the connection is down waits for it (up to WAIT_MS). A refusal
// (rate_limited past --rate-views, stale_turn, ...) rejects the promise:
// callers show less, never a guess.

const WAIT_MS = 8000;
const KEEP = 200; // answers kept at the most (a long game's hovers)

export class EngineViews {
  // live(): the table's Live connection (api.js), or null
  constructor(live) {
    this.live = live;
    this.seq = 0;
    this.pending = new Map(); // ref -> {resolve, reject, key}
    this.kept = new Map();    // key -> promise
    this.queue = [];          // messages waiting for the connection
  }

  // Drops what was kept: the game moved on (answers in flight still arrive).
  clear() { this.kept.clear(); }

  // The preview of decision `move` (a move's keys) at step `step`.
  preview(step, move) { return this.ask(`p${step}:${JSON.stringify(move)}`, { type: 'preview', step, move }); }
  // The feature at port `at` of the tile at (x, y), as the game is now.
  feature(x, y, at) { return this.ask(`f${x},${y},${at}`, { type: 'feature', x, y, at }); }

  ask(key, msg) {
    if (this.kept.has(key)) return this.kept.get(key);
    const p = new Promise((resolve, reject) => {
      const ref = `v${++this.seq}`;
      this.pending.set(ref, { resolve, reject, key });
      const m = { ...msg, ref };
      const live = this.live();
      if (!live || !live.send(m)) this.queue.push({ m, at: Date.now() });
      setTimeout(() => this.fail(ref, 'timeout'), WAIT_MS);
    });
    this.kept.set(key, p);
    if (this.kept.size > KEEP) this.kept.delete(this.kept.keys().next().value);
    // a refusal is not kept: the next ask tries again
    p.catch(() => { if (this.kept.get(key) === p) this.kept.delete(key); });
    return p;
  }

  fail(ref, code) {
    const w = this.pending.get(ref);
    if (!w) return;
    this.pending.delete(ref);
    this.queue = this.queue.filter((q) => q.m.ref !== ref);
    w.reject(Object.assign(new Error(code), { code }));
  }

  // The connection is open again: what waited goes out.
  flush() {
    const live = this.live();
    const q = this.queue;
    this.queue = [];
    for (const x of q) if (!live || !live.send(x.m)) this.queue.push(x);
  }

  // A message from the table: true when it answered one of ours.
  onMessage(m) {
    const w = typeof m.ref === 'string' ? this.pending.get(m.ref) : null;
    if (!w) return false;
    this.pending.delete(m.ref);
    if (m.type === 'error') w.reject(Object.assign(new Error(m.message || m.code), { code: m.code }));
    else w.resolve(m.type === 'preview' ? m.preview : m.feature);
    return true;
  }
}
