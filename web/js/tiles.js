// Tile drawing from the engine's tile definitions (GET /api/tiles).
//
// Every tile is drawn at rotation 0 in a 100x100 box from its segments alone:
// cities from the sides their ports touch, roads and rivers from their ports,
// cloisters and gardens at the centre, plus the flags (shield, inn, cathedral)
// and goods, and a tile's symbol (Princess & Dragon: the tiles JSON's
// "symbol", the princess city segment's "princess"), each drawn by the name
// the engine gives it. Nothing here knows a tile by name, so every expansion
// tile draws itself. The same geometry gives the spot of every segment (where a figure
// stands); fields get theirs from a coarse grid filled around the drawn shapes.

import { t, listJoin } from './i18n.js';

export const PORTS = ['N0', 'N1', 'N2', 'E0', 'E1', 'E2', 'S0', 'S1', 'S2', 'W0', 'W1', 'W2'];
const CORNERS = [[0, 0], [100, 0], [100, 100], [0, 100]]; // NW NE SE SW: side d runs corner d -> d+1
const SIDE_MID = [[50, 0], [100, 50], [50, 100], [0, 50]];
const INWARD = [[0, 1], [-1, 0], [0, -1], [1, 0]];
const PART = [17, 50, 83];

// How each kind of feature is drawn, keyed by the engine's name (GET
// /api/tiles gives every segment's kind): an area inside walls, a path or
// water along its ports, a building or a garden at the centre, or the ground
// everything else stands on. A kind not here is not drawn (its spot is the
// tile's centre). `around`: what it scores covers the tiles around it, and
// so does its outline on the board.
const DRAWN_AS = { city: 'walled', road: 'path', river: 'water', cloister: 'abbey', garden: 'flowers', field: 'ground' };
const AROUND = { abbey: true, flowers: true };
const as = (s) => DRAWN_AS[s.kind];
export const drawnAround = (kind) => !!AROUND[DRAWN_AS[kind]];

export const COLORS = {
  field: '#8cbf4f', fieldDark: '#6f9e3a', city: '#c99a5b', cityDark: '#8a5a2b', wall: '#6b4423',
  road: '#f2ead6', roadEdge: '#8d7b5a', river: '#4a8fd6', riverEdge: '#2e6aa8',
};

// Port name -> position on the edge of a 100x100 tile (rot 0 coordinates).
export function portPoint(port) {
  if (port === 'C' || port === 'I') return [50, 50];
  const i = PORTS.indexOf(port), side = Math.floor(i / 3), k = i % 3;
  const [a, b] = [CORNERS[side], CORNERS[(side + 1) % 4]];
  const f = PART[k] / 100;
  return [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f];
}

// A port of the board (after rotation) back to the tile's own port, and forth.
export function unrotatePort(port, rot) {
  const i = PORTS.indexOf(port);
  return i < 0 ? port : PORTS[(i - 3 * rot + 48) % 12];
}
export function rotatePort(port, rot) {
  const i = PORTS.indexOf(port);
  return i < 0 ? port : PORTS[(i + 3 * rot) % 12];
}
// A point of the tile (rot 0) after `rot` clockwise quarter turns about the centre.
export function rotatePoint([x, y], rot) {
  for (let r = 0; r < ((rot % 4) + 4) % 4; r++) [x, y] = [100 - y, x];
  return [x, y];
}

const sideOf = (port) => Math.floor(PORTS.indexOf(port) / 3);
const sidesOf = (seg) => [...new Set(seg.ports.filter((p) => PORTS.includes(p)).map(sideOf))].sort();
const fmt = (n) => Math.round(n * 10) / 10;
const pt = (p) => `${fmt(p[0])} ${fmt(p[1])}`;

