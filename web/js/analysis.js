// The analysis of a finished game on the replay screen (docs/web.md,
// "Analysis"): the server computes it on request (POST
// /api/tables/<id>/analysis, docs/protocol.md) and keeps it. Shown here: a
// win-probability curve over the game (one line per player, the current
// step marked, a click goes to that turn), the turns where each player lost
// most (on the curve and as a list), and for a selected turn the position
// before it with the better move drawn on the board as a ghost.
import { api, ApiError } from './api.js';
import { t, tOr, esc } from './i18n.js';
import { roleName } from './story.js';
import { tileStep, entryStep } from './vocab.js';

// Where an analysed decision stands in the game: its step, 1-based (the
// replay's position after it, the curve's x). A turn may hold several steps
// (a decision of another kind after the tile), so the turn, which the
// lines name, is no position; an analysis stored before steps has none and
// its turns are its steps.
const at = (x) => (Number.isInteger(x.step) ? x.step + 1 : x.turn);

const W = 300, H = 96, PAD = 4; // the curve's box in SVG units
const WORST_PER_PLAYER = 3;     // turns listed per player
const MIN_LOST = 1;             // points: smaller losses are not worth a mark
const POLL_FIRST_MS = 400, POLL_MAX_MS = 4000, POLL_GIVE_UP_MS = 5 * 60 * 1000;

export class AnalysisPanel {
  // view: the GameView (replay); box: the element the panel lives in
  constructor(view, box) {
    this.view = view; this.box = box;
    this.data = null; this.state = 'none'; this.progress = null; this.error = null;
    this.selected = null; this.timer = null; this.gone = false;
    this.box.addEventListener('click', (e) => this.onClick(e));
    this.box.addEventListener('keydown', (e) => {
      const m = e.target.closest?.('[data-an-turn]');
      if (m && (e.key === 'Enter' || e.key === ' ')) { e.preventDefault(); this.select(Number(m.dataset.anTurn)); }
    });
    this.box.classList.remove('hidden');
    this.render();
    this.load();
  }

  destroy() { this.gone = true; clearTimeout(this.timer); }

  // what the server has: a stored analysis is shown at once, one computing is followed
  async load() {
    try {
      const r = await api.analysis(this.id());
      this.take(r);
    } catch (e) { this.fail(e); }
  }

  id() { return this.view.id; }

  async start() {
    this.state = 'pending'; this.error = null; this.progress = null; this.pollStart = null; this.render();
    try {
      this.take(await api.analyse(this.id()));
    } catch (e) { this.fail(e); }
  }

  take(r) {
    if (this.gone) return;
    if (!r || r.status === 'none') { this.state = 'none'; this.render(); return; }
    if (r.status === 'failed') { this.state = 'error'; this.error = r.message || ''; this.render(); return; }
    if (r.status === 'pending') {
      this.state = 'pending'; this.progress = r; this.render();
      this.poll();
      return;
    }
    if (r.status === 'done') {
      clearTimeout(this.timer);
      this.state = 'done'; this.data = r; this.render();
    }
  }

  fail(e) {
    if (this.gone) return;
    clearTimeout(this.timer);
    this.state = 'error';
    this.error = e instanceof ApiError && e.code === 'rate_limited' ? t('an.err.rate')
      : e instanceof ApiError && e.code === 'busy' ? t('an.err.busy') : (e.message || String(e));
    this.render();
  }

  // polls with a growing pause, and gives up after a while
  poll() {
    clearTimeout(this.timer);
    if (!this.pollStart) { this.pollStart = Date.now(); this.pollWait = POLL_FIRST_MS; }
    if (Date.now() - this.pollStart > POLL_GIVE_UP_MS) { this.fail(new Error(t('an.err.slow'))); return; }
    this.timer = setTimeout(async () => {
      this.pollWait = Math.min(POLL_MAX_MS, Math.round(this.pollWait * 1.5));
      try {
        const r = await api.analysis(this.id());
        this.take(r);
      } catch (e) { this.fail(e); }
    }, this.pollWait);
  }

  onClick(e) {
    const a = e.target.closest('[data-an-act]');
    if (a) { if (a.dataset.anAct === 'start') this.start(); if (a.dataset.anAct === 'clear') this.select(null); return; }
    const m = e.target.closest('[data-an-turn]');
    if (m) { this.select(Number(m.dataset.anTurn)); return; }
    const svg = e.target.closest('svg.an-curve');
    if (svg && this.data) {
      const r = svg.getBoundingClientRect();
      const n = this.data.turns.length;
      const k = Math.round(((e.clientX - r.left) / r.width * W - PAD) / (W - 2 * PAD) * n);
      this.selected = null;
      this.view.goStep(Math.max(0, Math.min(n, k)));
    }
  }

