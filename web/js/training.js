// Training against bots (docs/web.md "Training against bots"): at a table
// where this browser's seat is the one person and every other seat a bot
// (the table's undo_seat, docs/protocol.md), an undo bar takes moves back
// after they were confirmed; and on every board, hovering a placed figure
// (a long press on a touch screen) outlines its feature with what it would
// score if the game ended now and for whom: the engine's feature view
// (views.js), its holders the players with the most weight on it. A replay
// shows whose figure it is only: the engine's view is of the game's end.
import { api } from './api.js';
import { roleName } from './story.js';
import { t, tOr, esc, listJoin } from './i18n.js';
import { toast } from './ui.js';

// the undo bar offers at most this many moves at once (the server takes a whole game)
const UNDO_MENU_MAX = 30;

export function mountTraining(view) { return new Training(view); }

class Training {
  constructor(view) {
    this.v = view;
    this.count = 1;
    this.bar = document.createElement('div');
    this.bar.className = 'undo-bar hidden';
    this.bar.dataset.testid = 'undo-bar';
    view.$('.turn-card').appendChild(this.bar);
    this.bar.addEventListener('click', (e) => { if (e.target.closest('[data-undo]')) this.undo(); });
    this.bar.addEventListener('change', (e) => {
      if (!e.target.matches('select')) return;
      this.count = Number(e.target.value) || 1;
      this.render();
    });
    this.info = document.createElement('div');
    this.info.className = 'fig-info hidden';
    this.info.dataset.testid = 'figure-info';
    this.info.setAttribute('role', 'status');
    this.info.setAttribute('aria-live', 'polite');
    view.$('.board-wrap').appendChild(this.info);
    view.board.onFigure = (i, pressed) => this.showFigure(i, pressed);
    // a feature shown by a long press stays until the next touch elsewhere
    this.away = (e) => { if (this.pinned && !e.target.closest?.('.fig-info')) { this.pinned = false; this.clear(); } };
    document.addEventListener('pointerdown', this.away, true);
  }

  destroy() { document.removeEventListener('pointerdown', this.away, true); }

  // --- undo -------------------------------------------------------------------
  own() { const g = this.v.game; return g ? g.log.filter((e) => e.player === this.v.you).length : 0; }
  allowed() {
    const v = this.v, tb = v.table;
    return !v.replay && !!tb && !!v.game && tb.status === 'playing' && v.you !== null
      && tb.undo_seat === v.you && !v.game.next?.over;
  }
  render() {
    const own = this.allowed() ? this.own() : 0;
    if (!own) { this.bar.classList.add('hidden'); this.bar.replaceChildren(); return; }
    const max = Math.min(own, UNDO_MENU_MAX);
    this.count = Math.min(Math.max(1, this.count), max);
    const opts = [...Array(max).keys()].map((i) => `<option value="${i + 1}"${i + 1 === this.count ? ' selected' : ''}>${i + 1}</option>`).join('');
    this.bar.innerHTML = `<p class="hint">${t('undo.hint')}</p><div class="row"><label class="undo-how">${t('undo.how')} <select data-testid="undo-count">${opts}</select></label>`
      + `<button data-undo data-testid="undo"${this.sending ? ' disabled' : ''}>↶ ${esc(t('undo.button', { n: this.count }))}</button></div>`;
    this.bar.classList.remove('hidden');
  }
  undo() {
    if (!this.allowed() || this.sending) return;
    const n = this.count;
    this.sending = true;
    this.render();
    if (!this.v.live.send({ type: 'undo', moves: n })) {
      // no live connection now: the HTTP API takes it; the state comes when it is back
      api.undo(this.v.id, n, this.v.token).then((r) => { this.sending = false; toast(t('undo.done', { n: r.undone })); this.render(); })
        .catch((e) => { this.sending = false; toast(tOr(`err.${e.code}`, e.message), 'error'); this.render(); });
    }
  }
  onMessage(m) {
    if (m.type === 'undone') {
      const mine = this.sending;
      this.sending = false;
      this.pinned = false;
      this.clear();
      // each client asks for the position it sees now (docs/protocol.md "undone")
      this.v.live.send({ type: 'state' });
      toast(mine && m.undone > 0 ? t('undo.done', { n: m.undone }) : t('undo.elsewhere'), 'info', 'undo');
    } else if (m.type === 'error' && this.sending) {
      this.sending = false;
      this.render();
    }
  }

  // --- a figure's feature ------------------------------------------------------------------------
  clear() {
    this.info.classList.add('hidden');
    this.info.replaceChildren();
    if (this.shown) { this.v.board.mark(null); this.shown = false; }
  }
  showFigure(i, pressed = false) {
    const v = this.v, figs = v.board.figs || [];
    if (i === null || i === undefined || !figs[i]) { this.asked = null; if (!this.pinned) this.clear(); return; }
    if (v.previewing) return; // a follower preview of the tile being placed comes first
    const f = figs[i];
    const feature = f.feature ?? v.tiles.segmentAt(v.board.placed.get(`${f.x},${f.y}`)?.tile, v.board.placed.get(`${f.x},${f.y}`)?.rot, f.at)?.kind;
    const role = roleName(f.kind, feature);
    const whose = `<span class="fig-whose">${t('figinfo.whose', { role: esc(role), name: v.who(f.player) })}</span>`;
    if (v.replay) {
      // the engine's view is of the game as it ended, not of this step
      this.pinned = pressed;
      this.info.innerHTML = whose;
      delete this.info.dataset.value;
      this.info.classList.remove('hidden');
      return;
    }
    const ask = this.asked = {};
    v.views.feature(f.x, f.y, f.at).then((fv) => {
      if (this.asked !== ask) return; // the pointer moved on
      // who would get the points: the players with the most weight on it
      const most = Math.max(0, ...fv.holders);
      const win = most > 0 ? fv.holders.map((w, p) => [p, w]).filter(([, w]) => w === most).map(([p]) => p) : [];
      v.board.mark(fv.parts, fv.kind, { cls: 'preview figure-mark', label: String(fv.value), color: win.length === 1 ? v.colors[win[0]] : null });
      this.shown = true;
      this.pinned = pressed;
      this.info.innerHTML = `${whose} · ${this.text(fv, win)}`;
      // the engine's numbers shown, for tests and assistive tools
      Object.assign(this.info.dataset, { kind: fv.kind, tiles: fv.tiles, value: fv.value, holders: fv.holders.join(','), winners: win.join(','), x: f.x, y: f.y, at: f.at });
      this.info.classList.remove('hidden');
    }).catch(() => { /* no view (the budget, a move meanwhile): nothing shown */ });
  }
  text(fv, win) {
    const v = this.v, bits = v.featureBits(fv);
    bits.push(`<strong data-testid="figure-worth">${t('figinfo.worth', { n: fv.value })}</strong>`);
    bits.push(win.length ? t('figinfo.for', { names: listJoin(win.map((p) => v.who(p))) }) : t('figinfo.nobody'));
    return `${tOr(`feat.${fv.kind}`, fv.kind)}: ${bits.join(' · ')}`;
  }
}
