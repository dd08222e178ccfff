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

// For every cell of the grid, its distance (in cells) to the nearest cell
// whose label `inside` does not accept: a two-pass chamfer distance transform.
function distanceTo(label, inside) {
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
  return D;
}

// A number from a tile's name, and a small generator from it: the trees of
// a tile stand in the same places on every render and every screen.
function seeded(name) {
  let h = 2166136261;
  for (const ch of String(name)) { h ^= ch.codePointAt(0); h = Math.imul(h, 16777619); }
  return () => {
    h = (h + 0x6d2b79f5) | 0;
    let x = Math.imul(h ^ (h >>> 15), 1 | h);
    x ^= x + Math.imul(x ^ (x >>> 7), 61 | x);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

// A few trees (and now and then a patch of crops) on the meadows: cells with
// room around them, clear of every figure spot and icon, chosen by the
// tile's own generator.
function placeTrees(g, label, cellXY) {
  const fields = new Set(g.fieldSegs.map((f) => f.index));
  if (!fields.size) return [];
  const D = distanceTo(label, (l) => fields.has(l));
  const rnd = seeded(g.name);
  const taken = [...Object.values(g.spots).map((p) => [p, 14]), ...g.icons.map((ic) => [ic.at, ic.r + 6])];
  if (g.garden) taken.push([g.garden.at, 18]);
  const room = [];
  for (let i = 0; i < label.length; i++) {
    const [x, y] = cellXY(i);
    if (D[i] * CELL >= 8 && x > 6 && y > 6 && x < 94 && y < 94) room.push([x, y]);
  }
  const out = [];
  const want = 2 + Math.floor(rnd() * 3);
  for (let n = 0; n < 40 && out.length < want && room.length; n++) {
    const [x, y] = room[Math.floor(rnd() * room.length)];
    if (taken.some(([p, r]) => Math.hypot(x - p[0], y - p[1]) < r + 6)) continue;
    const crop = out.length === 0 && rnd() < 0.3 && D[cellAt(x, y)] * CELL >= 12;
    out.push({ at: [x + (rnd() - 0.5) * 3, y + (rnd() - 0.5) * 3], kind: crop ? 'crop' : rnd() < 0.7 ? 'tree' : 'bush' });
    taken.push([[x, y], crop ? 14 : 8]);
  }
  return out;
}
const cellAt = (x, y) => Math.min(GRID - 1, Math.max(0, Math.floor(y / CELL))) * GRID + Math.min(GRID - 1, Math.max(0, Math.floor(x / CELL)));

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
    for (const r of g.rivers) if (r.single && ((x - 50) / 28) ** 2 + ((y - 50) / 22) ** 2 < 1) label[i] = r.seg.index;
    if (g.cloister && Math.abs(x - 50) < 20 && Math.abs(y - 50) < 20) label[i] = g.cloister.seg.index;
    for (const h of g.houses) if (Math.abs(x - h[0]) < 8 && Math.abs(y - h[1]) < 8) label[i] = -2;
    if (g.junction && Math.abs(x - 50) < 8 && Math.abs(y - 50) < 8) label[i] = -2;
  }
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
  // away from the points `avoid` by `gap` tile units (a point's own third
  // number, if it has one; measured along x or y, the larger: what is kept
  // apart are boxes) and from the tile's
  // edge by `margin` where it can: a symbol drawn there stays whole)
  const poleWhere = (inside, pref, avoid = [], gap = 0, margin = 0, cap = 30) => {
    const D = distanceTo(label, inside);
    let best = null, bestScore = -Infinity;
    for (let i = 0; i < label.length; i++) {
      if (!inside(label[i])) continue;
      const [x, y] = cellXY(i);
      const d = Math.min(D[i] * CELL, x + 2, y + 2, 102 - x, 102 - y, cap);
      let score = d - (pref ? Math.hypot(x - pref[0], y - pref[1]) * 0.08 : 0);
      for (const a of avoid) score += Math.min(0, Math.max(Math.abs(x - a[0]), Math.abs(y - a[1])) - (a[2] ?? gap)) * 5;
      score -= Math.max(0, margin - Math.min(x, y, 100 - x, 100 - y)) * 100;
      if (score > bestScore) { bestScore = score; best = [x, y]; }
    }
    return best;
  };
  const poleOf = (idx, pref) => poleWhere((l) => l === idx, pref);
  // an icon of `kind` in the cells `inside` accepts, clear of the icons
  // already placed and of the points `avoid` (figure spots), kept off the
  // tile's edge so it is drawn whole
  const putIcon = (kind, inside, pref, avoid = [], cap = 30) => {
    const r = iconRadius(kind);
    const clear = [...g.icons.map((ic) => [...ic.at, ic.r + r]), ...avoid.map((a) => [a[0], a[1], FIGURE_R + r])];
    const at = poleWhere(inside, pref, clear, 0, r * 0.9, cap) || pref || [50, 50];
    g.icons.push({ kind, at, r });
    return at;
  };
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
    const idx = c.seg.index, inCity = (l) => l === idx;
    const pref = c.sides.length === 4 ? [50, 50] : null;
    // a cathedral takes the city's middle, its figure's spot is clear of
    // it, then a shield and goods find room clear of both
    if (c.seg.cathedral) putIcon('cathedral', inCity, [50, 40]);
    const cath = g.icons.filter((ic) => ic.kind === 'cathedral').map((ic) => [...ic.at, ic.r + FIGURE_R]);
    g.spots[idx] = poleWhere(inCity, pref, cath, 0, 8) || [50, 50];
    if (c.seg.shield) putIcon('shield', inCity, null, [g.spots[idx]]);
    if (c.seg.goods) putIcon(c.seg.goods, inCity, null, [g.spots[idx]]);
  }
  // goods given on a segment that is not a city: beside the largest city
  if (g.goods && !g.cities.some((c) => c.seg.goods)) {
    const big = [...g.cities].sort((a, b) => b.seg.ports.length - a.seg.ports.length)[0];
    if (big) putIcon(g.goods, (l) => l === big.seg.index, null, [g.spots[big.seg.index]]);
  }
  const fieldIdx = new Set(g.fieldSegs.map((f) => f.index));
  const inField = (l) => fieldIdx.has(l);
  // an inn: a house by its lake in the meadow beside its road, near the road's figure
  for (const r of g.roads) {
    if (r.seg.inn && fieldIdx.size) putIcon('inn', inField, g.spots[r.seg.index], Object.values(g.spots), 14);
  }
  for (const f of g.fieldSegs) {
    const avoid = g.icons.map((ic) => [...ic.at, ic.r + FIGURE_R]);
    if (g.garden) avoid.push([...g.garden.at, 13 + FIGURE_R]); // a farmer beside the garden, not on it
    g.spots[f.index] = poleWhere((l) => l === f.index, null, avoid, 0, 6) || portPoint(f.ports[0]);
  }
  if (g.symbol) {
    // the princess in her city clear of its figure's spot; any other symbol
    // on the meadow where it is widest and clear of the figures' spots (one
    // drawn big, a volcano, takes the middle of it)
    const spots = Object.values(g.spots);
    const ps = g.princessSeg;
    if (ps) putIcon(g.symbol, (l) => l === ps.index, null, [g.spots[ps.index]]);
    else if (fieldIdx.size) putIcon(g.symbol, inField, [50, 50], SYMBOL_LOOKS[g.symbol]?.middle ? [] : spots);
    else g.icons.push({ kind: g.symbol, at: [50, 50], r: iconRadius(g.symbol) });
    // a volcano takes the meadow's middle: the meadow's figure moves off it
    if (SYMBOL_LOOKS[g.symbol]?.middle) {
      const v = g.icons[g.icons.length - 1];
      for (const f of g.fieldSegs) g.spots[f.index] = poleWhere((l) => l === f.index, null, [v.at], v.r + FIGURE_R, 6) || g.spots[f.index];
    }
  }
  g.trees = placeTrees(g, label, cellXY);
  g.labels = label;
  return g;
}

