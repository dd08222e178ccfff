// Motion: what a step did, shown as movement on the board. The tile
// travels from the hand (or from its player's row when no hand shows) and
// drops into place with a small settle, a new figure is set down with a
// short bounce, a scored feature's points travel to that player's place on
// the score track (or row), and figures that went home fly to their
// player's supply. Everything here is driven by what the server sent for
// the step (its log entry, the figures before and after it): no rule is
// computed in the client.
//
// Steps play one after another: each reserves a slot on a little timeline
// (`until`) and its animations wait for it (Web Animations with a delay and
// fill "backwards", so the state of the board is right at once and only its
// drawing waits). When a step would start more than LAG_MS behind the news
// (a fast bot, several steps at once), the steps still waiting are shown at
// their end at once and the new one follows the motion playing now, so the
// board never lags behind by more than that; in a hidden tab nothing plays. With prefers-reduced-motion:
// reduce nothing travels or drops.
//
// Only transforms and opacity are animated, on SVG groups of the board:
// the compositor can run them without layout.

const T = 100; // tile size in board units (as board.js)
const LAG_MS = 2200;
// how long each part takes (ms)
export const MS = { tile: 640, figure: 420, label: 1500, home: 800, after: 320 };

const reduceQuery = typeof matchMedia === 'function' ? matchMedia('(prefers-reduced-motion: reduce)') : null;
export const reducedMotion = () => !!reduceQuery?.matches;

// a CSS transform moving a tile's local square to (x, y), turned by r
// degrees and scaled by s about its centre (the same list of functions in
// every keyframe, so that they interpolate part by part)
const tileAt = (x, y, r, s) => `translate(${x.toFixed(1)}px, ${y.toFixed(1)}px) translate(50px, 50px) rotate(${r}deg) scale(${s.toFixed(3)}) translate(-50px, -50px)`;
// a move by (dx, dy) with a scale s about the point (cx, cy)
const around = (dx, dy, cx, cy, s) => `translate(${dx.toFixed(1)}px, ${dy.toFixed(1)}px) translate(${cx.toFixed(1)}px, ${cy.toFixed(1)}px) scale(${s.toFixed(3)}) translate(${(-cx).toFixed(1)}px, ${(-cy).toFixed(1)}px)`;

// the centre of the first of `nodes` that shows on screen: {x, y, w} in
// client pixels, or null
function shown(nodes) {
  for (const n of nodes) {
    if (!n) continue;
    const r = n.getBoundingClientRect();
    if (r.width < 2 || r.height < 2) continue;
    if (r.right < 0 || r.bottom < 0 || r.left > innerWidth || r.top > innerHeight) continue;
    return { x: r.left + r.width / 2, y: r.top + r.height / 2, w: Math.min(r.width, r.height) };
  }
  return null;
}

export class Motion {
  // board: the BoardView; side: the game's root node (the hand, the
  // players, the score track and the phone's score strip are looked up in it)
  constructor(board, side) {
    this.board = board; this.side = side;
    this.until = 0;          // when the last step's slot ends (performance.now())
    this.anims = new Set();  // the animations running or waiting
    this.onHide = () => { if (document.hidden) this.finish(); };
    document.addEventListener('visibilitychange', this.onHide);
  }
  destroy() { document.removeEventListener('visibilitychange', this.onHide); this.finish(); }

  // Ends every animation at once (the state they lead to shows) and
  // forgets the timeline.
  finish() {
    for (const a of [...this.anims]) { try { a.finish(); } catch { a.cancel(); } }
    this.anims.clear();
    this.until = 0;
  }

  // An animation of `el` that finish() can end; `then` runs when it ends
  // (or is cancelled).
  play(el, frames, opts, then = null) {
    const a = el.animate(frames, { fill: 'backwards', ...opts });
    this.anims.add(a);
    const done = () => { this.anims.delete(a); then?.(); };
    a.addEventListener('finish', done);
    a.addEventListener('cancel', done);
    return a;
  }

  // When the next step's motion starts (ms from now), or null: shown at
  // once, without motion (reduced motion, a hidden tab). A step that would
  // wait more than LAG_MS skips ahead: what is still waiting for its turn
  // is shown at its end at once, what is moving now goes on, and the new
  // step starts when that has ended.
  slot() {
    if (reducedMotion() || document.hidden || typeof Element.prototype.animate !== 'function') { this.finish(); return null; }
    const now = performance.now();
    let wait = Math.max(0, this.until - now);
    if (wait <= LAG_MS) return wait;
    let left = 0;
    for (const a of [...this.anims]) {
      const tm = a.effect.getComputedTiming();
      const delay = a.effect.getTiming().delay || 0;
      if ((a.currentTime ?? 0) < delay) { try { a.finish(); } catch { a.cancel(); } } else left = Math.max(left, tm.endTime - (a.currentTime ?? 0));
    }
    wait = Math.min(left, LAG_MS);
    this.until = now + wait;
    return wait;
  }

