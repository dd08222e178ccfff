// The guided first game: a real, short, unrated game against the easy bot
// (table option "tutorial", docs/web.md "The guided first game") with tips
// that react to what is on the table: the tile in hand, whether it lies on a
// square and was turned, the spots it offers, what the last move scored, the
// end. Each tip shows once, when its moment comes, in whatever order the
// game brings them; "Got it" or doing the thing (or just playing on) puts it
// away, "Skip the guide" ends the guide, and nothing ever waits for it: the
// game's own controls work as in any game. The lobby offers the guided game
// once to a new visitor (localStorage carc.guide) and links to it for good.
//
// The game is the server's: a table made with "tutorial" and no pile of its
// own is dealt the guide's pile and seed (data/tutorial.json: 22 tiles, so
// about eleven turns each, and a shuffle that deals the person a city cap
// first, closing the start tile's city turned, a road second and a cloister
// third; farmers come after). The client names no tile; what a placement
// completes is the engine's preview.
import { api, seats } from './api.js';
import { t, esc } from './i18n.js';
import { PALETTE } from './colors.js';
import { eventText, finalGroups } from './story.js';
import { toast } from './ui.js';

// The bot the guide plays against (tests/py/test_guided.py reads it).
export const GUIDE_BOT = 'easy';

const OFFER_KEY = 'carc.guide';         // 'accepted' | 'declined': the lobby offered it once
const tableKey = (id) => `carc.guide.${id}`; // {off, done: [step ids], shown: {id: own moves then}, scored}

