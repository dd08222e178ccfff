// The board: an SVG of placed tiles, figures, the squares where the tile in
// hand fits, the tile being placed and its figure spots. Pan by dragging,
// zoom with the wheel or by pinching, fit with fit(). The pieces that belong
// to no player (Princess & Dragon's dragon and fairy, and the dragon's path
// while it moves) are drawn where the engine's view says they stand.
import { DEFS, rotatePoint, drawnAround } from './tiles.js';
import { figureSvg, figurePose, figureBox, dragonSvg, fairySvg } from './colors.js';

const NS = 'http://www.w3.org/2000/svg';
const T = 100; // tile size in board units
const LONG_PRESS_MS = 450; // a touch held this long on a figure shows its feature

function el(name, attrs = {}, parent = null) {
  const e = document.createElementNS(NS, name);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  if (parent) parent.appendChild(e);
  return e;
}

export class BoardView {
  constructor(container, tiles) {
    this.tiles = tiles;
    this.container = container;
    this.svg = el('svg', { class: 'board-svg', role: 'application' });
    this.svg.setAttribute('aria-roledescription', 'board');
    this.defs = el('defs', {}, this.svg);
    this.defs.innerHTML = DEFS + '<filter id="glow" x="-20%" y="-20%" width="140%" height="140%"><feGaussianBlur stdDeviation="4" result="b"/><feMerge><feMergeNode in="b"/><feMergeNode in="SourceGraphic"/></feMerge></filter>';
    this.view = el('g', { class: 'viewport' }, this.svg);
    this.layers = {};
    // ('fly': figures on their way home, motion.js)
    for (const n of ['tiles', 'last', 'cands', 'pending', 'hint', 'flash', 'mark', 'path', 'figures', 'beasts', 'eaten', 'spots', 'fly', 'float']) this.layers[n] = el('g', { class: `layer-${n}` }, this.view);
    container.appendChild(this.svg);
    this.defined = new Set();
    this.placed = new Map();
    this.scale = 0.8; this.tx = 0; this.ty = 0;
    this.onSquare = null; this.onSpot = null; this.onSpotHover = null;
    this.candidates = new Map(); this.rot = 0;
    this.userMoved = false;
    this.bindInput();
    this.resizeObs = new ResizeObserver(() => { if (this.saved && this.focus) this.centreOn(this.focus); else if (!this.userMoved) this.fit(); else this.apply(); });
    this.resizeObs.observe(container);
  }

  destroy() { this.resizeObs.disconnect(); document.removeEventListener('click', this.ghost, true); this.svg.remove(); }

  // one definition per tile and rotation: the pictures on it stay upright
  define(name, rot) {
    const id = `t-${name}-${rot}`;
    if (this.defined.has(id)) return id;
    const g = this.tiles.geometry(name);
    if (!g) return id;
    const sym = el('g', { id }, this.defs);
    sym.innerHTML = g.svgs[rot & 3];
    this.defined.add(id);
    return id;
  }

  tileNode(t, parent, cls = 'tile') {
    const id = this.define(t.tile, t.rot);
    return el('use', { href: `#${id}`, class: cls, transform: `translate(${t.x * T} ${t.y * T}) rotate(${t.rot * 90} 50 50)` }, parent);
  }

