// The guided first game: a real, short, unrated game against the easy bot
// (table option "tutorial", docs/web.md "The guided first game") with tips
// that react to what is on the table: the tile in hand, whether it lies on a
// square and was turned, the spots it offers, what the last move scored, the
// end. Each tip shows once, when its moment comes, in whatever order the
// game brings them; "Got it" or doing the thing (or just playing on) puts it
// away, "Skip the guide" ends the guide, and nothing ever waits for it: the
// game's own controls work as in any game. The lobby offers the guided game
// once to a new visitor (localStorage carc.guide) and links to it for good.
import { api, seats } from './api.js';
import { t, esc } from './i18n.js';
import { PALETTE } from './colors.js';
import { traceSeg, featureInfo } from './features.js';
import { eventText, finalGroups } from './story.js';
import { toast } from './ui.js';

// The game the guide makes (one JSON line: tests/py/test_guided.py reads it):
// 22 tiles, so about eleven turns each, and a seed whose shuffle deals the
// person a city cap first (it closes the start tile's city, turned), a road
// second and a cloister third; farmers come after. The bot is the `easy` level.
export const GUIDE_GAME = {"bot":"easy","seed":536,"tiles":{"E":3,"D":1,"U":2,"V":3,"B":1,"A":1,"J":1,"K":1,"N":1,"H":1,"F":1,"W":1,"L":1,"R":1,"P":1,"X":1,"G":1}};

const OFFER_KEY = 'carc.guide';         // 'accepted' | 'declined': the lobby offered it once
const tableKey = (id) => `carc.guide.${id}`; // {off, done: [step ids], shown: {id: own moves then}, city}

// The tips in the order they win when several could show at once.
const STEPS = ['place', 'rotate', 'knight', 'city', 'road', 'cloister', 'farmer', 'final'];

const store = {
  get(k, dflt) { try { return JSON.parse(localStorage.getItem(k)) ?? dflt; } catch { return dflt; } },
  set(k, v) { try { localStorage.setItem(k, JSON.stringify(v)); } catch { /* private mode: the guide forgets */ } },
};

// A new visitor: nobody here chose about the guide yet, played, or typed a name.
export function shouldOffer() {
  try {
    if (localStorage.getItem(OFFER_KEY)) return false;
    if (localStorage.getItem('carc.name')) return false;
    return !Object.keys(seats.all()).length;
  } catch { return false; }
}
export function markOffered(choice) { try { localStorage.setItem(OFFER_KEY, choice); } catch { /* private mode */ } }

// Makes the guided table and opens it. `name`: the person's name, if typed.
export async function startGuided(name) {
  markOffered('accepted');
  let level = GUIDE_GAME.bot;
  try {
    const o = await api.options();
    const levels = (o.bot_levels || []).filter((b) => b.available !== false).map((b) => b.level);
    if (levels.length && !levels.includes(level)) level = levels[0];
  } catch { /* the server says so when the table is made */ }
  const r = await api.create({
    players: 2, name: (name || '').trim() || t('quick.name'),
    seats: [{ colour: PALETTE[0].id }, { bot: level, colour: PALETTE[1].id }],
    tiles: GUIDE_GAME.tiles, seed: GUIDE_GAME.seed, tutorial: true, private: true, bot_delay_ms: 900,
  });
  if (r.token) seats.set(r.id, r.seat, r.token);
  store.set(tableKey(r.id), { off: false, done: [], shown: {} });
  location.assign(`/?table=${r.id}`);
}

// The lobby's offer: a card for a new visitor (and a link that is always there).
export function offerHtml() {
  if (!shouldOffer()) return '';
  return `<section class="card guide-offer" data-testid="guide-offer" aria-labelledby="guide-offer-h">
    <div><h2 id="guide-offer-h">${t('guide.offer.title')}</h2><p>${t('guide.offer.text')}</p></div>
    <div class="row"><button type="button" class="primary" data-guide="start" data-testid="guide-start">${t('guide.offer.start')}</button><button type="button" data-guide="no" data-testid="guide-no">${t('guide.offer.no')}</button></div></section>`;
}