// --- SVG -------------------------------------------------------------------
//
// The look (docs/web.md, "Tile art"): meadows mid green with grass strokes,
// cities light stone covered with red roofs inside a dark crenellated wall,
// roads nearly white between dark edges, water dark blue between pale banks:
// the four differ in lightness and in texture, not only in hue, so they stay
// apart for every common colour blindness. Buildings and symbols are drawn
// upright whatever the tile's rotation. Classes choose the level of detail
// by zoom (web/css/app.css, "tile art"): .art-fine (texture, trees, stones)
// is left out far away, .art-ic (a symbol a player must see: shield, goods,
// inn, cathedral, garden, Princess & Dragon's) is drawn larger there.

// half the size (tile units) of each icon's box as drawn near, and of a
// figure's: the figure spots are kept this far from the icons
const FIGURE_R = 15;
// zoomed out, a figure with no room at its size is drawn down to FIGURE_MIN
// of its near size, and may stand over its tile's edge by OVERHANG tile units
// (TileSet.placeFigure)
const FIGURE_MIN = 0.7, OVERHANG = 8, SYMBOL_SHOWN = 0.85;
const ICON_R = { shield: 10.5, cathedral: 28, inn: 15, wine: 11, grain: 11, cloth: 11, volcano: 23, dragon: 12.5, portal: 13, princess: 12 };
const iconRadius = (kind) => ICON_R[kind] || 10;

// An icon's drawn box [x0, y0, x1, y1] at its near size, upright, about its
// place (outline included): measured once per kind by the browser from the
// same markup tileSvg draws ('flowers': the garden).
const iconBoxes = new Map();
function iconBox(kind) {
  let b = iconBoxes.get(kind);
  if (b) return b;
  const k = ICON_SCALE[kind] || 1;
  const inner = kind === 'flowers' ? GARDEN : `<g transform="scale(${k})">${ICONS[kind]()}</g>`;
  const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
  svg.setAttribute('style', 'position:absolute;left:-999px;top:0;width:10px;height:10px;visibility:hidden');
  svg.innerHTML = `<g>${inner}</g>`;
  document.body.appendChild(svg);
  const r = svg.firstChild.getBBox();
  svg.remove();
  const pad = 0.8; // half an outline's width
  b = [r.x - pad, r.y - pad, r.x + r.width + pad, r.y + r.height + pad];
  iconBoxes.set(kind, b);
  return b;
}