  // --- placed tiles and figures --------------------------------------------
  setBoard(list) {
    this.layers.tiles.replaceChildren();
    this.placed.clear();
    for (const t of list) this.addTile(t, false);
  }
  // whether the board shows exactly the tiles of `list`
  sameBoard(list) {
    return list.length === this.placed.size && list.every((t) => {
      const p = this.placed.get(`${t.x},${t.y}`);
      return p && p.tile === t.tile && p.rot === t.rot;
    });
  }
  // (the tile's node is returned: motion.js moves it into place)
  addTile(t) {
    const n = this.tileNode(t, this.layers.tiles, 'tile');
    n.dataset.x = t.x; n.dataset.y = t.y;
    this.placed.set(`${t.x},${t.y}`, t);
    return n;
  }
  // the node of the tile on square (x, y), or null
  tileAt(x, y) { return this.layers.tiles.querySelector(`use[data-x="${x}"][data-y="${y}"]`); }
  setLast(t) {
    this.layers.last.replaceChildren();
    if (!t) return;
    el('rect', { x: t.x * T + 2, y: t.y * T + 2, width: T - 4, height: T - 4, rx: 4, class: 'last-mark' }, this.layers.last);
  }
  // figures: [{player, kind, x, y, at, feature}], colorOf(player) -> palette entry
  // A figure's node is kept while it stays (same place and colour; a zoom
  // that moves or sizes it redraws inside the node), so that a figure being
  // set down (motion.js) is not drawn anew mid-way;
  // returns the nodes made new.
  setFigures(figs, colorOf) {
    this.figs = figs; this.colorOf = colorOf;
    // figures grow when the view is far out, so that a long game's pieces stay readable
    this.boost = this.figureBoost();
    this.figLod = this.lod();
    const boost = this.boost, lod = this.figLod;
    const L = this.layers.figures;
    const old = new Map([...L.children].map((n) => [n.dataset.key, n]));
    const made = [];
    let s = '';
    this.figPos = [];
    figs.forEach((f, i) => {
      const b = this.placed.get(`${f.x},${f.y}`);
      if (!b) return;
      const c = colorOf(f.player);
      const { px, py, fb, lying, dx } = this.figurePlace(b, f.at, f.kind, f.feature, boost, lod);
      const key = `${f.player}/${f.kind}/${f.x}/${f.y}/${f.at}/${c?.id}`, look = `${px},${py},${fb}`;
      this.figPos.push({ i, x: f.x * T + px + dx, y: f.y * T + py });
      const drawn = () => figureSvg(f.kind, c, f.x * T + px + dx, f.y * T + py, { lying, cls: `p${f.player}`, boost: fb });
      const n = old.get(key);
      if (n) {
        // the same figure: redrawn inside its node where the zoom moved or
        // sized it (a drop playing on the node goes on)
        old.delete(key); n.dataset.fig = i;
        if (n.dataset.look !== look) { n.innerHTML = drawn(); n.dataset.look = look; }
        return;
      }
      s += `<g data-fig="${i}" data-key="${key}" data-look="${look}" data-kind="${f.kind}" data-player="${f.player}" data-x="${f.x}" data-y="${f.y}" data-at="${f.at}">` + drawn() + '</g>';
    });
    for (const n of old.values()) n.remove();
    if (s) {
      const tpl = document.createElementNS(NS, 'g');
      tpl.innerHTML = s;
      made.push(...tpl.children);
      L.append(...made);
    }
    this.drawPieces();
    return made;
  }
  // A copy of a figure where it stood (f: {player, kind, x, y, at}), in
  // the flying layer, for its way home (motion.js): {node, cx, cy}, or
  // null when its tile is not on the board.
  figureCopy(f, colorOf) {
    const b = this.placed.get(`${f.x},${f.y}`);
    if (!b || !f.at) return null;
    const { px, py, fb, lying, dx } = this.figurePlace(b, f.at, f.kind);
    const cx = f.x * T + px + dx, cy = f.y * T + py;
    const node = el('g', { class: 'flying', 'data-kind': f.kind, 'data-player': f.player }, this.layers.fly);
    node.innerHTML = figureSvg(f.kind, colorOf(f.player), cx, cy, { lying, boost: fb });
    return { node, cx, cy };
  }
  // the pieces of no player: p = {dragon: {x, y} | null, fairy: {x, y, at} |
  // null, move: {visited: [{x, y}], steps} | null} as the engine's view
  // gives them (docs/protocol.md); null draws none
  setPieces(p) { this.pieces = p; this.drawPieces(); }
  drawPieces() {
    const p = this.pieces, boost = this.boost || 1;
    const path = this.layers.path, beasts = this.layers.beasts;
    path.replaceChildren(); beasts.replaceChildren();
    if (!p) return;
    const visited = p.move?.visited || [];
    if (visited.length) {
      // the squares the dragon has been on in this movement, joined in order
      const pts = visited.map((v) => `${v.x * T + 50},${v.y * T + 50}`).join(' ');
      const g = el('g', { class: 'dragon-path', 'data-testid': 'dragon-path', 'data-steps': String(p.move.steps ?? visited.length - 1) }, path);
      for (const v of visited) el('rect', { x: v.x * T + 6, y: v.y * T + 6, width: T - 12, height: T - 12, rx: 10, class: 'dragon-visited' }, g);
      el('polyline', { points: pts, class: 'dragon-trail', 'stroke-width': 7 * boost }, g);
    }
    let s = '';
    if (p.fairy && this.placed.has(`${p.fairy.x},${p.fairy.y}`)) {
      // beside the follower she stands by, or alone on the tile's corner
      const b = this.placed.get(`${p.fairy.x},${p.fairy.y}`);
      const [px, py] = p.fairy.at ? this.standsAt(p.fairy, b) : [70, 30];
      const off = p.fairy.at ? 13 * boost : 0;
      s += `<g class="fairy-piece" data-testid="fairy-piece" data-flies="1" data-x="${p.fairy.x}" data-y="${p.fairy.y}" data-at="${p.fairy.at ?? ''}">${fairySvg(p.fairy.x * T + px + off, p.fairy.y * T + py - off, boost)}</g>`;
    }
    if (p.dragon) {
      s += `<g class="dragon-piece" data-testid="dragon-piece" data-x="${p.dragon.x}" data-y="${p.dragon.y}">${dragonSvg(p.dragon.x * T + 50, p.dragon.y * T + 52, Math.min(boost, 1.5))}</g>`;
    }
    beasts.innerHTML = s;
  }
  // figures marked as going home if a decision is made (a preview's
  // "eaten"): [{player, kind, x, y, at}], or null
  setEaten(list) {
    const L = this.layers.eaten;
    L.replaceChildren();
    const boost = this.boost || 1;
    for (const f of list || []) {
      const b = this.placed.get(`${f.x},${f.y}`);
      if (!b) continue;
      const [px, py] = f.at ? this.standsAt(f, b) : [50, 50];
      const cx = f.x * T + px, cy = f.y * T + py, r = 15 * boost;
      const g = el('g', { class: 'eaten', 'data-testid': 'eaten' }, L);
      el('circle', { cx, cy, r, class: 'eaten-ring' }, g);
      el('path', { d: `M${cx - r * 0.6} ${cy - r * 0.6}L${cx + r * 0.6} ${cy + r * 0.6}M${cx + r * 0.6} ${cy - r * 0.6}L${cx - r * 0.6} ${cy + r * 0.6}`, class: 'eaten-cross' }, g);
    }
  }
  // the figure under a point of the screen (index into the figures, -1: none):
  // found by distance, so that figures need not take the pointer from the squares
  figureAt(clientX, clientY) {
    const [bx, by] = this.toBoard(clientX, clientY);
    const r = 15 * (this.boost || 1);
    let best = -1, bd = r * r;
    for (const p of this.figPos || []) {
      const d = (p.x - bx * T) ** 2 + (p.y - by * T) ** 2;
      if (d <= bd) { bd = d; best = p.i; }
    }
    return best;
  }
  // hovering (a mouse) or long-pressing (touch) a placed figure: onFigure(i)
  // then onFigure(null) when it is left (training.js)
  figureHover(e) {
    if (!this.onFigure || e.pointerType === 'touch') return;
    const i = this.figureAt(e.clientX, e.clientY);
    if (i === (this.figHover ?? -1)) return;
    this.figHover = i;
    this.onFigure(i >= 0 ? i : null);
  }

