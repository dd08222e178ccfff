// The score track of the box: squares 0-49 around the board, clockwise from
// the top left corner, each player's marker on its score (modulo 50) and the
// laps of 50 beside it. Shown or hidden by the board's tool (remembered).
import { badge } from './colors.js';
import { esc, t } from './i18n.js';

const COLS = 15, ROWS = 12; // 15 squares along the top and bottom, 10 down each side

// grid row and column (1-based) of square k
function place(k) {
  if (k < COLS) return [1, k + 1];                        // top, left to right
  if (k < COLS + ROWS - 2) return [k - COLS + 2, COLS];   // right side, downwards
  if (k < 2 * COLS + ROWS - 2) return [ROWS, COLS - (k - COLS - ROWS + 2)]; // bottom, right to left
  return [ROWS - (k - 2 * COLS - ROWS + 3), 1];           // left side, upwards
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
  }
  render(scores, colors, names) {
    this.node.querySelectorAll('.marks').forEach((m) => { m.innerHTML = ''; });
    scores.forEach((s, i) => {
      if (!colors[i]) return;
      const laps = Math.floor(s / 50);
      const m = document.createElement('span');
      m.className = 'marker';
      m.dataset.testid = `track-p${i}`;
      m.dataset.score = s;
      m.title = laps ? `${names[i]}: ${s} (${t('track.laps.long', { n: laps })})` : `${names[i]}: ${s}`;
      m.innerHTML = badge(colors[i], 12) + (laps ? `<sup>×${laps}</sup>` : '');
      m.setAttribute('aria-label', esc(m.title));
      this.node.querySelector(`[data-cell="${((s % 50) + 50) % 50}"] .marks`).appendChild(m);
    });
  }
}