// The outline of a city touching `sides`, and its inner walls (the curves that are
// not the tile's edge). `shrink`: other cities share the tile around an inner meadow.
function cityShape(sides, shrink) {
  if (sides.length === 4) return { d: 'M0 0H100V100H0Z', walls: [] };
  const S = new Set(sides);
  // runs of neighbouring city sides, clockwise; after each run a wall bows
  // into the tile to the corner where the next run starts
  const runs = [];
  for (const s of sides) {
    if (S.has((s + 3) % 4)) continue; // not the start of a run
    let len = 0;
    while (S.has((s + len) % 4)) len++;
    const endSide = (s + len) % 4;
    let next = endSide;
    while (!S.has(next)) next = (next + 1) % 4;
    const gap = (next - endSide + 4) % 4;
    let c;
    if (gap === 1) { // one side of field: a shallow curve along it
      c = [SIDE_MID[endSide][0] + INWARD[endSide][0] * 58, SIDE_MID[endSide][1] + INWARD[endSide][1] * 58];
    } else if (gap === 3) { // a cap on one side
      c = [SIDE_MID[s][0] + INWARD[s][0] * 60, SIDE_MID[s][1] + INWARD[s][1] * 60];
    } else { // a city in a corner: bow towards the corner between the field sides
      const gc = CORNERS[(endSide + 1) % 4];
      const k = shrink ? -0.4 : 0.5;
      c = [50 + (gc[0] - 50) * k, 50 + (gc[1] - 50) * k];
    }
    runs.push({ s, len, c, from: CORNERS[endSide], to: CORNERS[next] });
  }
  let d = `M${pt(CORNERS[runs[0].s])}`;
  for (const r of runs) {
    for (let i = 1; i <= r.len; i++) d += ` L${pt(CORNERS[(r.s + i) % 4])}`;
    d += ` Q${pt(r.c)} ${pt(r.to)}`;
  }
  const walls = runs.map((r) => ({ d: `M${pt(r.from)} Q${pt(r.c)} ${pt(r.to)}` }));
  return { d: d + ' Z', walls };
}

const quadAt = (a, c, b, t) => [
  (1 - t) * (1 - t) * a[0] + 2 * (1 - t) * t * c[0] + t * t * b[0],
  (1 - t) * (1 - t) * a[1] + 2 * (1 - t) * t * c[1] + t * t * b[1],
];

// Geometry of one tile definition: shapes to draw and the spot of every segment.
export function tileGeometry(def, startNames = []) {
  const segs = def.segments;
  const cities = segs.filter((s) => as(s) === 'walled');
  const shrink = segs.some((s) => as(s) === 'ground' && s.ports.includes('I')) ||
    cities.filter((s) => sidesOf(s).length === 2).length > 1;
  const g = { name: def.name, cities: [], roads: [], rivers: [], cloister: null, garden: null, houses: [], junction: false, spots: {}, icons: [] };
  let centreCovered = false;
  const citySides = new Set();
  for (const s of cities) {
    const sides = sidesOf(s);
    sides.forEach((x) => citySides.add(x));
    const shape = cityShape(sides, shrink);
    g.cities.push({ seg: s, ...shape, sides });
    const n = sides.length;
    if (n >= 3 || (n === 2 && (sides[1] - sides[0]) === 2) || (n === 2 && !shrink)) centreCovered = true;
  }
  const hasCloister = segs.some((s) => as(s) === 'abbey');
  if (hasCloister) centreCovered = true;
  for (const band of ['water', 'path']) {
    const list = segs.filter((s) => as(s) === band);
    const singles = list.filter((s) => s.ports.length === 1).length;
    for (const s of list) {
      const ps = s.ports.filter((p) => PORTS.includes(p));
      let path, spot, house = null, a, b;
      if (ps.length === 2) {
        a = portPoint(ps[0]); b = portPoint(ps[1]);
        const opposite = Math.abs(sideOf(ps[0]) - sideOf(ps[1])) === 2;
        const c = opposite ? [(a[0] + b[0]) / 2, (a[1] + b[1]) / 2] : [50, 50];
        path = `M${pt(a)} Q${pt(c)} ${pt(b)}`;
        spot = quadAt(a, c, b, 0.5);
        if (opposite && band === 'path' && segs.filter((x) => as(x) === 'path' && x.ports.length === 2).length > 1 && g.roads.length) spot = quadAt(a, c, b, 0.3);
      } else if (ps.length === 1) {
        const side = sideOf(ps[0]);
        a = portPoint(ps[0]);
        if (band === 'water') {
          b = [50, 50];
        } else if (hasCloister || singles >= 3) {
          b = [50, 50];
          if (!hasCloister) g.junction = true;
        } else if (citySides.has((side + 2) % 4)) {
          b = SIDE_MID[(side + 2) % 4];
        } else if (centreCovered) {
          b = [50, 50];
        } else {
          b = [a[0] + INWARD[side][0] * 40, a[1] + INWARD[side][1] * 40];
          house = b;
        }
        path = `M${pt(a)} L${pt(b)}`;
        spot = [a[0] + INWARD[side][0] * (house ? 17 : 22), a[1] + INWARD[side][1] * (house ? 17 : 22)];
        if (house) g.houses.push(house);
      } else { // several ports: all meet at the centre
        path = ps.map((p) => `M${pt(portPoint(p))} L50 50`).join(' ');
        spot = [50, 50];
        a = portPoint(ps[0]);
        g.junction = true;
      }
      const item = { seg: s, d: path, single: ps.length === 1, end: b };
      (band === 'path' ? g.roads : g.rivers).push(item);
      g.spots[s.index] = spot;
      if (s.inn) {
        const side = sideOf(ps[0]);
        const perp = INWARD[(side + 1) % 4];
        g.icons.push({ kind: 'inn', at: [spot[0] + perp[0] * 13, spot[1] + perp[1] * 13] });
      }
    }
  }
  for (const s of segs) {
    if (as(s) === 'abbey') { g.cloister = { seg: s, at: [50, 50] }; g.spots[s.index] = [50, 56]; }
  }
  g.spring = startNames.includes(def.name);
  g.fieldSegs = segs.filter((s) => as(s) === 'ground');
  g.gardenSeg = segs.find((s) => as(s) === 'flowers') || null;
  // the goods symbol of a city segment (Traders & Builders), drawn by its name
  g.goods = segs.find((s) => s.goods)?.goods || null;
  // the tile's symbol (a volcano, a dragon, a magic portal, a princess), by its name
  g.symbol = def.symbol || null;
  g.princessSeg = segs.find((s) => s.princess) || null;
  return g;
}