  // --- placing a tile -----------------------------------------------------
  // cands: Map "x,y" -> [rot...]; the squares fitting the current rotation stand out
  setCandidates(cands, rot) {
    this.candidates = cands; this.rot = rot;
    const L = this.layers.cands;
    L.replaceChildren();
    for (const [key, rots] of cands) {
      const [x, y] = key.split(',').map(Number);
      const fits = rots.includes(rot);
      const r = el('rect', { x: x * T + 4, y: y * T + 4, width: T - 8, height: T - 8, rx: 8, class: fits ? 'cand' : 'cand other' }, L);
      r.dataset.x = x; r.dataset.y = y;
    }
  }
  // squares a decision may name (a step's options that are squares: where
  // the dragon may go), the chosen one apart; [{x, y, selected}]
  setChoices(list) {
    const L = this.layers.cands;
    L.replaceChildren();
    for (const c of list) {
      const r = el('rect', { x: c.x * T + 5, y: c.y * T + 5, width: T - 10, height: T - 10, rx: 10, class: `choice${c.selected ? ' on' : ''}`, 'data-testid': 'choice' }, L);
      r.dataset.x = c.x; r.dataset.y = c.y;
    }
  }
  setPending(p, colorOf) {
    const L = this.layers.pending;
    L.replaceChildren();
    if (!p) return;
    this.tileNode(p, L, 'tile pending');
    el('rect', { x: p.x * T + 1, y: p.y * T + 1, width: T - 2, height: T - 2, class: 'pending-frame' }, L);
  }
  preview(p) { // hover ghost
    this.layers.pending.querySelectorAll('.ghost').forEach((n) => n.remove());
    if (p) this.tileNode(p, this.layers.pending, 'tile ghost');
  }
  // the analysis (analysis.js): the better move as a ghost tile with its
  // figure in a dashed frame, the square of the move played in a plain one;
  // h = {best: {x, y, rot, tile, meeple} | null, played: {x, y} | null, player}, or null
  setHint(h, colorOf) {
    const L = this.layers.hint;
    L.replaceChildren();
    if (!h) return;
    if (h.played) el('rect', { x: h.played.x * T + 3, y: h.played.y * T + 3, width: T - 6, height: T - 6, rx: 6, class: 'hint-played' }, L);
    const b = h.best;
    if (!b) return;
    const n = this.tileNode(b, L, 'tile hint-ghost');
    n.dataset.testid = 'hint-ghost';
    el('rect', { x: b.x * T + 1, y: b.y * T + 1, width: T - 2, height: T - 2, rx: 4, class: 'hint-frame' }, L);
    if (b.meeple) {
      const kind = b.meeple.kind;
      const { px, py, fb, lying, dx } = this.figurePlace(b, b.meeple.at, kind, undefined, this.figureBoost(), this.lod());
      const g = el('g', { class: 'hint-figure', 'data-testid': 'hint-figure' }, L);
      g.innerHTML = figureSvg(kind, colorOf(h.player), b.x * T + px + dx, b.y * T + py, { lying, boost: fb });
    }
  }
  // spots: [{at, kind, x, y (tile), pos [px,py] in tile units, selected}], colour of the mover
  setSpots(spots, color) {
    const L = this.layers.spots;
    L.replaceChildren();
    spots.forEach((s, i) => {
      const cx = s.x * T + s.pos[0], cy = s.y * T + s.pos[1];
      const g = el('g', { class: `spot${s.selected ? ' selected' : ''}`, tabindex: '-1', role: 'button' }, L);
      g.dataset.i = i;
      if (s.label) g.setAttribute('aria-label', s.label);
      // the touch target: at least 34 board units, and the view zooms in while choosing
      el('circle', { cx, cy, r: 17, class: 'spot-hit' }, g);
      g.addEventListener('pointerenter', () => this.onSpotHover?.(i));
      g.addEventListener('pointerleave', () => this.onSpotHover?.(null));
      if (s.ring) {
        // a figure on the board to choose (the fairy's follower, the knight
        // the princess sends home): a ring around it, its number beside
        const r = 17 * (this.boost || 1);
        el('circle', { cx, cy, r, class: `spot-around${s.selected ? ' sel' : ''}` }, g);
        el('circle', { cx: cx + r * 0.8, cy: cy - r * 0.8, r: 8, class: 'spot-dot', fill: color.hex }, g);
        const n = el('text', { x: cx + r * 0.8, y: cy - r * 0.8 + 3.5, class: 'spot-num', fill: color.ink }, g);
        n.textContent = String(i + 1);
      } else if (s.selected) {
        g.innerHTML = figureSvg(s.kind, color, cx, cy, { lying: figurePose(s.kind, s.feature).lying });
        el('circle', { cx, cy, r: 15, class: 'spot-ring sel' }, g);
      } else {
        el('circle', { cx, cy, r: 9, class: 'spot-dot', fill: color.hex }, g);
        el('circle', { cx, cy, r: 13, class: 'spot-ring' }, g);
        const n = el('text', { x: cx, y: cy + 3.5, class: 'spot-num', fill: color.ink }, g);
        n.textContent = String(i + 1);
      }
    });
  }