const ICONS = {
  // a heraldic shield: blue and white quarters in a dark outline
  shield: () => '<path d="M-7 -8.5H7V0C7 5.5 0 9 0 9C0 9 -7 5.5 -7 0Z" fill="#f4eede" stroke="#1d2742" stroke-width="1.6"/><path d="M-7 -8.5H0V0H7C7 5.5 0 9 0 9V0H-7Z" fill="#2d4fa3"/><path d="M-7 -8.5H7V0C7 5.5 0 9 0 9C0 9 -7 5.5 -7 0Z" fill="none" stroke="#1d2742" stroke-width="1.6"/>',
  // an inn: a timbered house with a blue roof and a hanging sign, its lake beside it
  inn: () => '<ellipse cx="6" cy="6" rx="8" ry="4.6" fill="#2f69ad" stroke="#e0d6a8" stroke-width="1.4"/><path d="M2 6q2 -1.5 4 0t4 0" stroke="#a9d0f2" stroke-width=".9" fill="none"/><rect x="-12" y="-4" width="12" height="9" fill="#f6ead0" stroke="#3a2a14" stroke-width="1.1"/><path d="M-12 -4L-6 -10.5L0 -4Z" fill="#2d5fa3" stroke="#1b2f55" stroke-width="1.1"/><path d="M-10.5 0.5H-7.5M-4.5 .5H-1.5" stroke="#3a2a14" stroke-width="1"/><rect x="-7.2" y="1" width="2.4" height="4" fill="#5b3b1a"/><path d="M0 -3H3.5V-1.5" stroke="#3a2a14" stroke-width=".9" fill="none"/><circle cx="3.5" cy=".3" r="2" fill="#f3c12e" stroke="#3a2a14" stroke-width=".8"/>',
  // a cathedral: a great grey church, two towers with spires, a rose window
  cathedral: () => '<path d="M-19 15V-3L-9 -11H9L19 -3V15Z" fill="#d6d3cb" stroke="#2e2a33" stroke-width="1.4" stroke-linejoin="round"/><path d="M-19 -3L-9 -11H9L19 -3Z" fill="#4f5f82" stroke="#2e2a33" stroke-width="1.2" stroke-linejoin="round"/><rect x="-15" y="-14" width="8" height="29" fill="#e4e1d8" stroke="#2e2a33" stroke-width="1.3"/><rect x="7" y="-14" width="8" height="29" fill="#e4e1d8" stroke="#2e2a33" stroke-width="1.3"/><path d="M-16 -14L-11 -25L-6 -14ZM6 -14L11 -25L16 -14Z" fill="#4f5f82" stroke="#2e2a33" stroke-width="1.2" stroke-linejoin="round"/><path d="M-11 -25V-29M11 -25V-29M-12.5 -27.5H-9.5M9.5 -27.5H12.5" stroke="#2e2a33" stroke-width="1.1"/><circle cy="0" r="4.2" fill="#c44a6a" stroke="#2e2a33" stroke-width="1.1"/><path d="M0 -4.2V4.2M-4.2 0H4.2" stroke="#f3c12e" stroke-width=".8"/><path d="M-3.5 15V9A3.5 3.5 0 0 1 3.5 9V15Z" fill="#3a2f28"/><path d="M-11 -8V-4M11 -8V-4M-11 2V6M11 2V6" stroke="#2e2a33" stroke-width="1.2"/>',
  // goods on a pale badge with a dark ring, each a shape of its own
  wine: () => '<circle r="9.5" fill="#f7f1e1" stroke="#3a2a14" stroke-width="1.6"/><path d="M0 -6.5Q2.5 -8.5 4.5 -6.5" stroke="#3d7a22" stroke-width="1.4" fill="none"/>' + [[-3, -3.2], [0, -3.2], [3, -3.2], [-1.5, -.4], [1.5, -.4], [-3, -.4], [3, -.4], [0, 2.4], [-1.5, 2.4], [1.5, 2.4], [0, 5.2]].map(([a, b]) => `<circle cx="${a}" cy="${b}" r="1.8" fill="#6a1f73" stroke="#3b0f40" stroke-width=".5"/>`).join(''),
  grain: () => '<circle r="9.5" fill="#f7f1e1" stroke="#3a2a14" stroke-width="1.6"/><path d="M0 7V-6M-4 7L-1 -2M4 7L1 -2" stroke="#8a6508" stroke-width="1.3" stroke-linecap="round"/><path d="M-3.5 2H3.5" stroke="#8a6508" stroke-width="1.6"/>' + [[0, -6.5], [-2, -4.5], [2, -4.5], [-2.6, -1.8], [2.6, -1.8], [0, -3]].map(([a, b]) => `<ellipse cx="${a}" cy="${b}" rx="1.3" ry="2.2" fill="#e0a516" stroke="#8a6508" stroke-width=".5"/>`).join(''),
  cloth: () => '<circle r="9.5" fill="#f7f1e1" stroke="#3a2a14" stroke-width="1.6"/><path d="M-6 -4H4V5H-6Z" fill="#2f7fbf" stroke="#123f66" stroke-width="1"/><ellipse cx="4" cy=".5" rx="2.2" ry="4.5" fill="#5aa3dd" stroke="#123f66" stroke-width="1"/><path d="M-6 -1H3M-6 2H3" stroke="#cfe6f8" stroke-width=".9"/><path d="M4 5L7 7" stroke="#2f7fbf" stroke-width="1.6"/>',
};

