// The leaderboard (/?leaderboard): accounts by Glicko-2 rating.
import { t, tOr, esc } from './i18n.js';
import { api } from './api.js';

export class LeaderboardView {
  constructor(root) {
    this.root = root;
    this.offset = 0;
    window.addEventListener('langchange', () => this.render());
    this.loaded = this.load();
  }

  async load() {
    // the bots' fixed ratings, from the levels this server offers
    const levels = this.levels ? null : api.options().then((o) => { this.levels = o?.bot_levels || []; }).catch(() => {});
    try {
      const r = await fetch(`/api/leaderboard?limit=50&offset=${this.offset}`);
      this.data = await r.json();
      if (!r.ok) throw new Error(this.data?.error?.message || r.status);
    } catch (e) {
      this.data = null;
      this.error = String(e.message || e);
    }
    await levels;
    this.render();
  }

  render() {
    const d = this.data;
    let h = `<section class="card leaderboard" data-testid="leaderboard"><h2>${t('board.title')}</h2>`;
    if (!d) h += `<p class="error">${esc(this.error || '')}</p>`;
    else if (!d.players.length) h += `<p>${t('board.empty')}</p>`;
    else {
      h += `<table><thead><tr><th>#</th><th>${t('board.player')}</th><th>${t('board.rating')}</th><th>${t('board.games')}</th></tr></thead><tbody>`;
      for (const p of d.players) {
        h += `<tr data-testid="board-row"><td>${p.rank}</td><td><a href="/?player=${encodeURIComponent(p.name)}">${esc(p.name)}</a></td><td title="± ${Math.round(2 * p.rd)}">${Math.round(p.rating)}</td><td>${p.games}</td></tr>`;
      }
      h += '</tbody></table>';
      h += '<div class="row">';
      if (this.offset > 0) h += `<button type="button" data-act="prev">${t('board.prev')}</button>`;
      if (d.more) h += `<button type="button" data-act="next">${t('board.next')}</button>`;
      h += '</div>';
    }
    const bots = (this.levels || []).filter((l) => l.available !== false && l.rating != null)
      .map((l) => `${esc(tOr(`bot.${l.level}`, l.level))} ${l.rating}`).join(', ');
    h += `<p class="hint" data-testid="board-about">${t('board.about')}${bots ? ' ' + t('board.bots', { list: bots }) : ''}</p></section>`;
    this.root.innerHTML = h;
    this.root.querySelector('[data-act=prev]')?.addEventListener('click', () => { this.offset = Math.max(0, this.offset - 50); this.load(); });
    this.root.querySelector('[data-act=next]')?.addEventListener('click', () => { this.offset += 50; this.load(); });
  }
}