// Field spots (and the garden's place) need the drawn shapes: a 25x25 grid is
// labelled with what covers each cell, the fields are flood-filled from their
// ports, and each segment stands at its cell farthest from anything else.
const GRID = 25, CELL = 100 / GRID;
let ctx2d = null;
function hitContext() {
  if (!ctx2d) {
    const c = typeof OffscreenCanvas !== 'undefined' ? new OffscreenCanvas(8, 8) : document.createElement('canvas');
    ctx2d = c.getContext('2d');
  }
  return ctx2d;
}

export function computeSpots(g) {
  const ctx = hitContext();
  const label = new Array(GRID * GRID).fill(-1); // -1 free, -2 blocked, else segment index
  const cellXY = (i) => [(i % GRID) * CELL + CELL / 2, Math.floor(i / GRID) * CELL + CELL / 2];
  const cityPaths = g.cities.map((c) => [new Path2D(c.d), c.seg.index]);
  const riverPaths = g.rivers.map((r) => [new Path2D(r.d), r.seg.index]);
  const roadPaths = g.roads.map((r) => [new Path2D(r.d), r.seg.index]);
  for (let i = 0; i < label.length; i++) {
    const [x, y] = cellXY(i);
    for (const [path, idx] of cityPaths) if (ctx.isPointInPath(path, x, y)) label[i] = idx;
    ctx.lineWidth = 20;
    for (const [path, idx] of riverPaths) if (ctx.isPointInStroke(path, x, y)) label[i] = idx;
    ctx.lineWidth = 13;
    for (const [path, idx] of roadPaths) if (ctx.isPointInStroke(path, x, y)) label[i] = idx;
    if (g.cloister && Math.abs(x - 50) < 17 && Math.abs(y - 50) < 17) label[i] = g.cloister.seg.index;
    for (const h of g.houses) if (Math.abs(x - h[0]) < 8 && Math.abs(y - h[1]) < 8) label[i] = -2;
    if (g.junction && Math.abs(x - 50) < 8 && Math.abs(y - 50) < 8) label[i] = -2;
  }
  const cellAt = (x, y) => Math.min(GRID - 1, Math.max(0, Math.floor(y / CELL))) * GRID + Math.min(GRID - 1, Math.max(0, Math.floor(x / CELL)));
  const flood = () => {
    for (const f of g.fieldSegs) {
      const queue = [];
      for (const p of f.ports) {
        let [x, y] = portPoint(p);
        if (p !== 'I' && p !== 'C') { const s = sideOf(p); x += INWARD[s][0] * 2; y += INWARD[s][1] * 2; }
        const i = cellAt(x, y);
        if (label[i] === -1) { label[i] = f.index; queue.push(i); }
      }
      while (queue.length) {
        const i = queue.shift(), cx = i % GRID, cy = Math.floor(i / GRID);
        for (const [dx, dy] of [[1, 0], [-1, 0], [0, 1], [0, -1]]) {
          const nx = cx + dx, ny = cy + dy;
          if (nx < 0 || ny < 0 || nx >= GRID || ny >= GRID) continue;
          const j = ny * GRID + nx;
          if (label[j] === -1) { label[j] = f.index; queue.push(j); }
        }
      }
    }
  };
  flood();
  // the segment's cell farthest from any other label and from the tile's edge
  // (a two-pass chamfer distance transform), nudged towards `pref`
  // (poleWhere: the same over the cells whose label `inside` accepts, kept
  // away from the points `avoid` by `gap` tile units and from the tile's
  // edge by `margin` where it can: a symbol drawn there stays whole)
  const poleWhere = (inside, pref, avoid = [], gap = 0, margin = 0) => {
    const D = new Float32Array(label.length);
    for (let i = 0; i < label.length; i++) D[i] = inside(label[i]) ? 1e9 : 0;
    const relax = (i, j, w) => { if (D[j] + w < D[i]) D[i] = D[j] + w; };
    for (let y = 0; y < GRID; y++) {
      for (let x = 0; x < GRID; x++) {
        const i = y * GRID + x;
        if (x > 0) relax(i, i - 1, 1);
        if (y > 0) { relax(i, i - GRID, 1); if (x > 0) relax(i, i - GRID - 1, 1.414); if (x < GRID - 1) relax(i, i - GRID + 1, 1.414); }
      }
    }
    for (let y = GRID - 1; y >= 0; y--) {
      for (let x = GRID - 1; x >= 0; x--) {
        const i = y * GRID + x;
        if (x < GRID - 1) relax(i, i + 1, 1);
        if (y < GRID - 1) { relax(i, i + GRID, 1); if (x < GRID - 1) relax(i, i + GRID + 1, 1.414); if (x > 0) relax(i, i + GRID - 1, 1.414); }
      }
    }
    let best = null, bestScore = -Infinity;
    for (let i = 0; i < label.length; i++) {
      if (!inside(label[i])) continue;
      const [x, y] = cellXY(i);
      const d = Math.min(D[i] * CELL, x + 2, y + 2, 102 - x, 102 - y, 30);
      let score = d - (pref ? Math.hypot(x - pref[0], y - pref[1]) * 0.08 : 0);
      for (const a of avoid) score += Math.min(0, Math.hypot(x - a[0], y - a[1]) - gap) * 1.5;
      score -= Math.max(0, margin - Math.min(x, y, 100 - x, 100 - y)) * 100;
      if (score > bestScore) { bestScore = score; best = [x, y]; }
    }
    return best;
  };
  const poleOf = (idx, pref) => poleWhere((l) => l === idx, pref);
  if (g.gardenSeg) {
    // the garden goes where the largest field is widest
    let at = null;
    if (g.roads.some((r) => !r.single) || g.cities.some((c) => c.sides.length >= 2 && !(c.sides.length === 2 && c.sides[1] - c.sides[0] === 2)) || g.rivers.length) {
      let bestScore = -1;
      for (const f of g.fieldSegs) {
        const p = poleOf(f.index, [50, 50]);
        if (!p) continue;
        const n = label.filter((l) => l === f.index).length;
        if (n > bestScore) { bestScore = n; at = p; }
      }
    }
    at = at || [50, 50];
    g.garden = { seg: g.gardenSeg, at };
    g.spots[g.gardenSeg.index] = at;
    for (let i = 0; i < label.length; i++) {
      const [x, y] = cellXY(i);
      if (Math.hypot(x - at[0], y - at[1]) < 14) label[i] = g.gardenSeg.index;
    }
  }
  for (const c of g.cities) {
    const pref = c.sides.length === 4 ? [50, 50] : null;
    g.spots[c.seg.index] = poleOf(c.seg.index, pref) || [50, 50];
    if (c.seg.shield || c.seg.cathedral || g.goods) {
      const s = g.spots[c.seg.index];
      if (c.seg.shield) g.icons.push({ kind: 'shield', at: [s[0] + 14, s[1] - 9] });
      if (c.seg.cathedral) { g.icons.push({ kind: 'cathedral', at: [50, 30] }); g.spots[c.seg.index] = [50, 62]; }
    }
  }
  if (g.goods) {
    const big = [...g.cities].sort((a, b) => b.seg.ports.length - a.seg.ports.length)[0];
    if (big) { const s = g.spots[big.seg.index]; g.icons.push({ kind: g.goods, at: [s[0] - 15, s[1] + 6] }); }
  }
  for (const f of g.fieldSegs) {
    g.spots[f.index] = poleOf(f.index, null) || portPoint(f.ports[0]);
  }
  if (g.symbol) {
    // the princess in her city beside its figure's spot; any other symbol
    // on the meadow where it is widest and clear of the figures' spots (one
    // drawn big, a volcano, takes the middle of it)
    const spots = Object.values(g.spots);
    const fieldIdx = new Set(g.fieldSegs.map((f) => f.index));
    const ps = g.princessSeg;
    let at = null;
    if (ps) at = poleWhere((l) => l === ps.index, null, [g.spots[ps.index]], 18, 13);
    else if (fieldIdx.size) at = poleWhere((l) => fieldIdx.has(l), [50, 50], SYMBOL_LOOKS[g.symbol]?.middle ? [] : spots, 18, 16);
    g.icons.push({ kind: g.symbol, at: at || [50, 50] });
  }
  g.labels = label;
  return g;
}