export class Guide {
  // view: the GameView of a tutorial table at which this browser holds a seat
  constructor(view) {
    this.view = view;
    this.key = tableKey(view.id);
    this.st = store.get(this.key, null) || { off: false, done: [], shown: {} };
    this.st.done ||= []; this.st.shown ||= {};
    this.rotated = false;
    this.box = document.createElement('section');
    this.box.className = 'guide hidden';
    this.box.dataset.testid = 'guide';
    this.box.setAttribute('aria-live', 'polite');
    this.box.setAttribute('aria-label', t('guide.title'));
    this.box.addEventListener('click', (e) => {
      const b = e.target.closest('[data-guide]');
      if (!b) return;
      if (b.dataset.guide === 'next') this.finish(this.current);
      else if (b.dataset.guide === 'skip') this.skip();
    });
    view.$('.board-wrap').append(this.box);
  }
  save() { store.set(this.key, this.st); }
  finish(id) {
    if (!id || this.st.done.includes(id)) return;
    this.st.done.push(id);
    if (id === 'city') this.st.city = null;
    this.save();
    this.update();
  }
  skip() {
    this.st.off = true;
    this.save();
    this.clearHint();
    this.box.remove();
    this.room();
    toast(t('guide.skipped'));
  }
  destroy() { this.clearHint(); this.box.remove(); this.room(); }

  // game.js: the person turned the tile in hand
  noteRotate() { this.rotated = true; }
  // game.js: a move arrived (before it is drawn)
  onMove(e) {
    if (this.st.off) return;
    const you = this.view.you;
    if (e.player === you) this.rotated = false;
    // a completed city that scored: the moment to say what it is worth
    for (const ev of e.events || []) {
      if (ev.final || ev.kind !== 'city') continue;
      const best = Math.max(...ev.points);
      if (best > 0 && !this.st.done.includes('city')) {
        this.st.city = { who: ev.points.indexOf(best), n: best, tiles: ev.tiles, shields: ev.shields || 0 };
        delete this.st.shown.city;
      }
    }
    this.save();
  }

  // What the tips look at, from the view's state.
  facts() {
    const v = this.view, g = v.game, n = g?.next;
    const you = v.you;
    const over = !!v.result();
    const mine = v.myTurn();
    const pending = mine ? v.sel.pending : null;
    const own = (g?.log || []).filter((e) => e.player === you).length;
    const def = n?.tile ? v.tiles.defs.get(n.tile) : null;
    const has = (k) => !!def?.segments?.some((s) => s.kind === k);
    const spots = pending ? v.spotList() : [];
    const chosen = spots.find((s) => s.selected)?.feature || null;
    const followers = g?.supply?.[you]?.follower ?? 0;
    return { mine, over, pending, own, has, spotKinds: new Set(spots.map((s) => s.feature)), chosen, followers, discard: !!n?.legal?.discard };
  }
  // whether tip `id` may show now; and whether what it asks for is done
  when(id, f) {
    switch (id) {
      case 'place': return f.mine && !f.pending && !f.discard;
      case 'rotate': return f.mine && !!f.pending;
      case 'knight': return f.mine && !!f.pending && f.spotKinds.has('city') && f.followers > 0;
      case 'city': return !!this.st.city;
      case 'road': return f.mine && f.own >= 1 && f.has('road');
      case 'cloister': return f.mine && f.has('cloister');
      case 'farmer': return f.mine && f.own >= 2 && !!f.pending && f.spotKinds.has('field') && f.followers > 0;
      case 'final': return f.over;
      default: return false;
    }
  }
  did(id, f) {
    switch (id) {
      case 'place': return !!f.pending;
      case 'rotate': return this.rotated;
      case 'knight': return f.chosen === 'city';
      case 'road': return f.chosen === 'road';
      case 'cloister': return f.chosen === 'cloister';
      case 'farmer': return f.chosen === 'field';
      default: return false;
    }
  }

  // Called by game.js after every redraw of the turn and of the final box.
  update() {
    if (this.st.off || !this.view.game) { this.box.classList.add('hidden'); return; }
    const f = this.facts();
    // a tip shown at an earlier own move is past: the person played on
    for (const [id, at] of Object.entries(this.st.shown)) {
      if (id !== 'final' && at < f.own && !this.st.done.includes(id)) { this.st.done.push(id); if (id === 'city') this.st.city = null; }
    }
    for (const id of STEPS) if (!this.st.done.includes(id) && this.st.shown[id] !== undefined && this.did(id, f)) this.st.done.push(id);
    const id = STEPS.find((s) => !this.st.done.includes(s) && this.when(s, f)) || null;
    if (id && this.st.shown[id] === undefined) this.st.shown[id] = f.own;
    this.save();
    this.current = id;
    this.hint(id === 'place' ? this.closing() : null);
    if (!id) { this.box.classList.add('hidden'); this.room(); return; }
    this.render(id);
    this.room();
  }
  // On a phone the tip takes a strip above the board instead of covering it
  // (CSS .guide-on .board): the board is fitted below it.
  room() {
    const node = this.view.node, on = !this.box.classList.contains('hidden') && this.box.isConnected && this.current !== 'final' && matchMedia('(max-width: 820px)').matches;
    const h = on ? Math.ceil(this.box.getBoundingClientRect().height) : 0;
    if (node.classList.contains('guide-on') === on && this.roomH === h) return;
    this.roomH = h;
    node.style.setProperty('--guide-h', `${h}px`);
    node.classList.toggle('guide-on', on);
  }