  // --- scoring flash ------------------------------------------------------
  // parts: [{x, y, at}] of a feature as the engine gives them (docs/protocol.md,
  // "The engine's views"), or [{x, y}] for a whole tile; kind: the feature's
  // kind (or 'tile'). The shapes of its parts: cities and roads as drawn, the
  // 3x3 neighbourhood of what scores its surroundings (a cloister, a garden),
  // any other part's tile; with classes prefix-area / prefix-line
  shapes(parts, kind, g, prefix, pending = null) {
    for (const p of parts) {
      const b = pending && p.x === pending.x && p.y === pending.y ? pending : this.placed.get(`${p.x},${p.y}`);
      if (!b) continue;
      const geo = this.tiles.geometry(b.tile);
      const tr = `translate(${p.x * T} ${p.y * T}) rotate(${b.rot * 90} 50 50)`;
      const seg = p.at ? this.tiles.segmentAt(b.tile, b.rot, p.at) : null;
      const city = seg && geo.cities.find((c) => c.seg.index === seg.index);
      const road = seg && geo.roads.find((r) => r.seg.index === seg.index);
      if (city) el('path', { d: city.d, transform: tr, class: `${prefix}-area` }, g);
      else if (road) el('path', { d: road.d, transform: tr, class: `${prefix}-line` }, g);
      else if (drawnAround(kind)) {
        el('rect', { x: (p.x - 1) * T, y: (p.y - 1) * T, width: 3 * T, height: 3 * T, class: `${prefix}-area`, rx: 10 }, g);
      } else el('rect', { x: p.x * T, y: p.y * T, width: T, height: T, class: `${prefix}-area` }, g);
    }
  }
  // opts: delay (ms before it shows: the step's motion lands first), step
  // (the step it belongs to: labels of an earlier step still on the board
  // go when one of a later step comes, unless motion moves them on),
  // onLabel(node, cx, cy): motion.js takes the label over (it travels to
  // the score and is removed at its end)
  flash(parts, kind, label, color, nth = 0, { delay = 0, step = null, onLabel = null } = {}) {
    const g = el('g', { class: 'flash' }, this.layers.flash);
    this.shapes(parts, kind, g, 'flash');
    if (delay > 0) for (const n of g.children) n.style.animationDelay = `${Math.round(delay)}ms`;
    if (!onLabel && step !== null) {
      // one label for each score event on the board at a time: an earlier
      // step's label, still fading, read as a second copy of this one
      for (const o of this.layers.float.querySelectorAll('.float-label')) if (o.dataset.step !== String(step)) o.remove();
    }
    if (label && parts.length) {
      const xs = parts.map((p) => p.x), ys = parts.map((p) => p.y);
      const cx = ((Math.min(...xs) + Math.max(...xs) + 1) / 2) * T, cy = ((Math.min(...ys) + Math.max(...ys) + 1) / 2) * T + nth * 50;
      // a pill in the scorer's colour with its ink: readable on any ground
      const w = 26 + label.length * 22;
      const f = el('g', { class: 'float-label' }, this.layers.float);
      if (step !== null) f.dataset.step = step;
      el('rect', { x: cx - w / 2, y: cy - 26, width: w, height: 48, rx: 24, fill: color ? color.hex : '#222', stroke: '#fff', 'stroke-width': 4 }, f);
      const tx = el('text', { x: cx, y: cy + 12, fill: color ? color.ink : '#fff' }, f);
      tx.textContent = label;
      if (onLabel) onLabel(f, cx, cy);
      else setTimeout(() => f.remove(), 2200 + delay);
    }
    setTimeout(() => g.remove(), 2200 + delay);
  }
  // a feature marked until mark(null): a log line clicked, a follower preview
  mark(parts, kind, { pending = null, cls = 'mark', label = '', color = null } = {}) {
    const L = this.layers.mark;
    L.replaceChildren();
    clearTimeout(this.markTimer);
    if (!parts || !parts.length) return;
    const g = el('g', { class: cls }, L);
    this.shapes(parts, kind, g, 'mark', pending);
    if (label) {
      // a pill with the points, in the colour of who would get them
      const xs = parts.map((p) => p.x), ys = parts.map((p) => p.y);
      const cx = ((Math.min(...xs) + Math.max(...xs) + 1) / 2) * T, cy = ((Math.min(...ys) + Math.max(...ys) + 1) / 2) * T;
      const s = Math.max(1, Math.min(2.5, 0.7 / this.scale)), w = (26 + label.length * 22) * s;
      const f = el('g', { class: 'mark-label', 'data-testid': 'mark-label' }, g);
      el('rect', { x: cx - w / 2, y: cy - 26 * s, width: w, height: 48 * s, rx: 24 * s, fill: color ? color.hex : '#222', stroke: '#fff', 'stroke-width': 4 * s }, f);
      const tx = el('text', { x: cx, y: cy + 12 * s, fill: color ? color.ink : '#fff', 'font-size': 34 * s }, f);
      tx.textContent = label;
    }
    if (cls === 'mark') this.markTimer = setTimeout(() => L.replaceChildren(), 5000);
  }