// The symbols of Princess & Dragon tiles, by the engine's names (the tiles
// JSON's "symbol"): a volcano with its smoke, a dragon's head on a badge,
// the magic portal's arch, the princess with her crown.
const SYMBOLS = {
  volcano: '<path d="M-18 11L-6 -6Q0 -3 6 -6L18 11Z" fill="#5e3d2c" stroke="#2a180e" stroke-width="1.5" stroke-linejoin="round"/><path d="M-6 -6Q0 -3 6 -6L4 -1L2 5L0 0L-2 6L-4 -1Z" fill="#e8461e"/><ellipse cy="-6" rx="6" ry="2" fill="#f7a21b" stroke="#2a180e" stroke-width=".8"/><path d="M-10 11L-4 3M10 11L5 4" stroke="#3a2417" stroke-width="1.2"/><circle cx="-2" cy="-12" r="3.2" fill="#9d968d"/><circle cx="3" cy="-15.5" r="4" fill="#bdb6ad"/><circle cx="-1" cy="-19" r="2.6" fill="#d8d2ca"/>',
  dragon: '<circle r="10.5" fill="#f7f1e1" stroke="#5a130c" stroke-width="1.6"/><path d="M-7 6L-5 -1L-8 -7L-2.5 -4L1 -7L2 -4.5L6.5 -3.5L8.5 -.5L5.5 .5L7.5 3L2.5 3.2L-1 6.5Z" fill="#c0392b" stroke="#5a130c" stroke-width="1" stroke-linejoin="round"/><circle cx="2.4" cy="-2" r="1.1" fill="#fff3a0"/><path d="M-5 -1L-1 1.5L-3 4" stroke="#f29b7f" stroke-width=".9" fill="none"/>',
  portal: '<path d="M-10 11V-1A10 10 0 0 1 10 -1V11Z" fill="#8e8a80" stroke="#2b2620" stroke-width="1.4"/><path d="M-6.5 11V-.5A6.5 6.5 0 0 1 6.5 -.5V11Z" fill="#6c2bb8"/><path d="M-4 11V0A4 4 0 0 1 4 0V11Z" fill="#b98cf0"/><path d="M0 -3.5L.9 -1L3.3 -.6L.9 .3L0 2.8L-.9 .3L-3.3 -.6L-.9 -1Z" fill="#fff"/><path d="M-10 3H-6.5M6.5 3H10M-9 -5L-6 -3M9 -5L6 -3" stroke="#2b2620" stroke-width=".8"/>',
  princess: '<path d="M-7.5 11L-3.2 -1.5H3.2L7.5 11Z" fill="#e77fb1" stroke="#5e1f3f" stroke-width="1.2" stroke-linejoin="round"/><path d="M-6 8H6" stroke="#f7c9de" stroke-width="1.2"/><circle cy="-4.8" r="3.6" fill="#f6d3b5" stroke="#5e1f3f" stroke-width="1"/><path d="M-3.6 -8L-3.6 -12L-1.8 -9.8L0 -12.6L1.8 -9.8L3.6 -12L3.6 -8Z" fill="#f3c12e" stroke="#6b4e08" stroke-width=".8"/>',
};
// how each symbol is drawn: `middle`, it takes the middle of its meadow
const SYMBOL_LOOKS = { volcano: { middle: true } };
for (const [k, v] of Object.entries(SYMBOLS)) ICONS[k] = () => v;

// icons drawn larger than their first size, so that they read at the fitted view of a long game
const ICON_SCALE = { shield: 1.15, inn: 1.25, cathedral: 1.15, wine: 1.1, grain: 1.1, cloth: 1.1, volcano: 1.1, dragon: 1.15, portal: 1.1, princess: 1.05 };

// a house at a road's end: white walls, a red roof
function houseSvg() {
  return '<rect x="-6" y="-3" width="12" height="8.5" fill="#f6ead0" stroke="#3a2a14" stroke-width="1.1"/><path d="M-8 -2.5L0 -10L8 -2.5Z" fill="#a94a33" stroke="#3a2a14" stroke-width="1.1" stroke-linejoin="round"/><rect x="-1.3" y="1" width="2.6" height="4.5" fill="#5b3b1a"/>';
}
// a cloister: a long church with a red roof, its bell tower and cross, a low
// wall around its yard (the cathedral is grey, twin-towered and larger)
const CLOISTER = '<path d="M-17 14V4H17V14Z" fill="#c8b98f" stroke="#3a2a14" stroke-width="1.2"/><rect x="-13" y="-5" width="20" height="14" fill="#f6ead0" stroke="#3a2a14" stroke-width="1.3"/><path d="M-15 -4L-10 -11H4L9 -4Z" fill="#a94a33" stroke="#3a2a14" stroke-width="1.3" stroke-linejoin="round"/><rect x="7" y="-14" width="8" height="23" fill="#f6ead0" stroke="#3a2a14" stroke-width="1.3"/><path d="M6 -14L11 -20L16 -14Z" fill="#a94a33" stroke="#3a2a14" stroke-width="1.2" stroke-linejoin="round"/><path d="M11 -20V-27M8 -24.5H14" stroke="#3a2a14" stroke-width="1.6"/><path d="M-5 9V4A2.5 2.5 0 0 1 0 4V9Z" fill="#3a2a14"/><path d="M-10 1V-1M9.5 -8V-5.5M12.5 -8V-5.5" stroke="#3a2a14" stroke-width="1.4"/>';
// a garden: a square hedge, paths in a cross, four beds in flower
const GARDEN = '<rect x="-12.5" y="-12.5" width="25" height="25" rx="3" fill="#2f6a1f" stroke="#173d0e" stroke-width="1.3"/><rect x="-9.5" y="-9.5" width="19" height="19" fill="#e6d6a8"/>' + [[-8.5, -8.5], [1.5, -8.5], [-8.5, 1.5], [1.5, 1.5]].map(([a, b]) => `<rect x="${a}" y="${b}" width="7" height="7" fill="#4f8f2f"/><circle cx="${a + 2}" cy="${b + 2}" r="1.4" fill="#e05a7a"/><circle cx="${a + 5}" cy="${b + 4.5}" r="1.4" fill="#f6d94a"/><circle cx="${a + 2.5}" cy="${b + 5.2}" r="1.2" fill="#f4f0ff"/>`).join('');