// --- SVG -------------------------------------------------------------------

const ICONS = {
  shield: (x, y) => `<g transform="translate(${fmt(x)} ${fmt(y)})"><path d="M-6 -7H6V0C6 5 0 8 0 8C0 8 -6 5 -6 0Z" fill="#2d4fa3" stroke="#f4eede" stroke-width="1.6"/><path d="M0 -7V8M-6 -1H6" stroke="#f4eede" stroke-width="1.2"/></g>`,
  // an inn: a bigger house than a road's end, with a blue roof and a hanging sign
  inn: (x, y) => `<g transform="translate(${fmt(x)} ${fmt(y)})"><rect x="-7" y="-3" width="14" height="10" fill="#fff4d6" stroke="#3a2a14" stroke-width="1.2"/><path d="M-9.5 -2L0 -10L9.5 -2Z" fill="#2d5fa3" stroke="#1b2f55" stroke-width="1.2"/><rect x="-2" y="1.5" width="4" height="5.5" fill="#5b3b1a"/><path d="M7 -1H12V1" stroke="#3a2a14" stroke-width="1" fill="none"/><circle cx="12" cy="4" r="3.4" fill="#f3c12e" stroke="#3a2a14" stroke-width="1"/></g>`,
  cathedral: (x, y) => `<g transform="translate(${fmt(x)} ${fmt(y)})"><rect x="-12" y="-4" width="24" height="14" fill="#e9e2d0" stroke="#4a3a28" stroke-width="1.2"/><path d="M-14 -4L0 -13L14 -4Z" fill="#5f6f8f" stroke="#4a3a28" stroke-width="1.2"/><rect x="-3.5" y="-24" width="7" height="20" fill="#e9e2d0" stroke="#4a3a28" stroke-width="1.2"/><path d="M-5 -24L0 -31L5 -24Z" fill="#5f6f8f" stroke="#4a3a28"/><path d="M0 -36V-31M-2 -34H2" stroke="#4a3a28" stroke-width="1.2"/><path d="M-3 10V3A3 3 0 0 1 3 3V10" fill="#4a3a28"/></g>`,
  wine: (x, y) => `<g transform="translate(${fmt(x)} ${fmt(y)})"><circle r="8" fill="#f4eede" stroke="#5b3b1a"/>${[[-2.5, -2.5], [2.5, -2.5], [0, 1.5], [-2.5, 1.5], [2.5, 1.5], [0, 5]].map(([a, b]) => `<circle cx="${a}" cy="${b}" r="2.2" fill="#7b2a7f"/>`).join('')}</g>`,
  grain: (x, y) => `<g transform="translate(${fmt(x)} ${fmt(y)})"><circle r="8" fill="#f4eede" stroke="#5b3b1a"/><path d="M0 6V-5M0 -1L-3 -4M0 -1L3 -4M0 2L-3 -1M0 2L3 -1M0 -4L-2 -6M0 -4L2 -6" stroke="#c99412" stroke-width="1.8" stroke-linecap="round"/></g>`,
  cloth: (x, y) => `<g transform="translate(${fmt(x)} ${fmt(y)})"><circle r="8" fill="#f4eede" stroke="#5b3b1a"/><rect x="-5" y="-4" width="10" height="8" rx="2" fill="#2f7fbf"/><path d="M-5 -1H5M-5 2H5" stroke="#bfe0f7" stroke-width="1"/></g>`,
};

