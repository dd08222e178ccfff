// "My games": every game this browser holds a seat at (web/js/api.js
// `seats`, and the pass-and-play seats), and, when the player is logged in
// (GET /api/me/games answers 200), every game of the account. Games where
// it is my turn come first. Refreshed every few seconds while shown.
import { seats } from './api.js';
import { t, esc } from './i18n.js';
import { pnp } from './passplay.js';
import { myInvites, takeSeat } from './friends.js';
import { currentAccount } from './account.js';
import { personName } from './players.js';

const REFRESH_MS = 10000;

async function getJson(path) {
  const r = await fetch(path, { credentials: 'same-origin' });
  return { status: r.status, data: r.ok ? await r.json().catch(() => null) : null };
}

export class MyGamesView {
  constructor(root) {
    this.root = root;
    this.langHandler = () => this.render();
    window.addEventListener('langchange', this.langHandler);
    this.games = null;
    this.render();
    this.loaded = this.load();
    this.timer = setInterval(() => this.load(), REFRESH_MS);
  }
  destroy() { clearInterval(this.timer); window.removeEventListener('langchange', this.langHandler); }

  // table id -> the seats this browser holds there
  held() {
    const out = new Map();
    for (const [id, s] of Object.entries(seats.all())) out.set(id, new Set([Number(s.seat)]));
    for (const [id, m] of Object.entries(pnp.all())) {
      const set = out.get(id) || new Set();
      for (const s of Object.keys(m)) set.add(Number(s));
      out.set(id, set);
    }
    return out;
  }

  async load() {
    const held = this.held();
    const games = new Map();
    await Promise.all([...held].map(async ([id, mine]) => {
      const { status, data } = await getJson(`/api/tables/${id}`).catch(() => ({ status: 0 }));
      if (status !== 200 || !data) return;
      const turn = data.status === 'playing' && data.to_move !== undefined && mine.has(data.to_move);
      games.set(id, { id, status: data.status, your_turn: turn, players: data.seats.map((s) => s.name), to_move: data.to_move, updated_ms: data.updated_ms, account: false });
    }));
    // the account's games (accounts: GET /api/me/games), asked only when logged in
    const acc = await currentAccount() ? await getJson('/api/me/games').catch(() => ({ status: 0 })) : { status: 0 };
    if (acc.status === 200 && Array.isArray(acc.data?.games)) {
      for (const g of acc.data.games) {
        const had = games.get(g.id);
        games.set(g.id, { ...had, id: g.id, status: g.status, your_turn: !!g.your_turn || !!had?.your_turn, players: g.players || had?.players || [], updated_ms: g.updated_ms ?? had?.updated_ms, deadline_ms: g.deadline_ms ?? null, account: true });
      }
    }
    // invites of the account to an open seat (friends.js): "take the seat" in one click
    for (const v of await myInvites().catch(() => [])) {
      if (!games.has(v.table)) games.set(v.table, { id: v.table, status: 'open', your_turn: false, players: [], updated_ms: v.at_ms, invite: v, account: true });
    }
    this.games = [...games.values()].filter((g) => g.status === 'open' || g.status === 'playing')
      .sort((a, b) => (b.your_turn - a.your_turn) || (a.deadline_ms ?? Infinity) - (b.deadline_ms ?? Infinity) || (b.updated_ms || 0) - (a.updated_ms || 0));
    this.render();
  }

  row(g) {
    if (g.invite) return `<li class="mygame invited" data-testid="mygame-${esc(g.id)}"><span>${t('friends.invite.from', { name: esc(g.invite.from.name) })}</span> <button type="button" class="primary" data-take="${esc(g.id)}" data-testid="take-seat">${t('friends.take')}</button></li>`;
    const who = g.to_move !== undefined && g.players[g.to_move] ? t('mygames.waiting', { name: esc(g.players[g.to_move]) }) : '';
    const state = g.status === 'open' ? t('mygames.status.open') : g.your_turn ? `<strong>${t('mygames.turn')}</strong>` : who;
    const due = g.deadline_ms ? ` · <span class="due">${esc(new Date(g.deadline_ms).toLocaleString())}</span>` : '';
    return `<li class="mygame${g.your_turn ? ' turn' : ''}" data-testid="mygame-${esc(g.id)}"><a href="/?table=${esc(g.id)}">${g.players.map((n) => esc(personName(n))).join(' · ') || esc(g.id)}</a> <span class="hint">${state}${due}${g.account ? ` · ${t('mygames.account')}` : ''}</span></li>`;
  }

  render() {
    document.title = `carc · ${t('mygames.title')}`;
    const g = this.games;
    let h = `<div class="mygames-page"><section class="card"><h2>${t('mygames.title')}</h2>`;
    if (!g) h += '<p class="loading">…</p>';
    else {
      const turn = g.filter((x) => x.your_turn), other = g.filter((x) => !x.your_turn);
      h += `<h3>${t('mygames.turn')}</h3><ul class="list" data-testid="mygames-turn">${turn.map((x) => this.row(x)).join('') || `<li class="hint">${t('mygames.none')}</li>`}</ul>`;
      h += `<h3>${t('mygames.other')}</h3><ul class="list" data-testid="mygames-other">${other.map((x) => this.row(x)).join('') || `<li class="hint">${t(g.length ? 'mygames.none.other' : 'mygames.empty')}</li>`}</ul>`;
    }
    h += `<p><a href="/">${t('nav.lobby')}</a></p></section></div>`;
    this.root.innerHTML = h;
    for (const b of this.root.querySelectorAll('[data-take]')) b.addEventListener('click', () => takeSeat(b.dataset.take));
    if (g) document.title = `${g.some((x) => x.your_turn) ? '▶ ' : ''}carc · ${t('mygames.title')}`;
  }
}