  // turn k (1-based) selected: the position before it with the better move; null: none
  select(k) {
    this.selected = k;
    if (k) this.view.goStep(k - 1);
    else this.onStep(this.view.step);
    this.view.renderReplayBar(); // the tile box: the selected turn's own tile
    this.render();
    // the line in words in view (on a phone the panel scrolls under the board)
    this.box.querySelector('.an-sel')?.scrollIntoView?.({ block: 'nearest' });
  }

  // the replay moved to `step` (turns shown)
  onStep(step) {
    if (this.selected && step !== this.selected - 1) { this.selected = null; this.render(); this.view.renderReplayBar(); }
    this.drawHint();
    this.moveCursor(step);
  }

  // the better move of the selected turn on the board, and where the played one went
  drawHint() {
    const a = this.data, k = this.selected;
    if (!a || !k) { this.view.board.setHint(null); return; }
    const turn = a.turns[k - 1], e = this.view.game.log[k - 1];
    if (!turn || !e) { this.view.board.setHint(null); return; }
    const b = turn.best;
    // a decision that put no tile (a discard, a step of another kind) has no square
    const placed = (d) => Number.isInteger(d?.x) && Number.isInteger(d?.y);
    this.view.board.setHint({
      best: placed(b) ? { x: b.x, y: b.y, rot: b.rot, tile: e.tile, meeple: b.meeple } : null,
      played: placed(e) ? { x: e.x, y: e.y } : null,
      player: turn.player,
    }, (p) => this.view.colors[p]);
    if (placed(b)) this.view.board.ensureVisible(b.x, b.y);
  }

  // for each player, the turns with the largest losses
  worst() {
    const a = this.data;
    const out = [];
    for (let p = 0; p < (a.players || 2); p++) {
      const mine = a.turns.filter((x) => x.player === p && x.lost >= MIN_LOST).sort((x, y) => y.lost - x.lost).slice(0, WORST_PER_PLAYER);
      out.push(...mine);
    }
    return out.sort((x, y) => at(x) - at(y));
  }

  // per player, the points [turn, win] of the curve: with two players each
  // turn gives both (the other's chance is the rest), with more a player's
  // line has a point at each of their own turns
  series() {
    const a = this.data, np = a.players || 2;
    const s = [...Array(np)].map(() => [[0, 1 / np]]);
    for (const x of a.turns) {
      s[x.player].push([at(x), x.win_played]);
      if (np === 2) s[1 - x.player].push([at(x), 1 - x.win_played]);
    }
    return s;
  }

  xy(turn, win) {
    const n = Math.max(1, this.data.turns.length);
    return [PAD + turn / n * (W - 2 * PAD), PAD + (1 - win) * (H - 2 * PAD)];
  }

  // the curve with its axes: y 0..100 % on the left, the turns below
  // (ticks every 5, 10, 20... turns, at most about 8), each axis named
  chartHtml() {
    const n = Math.max(1, this.data.turns.length);
    const step = [1, 2, 5, 10, 20, 25, 50].find((d) => n / d <= 8) || 100;
    const ticks = [];
    for (let k = 0; k <= n; k += step) ticks.push(k);
    if (ticks[ticks.length - 1] !== n) {
      if (n - ticks[ticks.length - 1] < step / 2) ticks.pop(); // no two numbers on top of each other
      ticks.push(n);
    }
    const left = (k) => (this.xy(k, 0)[0] / W * 100).toFixed(2);
    const xs = ticks.map((k) => `<span class="an-tick" data-testid="an-tick" style="left:${left(k)}%">${k}</span>`).join('');
    const ys = ['100 %', '50 %', '0 %'].map((v) => `<span>${v}</span>`).join('');
    return `<figure class="an-chart" data-testid="an-chart"><div class="an-ytitle">${t('an.axis.y')}</div><div class="an-plotrow"><div class="an-y" aria-hidden="true">${ys}</div><div class="an-plot">${this.curveSvg()}<div class="an-x" data-testid="an-xaxis" aria-hidden="true">${xs}</div></div></div><figcaption class="an-xtitle" data-testid="an-xtitle">${t('an.axis.x')}</figcaption></figure>`;
  }