// The symbols of Princess & Dragon tiles, by the engine's names (the tiles
// JSON's "symbol"): a volcano with its smoke, a dragon's head on a badge,
// the magic portal's arch, the princess with her crown.
const SYMBOLS = {
  volcano: '<path d="M-17 11L-6 -6Q0 -3 6 -6L17 11Z" fill="#6e4a36" stroke="#2f1d12" stroke-width="1.5" stroke-linejoin="round"/><path d="M-6 -6Q0 -3 6 -6L4 -1L2 5L0 0L-2 6L-4 -1Z" fill="#e8461e"/><ellipse cy="-6" rx="6" ry="2" fill="#f7a21b" stroke="#2f1d12" stroke-width=".8"/><path d="M-9 11L-4 3M9 11L5 4" stroke="#4b3020" stroke-width="1.2"/><circle cx="-2" cy="-12" r="3.2" fill="#bdb6ad" opacity=".95"/><circle cx="3" cy="-15.5" r="4" fill="#d8d2ca" opacity=".9"/><circle cx="-1" cy="-19" r="2.6" fill="#e9e5df" opacity=".85"/>',
  dragon: '<circle r="10" fill="#f4eede" stroke="#7a1d12" stroke-width="1.4"/><path d="M-7 6L-5 -1L-8 -7L-2.5 -4L1 -7L2 -4.5L6.5 -3.5L8.5 -.5L5.5 .5L7.5 3L2.5 3.2L-1 6.5Z" fill="#c0392b" stroke="#5a130c" stroke-width="1" stroke-linejoin="round"/><circle cx="2.4" cy="-2" r="1.1" fill="#fff3a0"/><path d="M-5 -1L-1 1.5L-3 4" stroke="#f29b7f" stroke-width=".9" fill="none"/>',
  portal: '<path d="M-10 11V-1A10 10 0 0 1 10 -1V11Z" fill="#8e8a80" stroke="#2b2620" stroke-width="1.4"/><path d="M-6.5 11V-.5A6.5 6.5 0 0 1 6.5 -.5V11Z" fill="#6c2bb8"/><path d="M-4 11V0A4 4 0 0 1 4 0V11Z" fill="#b98cf0"/><path d="M0 -3.5L.9 -1L3.3 -.6L.9 .3L0 2.8L-.9 .3L-3.3 -.6L-.9 -1Z" fill="#fff"/><path d="M-10 3H-6.5M6.5 3H10M-9 -5L-6 -3M9 -5L6 -3" stroke="#2b2620" stroke-width=".8"/>',
  princess: '<path d="M-7.5 11L-3.2 -1.5H3.2L7.5 11Z" fill="#e77fb1" stroke="#5e1f3f" stroke-width="1.2" stroke-linejoin="round"/><path d="M-6 8H6" stroke="#f7c9de" stroke-width="1.2"/><circle cy="-4.8" r="3.6" fill="#f6d3b5" stroke="#5e1f3f" stroke-width="1"/><path d="M-3.6 -8L-3.6 -12L-1.8 -9.8L0 -12.6L1.8 -9.8L3.6 -12L3.6 -8Z" fill="#f3c12e" stroke="#6b4e08" stroke-width=".8"/>',
};
// how each symbol is drawn: `middle`, it takes the middle of its meadow
const SYMBOL_LOOKS = { volcano: { middle: true } };
for (const [k, v] of Object.entries(SYMBOLS)) ICONS[k] = () => v;