  // --- view ---------------------------------------------------------------
  figureBoost() { return Math.round(Math.min(1.9, Math.max(1, 0.8 / this.scale)) * 10) / 10; }
  // the tiles' level of detail by zoom (tiles.js; app.css, "tile art")
  lod() { return this.scale < 0.62 ? 'far' : this.scale < 1 ? 'mid' : 'near'; }
  // How a figure of `kind` on port `at` of tile p ({tile, rot}) is drawn:
  // {px, py} where it stands (tile units) and fb its size, clear of the
  // tile's symbols as drawn at `lod` (tiles.js placeFigure); lying and dx
  // its pose on its feature (`feature`, else the tile's segment there).
  // The boost and level of the figures as drawn unless given.
  figurePlace(p, at, kind, feature, boost = this.boost || 1, lod = this.figLod || this.lod()) {
    const { lying, dx } = figurePose(kind, feature ?? this.tiles.segmentAt(p.tile, p.rot, at)?.kind);
    const [px, py, fb] = this.tiles.placeFigure(p.tile, p.rot, at, (b) => figureBox(kind, lying, b), boost, lod, `${kind}/${lying}`);
    return { px, py, fb, lying, dx };
  }
  // where the figure on port `at` of square (x, y) stands as drawn (in
  // tile units; placed tile b): the one in this.figs there, else the spot
  standsAt({ x, y, at }, b) {
    const f = (this.figs || []).find((g) => g.x === x && g.y === y && g.at === at);
    if (!f) return this.tiles.spotAt(b.tile, b.rot, at);
    const { px, py } = this.figurePlace(b, at, f.kind, f.feature);
    return [px, py];
  }
  apply() {
    const lod = this.lod();
    if (this.figs && (this.figureBoost() !== this.boost || lod !== this.figLod)) this.setFigures(this.figs, this.colorOf);
    if (this.svg.dataset.lod !== lod) this.svg.dataset.lod = lod;
    this.view.setAttribute('transform', `translate(${this.tx.toFixed(1)} ${this.ty.toFixed(1)}) scale(${this.scale.toFixed(4)})`);
  }
  size() { const r = this.container.getBoundingClientRect(); return [r.width || 800, r.height || 600]; }
  bounds() {
    let x0 = 0, y0 = 0, x1 = 0, y1 = 0;
    const keys = [...this.placed.keys(), ...this.candidates.keys(), ...(this.extent || [])];
    for (const k of keys) {
      const [x, y] = k.split(',').map(Number);
      x0 = Math.min(x0, x); y0 = Math.min(y0, y); x1 = Math.max(x1, x); y1 = Math.max(y1, y);
    }
    return [x0, y0, x1 + 1, y1 + 1];
  }
  fit() {
    const [w, h] = this.size();
    const [x0, y0, x1, y1] = this.bounds();
    const bw = (x1 - x0 + 0.6) * T, bh = (y1 - y0 + 0.6) * T;
    this.scale = Math.max(0.12, Math.min(1.3, Math.min(w / bw, h / bh)));
    this.tx = w / 2 - ((x0 + x1) / 2) * T * this.scale;
    this.ty = h / 2 - ((y0 + y1) / 2) * T * this.scale;
    this.userMoved = false; this.saved = null;
    this.apply();
  }
  // keep a tile in view (after a move near the edge)
  ensureVisible(x, y) {
    if (!this.userMoved) { this.fit(); return; }
    const [w, h] = this.size();
    const sx = x * T * this.scale + this.tx, sy = y * T * this.scale + this.ty, s = T * this.scale;
    if (sx < 0 || sy < 0 || sx + s > w || sy + s > h) { this.tx += w / 2 - (sx + s / 2); this.ty += h / 2 - (sy + s / 2); this.apply(); }
  }
  zoomAt(f, cx, cy) {
    const ns = Math.max(0.1, Math.min(3, this.scale * f));
    f = ns / this.scale;
    this.tx = cx - (cx - this.tx) * f; this.ty = cy - (cy - this.ty) * f;
    this.scale = ns; this.userMoved = true; this.saved = null;
    this.apply();
  }
  // while a figure spot is chosen: the placed tile at least `px` CSS pixels
  // wide and in view; unzoom() goes back to the view before
  zoomToTile(x, y, px) {
    const [w, h] = this.size();
    const s = this.scale * T;
    const sx = x * s + this.tx, sy = y * s + this.ty;
    const inView = sx >= 0 && sy >= 0 && sx + s <= w && sy + s <= h;
    if (s >= px && inView) return;
    if (!this.saved) this.saved = { scale: this.scale, tx: this.tx, ty: this.ty, userMoved: this.userMoved };
    this.focus = { x, y, px };
    this.centreOn(this.focus);
  }
  centreOn({ x, y, px }) {
    const [w, h] = this.size();
    // the tile as asked, but never larger than most of the view
    this.scale = Math.max(this.scale, Math.min(px, 0.8 * Math.min(w, h)) / T);
    this.tx = w / 2 - (x + 0.5) * T * this.scale;
    this.ty = h / 2 - (y + 0.5) * T * this.scale;
    this.userMoved = true;
    this.apply();
  }
  unzoom() {
    if (!this.saved) return;
    Object.assign(this, this.saved);
    this.saved = null; this.focus = null;
    this.apply();
  }
  zoomBy(f) { const [w, h] = this.size(); this.zoomAt(f, w / 2, h / 2); }
  panBy(dx, dy) { this.tx += dx; this.ty += dy; this.userMoved = true; this.saved = null; this.apply(); }