export const COLORS = {
  field: '#6a9e3c', city: '#ecdcb0', wall: '#4a3a2a', wallTop: '#9a8a6a',
  road: '#f4ecd8', roadEdge: '#5e4e36', river: '#2f69ad', bank: '#e0d6a8',
};

// The tile's drawing at rotation `rot` (upright pictures turned back), as SVG markup in a 100x100 box.
// `lod` bakes a level of detail into the markup (a lone tile of a known size);
// without it the board's CSS chooses by zoom.
const LOD_SCALE = { far: 1.75, mid: 1.25 };
// Where a symbol of half-size r at p (board-oriented tile units) grows from
// when drawn larger: an offset from p to the tile's edge it would cross at
// the far size (0 on an axis where it fits)
function growOrigin(p, r) {
  const far = LOD_SCALE.far;
  const axis = (v) => (v - r * far < 1 ? 1 - v : v + r * far > 99 ? 99 - v : 0);
  return [axis(p[0]), axis(p[1])];
}
export function tileSvg(g, rot = 0, lod = null) {
  const fine = (m) => (lod === 'far' ? '' : m);
  const big = LOD_SCALE[lod] || 1;
  const up = (x, y, inner) => `<g transform="translate(${fmt(x)} ${fmt(y)}) rotate(${-rot * 90})">${inner}</g>`;
  const ground = g.fieldSegs.length ? COLORS.field : COLORS.city;
  let s = `<rect width="100" height="100" fill="${ground}"/>`;
  if (g.fieldSegs.length) s += fine('<rect width="100" height="100" fill="url(#art-grass)" class="art-fine"/>');
  for (const r of g.rivers) {
    const cap = r.single ? 'round' : 'butt';
    s += `<path d="${r.d}" fill="none" stroke="${COLORS.bank}" stroke-width="21" stroke-linecap="${cap}" data-art="water"/>`;
    s += `<path d="${r.d}" fill="none" stroke="${COLORS.river}" stroke-width="14" stroke-linecap="${cap}"/>`;
    s += fine(`<path d="${r.d}" fill="none" stroke="#9cc8ef" stroke-width="1.6" stroke-dasharray="5 8" class="art-fine"/>`);
    if (r.single) {
      s += g.spring
        ? `<circle cx="50" cy="50" r="13" fill="${COLORS.river}" stroke="${COLORS.bank}" stroke-width="4"/><circle cx="50" cy="50" r="4" fill="#cfe8fb"/>`
        : `<ellipse cx="50" cy="50" rx="25" ry="19" fill="${COLORS.river}" stroke="${COLORS.bank}" stroke-width="4"/><path d="M36 46q7 -4 14 0t14 0M40 55q5 -3 10 0t10 0" stroke="#9cc8ef" fill="none" stroke-width="1.6" class="art-fine"/>`;
    }
  }
  for (const tr of lod === 'far' ? [] : g.trees || []) s += up(tr.at[0], tr.at[1], `<use href="#art-${tr.kind}" class="art-fine"/>`);
  for (const r of g.roads) {
    s += `<path d="${r.d}" fill="none" stroke="${COLORS.roadEdge}" stroke-width="12" stroke-linecap="butt" data-art="path"/>`;
    s += `<path d="${r.d}" fill="none" stroke="${COLORS.road}" stroke-width="8.4" stroke-linecap="butt"/>`;
    s += fine(`<path d="${r.d}" fill="none" stroke="url(#art-stones)" stroke-width="8.4" stroke-linecap="butt" class="art-fine"/>`);
  }
  // where three or four roads end: a little square with a well
  if (g.junction) s += '<rect x="41" y="41" width="18" height="18" rx="3" fill="#d9cdb0" stroke="#5e4e36" stroke-width="1.5"/><circle cx="50" cy="50" r="4.2" fill="#2f69ad" stroke="#5e4e36" stroke-width="1.6"/>';
  for (const h of g.houses) s += up(h[0], h[1], houseSvg());
  for (const c of g.cities) {
    s += `<path d="${c.d}" fill="${COLORS.city}" data-art="walled"/>`;
    s += `<path d="${c.d}" fill="url(#art-roofs)"/>`;
    for (const w of c.walls) {
      // a crenellated wall: merlons (a wide dashed stroke), the wall, its walk
      s += `<path d="${w.d}" fill="none" stroke="${COLORS.wall}" stroke-width="9" stroke-dasharray="3.2 2.6"/>`;
      s += `<path d="${w.d}" fill="none" stroke="${COLORS.wall}" stroke-width="5.2" stroke-linecap="round" data-art="wall"/>`;
      s += fine(`<path d="${w.d}" fill="none" stroke="${COLORS.wallTop}" stroke-width="1.6" stroke-dasharray="4 2.5" class="art-fine"/>`);
    }
    // towers where the walls meet the tile's edge (a neighbour's tile completes them)
    for (const w of c.walls) {
      const [a, b] = w.d.match(/^M([\d.]+) ([\d.]+)/).slice(1).map(Number), e = w.d.match(/([\d.]+) ([\d.]+)$/).slice(1).map(Number);
      for (const [x, y] of [[a, b], e]) s += `<circle cx="${fmt(x)}" cy="${fmt(y)}" r="6.5" fill="${COLORS.wall}"/><circle cx="${fmt(x)}" cy="${fmt(y)}" r="3.4" fill="#7a6a52"/>`;
    }
  }
  if (g.cloister) s += up(50, 50, `<g transform="scale(1.3)" data-art="abbey">${CLOISTER}</g>`);
  // a symbol drawn larger far away grows from the tile's edge it is near,
  // not across it (the next tile would cover what crosses): its origin of
  // scaling, in its own upright frame, on that edge
  const grow = (at, r, inner, kind) => {
    const o = growOrigin(rotatePoint(at, rot), r);
    const bake = big !== 1 ? ` transform="translate(${fmt(o[0])} ${fmt(o[1])}) scale(${big}) translate(${fmt(-o[0])} ${fmt(-o[1])})"` : '';
    const origin = !lod && (o[0] || o[1]) ? ` style="transform-origin:${fmt(o[0])}px ${fmt(o[1])}px"` : '';
    return up(at[0], at[1], `<g${lod ? '' : ' class="art-ic"'} data-icon="${kind}"${bake}${origin}>${inner}</g>`);
  };
  if (g.garden) s += grow(g.garden.at, 13, GARDEN, 'flowers');
  for (const ic of g.icons) {
    if (!ICONS[ic.kind]) continue;
    const k = ICON_SCALE[ic.kind] || 1;
    s += grow(ic.at, ic.r, `<g${k !== 1 ? ` transform="scale(${k})"` : ''}>${ICONS[ic.kind]()}</g>`, ic.kind);
  }
  s += '<rect x=".5" y=".5" width="99" height="99" fill="none" stroke="rgba(40,30,10,.35)" stroke-width="1"/>';
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

// Shared <defs> the tiles refer to: the textures (grass, roofs, cobbles) and
// the small pictures of the meadows (a tree, a bush, a patch of crops).
// Patterns in user space: a texture runs on from one tile to the next.
export const DEFS = '<pattern id="art-grass" width="10" height="10" patternUnits="userSpaceOnUse">' +
  '<path d="M1 8l1 -3M2.6 8l.3 -3.2M6 3.5l1 -3M7.6 3.5l.3 -3.2" stroke="#4a7a27" stroke-width=".8" stroke-linecap="round"/>' +
  '<path d="M4.5 9.5l.6 -2M9 6l.5 -2" stroke="#8cc25c" stroke-width=".7" stroke-linecap="round"/></pattern>' +
  '<pattern id="art-roofs" width="50" height="50" patternUnits="userSpaceOnUse">' +
  '<path d="M2.2 9h11v-5.8h1.2v7h-11ZM16.2 12h7v-9.8h1.2v11h-7ZM26.2 9h10v-4.8h1.2v6h-10ZM39.2 11h8v-8.8h1.2v10h-8ZM4.2 23h8v-8.8h1.2v10h-8ZM15.2 22h12v-5.8h1.2v7h-12ZM30.2 18h9v-4.8h1.2v6h-9ZM41.2 22h8v-6.8h1.2v8h-8ZM2.2 33h10v-4.8h1.2v6h-10ZM15.2 36h7v-9.8h1.2v11h-7ZM25.2 33h12v-5.8h1.2v7h-12ZM40.2 31h9v-4.8h1.2v6h-9ZM5.2 46h8v-7.8h1.2v9h-8ZM16.2 46h11v-4.8h1.2v6h-11ZM30.2 47h7v-9.8h1.2v11h-7ZM40.2 42h9v-5.8h1.2v7h-9Z" fill="rgba(60,40,20,.35)"/>' +
  '<rect x="1" y="2" width="11" height="7" fill="#a94a33"/><rect x="1" y="2" width="11" height="3.5" fill="#c0603f"/><rect x="15" y="1" width="7" height="11" fill="#8f3c2a"/><rect x="15" y="1" width="3.5" height="11" fill="#a94a33"/><rect x="25" y="3" width="10" height="6" fill="#b35a3a"/><rect x="25" y="3" width="10" height="3" fill="#c96d48"/><rect x="38" y="1" width="8" height="10" fill="#9a4230"/><rect x="38" y="1" width="4" height="10" fill="#b85a3c"/>' +
  '<rect x="3" y="13" width="8" height="10" fill="#9a4230"/><rect x="3" y="13" width="4" height="10" fill="#b85a3c"/><rect x="14" y="15" width="12" height="7" fill="#a94a33"/><rect x="14" y="15" width="12" height="3.5" fill="#c0603f"/><rect x="29" y="12" width="9" height="6" fill="#8f3c2a"/><rect x="29" y="12" width="9" height="3" fill="#a94a33"/><rect x="40" y="14" width="8" height="8" fill="#b35a3a"/><rect x="40" y="14" width="8" height="4" fill="#c96d48"/>' +
  '<rect x="1" y="27" width="10" height="6" fill="#b35a3a"/><rect x="1" y="27" width="10" height="3" fill="#c96d48"/><rect x="14" y="25" width="7" height="11" fill="#9a4230"/><rect x="14" y="25" width="3.5" height="11" fill="#b85a3c"/><rect x="24" y="26" width="12" height="7" fill="#a94a33"/><rect x="24" y="26" width="12" height="3.5" fill="#c0603f"/><rect x="39" y="25" width="9" height="6" fill="#8f3c2a"/><rect x="39" y="25" width="9" height="3" fill="#a94a33"/>' +
  '<rect x="4" y="37" width="8" height="9" fill="#8f3c2a"/><rect x="4" y="37" width="4" height="9" fill="#a94a33"/><rect x="15" y="40" width="11" height="6" fill="#b35a3a"/><rect x="15" y="40" width="11" height="3" fill="#c96d48"/><rect x="29" y="36" width="7" height="11" fill="#9a4230"/><rect x="29" y="36" width="3.5" height="11" fill="#b85a3c"/><rect x="39" y="35" width="9" height="7" fill="#a94a33"/><rect x="39" y="35" width="9" height="3.5" fill="#c0603f"/>' +
  '<path d="M1 5.5h11M18.5 1v11M25 6h10M42 1v10M7 13v10M14 18.5h12M29 15h9M40 18h8M1 30h10M17.5 25v11M24 29.5h12M39 28h9M8 37v9M15 43h11M32.5 36v11M39 38.5h9" stroke="#6e2818" stroke-width=".7"/></pattern>' +
  '<pattern id="art-stones" width="10" height="10" patternUnits="userSpaceOnUse">' +
  '<ellipse cx="2" cy="2" rx="1.3" ry=".9" fill="#b9a982"/><ellipse cx="6.5" cy="4.5" rx="1.1" ry=".8" fill="#c4b48e"/><ellipse cx="3.5" cy="7.8" rx="1.2" ry=".8" fill="#b9a982"/></pattern>' +
  '<g id="art-tree"><ellipse cx="1.6" cy="2.2" rx="5.6" ry="4.6" fill="rgba(20,40,10,.3)"/><circle r="5.4" fill="#2f5a1c"/><circle cx="-1" cy="-1.4" r="3.6" fill="#467f28"/><circle cx="-1.8" cy="-2.2" r="1.3" fill="#6aa443"/></g>' +
  '<g id="art-bush"><circle cx="-2.5" cy="1" r="2.8" fill="#365f20"/><circle cx="2.5" cy="1" r="2.8" fill="#365f20"/><circle cy="-1.5" r="3" fill="#4a7f2b"/></g>' +
  '<g id="art-crop"><rect x="-9" y="-6" width="18" height="12" rx="1" fill="#d8bd55" stroke="#8a6d1f" stroke-width=".8"/><path d="M-9 -3H9M-9 0H9M-9 3H9" stroke="#a88a2c" stroke-width=".8"/></g>';

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
  // The boxes the tile's symbols cover when placed with `rot` at level of
  // detail `lod` (near, mid, far: grown as tileSvg and app.css grow them):
  // [{kind, seg, box: [x0, y0, x1, y1]}] in board-oriented tile units.
  symbolBoxes(name, rot, lod) {
    const g = this.geometry(name);
    if (!g) return [];
    const k = LOD_SCALE[lod] || 1;
    const one = (kind, at, r, seg) => {
      const p = rotatePoint(at, rot), o = growOrigin(p, r), [x0, y0, x1, y1] = iconBox(kind);
      return { kind, seg, box: [p[0] + o[0] + k * (x0 - o[0]), p[1] + o[1] + k * (y0 - o[1]), p[0] + o[0] + k * (x1 - o[0]), p[1] + o[1] + k * (y1 - o[1])] };
    };
    const out = g.icons.filter((ic) => ICONS[ic.kind]).map((ic) => one(ic.kind, ic.at, ic.r, null));
    if (g.garden) out.push(one('flowers', g.garden.at, 13, g.garden.seg.index));
    return out;
  }
  // Where a figure on board port `at` stands at level of detail `lod`, and
  // how large: [x, y, boost]. Near, its spot where that covers no symbol;
  // else, and farther out, where both the figures and the symbols are
  // drawn larger, the cell of its segment nearest the spot where the figure
  // (its box relative to the spot at a boost: boxAt(b) -> [x0, y0, x1, y1])
  // covers no symbol, drawn smaller where none is at `boost` (the order
  // below; docs/web.md, "Figures clear of symbols").
  // `key` names the figure's box (kind and pose) for the cache.
  placeFigure(name, rot, at, boxAt, boost, lod, key) {
    const spot = this.spotAt(name, rot, at);
    const g = this.geometry(name), seg = this.segmentAt(name, rot, at);
    if (!g || !seg) return [...spot, boost];
    const ck = `${rot}/${at}/${lod}/${boost}/${key}`;
    g.placed = g.placed || new Map();
    let got = g.placed.get(ck);
    if (got) return got;
    const symbols = this.symbolBoxes(name, rot, lod).filter((s) => s.seg !== seg.index).map((s) => s.box);
    const cells = [spot];
    for (let i = 0; i < g.labels.length; i++) {
      if (g.labels[i] === seg.index) cells.push(rotatePoint([(i % GRID) * CELL + CELL / 2, Math.floor(i / GRID) * CELL + CELL / 2], rot));
    }
    // a segment with no cell of its own (a meadow the drawing gives to its
    // neighbour) has its spot on its port: the points inward from there
    if (cells.length === 1) for (let d = 4; d <= 40; d += 4) cells.push([spot[0] + Math.sign(50 - spot[0]) * d * (Math.abs(50 - spot[0]) > 30), spot[1] + Math.sign(50 - spot[1]) * d * (Math.abs(50 - spot[1]) > 30)]);
    // how much a figure at p at boost b covers: of the symbols (the area,
    // and the largest share of one symbol's box) and off its tile
    const cover = (p, b) => {
      const f = boxAt(b), x0 = p[0] + f[0], y0 = p[1] + f[1], x1 = p[0] + f[2], y1 = p[1] + f[3];
      let a = 0, share = 0;
      for (const s of symbols) {
        const o = Math.max(0, Math.min(x1, s[2]) - Math.max(x0, s[0])) * Math.max(0, Math.min(y1, s[3]) - Math.max(y0, s[1]));
        a += o;
        share = Math.max(share, o / ((s[2] - s[0]) * (s[3] - s[1])));
      }
      return { a, share, off: Math.max(0, -x0, -y0, x1 - 100, y1 - 100) };
    };
    const dist = (p) => Math.hypot(p[0] - spot[0], p[1] - spot[1]);
    // near, the spot the choosing panel showed, unless it covers a symbol
    // or stands far over the tile's edge (the figure does not jump when set)
    if (lod === 'near') {
      const c = cover(spot, boost);
      if (c.a <= 0.25 && c.off <= OVERHANG) got = [...spot, boost];
    }
    // In this order: clear of every symbol and on its tile (or over its
    // edge by a little), else over its edge by at most OVERHANG, else over
    // a corner (SYMBOL_SHOWN) of a symbol's box (the figure's outline is not
    // a box: most of that corner still shows); the largest size first, and
    // every way at its near size or larger before any smaller (a figure
    // drawn small is the worse).
    // the sizes tried, a tenth apart: the zoom's down to the near size (big),
    // down to FIGURE_MIN (small), and to half (tiny: no room even so)
    const sizes = [];
    for (let b = boost; b >= 0.5; b = Math.round((b - 0.1) * 10) / 10) sizes.push(b);
    const big = sizes.filter((b) => b >= 1), small = sizes.filter((b) => b < 1 && b >= FIGURE_MIN), tiny = sizes.filter((b) => b < FIGURE_MIN);
    const find = (b, off, share) => {
      let best = null;
      for (const p of cells) {
        const c = cover(p, b);
        if ((share ? c.share <= share : c.a <= 0.25) && c.off <= off && (!best || dist(p) < dist(best))) best = p;
      }
      return best && [...best, b];
    };
    for (const b of big) if (!got) got = find(b, 0.5, 0) || find(b, 3, 0) || find(b, OVERHANG, 0);
    for (const b of big) if (!got) got = find(b, OVERHANG, 1 - SYMBOL_SHOWN);
    for (const b of small) if (!got) got = find(b, OVERHANG, 0) || find(b, OVERHANG, 1 - SYMBOL_SHOWN);
    // a meadow too small even for that (a pig on tb3's): smaller still, to
    // half its near size, else where it covers least
    for (const b of tiny) if (!got) got = find(b, OVERHANG, 1 - SYMBOL_SHOWN);
    if (!got) {
      let best = spot, low = Infinity;
      for (const p of cells) {
        const c = cover(p, 0.5), v = c.share + Math.max(0, c.off - OVERHANG) * 10 + dist(p) * 0.0001;
        if (v < low) { low = v; best = p; }
      }
      got = [...best, 0.5];
    }
    g.placed.set(ck, got);
    return got;
  }
  // the tile's markup at a level of detail (cached: the tiles-left list draws many)
  markup(g, rot, lod) {
    if (lod === 'near') return g.svgs[rot];
    g.lods = g.lods || {};
    const k = `${lod}${rot}`;
    return g.lods[k] || (g.lods[k] = tileSvg(g, rot, lod));
  }
  // A standalone <svg> of one tile (for the hand, the tiles-left view, help).
  // `lod` (far, mid, near) by the size unless given.
  svg(name, rot = 0, size = 64, extra = '', lod = null) {
    const g = this.geometry(name);
    if (!g) return '';
    lod = lod || (size < 64 ? 'far' : size < 100 ? 'mid' : 'near');
    return `<svg class="tile-svg" viewBox="0 0 100 100" width="${size}" height="${size}" data-lod="${lod}" role="img" aria-label="${this.name(name).replace(/"/g, '&quot;')}"><defs>${DEFS}</defs><g transform="rotate(${rot * 90} 50 50)">${this.markup(g, rot & 3, lod)}</g>${extra}</svg>`;
  }
}