  render(id) {
    const v = this.view;
    const k = STEPS.indexOf(id) + 1;
    let body = '';
    if (id === 'place') {
      body = `<p>${t('guide.place')}</p>`;
      if (this.closingAt) body += `<p class="guide-tip" data-testid="guide-close" data-x="${this.closingAt.x}" data-y="${this.closingAt.y}">${t('guide.place.close')}</p>`;
    } else if (id === 'knight') body = `<p>${t('guide.knight', { none: t('act.nofigure'), confirm: t('act.confirm') })}</p>`;
    else if (id === 'city') {
      const c = this.st.city;
      body = `<p>${t('guide.city', { name: v.who(c.who), n: c.n })}</p>`;
    } else if (id === 'final') {
      const last = v.game.log[v.game.log.length - 1];
      const farms = finalGroups(last?.events || []).filter((ev) => ev.kind === 'farm');
      body = `<p>${t('guide.final')}</p>`;
      body += farms.length ? `<ul class="guide-farms" data-testid="guide-farms">${farms.map((ev) => `<li>${eventText(ev, last.player, (i) => v.who(i))}</li>`).join('')}</ul>` : `<p>${t('guide.final.none')}</p>`;
      body += `<p class="links"><a href="/?guide" data-testid="guide-again">${t('guide.again')}</a> · <a href="/">${t('nav.lobby')}</a></p>`;
    } else body = `<p>${t(`guide.${id}`)}</p>`;
    const skip = id === 'final' ? '' : `<button type="button" class="linkish" data-guide="skip" data-testid="guide-skip">${t('guide.skip')}</button>`;
    this.box.innerHTML = `<div class="guide-head"><strong>${t('guide.title')}</strong> <span class="guide-n">${esc(t('guide.step', { k, n: STEPS.length }))}</span></div>
      <div class="guide-body" data-step="${id}" data-testid="guide-step-${id}">${body}</div>
      <div class="row"><button type="button" class="primary" data-guide="next" data-testid="guide-next">${t('guide.next')}</button>${skip}</div>`;
    this.box.dataset.step = id;
    this.box.setAttribute('aria-label', t('guide.title'));
    this.box.classList.toggle('final', id === 'final');
    this.box.classList.remove('hidden');
  }

  // A placement of the tile in hand that completes a city (the first found),
  // or null: the place tip shows it as a faded tile on the board.
  closing() {
    const v = this.view, n = v.game?.next;
    if (!n?.legal?.placements || n.legal.discard) return null;
    const def = v.tiles.defs.get(n.tile);
    if (!def?.segments?.some((s) => s.kind === 'city')) return null;
    const map = new Map(v.game.board.map((b) => [`${b.x},${b.y}`, b]));
    const seen = new Set();
    for (const p of n.legal.placements.slice(0, 400)) {
      const key = `${p.x},${p.y},${p.rot}`;
      if (seen.has(key)) continue;
      seen.add(key);
      const tile = { x: p.x, y: p.y, tile: n.tile, rot: p.rot };
      map.set(`${p.x},${p.y}`, tile);
      for (const seg of def.segments) {
        if (seg.kind !== 'city') continue;
        const fi = featureInfo(v.tiles, map, traceSeg(v.tiles, map, p.x, p.y, seg), v.game.figures || []);
        if (!fi.open && fi.tiles > 1) { map.delete(`${p.x},${p.y}`); return tile; }
      }
      map.delete(`${p.x},${p.y}`);
    }
    return null;
  }
  hint(tile) {
    this.closingAt = tile;
    if (tile) { this.view.board.setHint({ best: tile, played: null, player: this.view.you }, (i) => this.view.colors[i]); this.hinted = true; }
    else this.clearHint();
  }
  clearHint() { if (this.hinted) { this.view.board.setHint(null); this.hinted = false; } }
}