  // Where a tile in hand stands on screen (client pixels), before the step
  // changes the page: the hand box while it shows, else the row of the
  // player in the side panel; null when neither shows. turned: the hand
  // shows the tile turned as it is laid (the mover's own hand, a replay's).
  source(player, turned) {
    const hand = this.side.querySelector('.hand:not(.hidden) .hand-tile svg');
    const from = shown([hand]);
    if (from) return { ...from, hand: true, turned };
    const row = shown([this.side.querySelector(`[data-testid=player-${player}]`)]);
    return row ? { ...row, w: 40, hand: false } : null;
  }

  // a client point in board units (the board's coordinates)
  toBoard(p) {
    const [bx, by] = this.board.toBoard(p.x, p.y);
    return [bx * T, by * T];
  }

  // Where player p's points go: the marker on the score track when it
  // shows, else the score in the player's row, else the phone's strip.
  scoreTarget(p) {
    const s = this.side;
    return shown([s.querySelector(`.track-on [data-testid=track-p${p}]`), s.querySelector(`[data-testid=score-${p}]`), s.querySelectorAll('.mini-scores .ms')[p]]);
  }
  // Where player p's figure of `kind` goes home: its count in the row, the
  // row, or the phone's strip.
  homeTarget(p, kind) {
    const s = this.side;
    return shown([s.querySelector(`[data-testid=player-${p}] .fig[data-kind="${kind}"]`), s.querySelector(`[data-testid=player-${p}]`), s.querySelectorAll('.mini-scores .ms')[p]]);
  }

  // The motion of one step, after the board shows its end. e: the log
  // entry; tileNode: the tile it put down (or null); from: source() taken
  // before the page changed; newFigs: the figure nodes the step set down;
  // home: [{player, kind, x, y, at, node}] figures gone home (node: a copy
  // drawn where it stood, in the board's flying layer, removed at the end);
  // scores: whether the step scored (its labels travel: label()); wait:
  // slot(), asked before the board changed.
  // Returns when its scoring shows (performance.now() time), or null when
  // it is shown at once.
  step({ e, tileNode, from, newFigs = [], home = [], scores = false, wait }) {
    if (wait === null) {
      for (const h of home) h.node.remove();
      return null;
    }
    const now = performance.now();
    let land = wait;
    if (tileNode) {
      this.dropTile(tileNode, e, from, wait);
      land = wait + MS.tile;
      const last = this.board.layers.last.firstElementChild;
      if (last) this.play(last, [{ opacity: 0 }, { opacity: 1 }], { delay: land, duration: 200 });
    }
    let end = land;
    newFigs.forEach((n, i) => {
      const d = land - 80 + i * 120;
      this.play(n, [
        { transform: 'translate(0px, -36px)', opacity: 0 },
        { transform: 'translate(0px, 0px)', opacity: 1, offset: 0.55, easing: 'ease-out' },
        { transform: 'translate(0px, -8px)', offset: 0.75, easing: 'ease-in' },
        { transform: 'translate(0px, 0px)', opacity: 1 },
      ], { delay: d, duration: MS.figure, easing: 'ease-in' });
      end = Math.max(end, d + MS.figure);
    });
    home.forEach((h, i) => {
      // a figure set down by this step and sent home by it drops first
      const d = h.fresh ? land - 80 : land + 250 + i * 90;
      end = Math.max(end, d + this.flyHome(h, d));
    });
    // the next step waits for this one's points to arrive
    if (scores) end = Math.max(end, land + MS.label);
    this.until = now + end + MS.after;
    return now + land;
  }

  // The dragon and the fairy, where a step moved them: from the square they
  // stood on (before: {dragon, fairy} as the view gave them, {x, y}) to
  // where the board now draws them, after the step's tile lands; the dragon
  // stalks, the fairy flies in an arc. wait: slot() (null: no motion).
  beasts(before, wait) {
    if (wait === null) return;
    const L = this.board.layers.beasts;
    // (the pieces by the view's own keys: board.js draws each as .KEY-piece)
    for (const [kind, a] of Object.entries(before)) {
      const n = L.querySelector(`.${kind}-piece`);
      if (!a || !n) continue;
      const dx = (a.x - Number(n.dataset.x)) * T, dy = (a.y - Number(n.dataset.y)) * T;
      if (!dx && !dy) continue;
      const d = Math.hypot(dx, dy) / T, duration = Math.min(1400, 380 + 260 * d);
      // one that flies (the fairy, board.js's "flies" mark) rises on the way
      const mid = n.dataset.flies ? `translate(${dx / 2}px, ${dy / 2 - 40}px)` : `translate(${dx / 2}px, ${dy / 2}px)`;
      this.play(n, [
        { transform: `translate(${dx}px, ${dy}px)` },
        { transform: mid, offset: 0.5 },
        { transform: 'translate(0px, 0px)' },
      ], { delay: wait + MS.tile * 0.6, duration, easing: 'ease-in-out' });
      this.until = Math.max(this.until, performance.now() + wait + MS.tile * 0.6 + duration);
    }
  }

