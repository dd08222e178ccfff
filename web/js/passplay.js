// Pass-and-play: several people at one screen. The browser that made the
// table holds every human seat's token (kept here, table id -> seat ->
// token). Between two people's turns the board stays in view with what the
// last move scored, and a hand-over panel in the turn card (where the tile
// in hand was) asks for the next person; the next tile and where it fits
// stay hidden until they say they are ready, then the connection takes
// that seat (the WebSocket "auth" message).
import { seats } from './api.js';
import { t } from './i18n.js';
import { eventText, eventShown } from './story.js';

const KEY = 'carc.pnp';
export const pnp = {
  all() { try { return JSON.parse(localStorage.getItem(KEY) || '{}'); } catch { return {}; } },
  get(id) { return this.all()[id] || null; },
  // tokens: [{seat, token}] as the server gives them at creation
  set(id, tokens) {
    const a = this.all();
    a[id] = Object.fromEntries(tokens.map((x) => [x.seat, x.token]));
    const keys = Object.keys(a).slice(-30); // the most recent 30 tables
    localStorage.setItem(KEY, JSON.stringify(Object.fromEntries(keys.map((k) => [k, a[k]]))));
  },
  add(id, seat, token) {
    const a = this.all();
    a[id] = { ...(a[id] || {}), [seat]: token };
    localStorage.setItem(KEY, JSON.stringify(a));
  },
};

export class PassPlay {
  constructor(view) {
    this.view = view; this.asked = null;
    this.node = document.createElement('section');
    this.node.className = 'handover hidden';
    this.node.dataset.testid = 'handover';
    this.node.setAttribute('aria-live', 'polite');
    // in the turn card, before the (hidden) tile in hand: the board stays in view
    const card = view.node.querySelector('.turn-card');
    card.insertBefore(this.node, card.querySelector('.hand'));
    this.node.addEventListener('click', (e) => { if (e.target.closest('[data-ready]')) this.ready(); });
  }

  held() { return pnp.get(this.view.id); }

  // the seat to move when it is another person's of this browser, else null
  nextSeat() {
    const v = this.view, held = this.held(), n = v.game?.next;
    if (!held || v.replay || !n || n.over || v.table?.status !== 'playing') return null;
    const s = n.to_move;
    if (held[s] === undefined || s === v.you) return null;
    return s;
  }

  // what the last move scored, in the log's words ("Ann completed the city
  // (3 tiles): Ann 6"), or that it scored nothing
  result() {
    const v = this.view, e = v.game?.log?.[v.game.log.length - 1];
    if (!e) return '';
    const who = (i) => v.who(i);
    const lines = (e.events || []).filter((ev) => !ev.final && eventShown(ev)).map((ev) => eventText(ev, e.player, who));
    return lines.length ? lines.join('<br>') : t('pnp.noscore', { name: who(e.player) });
  }

  paint() {
    const s = this.nextSeat();
    const show = s !== null && this.asked !== s;
    this.view.node.classList.toggle('handing', show);
    this.node.classList.toggle('hidden', !show);
    if (!show) { this.shown = null; return; }
    const key = `${s}:${this.view.game.log.length}`;
    if (this.shown === key) return; // the same hand-over: not drawn again (focus, reading)
    this.shown = key;
    this.draw(s);
  }

  draw(s) {
    const name = this.view.name(s);
    const res = document.createElement('p');
    res.className = 'handover-result'; res.dataset.testid = 'handover-result';
    res.innerHTML = this.result(); // names through view.who (escaped), the rest from the catalogue
    const h = document.createElement('h2'); h.textContent = t('pnp.pass', { name });
    const p = document.createElement('p'); p.className = 'hint'; p.textContent = t('pnp.hint', { name });
    const b = document.createElement('button');
    b.className = 'primary big'; b.type = 'button'; b.dataset.ready = '1'; b.dataset.testid = 'handover-ready';
    b.textContent = t('pnp.ready', { name });
    this.node.replaceChildren(...(res.innerHTML ? [res] : []), h, p, b);
    b.focus({ preventScroll: true });
  }

  relang() { const s = this.nextSeat(); if (s !== null && this.shown) this.draw(s); }

  ready() {
    const s = this.nextSeat();
    if (s === null) { this.paint(); return; }
    const token = this.held()[s];
    this.asked = s;
    const v = this.view;
    v.token = token;
    if (v.live) v.live.token = token;
    seats.set(v.id, s, token); // a reload comes back as the person whose turn it is
    this.paint();
    v.live?.send({ type: 'auth', token });
  }

  onMessage(m) {
    if (m.type === 'state' && this.asked !== null && this.view.you === this.asked) this.asked = null;
    if (m.type === 'state' || m.type === 'move' || m.type === 'table') this.paint();
  }
}
