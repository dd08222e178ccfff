// The score track of the box: squares 0-49 around the board, clockwise from
// the top left corner, each player's marker (a follower with the colour's
// mark) on its score (modulo 50) and the laps of 50 beside it. Markers on the
// same or near squares stand side by side, never on top of each other.
// Shown or hidden by the board's tool (remembered).
import { markerSvg } from './colors.js';
import { esc, t } from './i18n.js';

const COLS = 15, ROWS = 12; // 15 squares along the top and bottom, 10 down each side

// grid row and column (1-based) of square k
function place(k) {
  if (k < COLS) return [1, k + 1];                        // top, left to right
  if (k < COLS + ROWS - 2) return [k - COLS + 2, COLS];   // right side, downwards
  if (k < 2 * COLS + ROWS - 2) return [ROWS, COLS - (k - COLS - ROWS + 2)]; // bottom, right to left
  return [ROWS - (k - 2 * COLS - ROWS + 3), 1];           // left side, upwards
}

// Positions along a line for markers that want to be at `want` (sorted),
// at least `gap` apart and each as near its place as can be: markers closer
// than `gap` form a group centred on the mean of their places; a group that
// then reaches into the next one merges with it.
export function spread(want, gap) {
  const groups = [];
  const first = (g) => g.sum / g.n - ((g.n - 1) * gap) / 2;
  for (const w of want) {
    groups.push({ n: 1, sum: w });
    while (groups.length > 1) {
      const b = groups[groups.length - 1], a = groups[groups.length - 2];
      if (first(a) + a.n * gap <= first(b) + 1e-6) break;
      a.n += b.n; a.sum += b.sum; groups.pop();
    }
  }
  const out = [];
  for (const g of groups) for (let j = 0; j < g.n; j++) out.push(first(g) + j * gap);
  return out;
}