// icons drawn larger than their first size, so that they read at the fitted view of a long game
const ICON_SCALE = { shield: 1.25, inn: 1.35, wine: 1.4, grain: 1.4, cloth: 1.4, volcano: 1.45, dragon: 1.35, portal: 1.35, princess: 1.15 };

function houseSvg([x, y], scale = 1) {
  return `<g transform="translate(${fmt(x)} ${fmt(y)}) scale(${scale})"><rect x="-6" y="-4" width="12" height="9" fill="#efe3c8" stroke="#5b3b1a" stroke-width="1"/><path d="M-8 -3L0 -10L8 -3Z" fill="#b04a32" stroke="#5b3b1a" stroke-width="1"/></g>`;
}

// The tile's drawing at rotation 0, as SVG markup in a 100x100 box.
export function tileSvg(g, rot = 0) {
  const up = (x, y, inner) => `<g transform="translate(${fmt(x)} ${fmt(y)}) rotate(${-rot * 90})">${inner}</g>`;
  const ground = g.fieldSegs.length ? COLORS.field : COLORS.city;
  let s = `<rect width="100" height="100" fill="${ground}"/>`;
  // a few darker tufts so the grass reads as grass
  s += `<g fill="${COLORS.fieldDark}" opacity=".35">${[[12, 30], [80, 18], [70, 80], [22, 76], [44, 88], [90, 60]].map(([x, y]) => `<path d="M${x} ${y}l2 -4l2 4z"/>`).join('')}</g>`;
  for (const r of g.rivers) {
    s += `<path d="${r.d}" fill="none" stroke="${COLORS.riverEdge}" stroke-width="19" stroke-linecap="${r.single ? 'round' : 'butt'}"/>`;
    s += `<path d="${r.d}" fill="none" stroke="${COLORS.river}" stroke-width="15" stroke-linecap="${r.single ? 'round' : 'butt'}"/>`;
    s += `<path d="${r.d}" fill="none" stroke="#8fc3f0" stroke-width="2" stroke-dasharray="6 9" opacity=".8"/>`;
    if (r.single) {
      s += g.spring
        ? `<circle cx="50" cy="50" r="12" fill="${COLORS.river}" stroke="${COLORS.riverEdge}" stroke-width="2"/><circle cx="50" cy="50" r="4" fill="#cfe8fb"/>`
        : `<ellipse cx="50" cy="50" rx="24" ry="18" fill="${COLORS.river}" stroke="${COLORS.riverEdge}" stroke-width="2"/><path d="M38 48q6 -4 12 0t12 0" stroke="#cfe8fb" fill="none" stroke-width="1.6"/>`;
    }
  }
  for (const r of g.roads) {
    s += `<path d="${r.d}" fill="none" stroke="${COLORS.roadEdge}" stroke-width="12" stroke-linecap="butt"/>`;
    s += `<path d="${r.d}" fill="none" stroke="${COLORS.road}" stroke-width="8.5" stroke-linecap="butt"/>`;
  }
  if (g.junction) s += `<rect x="42" y="42" width="16" height="16" rx="2" fill="#7a6a52" stroke="#4d4030" stroke-width="1.5"/>`;
  for (const h of g.houses) s += up(h[0], h[1], houseSvg([0, 0]));
  for (const c of g.cities) {
    s += `<path d="${c.d}" fill="${COLORS.city}"/>`;
    // roofs: a texture of small squares clipped to the city
    s += `<path d="${c.d}" fill="url(#city-roofs)" opacity=".55"/>`;
    for (const w of c.walls) {
      s += `<path d="${w.d}" fill="none" stroke="${COLORS.wall}" stroke-width="5" stroke-linecap="round"/>`;
      s += `<path d="${w.d}" fill="none" stroke="#a98a66" stroke-width="2" stroke-dasharray="3 3"/>`;
    }
  }
  if (g.cloister) {
    s += `<g transform="translate(50 50) rotate(${-rot * 90})"><rect x="-13" y="-8" width="26" height="18" fill="#f0e6d2" stroke="#4a3a28" stroke-width="1.4"/><path d="M-16 -8L0 -20L16 -8Z" fill="#c0452c" stroke="#4a3a28" stroke-width="1.4"/><path d="M-3 10V3A3 3 0 0 1 3 3V10" fill="#4a3a28"/><path d="M0 -27V-20M-3 -24H3" stroke="#4a3a28" stroke-width="1.6"/></g>`;
  }
  if (g.garden) {
    const [x, y] = g.garden.at;
    s += `<g transform="translate(${fmt(x)} ${fmt(y)})"><circle r="14.5" fill="#f4eede" stroke="#3d6b22" stroke-width="1.2"/><circle r="12" fill="#3f8a2a" stroke="#24531a" stroke-width="1.6" stroke-dasharray="2.5 1.5"/>${[[-4, -3], [4, -3], [0, 4], [-5, 4], [5, 4]].map(([a, b]) => `<circle cx="${a}" cy="${b}" r="2.6" fill="#e05a7a"/>`).join('')}<circle r="2.4" fill="#f6d94a"/></g>`;
  }
  for (const ic of g.icons) if (ICONS[ic.kind]) s += up(ic.at[0], ic.at[1], `<g transform="scale(${ICON_SCALE[ic.kind] || 1})">${ICONS[ic.kind](0, 0)}</g>`);
  s += `<rect x=".5" y=".5" width="99" height="99" fill="none" stroke="rgba(40,30,10,.35)" stroke-width="1"/>`;
  return s;
}