  curveSvg() {
    const a = this.data, colors = this.view.colors;
    const f = (v) => v.toFixed(1);
    let s = `<svg class="an-curve" data-testid="an-curve" viewBox="0 0 ${W} ${H}" preserveAspectRatio="none" role="img" aria-label="${esc(t('an.curve'))}">`;
    s += `<rect x="0" y="0" width="${W}" height="${H}" class="an-bg"/>`;
    const [, mid] = this.xy(0, 0.5);
    s += `<line x1="${PAD}" x2="${W - PAD}" y1="${f(mid)}" y2="${f(mid)}" class="an-mid"/>`;
    this.series().forEach((pts, p) => {
      const d = pts.map(([k, w], i) => { const [x, y] = this.xy(k, w); return `${i ? 'L' : 'M'}${f(x)} ${f(y)}`; }).join('');
      s += `<path d="${d}" class="an-line" data-player="${p}" data-points="${pts.length}" stroke="${colors[p].hex}"/>`;
    });
    const [cx] = this.xy(this.view.step, 0);
    s += `<line class="an-cursor" data-testid="an-cursor" x1="${f(cx)}" x2="${f(cx)}" y1="0" y2="${H}"/>`;
    for (const x of this.worst()) {
      const [mx, my] = this.xy(at(x), x.win_played);
      s += `<circle class="an-mark${this.selected === at(x) ? ' sel' : ''}" data-an-turn="${at(x)}" data-testid="an-mark" cx="${f(mx)}" cy="${f(my)}" r="3.2" fill="${colors[x.player].hex}"><title>${esc(t('an.turn', { k: x.turn }))}</title></circle>`;
    }
    return s + '</svg>';
  }

  moveCursor(step) {
    const c = this.box.querySelector('.an-cursor');
    if (!c || !this.data) return;
    const [cx] = this.xy(step, 0);
    c.setAttribute('x1', cx.toFixed(1)); c.setAttribute('x2', cx.toFixed(1));
  }

  // "a knight" for a figure on the tile of the turn, or "" without one
  figureWords(tile, m) {
    if (!m || m.meeple === null || m.meeple === undefined) return '';
    const seg = this.view.tiles.segmentAt(tile, m.rot, m.meeple.at);
    return roleName(m.meeple.kind, seg?.kind);
  }

  moveWords(tile, m) {
    // a decision of another kind of step: in the engine's words (game.js)
    const kind = m ? entryStep(m) : tileStep();
    if (kind !== tileStep()) return this.view.stepText(m, kind);
    if (!m || m.discarded) return t('an.move.discard');
    const fig = this.figureWords(tile, m);
    return fig ? t('an.move.fig', { fig }) : t('an.move.nofig');
  }

  selectedHtml() {
    const k = this.selected, a = this.data;
    const x = a.turns[k - 1], e = this.view.game.log[k - 1];
    if (!x || !e) return '';
    const who = this.view.who(x.player);
    const same = JSON.stringify(x.best) === JSON.stringify(x.played);
    const line = same ? t('an.same', { name: who })
      : t(entryStep(e) === tileStep() ? 'an.better' : 'an.better.step', { name: who, played: this.moveWords(e.tile, x.played), best: this.moveWords(e.tile, x.best), n: Math.round(x.lost) });
    const why = x.why && !same ? this.whyHtml(x) : '';
    return `<div class="an-sel" data-testid="an-selected"><p><span class="an-key"><i class="k-best"></i>${t('an.key.best')}</span> <span class="an-key"><i class="k-played"></i>${t('an.key.played')}</span></p><p>${line}</p>${why}<button class="linkish" data-an-act="clear">${t('an.clear')}</button></div>`;
  }

  // --- why a move lost (docs/web.md, "Why a move lost") -------------------
  // every sentence is built here from the server's facts (turn.why)

  // the first reason of a listed turn, under its line
  mainReasonHtml(x) {
    const r = x.why?.reasons?.[0];
    if (!r) return '';
    return `<span class="an-why small" data-testid="an-why" data-code="${esc(r.code)}" data-kind="${esc(r.kind)}">${this.reasonText(x, r, false)}</span>`;
  }