  // The tile from the hand (turning from the hand's rotation to its own)
  // to its square, lifted a little, then set down with a settle; from no
  // hand, it drops from above its square.
  dropTile(node, e, from, delay) {
    const X = e.x * T, Y = e.y * T, R = (e.rot || 0) * 90;
    let frames;
    if (from) {
      const [cx, cy] = this.toBoard(from);
      const s = Math.max(0.2, Math.min(3, from.w / (T * this.board.scale)));
      // the hand shows the tile as it will lie when it is the mover's own
      // (turned already); from another's hand or row it turns on the way
      let r0 = from.hand && from.turned ? R : 0;
      if (R - r0 > 180) r0 += 360;
      frames = [
        { transform: tileAt(cx - 50, cy - 50, r0, s), opacity: 0 },
        { transform: tileAt(cx - 50, cy - 50, r0, s), opacity: 1, offset: 0.06 },
        { transform: tileAt(X, Y - 18, R, 1.12), opacity: 1, offset: 0.7, easing: 'ease-in' },
        { transform: tileAt(X, Y, R, 0.96), offset: 0.86 },
        { transform: tileAt(X, Y, R, 1), opacity: 1 },
      ];
    } else {
      frames = [
        { transform: tileAt(X, Y - 45, R, 1.3), opacity: 0 },
        { transform: tileAt(X, Y - 12, R, 1.1), opacity: 1, offset: 0.55, easing: 'ease-in' },
        { transform: tileAt(X, Y, R, 0.96), offset: 0.84 },
        { transform: tileAt(X, Y, R, 1), opacity: 1 },
      ];
    }
    node.classList.add('tile-moving');
    this.play(node, frames, { delay, duration: MS.tile, easing: 'cubic-bezier(.3,.1,.3,1)' }, () => node.classList.remove('tile-moving'));
  }

  // A figure that went home: hops up and flies to its owner's supply,
  // shrinking and fading at the end; its node is removed after. A fresh
  // one (set down by the same step) is set down first, and rests a moment.
  // Returns how long it takes.
  flyHome(h, delay) {
    const to = this.homeTarget(h.player, h.kind);
    const [fx, fy] = [h.cx, h.cy];
    const [tx, ty] = to ? this.toBoard(to) : [fx, fy - 120];
    const fly = [
      { transform: around(0, 0, fx, fy, 1), opacity: 1 },
      { transform: around(0, -16, fx, fy, 1.15), opacity: 1, easing: 'ease-in' },
      { transform: around(tx - fx, ty - fy, fx, fy, 0.6), opacity: 0 },
    ];
    let frames, duration;
    if (h.fresh) {
      duration = MS.figure + 450 + MS.home;
      const a = MS.figure / duration, b = (MS.figure + 450) / duration;
      frames = [
        { transform: around(0, -36, fx, fy, 1), opacity: 0 },
        { transform: around(0, 0, fx, fy, 1), opacity: 1, offset: a * 0.55, easing: 'ease-out' },
        { transform: around(0, -8, fx, fy, 1), opacity: 1, offset: a * 0.75, easing: 'ease-in' },
        { ...fly[0], offset: a },
        { ...fly[0], offset: b },
        { ...fly[1], offset: b + (1 - b) * 0.2 },
        fly[2],
      ];
    } else {
      duration = MS.home;
      frames = [fly[0], { ...fly[1], offset: 0.2 }, fly[2]];
    }
    this.play(h.node, frames, { delay, duration, easing: 'ease-in-out' }, () => h.node.remove());
    return duration;
  }

  // A points label (the board's .float-label at (cx, cy)) pops up on its
  // feature at `at` (performance.now() time), stays a moment, then travels
  // to player p's place; removed at the end.
  label(node, cx, cy, p, at) {
    const delay = Math.max(0, at - performance.now());
    const to = p === null ? null : this.scoreTarget(p);
    const [tx, ty] = to ? this.toBoard(to) : [cx, cy - 60];
    node.classList.add('moving');
    this.play(node, [
      { transform: around(0, 0, cx, cy, 0.4), opacity: 0 },
      { transform: around(0, 0, cx, cy, 1.15), opacity: 1, offset: 0.1, easing: 'ease-out' },
      { transform: around(0, 0, cx, cy, 1), opacity: 1, offset: 0.18 },
      { transform: around(0, -10, cx, cy, 1), opacity: 1, offset: 0.5, easing: 'ease-in' },
      { transform: around(tx - cx, ty - cy, cx, cy, 0.45), opacity: 0.15 },
    ], { delay, duration: MS.label }, () => node.remove());
  }
}