// What a tile shows, as catalogue keys: the main thing ("tn.city.corner")
// and what else is on it ("tn.x.shield", ...), read from the segments alone
// like the drawing, so that every expansion tile gets a name.
export function describeTile(def, startNames = []) {
  const segs = def.segments || [];
  const edge = (sg) => sg.ports.filter((p) => PORTS.includes(p));
  const cities = segs.filter((x) => as(x) === 'walled').map((x) => ({ seg: x, sides: sidesOf(x) })).sort((a, b) => b.sides.length - a.sides.length);
  const roads = segs.filter((x) => as(x) === 'path');
  const rivers = segs.filter((x) => as(x) === 'water');
  const cloister = segs.some((x) => as(x) === 'abbey');
  const extras = [];
  const cityKey = (c) => {
    const n = c.sides.length;
    if (n >= 4) return 'tn.city.full';
    if (n === 3) return 'tn.city.three';
    if (n === 2) return c.sides[1] - c.sides[0] === 2 ? 'tn.city.band' : 'tn.city.corner';
    return 'tn.city.cap';
  };
  const roadShape = (main) => {
    const singles = roads.filter((r) => edge(r).length === 1).length;
    if (!roads.length) return null;
    if (singles >= 3) return main ? (singles >= 4 ? 'tn.road.cross' : 'tn.road.junction') : 'tn.x.junction';
    if (roads.length === 1 && edge(roads[0]).length === 2) {
      const [a, b] = edge(roads[0]).map((p) => Math.floor(PORTS.indexOf(p) / 3));
      const straight = Math.abs(a - b) === 2;
      return main ? (straight ? 'tn.road.straight' : 'tn.road.curve') : (straight ? 'tn.x.straight' : 'tn.x.curve');
    }
    if (roads.length >= 2) return main ? 'tn.road.junction' : 'tn.x.roads2';
    return main ? 'tn.road.end' : 'tn.x.road';
  };
  let main;
  if (cloister) {
    main = 'tn.cloister';
    if (cities.length) extras.push('tn.x.city');
    const r = roadShape(false); if (r) extras.push(r);
  } else if (cities.length) {
    const caps = cities.filter((c) => c.sides.length === 1).length;
    if (cities.length > 1 && caps === cities.length) main = 'tn.city.caps';
    else {
      main = cityKey(cities[0]);
      if (cities.length > 1) extras.push('tn.x.cap');
    }
    if (rivers.length) extras.push('tn.x.river');
    const r = roadShape(false); if (r) extras.push(r);
  } else if (rivers.length) {
    const ps = rivers.flatMap(edge);
    if (ps.length === 1) main = startNames.includes(def.name) ? 'tn.river.spring' : 'tn.river.lake';
    else {
      const [a, b] = ps.map((p) => Math.floor(PORTS.indexOf(p) / 3));
      main = Math.abs(a - b) === 2 ? 'tn.river.straight' : 'tn.river.curve';
    }
    const r = roadShape(false); if (r) extras.push(r);
  } else if (roads.length) main = roadShape(true);
  else main = 'tn.field';
  if (cities.some((c) => c.seg.shield)) extras.push('tn.x.shield');
  if (segs.some((x) => x.cathedral)) extras.push('tn.x.cathedral');
  if (roads.some((x) => x.inn)) extras.push('tn.x.inn');
  const goods = segs.find((x) => x.goods)?.goods;
  if (goods) extras.push(`tn.x.${goods}`);
  if (segs.some((x) => as(x) === 'flowers')) extras.push('tn.x.garden');
  if (def.symbol) extras.push(`tn.x.${def.symbol}`);
  return { main, n: cities.length, extras };
}

