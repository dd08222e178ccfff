// Features across the board, traced from port to port like the engine does:
// side d part k of a tile touches side (d+2)%4 part 2-k of its neighbour.
import { PORTS, rotatePort, unrotatePort } from './tiles.js';

const DX = [0, 1, 0, -1], DY = [-1, 0, 1, 0];

// board: Map "x,y" -> {tile, rot}. Returns [{x, y, seg}] for the feature at
// board port `at` of tile (x, y): cloisters and gardens are their own tile.
export function traceFeature(tiles, board, x, y, at) {
  const start = board.get(`${x},${y}`);
  if (!start) return [];
  return traceSeg(tiles, board, x, y, tiles.segmentAt(start.tile, start.rot, at));
}

// The same from a segment of the tile at (x, y); out.open tells whether a
// side of it leads to an empty square.
export function traceSeg(tiles, board, x, y, first) {
  const out = [], seen = new Set();
  out.open = false;
  const stack = [[x, y, first]];
  while (stack.length) {
    const [cx, cy, seg] = stack.pop();
    if (!seg) continue;
    const key = `${cx},${cy},${seg.index}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ x: cx, y: cy, seg });
    const here = board.get(`${cx},${cy}`);
    for (const p of seg.ports) {
      const i = PORTS.indexOf(p);
      if (i < 0) continue;
      const bi = PORTS.indexOf(rotatePort(p, here.rot));
      const d = Math.floor(bi / 3), k = bi % 3;
      const nx = cx + DX[d], ny = cy + DY[d];
      const n = board.get(`${nx},${ny}`);
      if (!n) { out.open = true; continue; }
      const np = PORTS[((d + 2) % 4) * 3 + (2 - k)];
      const nseg = tiles.defs.get(n.tile)?.segments.find((s) => s.ports.includes(unrotatePort(np, n.rot)));
      if (nseg) stack.push([nx, ny, nseg]);
    }
  }
  return out;
}

// Whether a figure standing at (x, y, at) is on the traced feature.
export function onFeature(tiles, board, feature, fig) {
  const b = board.get(`${fig.x},${fig.y}`);
  if (!b) return false;
  const seg = tiles.segmentAt(b.tile, b.rot, fig.at);
  return !!seg && feature.some((f) => f.x === fig.x && f.y === fig.y && f.seg.index === seg.index);
}

// What a traced feature is now, for the follower preview: its kind, tiles,
// shields, whether it is still open, the figures on it per player and what
// it is worth (scored now if completed, else at the end of the game).
export function featureInfo(tiles, board, parts, figures = []) {
  const kind = parts[0]?.seg.kind || 'field';
  const info = { kind, tiles: new Set(parts.map((p) => `${p.x},${p.y}`)).size, shields: 0, open: !!parts.open, cathedral: false, inn: false, holders: {}, value: 0, cities: 0 };
  for (const p of parts) {
    if (p.seg.shield) info.shields++;
    if (p.seg.cathedral) info.cathedral = true;
    if (p.seg.inn) info.inn = true;
  }
  for (const f of figures) {
    if (onFeature(tiles, board, parts, f)) info.holders[f.player] = (info.holders[f.player] || 0) + (f.kind === 'big' ? 2 : 1);
  }
  if (kind === 'cloister' || kind === 'garden') {
    const { x, y } = parts[0];
    let n = 0;
    for (let dx = -1; dx <= 1; dx++) for (let dy = -1; dy <= 1; dy++) if ((dx || dy) && board.has(`${x + dx},${y + dy}`)) n++;
    info.tiles = 1 + n; info.open = n < 8; info.value = 1 + n;
  } else if (kind === 'city') {
    const base = info.tiles + info.shields;
    info.value = info.open ? (info.cathedral ? 0 : base) : base * (info.cathedral ? 3 : 2);
  } else if (kind === 'road') {
    info.value = info.open ? (info.inn ? 0 : info.tiles) : info.tiles * (info.inn ? 2 : 1);
  } else if (kind === 'field') {
    const done = new Set();
    for (const p of parts) {
      const b = board.get(`${p.x},${p.y}`);
      const def = b && tiles.defs.get(b.tile);
      for (const ci of p.seg.cities || []) {
        const seg = def?.segments.find((s) => s.index === ci);
        if (!seg) continue;
        const city = traceSeg(tiles, board, p.x, p.y, seg);
        if (!city.open) done.add(city.map((c) => `${c.x},${c.y},${c.seg.index}`).sort()[0]);
      }
    }
    info.cities = done.size; info.open = true; info.value = 3 * done.size;
  }
  return info;
}