  // one reason in words: its sentence, then what it is worth
  reasonText(x, r, full) {
    const name = this.view.who(x.player);
    const rival = Number.isInteger(r.rival) ? this.view.who(r.rival) : '';
    const size = r.tiles ? t('n.tiles', { n: r.tiles }) : '';
    const role = r.figure ? roleName(r.figure, r.kind) : '';
    const pts = (v) => t('an.pts', { n: Math.max(1, Math.round(Math.abs(v))) });
    const on = t(`an.on.${r.kind}`);
    const v = { name, rival, size, role, on, mine: r.mine, theirs: r.theirs };
    let main;
    if (r.code === 'tied') main = t('an.why.tied', { ...v, held: t('an.held', { n: r.held }) });
    else if (r.code === 'spent') main = t('an.why.spent', v);
    else if (r.code === 'goods') main = t('an.why.goods', { ...v, goods: Object.entries(r.goods || {}).map(([g, c]) => (c > 1 ? `${c} × ` : '') + t(`goods.${g}`)).join(', ') });
    else if (r.code === 'recall') main = t(`an.why.recall.${r.kind}`, { ...v, pts: t('an.pts', { n: r.points || 0 }) });
    else main = tOr(`an.why.${r.code}.${r.kind}`, t(`an.why.value.${r.kind}`, v), v);
    const more = [];
    if (r.code === 'close') more.push(t('an.p.now', { name, pts: pts(r.points) }));
    else if (r.code === 'block') more.push(t('an.p.rloss', { rival, pts: pts(r.loss) }));
    else if (r.code === 'gift') more.push(r.points > 0 ? t('an.p.rnow', { rival, pts: pts(r.points) }) : t('an.p.rend', { rival, pts: pts(r.gain) }));
    else if (r.code === 'tied') {
      if (r.idle > 0) more.push(t('an.why.idle', { name, turns: t('an.held', { n: r.idle }) }));
      more.push(r.back ? t('an.why.back', { k: r.back }) : t('an.why.stayed'));
      if (full && r.gain >= 0.5) more.push(t('an.p.keep', { name, pts: pts(r.gain) }));
    } else if (r.code === 'spent') more.push(t('an.p.keep', { name, pts: pts(r.gain) }));
    else if (r.gain >= 0.5) more.push(t('an.p.end', { name, pts: pts(r.gain) }));
    // the catalogues' text is trusted HTML (names come in as who(), escaped there)
    return main + (more.length ? ' ' + more.join(' ') : '');
  }

  // "Cities +4, Followers +1.2" from {city: 4, followers: 1.2}
  kindsText(o, signed) {
    const label = (k) => (k === 'followers' || k === 'builders' ? t(`an.part.${k}`) : t(`kind.${k}`));
    const num = (n) => (signed && n > 0 ? '+' : '') + (Math.abs(n) >= 10 ? Math.round(n) : Math.round(n * 10) / 10);
    const parts = Object.entries(o || {}).filter(([, n]) => Math.abs(n) >= 0.5).map(([k, n]) => `${label(k)} ${num(n)}`);
    return parts.length ? parts.join(', ') : t('an.nothing');
  }

  whyHtml(x) {
    const w = x.why;
    const items = (w.reasons || []).map((r) => `<li data-testid="an-reason" data-code="${esc(r.code)}" data-kind="${esc(r.kind)}" data-on="${esc(r.on || '')}" data-x="${r.x}" data-y="${r.y}" data-at="${esc(r.at || '')}">${this.reasonText(x, r, true)}</li>`).join('');
    const name = this.view.who(x.player);
    let h = `<div class="an-whybox"><h4>${t('an.why.title')}</h4><ul class="an-reasons">${items}</ul>`;
    h += `<p class="small an-now" data-testid="an-now">${t('an.now', { best: esc(this.kindsText(w.now?.best)), played: esc(this.kindsText(w.now?.played)) })}</p>`;
    h += `<p class="small an-end" data-testid="an-end">${t('an.end', { name, list: esc(this.kindsText(w.end, true)) })}`;
    if (Number.isInteger(w.rival) && w.rival_end && Object.keys(w.rival_end).length) h += ' ' + t('an.rend', { rival: this.view.who(w.rival), list: esc(this.kindsText(w.rival_end, true)) });
    return h + '</p></div>';
  }

  render() {
    if (this.gone) return;
    let h = `<h3>${t('an.title')}</h3>`;
    if (this.state === 'none') {
      h += `<p class="small">${t('an.intro')}</p><button data-an-act="start" data-testid="an-start">${t('an.start')}</button>`;
    } else if (this.state === 'pending') {
      const p = this.progress;
      h += `<p class="an-progress" data-testid="an-progress" role="status">${p && p.total ? t('an.progress', { k: p.done, n: p.total }) : t('an.starting')}</p>`;
    } else if (this.state === 'error') {
      h += `<p class="an-error" role="alert">${esc(this.error || '')}</p><button data-an-act="start" data-testid="an-start">${t('an.retry')}</button>`;
    } else if (this.state === 'done') {
      h += this.chartHtml();
      const w = this.worst();
      h += w.length ? `<ol class="an-worst" data-testid="an-worst">${w.map((x) => `<li><button class="linkish${this.selected === at(x) ? ' sel' : ''}" data-an-turn="${at(x)}">${t('an.lost', { k: x.turn, name: this.view.who(x.player), n: Math.round(x.lost) })}</button>${this.mainReasonHtml(x)}</li>`).join('')}</ol>`
        : `<p class="small">${t('an.none')}</p>`;
      if (this.selected) h += this.selectedHtml();
    }
    this.box.innerHTML = h;
    this.drawHint();
  }
}