// Shared <defs> the tiles refer to.
export const DEFS = `<pattern id="city-roofs" width="14" height="12" patternUnits="userSpaceOnUse"><rect x="2" y="3" width="6" height="4" fill="#a8743c"/><rect x="9" y="8" width="4" height="3" fill="#b5834a"/></pattern>`;

// Loads /api/tiles once and prepares every tile: geometry, spots and markup.
export class TileSet {
  constructor(data) {
    this.data = data;
    this.start = data.start || {};
    const starts = Object.values(this.start);
    this.defs = new Map();
    this.geo = new Map();
    for (const t of data.tiles) {
      this.defs.set(t.name, t);
    }
    this.starts = starts;
  }
  static async load(url = '/api/tiles') {
    const r = await fetch(url);
    if (!r.ok) throw new Error(`tiles: HTTP ${r.status}`);
    return new TileSet(await r.json());
  }
  geometry(name) {
    let g = this.geo.get(name);
    if (!g) {
      const def = this.defs.get(name);
      if (!def) return null;
      g = computeSpots(tileGeometry(def, this.starts));
      g.svgs = [0, 1, 2, 3].map((r) => tileSvg(g, r));
      g.svg = g.svgs[0];
      this.geo.set(name, g);
    }
    return g;
  }
  // The segment of tile `name` that the board port `at` names when placed with `rot`.
  segmentAt(name, rot, at) {
    const def = this.defs.get(name);
    if (!def) return null;
    const p = unrotatePort(at, rot);
    return def.segments.find((s) => s.ports.includes(p)) || null;
  }
  // The tile's descriptive name in the current language ("a city corner with a shield").
  name(name) {
    const def = this.defs.get(name);
    if (!def) return name;
    const d = describeTile(def, this.starts);
    const main = t(d.main, { n: d.n });
    return d.extras.length ? t('tn.with', { main, extras: listJoin(d.extras.map((k) => t(k))) }) : main;
  }
  // Where a figure on board port `at` stands, in board-oriented tile coordinates.
  spotAt(name, rot, at) {
    const g = this.geometry(name), seg = this.segmentAt(name, rot, at);
    if (!g || !seg) return [50, 50];
    return rotatePoint(g.spots[seg.index], rot);
  }
  // A standalone <svg> of one tile (for the hand, the tiles-left view, help).
  svg(name, rot = 0, size = 64, extra = '') {
    const g = this.geometry(name);
    if (!g) return '';
    return `<svg class="tile-svg" viewBox="0 0 100 100" width="${size}" height="${size}" aria-label="${name}"><defs>${DEFS}</defs><g transform="rotate(${rot * 90} 50 50)">${g.svgs[rot & 3]}</g>${extra}</svg>`;
  }
}