// The tips in the order they win when several could show at once.
const STEPS = ['place', 'rotate', 'knight', 'scored', 'robber', 'monk', 'farmer', 'final'];
// The tips that teach a feature, keyed by the engine's name of its kind, and
// back: the kind a tip is about (KIND.knight is the city's).
const TEACHES = { city: 'knight', road: 'robber', cloister: 'monk', field: 'farmer' };
const KIND = Object.fromEntries(Object.entries(TEACHES).map(([kind, tip]) => [tip, kind]));
// a score of these kinds is what the "scored" tip tells of; farms, the end's
const SCORED = { city: true };
const FARMS = { farm: true };
// the catalogue's keys of tips named apart from their ids
const TIP_KEY = { scored: 'guide.city', robber: 'guide.road', monk: 'guide.cloister' };
// placements of the tile in hand whose previews are asked for the place tip, at most
const CLOSING_ASKS = 40;

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
  let level = GUIDE_BOT;
  try {
    const o = await api.options();
    const levels = (o.bot_levels || []).filter((b) => b.available !== false).map((b) => b.level);
    if (levels.length && !levels.includes(level)) level = levels[0];
  } catch { /* the server says so when the table is made */ }
  const r = await api.create({
    players: 2, name: (name || '').trim() || t('quick.name'),
    seats: [{ colour: PALETTE[0].id }, { bot: level, colour: PALETTE[1].id }],
    tutorial: true, private: true, bot_delay_ms: 900,
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
    if (id === 'scored') this.st.scored = null;
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
      if (ev.final || !ev.points || !SCORED[ev.kind]) continue;
      const best = Math.max(...ev.points);
      if (best > 0 && !this.st.done.includes('scored')) {
        this.st.scored = { who: ev.points.indexOf(best), n: best, tiles: ev.tiles, shields: ev.shields || 0 };
        delete this.st.shown.scored;
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
    // the spots offered (none without a follower left to put)
    const spots = pending ? v.spotList() : [];
    const chosen = spots.find((s) => s.selected)?.feature || null;
    // the rotations that fit on the square the tile lies on: "turn the tile"
    // is a tip only where turning it gives another choice
    const turns = pending ? new Set((n?.legal?.placements || []).filter((p) => p.x === pending.x && p.y === pending.y).map((p) => p.rot)).size : 0;
    return { mine, over, pending, own, has, turns, spotKinds: new Set(spots.map((s) => s.feature)), chosen, discard: !!n?.legal?.discard };
  }
  // whether tip `id` may show now; and whether what it asks for is done
  when(id, f) {
    switch (id) {
      case 'place': return f.mine && !f.pending && !f.discard;
      case 'rotate': return f.mine && !!f.pending && f.turns > 1;
      case 'knight': return f.mine && !!f.pending && f.spotKinds.has(KIND.knight);
      case 'scored': return !!this.st.scored;
      case 'robber': return f.mine && f.own >= 1 && f.has(KIND.robber);
      case 'monk': return f.mine && f.has(KIND.monk);
      case 'farmer': return f.mine && f.own >= 2 && !!f.pending && f.spotKinds.has(KIND.farmer);
      case 'final': return f.over;
      default: return false;
    }
  }
  did(id, f) {
    switch (id) {
      case 'place': return !!f.pending;
      case 'rotate': return this.rotated;
      default: return !!KIND[id] && f.chosen === KIND[id];
    }
  }

  // Called by game.js after every redraw of the turn and of the final box.
  update() {
    if (this.st.off || !this.view.game) { this.box.classList.add('hidden'); return; }
    const f = this.facts();
    // a tip shown at an earlier own move is past: the person played on
    for (const [id, at] of Object.entries(this.st.shown)) {
      if (id !== 'final' && at < f.own && !this.st.done.includes(id)) { this.st.done.push(id); if (id === 'scored') this.st.scored = null; }
    }
    for (const id of STEPS) if (!this.st.done.includes(id) && this.st.shown[id] !== undefined && this.did(id, f)) this.st.done.push(id);
    const id = STEPS.find((s) => !this.st.done.includes(s) && this.when(s, f)) || null;
    if (id && this.st.shown[id] === undefined) this.st.shown[id] = f.own;
    this.save();
    this.current = id;
    if (id === 'place') this.seekClosing(); else this.hint(null);
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
    else if (id === 'scored') {
      const c = this.st.scored;
      body = `<p>${t(TIP_KEY.scored, { name: v.who(c.who), n: c.n })}</p>`;
    } else if (id === 'final') {
      const last = v.game.log[v.game.log.length - 1];
      const farms = finalGroups(last?.events || []).filter((ev) => FARMS[ev.kind]);
      body = `<p>${t('guide.final')}</p>`;
      body += farms.length ? `<ul class="guide-farms" data-testid="guide-farms">${farms.map((ev) => `<li>${eventText(ev, last.player, (i) => v.who(i))}</li>`).join('')}</ul>` : `<p>${t('guide.final.none')}</p>`;
      body += `<p class="links"><a href="/?guide" data-testid="guide-again">${t('guide.again')}</a> · <a href="/">${t('nav.lobby')}</a></p>`;
    } else body = `<p>${t(TIP_KEY[id] || `guide.${id}`)}</p>`;
    const skip = id === 'final' ? '' : `<button type="button" class="linkish" data-guide="skip" data-testid="guide-skip">${t('guide.skip')}</button>`;
    this.box.innerHTML = `<div class="guide-head"><strong>${t('guide.title')}</strong> <span class="guide-n">${esc(t('guide.step', { k, n: STEPS.length }))}</span></div>
      <div class="guide-body" data-step="${id}" data-testid="guide-step-${id}">${body}</div>
      <div class="row"><button type="button" class="primary" data-guide="next" data-testid="guide-next">${t('guide.next')}</button>${skip}</div>`;
    this.box.dataset.step = id;
    this.box.setAttribute('aria-label', t('guide.title'));
    this.box.classList.toggle('final', id === 'final');
    this.box.classList.remove('hidden');
    this.place(id);
  }
  // The last tip goes inside the final scores' card, below them (drawn over
  // the board it covered the scores); every other tip floats on the board.
  place(id) {
    const card = id === 'final' ? this.view.$('.final-box:not(.hidden) .card') : null;
    const home = card || this.view.$('.board-wrap');
    if (this.box.parentNode !== home) home.append(this.box);
    this.box.classList.toggle('in-final', !!card);
  }

  // A placement of the tile in hand that completes a city of more than one
  // tile (the first found, asking the engine's previews of the placements in
  // turn): the place tip shows it as a faded tile on the board. Asked once a
  // step; the tip is drawn again when it is found.
  seekClosing() {
    const v = this.view, n = v.game?.next;
    const key = n ? n.step : null;
    if (this.closingStep === key) { this.hint(this.closingFound || null); return; }
    this.closingStep = key;
    this.closingFound = null;
    this.hint(null);
    const def = n?.tile ? v.tiles.defs.get(n.tile) : null;
    if (!n?.legal?.placements || n.legal.discard || !def?.segments?.some((s) => s.kind === KIND.knight)) return;
    const seen = new Set(), ps = [];
    for (const p of n.legal.placements) {
      const k = `${p.x},${p.y},${p.rot}`;
      if (!seen.has(k)) { seen.add(k); ps.push(p); }
    }
    (async () => {
      for (const p of ps.slice(0, CLOSING_ASKS)) {
        let pv;
        try { pv = await v.views.preview(n.step, { x: p.x, y: p.y, rot: p.rot, meeple: null }); } catch { return; }
        if (this.closingStep !== key) return;
        const closes = (pv.meeples || []).some((o) => o.feature.kind === KIND.knight && o.feature.done && o.feature.tiles > 1);
        if (!closes) continue;
        this.closingFound = { x: p.x, y: p.y, tile: n.tile, rot: p.rot };
        if (this.current === 'place' && !this.st.off) { this.hint(this.closingFound); this.render('place'); this.room(); }
        return;
      }
    })();
  }
  hint(tile) {
    this.closingAt = tile;
    if (tile) { this.view.board.setHint({ best: tile, played: null, player: this.view.you }, (i) => this.view.colors[i]); this.hinted = true; }
    else this.clearHint();
  }
  clearHint() { if (this.hinted) { this.view.board.setHint(null); this.hinted = false; } }
}