export class ScoreTrack {
  constructor(node) {
    this.node = node;
    let h = '';
    for (let k = 0; k < 50; k++) {
      const [r, c] = place(k);
      h += `<div class="cell${k % 5 === 0 ? ' five' : ''}" data-cell="${k}" style="grid-area:${r} / ${c}"><span class="num">${k % 5 === 0 ? k : ''}</span><span class="marks"></span></div>`;
    }
    node.innerHTML = h;
    this.cells = [...node.querySelectorAll('.cell')];
    // the squares change size with the window, and from nothing when the
    // track is shown: the markers are laid out again
    if (typeof ResizeObserver !== 'undefined') new ResizeObserver(() => this.layout()).observe(node);
  }
  render(scores, colors, names) {
    this.node.querySelectorAll('.marks').forEach((m) => { m.innerHTML = ''; });
    this.cells.forEach((c) => c.classList.remove('taken'));
    scores.forEach((s, i) => {
      if (!colors[i]) return;
      const laps = Math.floor(s / 50);
      const m = document.createElement('span');
      m.className = 'marker';
      m.dataset.testid = `track-p${i}`;
      m.dataset.score = s;
      m.dataset.p = i;
      m.title = laps ? `${names[i]}: ${s} (${t('track.laps.long', { n: laps })})` : `${names[i]}: ${s}`;
      m.innerHTML = markerSvg(colors[i]) + (laps ? `<sup>×${laps}</sup>` : '');
      m.setAttribute('aria-label', esc(m.title));
      const cell = this.cells[((s % 50) + 50) % 50];
      cell.classList.add('taken');
      cell.querySelector('.marks').appendChild(m);
    });
    this.layout();
  }
  // Each marker over its square. Markers on one square stand side by side
  // along the track as many as the square holds, then in a second row
  // inside it, towards the board (at a corner, along the diagonal): every
  // marker stays in line with its own square, so its score reads at a
  // glance. Should markers of neighbouring squares still touch, they are
  // spread along the track instead (spreadAlong).
  layout() {
    const ms = [...this.node.querySelectorAll('.marker')];
    if (!ms.length || !this.node.offsetWidth) return;
    const w = Math.max(...ms.map((m) => m.offsetWidth)), h = Math.max(...ms.map((m) => m.offsetHeight));
    const items = ms.map((m) => ({ m, cell: Number(m.closest('[data-cell]').dataset.cell), p: Number(m.dataset.p) }));
    items.sort((a, b) => a.cell - b.cell || a.p - b.p);
    const byCell = new Map();
    for (const it of items) { if (!byCell.has(it.cell)) byCell.set(it.cell, []); byCell.get(it.cell).push(it); }
    for (const [k, list] of byCell) {
      const c = this.cells[k], [r, col] = place(k);
      // inwards: towards the board from this side (both ways at a corner)
      const ix = col === 1 ? 1 : col === COLS ? -1 : 0, iy = r === 1 ? 1 : r === ROWS ? -1 : 0;
      const flat = iy !== 0 && ix === 0; // the top or bottom row: side by side left to right
      const room = ix && iy ? 0 : flat ? c.offsetWidth : c.offsetHeight;
      const step = flat ? w + 2 : h + 2;
      const cap = Math.max(1, Math.floor((room + 2) / step));
      list.forEach((it, j) => {
        const row = Math.floor(j / cap), inRow = Math.min(cap, list.length - row * cap);
        const off = (j % cap - (inRow - 1) / 2) * step;
        it.x = c.offsetLeft + c.offsetWidth / 2 + (flat ? off : 0) + ix * row * (w + 2);
        it.y = c.offsetTop + c.offsetHeight / 2 + (flat ? 0 : off) + iy * row * (h + 2);
      });
    }
    if (overlap(items, w, h)) this.spreadAlong(items, w, h);
    for (const it of items) {
      const c = this.cells[it.cell];
      it.m.style.left = `${(it.x - c.offsetLeft).toFixed(1)}px`;
      it.m.style.top = `${(it.y - c.offsetTop).toFixed(1)}px`;
    }
  }
  // The markers side by side along the line through the squares' middles,
  // each as near its square as can be (spread). Where that line turns a
  // corner two markers come nearer than along it, so the spacing grows
  // until no two overlap.
  spreadAlong(items, w, h) {
    const mid = this.cells.map((c) => [c.offsetLeft + c.offsetWidth / 2, c.offsetTop + c.offsetHeight / 2]);
    const along = [0];
    for (let k = 1; k <= 50; k++) along.push(along[k - 1] + Math.hypot(mid[k % 50][0] - mid[k - 1][0], mid[k % 50][1] - mid[k - 1][1]));
    const len = along[50];
    const pointAt = (d) => {
      d = ((d % len) + len) % len;
      let k = 0;
      while (k < 49 && along[k + 1] <= d) k++;
      const f = (d - along[k]) / ((along[k + 1] - along[k]) || 1), a = mid[k], b = mid[(k + 1) % 50];
      return [a[0] + (b[0] - a[0]) * f, a[1] + (b[1] - a[1]) * f];
    };
    items.forEach((it) => { it.want = along[it.cell]; });
    items.sort((a, b) => a.want - b.want || a.p - b.p);
    // the track is a loop: it is cut open at the widest gap between markers
    let cut = 0, widest = -1;
    items.forEach((it, j) => {
      const next = j + 1 < items.length ? items[j + 1].want : items[0].want + len;
      if (next - it.want > widest) { widest = next - it.want; cut = (j + 1) % items.length; }
    });
    const order = [...items.slice(cut), ...items.slice(0, cut)];
    const want = order.map((it, j) => it.want + (j >= order.length - cut && cut ? len : 0));
    let gap = Math.max(w, h) + 2;
    for (let tries = 0; tries < 24; tries++, gap *= 1.06) {
      spread(want, gap).map(pointAt).forEach(([x, y], j) => { order[j].x = x; order[j].y = y; });
      if (!overlap(order, w, h)) break;
    }
  }
}

// Whether two of the markers (centres x, y; at most w by h) overlap.
function overlap(items, w, h) {
  for (let a = 0; a < items.length; a++) {
    for (let b = a + 1; b < items.length; b++) {
      if (Math.abs(items[a].x - items[b].x) < w + 1 && Math.abs(items[a].y - items[b].y) < h + 1) return true;
    }
  }
  return false;
}
