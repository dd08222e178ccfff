// Features across the board, traced from port to port like the engine does:
// side d part k of a tile touches side (d+2)%4 part 2-k of its neighbour.
import { PORTS, rotatePort, unrotatePort } from './tiles.js';

const DX = [0, 1, 0, -1], DY = [-1, 0, 1, 0];

// board: Map "x,y" -> {tile, rot}. Returns [{x, y, seg}] for the feature at
// board port `at` of tile (x, y): cloisters and gardens are their own tile.
export function traceFeature(tiles, board, x, y, at) {
  const out = [], seen = new Set();
  const start = board.get(`${x},${y}`);
  if (!start) return out;
  const stack = [[x, y, tiles.segmentAt(start.tile, start.rot, at)]];
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
      if (!n) continue;
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