  toBoard(clientX, clientY) {
    const r = this.svg.getBoundingClientRect();
    return [(clientX - r.left - this.tx) / this.scale / T, (clientY - r.top - this.ty) / this.scale / T];
  }

  bindInput() {
    const ptrs = new Map();
    let drag = null, pinch = null;
    const svg = this.svg;
    svg.addEventListener('pointerdown', (e) => {
      if (e.button !== 0 && e.pointerType === 'mouse') return;
      ptrs.set(e.pointerId, { x: e.clientX, y: e.clientY });
      if (ptrs.size === 1) drag = { x: e.clientX, y: e.clientY, moved: false, target: e.target };
      clearTimeout(this.pressTimer);
      if (ptrs.size === 1 && e.pointerType !== 'mouse' && this.onFigure) {
        const fi = this.figureAt(e.clientX, e.clientY), d = drag;
        if (fi >= 0) this.pressTimer = setTimeout(() => { if (drag === d && !d.moved) { d.pressed = true; this.onFigure(fi, true); } }, LONG_PRESS_MS);
      }
      if (ptrs.size === 2) {
        const [a, b] = [...ptrs.values()];
        pinch = { d: Math.hypot(a.x - b.x, a.y - b.y) };
        if (drag) drag.moved = true;
      }
    });
    svg.addEventListener('pointermove', (e) => {
      const p = ptrs.get(e.pointerId);
      if (!p) { this.hover(e); this.figureHover(e); return; }
      const dx = e.clientX - p.x, dy = e.clientY - p.y;
      p.x = e.clientX; p.y = e.clientY;
      if (ptrs.size === 2 && pinch) {
        const [a, b] = [...ptrs.values()];
        const d = Math.hypot(a.x - b.x, a.y - b.y);
        const r = svg.getBoundingClientRect();
        if (pinch.d > 0) this.zoomAt(d / pinch.d, (a.x + b.x) / 2 - r.left, (a.y + b.y) / 2 - r.top);
        pinch.d = d;
        return;
      }
      if (drag) {
        if (!drag.moved && Math.hypot(e.clientX - drag.x, e.clientY - drag.y) > 6) { drag.moved = true; svg.setPointerCapture?.(e.pointerId); svg.classList.add('dragging'); }
        if (drag.moved) this.panBy(dx, dy);
      }
    });
    const up = (e) => {
      if (!ptrs.has(e.pointerId)) return;
      ptrs.delete(e.pointerId);
      if (ptrs.size < 2) pinch = null;
      if (ptrs.size === 0) {
        svg.classList.remove('dragging');
        clearTimeout(this.pressTimer);
        // a long press shows a figure's feature: it is no tap on the square
        if (drag && !drag.moved && !drag.pressed && e.type === 'pointerup') {
          if (e.pointerType !== 'mouse') this.lastTap = { x: e.clientX, y: e.clientY, t: performance.now() };
          this.click(e, drag.target);
        }
        drag = null;
      }
    };
    svg.addEventListener('pointerup', up);
    svg.addEventListener('pointercancel', up);
    // A tap is handled on pointerup; the click the browser makes of it a moment
    // later must not reach anything else: the tap redraws the turn card (it
    // grows with the spots and Confirm), and that click then landed on
    // whatever stood under the finger by then (the phone's score strip, which
    // opened the sheet over the board). Caught before anyone sees it.
    this.ghost = (e) => {
      const tap = this.lastTap;
      if (!tap || performance.now() - tap.t > 800 || Math.hypot(e.clientX - tap.x, e.clientY - tap.y) > 16) return;
      this.lastTap = null;
      if (svg.contains(e.target)) return;
      e.stopPropagation();
      e.preventDefault();
    };
    document.addEventListener('click', this.ghost, true);
    svg.addEventListener('pointerleave', (e) => {
      this.preview(null);
      if (e.pointerType !== 'touch' && (this.figHover ?? -1) >= 0) { this.figHover = -1; this.onFigure?.(null); }
    });
    svg.addEventListener('wheel', (e) => {
      e.preventDefault();
      const r = svg.getBoundingClientRect();
      const f = Math.exp(-e.deltaY * (e.deltaMode === 1 ? 0.05 : 0.0015));
      this.zoomAt(f, e.clientX - r.left, e.clientY - r.top);
    }, { passive: false });
  }
  click(e, target) {
    const spot = target.closest?.('.spot');
    if (spot && this.onSpot) { this.onSpot(Number(spot.dataset.i)); return; }
    const [bx, by] = this.toBoard(e.clientX, e.clientY);
    const x = Math.floor(bx), y = Math.floor(by);
    if (this.onSquare) this.onSquare(x, y);
  }
  hover(e) {
    if (!this.hoverTile || !this.candidates.size) return;
    const [bx, by] = this.toBoard(e.clientX, e.clientY);
    const x = Math.floor(bx), y = Math.floor(by);
    const key = `${x},${y}`;
    if (key === this.lastHover) return;
    this.lastHover = key;
    const rots = this.candidates.get(key);
    if (!rots || this.pendingAt === key) { this.preview(null); return; }
    const rot = rots.includes(this.rot) ? this.rot : rots[0];
    this.preview({ x, y, tile: this.hoverTile, rot });
  }
  // screen position (client coordinates) of a board point, for tests and popups
  clientPoint(x, y) {
    const r = this.svg.getBoundingClientRect();
    return [r.left + this.tx + x * T * this.scale, r.top + this.ty + y * T * this.scale];
  }
}

export { rotatePoint };
