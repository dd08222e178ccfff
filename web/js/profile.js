// A player's profile (/?player=NAME): rating, its history, results against
// each bot level, and the games with their replays.
import { t, tOr, esc, currentLanguage } from './i18n.js';
import { personName } from './players.js';

function sparkline(history) {
  if (history.length < 1) return '';
  const pts = [history[0].before, ...history.map((x) => x.after)];
  const lo = Math.min(...pts), hi = Math.max(...pts), w = 320, hgt = 80;
  const xy = pts.map((v, i) => `${(i * w / Math.max(1, pts.length - 1)).toFixed(1)},${(hgt - 6 - (hi > lo ? (v - lo) / (hi - lo) : 0.5) * (hgt - 12)).toFixed(1)}`);
  return `<svg class="spark" viewBox="0 0 ${w} ${hgt}" width="${w}" height="${hgt}" role="img" aria-label="${t('profile.history')}"><polyline fill="none" stroke="currentColor" stroke-width="2" points="${xy.join(' ')}"/></svg><small>${Math.round(lo)} – ${Math.round(hi)}</small>`;
}

export class ProfileView {
  constructor(root, name) {
    this.root = root;
    this.name = name;
    window.addEventListener('langchange', () => this.render());
    this.loaded = this.load();
  }

  async load() {
    const r = await fetch(`/api/player?name=${encodeURIComponent(this.name)}`).catch(() => null);
    this.data = r ? await r.json().catch(() => null) : null;
    this.status = r ? r.status : 0;
    this.render();
  }

  render() {
    const p = this.data;
    if (!p || this.status !== 200) {
      this.root.innerHTML = `<section class="card profile"><p class="error" data-testid="profile-error">${this.status === 404 ? t('profile.none') : esc(p?.error?.message || t('err.load'))}</p></section>`;
      return;
    }
    let h = `<section class="card profile" data-testid="profile"><h2>${esc(p.name)}</h2>
      <p class="rating"><strong data-testid="profile-rating">${Math.round(p.rating)}</strong> ± ${Math.round(2 * p.rd)} · ${t('profile.games', { n: p.games })}</p>`;
    h += `<h3>${t('profile.history')}</h3>${p.history.length ? sparkline(p.history) : `<p>${t('profile.nohistory')}</p>`}`;
    h += `<h3>${t('profile.bots')}</h3>`;
    if (!p.bots.length) h += `<p>${t('profile.nobots')}</p>`;
    else {
      h += `<table><thead><tr><th>${t('profile.level')}</th><th>${t('board.rating')}</th><th>${t('board.games')}</th><th>${t('profile.wdl')}</th><th>${t('profile.winrate')}</th></tr></thead><tbody>`;
      for (const b of p.bots) h += `<tr data-testid="bot-row"><td>${esc(tOr(`bot.${b.level}`, b.level))}</td><td>${b.rating ?? '–'}</td><td>${b.games}</td><td>${b.wins} / ${b.draws} / ${b.losses}</td><td>${Math.round(100 * b.win_rate)}%</td></tr>`;
      h += '</tbody></table>';
    }
    h += `<h3>${t('profile.recent')}</h3><ul class="games">`;
    for (const g of p.recent_games) {
      const change = g.rated ? Math.round(g.rating_after - g.rating_before) : null;
      // the date in the page's language, as the lobby writes it
      const when = new Date(g.finished_ms).toLocaleString(currentLanguage(), { dateStyle: 'short', timeStyle: 'short' });
      const won = new Set(g.winners || []);
      const players = g.players.map((n, i) => `${esc(personName(n))} <b>${g.scores[i] ?? ''}</b>${won.has(i) ? '<span class="crown" aria-hidden="true">★</span>' : ''}`).join(' · ');
      h += `<li data-testid="profile-game"><a href="${esc(g.replay)}">${t('profile.replay')}</a> <span class="gp">${players}</span> <time>${esc(when)}</time> ${change === null ? `<em class="unrated">${t('profile.unrated')}</em>` : `<strong class="${change >= 0 ? 'up' : 'down'}">${change >= 0 ? '+' : ''}${change}</strong>`}</li>`;
    }
    h += '</ul></section>';
    this.root.innerHTML = h;
  }
}
