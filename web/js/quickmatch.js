// Quick match, "Play a person now" (issue 22; docs/protocol.md "Quick
// match"): the person chooses the players, a rule set and a clock from the
// server's presets and joins the queue; the page then polls GET /api/match
// (the queue's heartbeat: an entry not polled for --match-ttl seconds is
// dropped) until the server has seated them at a table, and goes there.
// After the server's bot_after_s it offers a game against bots instead (or
// to keep waiting). Leaving is one click. Only accounts play: a guest is
// shown the choices and asked to log in.
//
// Mounted by lobby.js into its "Play now" card: new QuickMatch({playBots}),
// then qm.mount(node) after every render of the lobby (the state survives).
//
// Refusals that end the wait (docs/protocol.md "Quick match"): too many
// tables (--max-tables-share), held out after not coming to a table
// (--match-hold), a table waiting for this account's first move (the page
// goes there), the server full. A table voided because someone did not
// come sends the people who came back here (game.js, requeueAfterVoid):
// the page joins again at once, and the server gives them their place.
import { t, tOr, esc } from './i18n.js';
import { clockLabel } from './clock.js';
import { expName } from './ui.js';

const CHOICE_KEY = 'carc.match';
const REQUEUE_KEY = 'carc.match.void';
const GIVE_UP_MS = 20000; // "matched" but the table not stored this long: the match is lost
// refusals after which waiting makes no sense: the page stops and says why
const STOPS = new Set(['too_many_tables', 'held_out', 'match_pending', 'busy', 'queue_full']);

// A void quick match (game.js): the next lobby joins `choice` again at once
// and says that `name` did not come.
export function requeueAfterVoid(choice, name) {
  try { sessionStorage.setItem(REQUEUE_KEY, JSON.stringify({ choice, name })); } catch { /* private mode: the person joins by hand */ }
}

// A pool's id ("2/base/rt-60", the table option "match") as a choice.
export function poolChoice(pool) {
  const [players, rules, clock] = String(pool || '').split('/');
  return players && rules && clock ? { players: Number(players), rules, clock } : null;
}

async function call(method, path, body) {
  try {
    const r = await fetch(path, {
      method, credentials: 'same-origin',
      headers: body ? { 'Content-Type': 'application/json' } : {},
      body: body ? JSON.stringify(body) : undefined,
    });
    let data = null;
    try { data = await r.json(); } catch { data = null; }
    return { status: r.status, data };
  } catch (e) {
    return { status: 0, data: { error: { code: 'network', message: e.message } } };
  }
}

function fmtWait(ms) {
  const s = Math.max(0, Math.floor(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}`;
}

function errText(data) {
  const code = data?.error?.code || 'network';
  const vars = { time: fmtWait((data?.error?.retry_after_s || 0) * 1000) };
  return tOr(`match.err.${code}`, tOr(`err.${code}`, data?.error?.message || code), vars);
}

export class QuickMatch {
  constructor({ playBots, minMoves = () => undefined }) {
    this.playBots = playBots;
    this.minMoves = minMoves; // the server's --rated-min-moves (GET /api/options), once known
    this.node = null;
    this.open = false;
    this.choices = null;
    this.guest = false;
    this.state = null;        // the server's last answer (waiting, matched)
    this.since = 0;           // Date.now() when that answer came
    this.matchedAt = 0;
    this.keep = false;        // "keep waiting" was chosen: no more bot offer
    this.busy = false;
    this.error = '';
    this.timer = null;
    this.ticker = setInterval(() => this.tick(), 1000);
    let saved = null;
    try { saved = JSON.parse(localStorage.getItem(CHOICE_KEY) || 'null'); } catch { saved = null; }
    this.choice = { players: 2, rules: 'base', clock: 'rt-60', ...(saved || {}) };
    this.note = '';           // why the page joined by itself (a void table)
    let again = null;
    try { again = JSON.parse(sessionStorage.getItem(REQUEUE_KEY) || 'null'); sessionStorage.removeItem(REQUEUE_KEY); } catch { again = null; }
    if (again?.choice) {
      this.choice = { ...this.choice, ...again.choice };
      this.note = t('match.void', { name: again.name || '?' });
      this.open = true;
      this.loaded = this.join();
    } else this.loaded = this.poll();
  }

  destroy() { clearTimeout(this.timer); clearInterval(this.ticker); this.node = null; }

  mount(node) { this.node = node; this.render(); }

  schedule(ms) {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.poll(), ms);
  }

  async poll() {
    const r = await call('GET', '/api/match');
    // a second tab of the account polled a moment ago (--match-poll-ms): not an error
    if (r.status === 429 && r.data?.error?.code === 'rate_limited' && this.state) { this.schedule(1000); return; }
    this.handle(r);
  }

  handle({ status, data }) {
    if (status !== 200 && status !== 201) {
      const code = data?.error?.code;
      this.error = errText(data);
      if (code === 'match_pending' && data.error.table) {
        clearTimeout(this.timer);
        this.render();
        location.assign(`/?table=${encodeURIComponent(data.error.table)}`);
        return;
      }
      if (STOPS.has(code)) { this.state = null; clearTimeout(this.timer); } // the wait is over
      else if (this.state) this.schedule(3000); // a hiccup while waiting: the entry lives on for --match-ttl
      this.render();
      return;
    }
    this.error = '';
    if (data.choices) this.choices = data.choices;
    this.guest = data.state === 'guest';
    if (data.state === 'waiting') {
      this.open = true;
      this.state = data; this.since = Date.now(); this.matchedAt = 0;
      this.schedule(data.poll_ms || 2000);
    } else if (data.state === 'matched') {
      this.open = true;
      this.state = data;
      if (data.ready) {
        clearTimeout(this.timer);
        this.render();
        location.assign(`/?table=${encodeURIComponent(data.table)}`);
        return;
      }
      this.matchedAt = this.matchedAt || Date.now();
      if (Date.now() - this.matchedAt > GIVE_UP_MS) {
        this.state = null;
        this.error = t('match.lost');
        call('POST', '/api/match/leave', {});
      } else {
        this.schedule(data.poll_ms || 500);
      }
    } else {
      this.state = null;
      clearTimeout(this.timer);
    }
    this.render();
  }

  async join() {
    if (this.busy || this.guest) return;
    this.busy = true; this.keep = false; this.error = '';
    localStorage.setItem(CHOICE_KEY, JSON.stringify(this.choice));
    this.render();
    const r = await call('POST', '/api/match', this.choice);
    this.busy = false;
    this.handle(r);
  }

  async leave() {
    clearTimeout(this.timer);
    this.state = null; this.busy = true; this.note = '';
    this.render();
    const r = await call('POST', '/api/match/leave', {});
    this.busy = false;
    this.error = r.status === 200 ? '' : errText(r.data);
    this.render();
  }

  async bots() {
    const s = this.state?.state === 'waiting' ? this.state : this.choice; // what the queue has
    const choice = { players: s.players, rules: s.rules, clock: s.clock };
    const rules = this.choices?.rules?.find((x) => x.id === choice.rules);
    const clock = this.choices?.clocks?.find((x) => x.id === choice.clock);
    await this.leave();
    this.playBots({ players: choice.players, expansions: rules?.expansions || [], clock: clock?.clock || null });
  }

  rulesLabel(id) {
    const r = this.choices?.rules?.find((x) => x.id === id);
    if (!r || !r.expansions.length) return t('opt.noexp');
    return t('match.rules.with', { list: r.expansions.map(expName).join(', ') });
  }

  clockText(id) {
    return clockLabel(this.choices?.clocks?.find((x) => x.id === id)?.clock || null);
  }

  tick() {
    const el = this.node?.querySelector('[data-testid=match-waited]');
    if (el && this.state?.state === 'waiting') el.textContent = this.waitedText();
  }

  waitedText() {
    const s = this.state;
    const ms = s.waited_ms + (Date.now() - this.since);
    return t('match.waited', { time: fmtWait(ms), rating: s.rating, window: s.window });
  }

  formHtml() {
    const c = this.choices;
    if (!c) return '';
    const sel = (name, testid, items) => `<label class="form-field">${t(`match.${name}`)} <select name="match-${name}" data-testid="${testid}">${items.map(([v, label]) => `<option value="${esc(String(v))}" ${String(v) === String(this.choice[name]) ? 'selected' : ''}>${esc(label)}</option>`).join('')}</select></label>`;
    let h = '<div class="match-form">';
    h += sel('players', 'match-players', c.players.map((n) => [n, String(n)]));
    h += sel('rules', 'match-rules', c.rules.map((r) => [r.id, this.rulesLabel(r.id)]));
    h += sel('clock', 'match-clock', c.clocks.map((k) => [k.id, this.clockText(k.id)]));
    h += `<button type="button" class="primary" data-testid="match-join" ${this.guest || this.busy ? 'disabled' : ''}>${t('match.go')}</button></div>`;
    // the promise states the rule that can void it: too few moves of one's own
    const n = this.minMoves();
    h += `<p class="match-note" data-testid="match-note">${this.guest ? t('match.guest') : n > 0 ? t('match.rated.min', { n }) : t('match.rated')}</p>`;
    return h;
  }

  waitingHtml() {
    const s = this.state;
    if (s.state === 'matched') return `<p class="match-status" data-testid="match-found" role="status">${t('match.found')}</p>`;
    const what = t('match.looking', { n: s.players, rules: this.rulesLabel(s.rules), clock: this.clockText(s.clock) });
    let h = `<p class="match-status" data-testid="match-status" role="status"><span class="spinner" aria-hidden="true"></span>${esc(what)}</p>`;
    h += `<p class="match-waited" data-testid="match-waited">${esc(this.waitedText())}</p>`;
    if (s.offer_bot && !this.keep) {
      h += `<div class="match-offer" data-testid="match-offer"><p>${t('match.offer')}</p>`
        + `<button type="button" class="primary" data-testid="match-bot">${t('match.bot')}</button> `
        + `<button type="button" data-testid="match-keep">${t('match.keep')}</button></div>`;
    }
    h += `<p><button type="button" data-testid="match-leave" ${this.busy ? 'disabled' : ''}>${t('match.leave')}</button></p>`;
    return h;
  }

  render() {
    const n = this.node;
    if (!n || !n.isConnected) return;
    const waiting = !!this.state;
    let h = '';
    if (!waiting) h += `<button type="button" class="large" data-testid="match-open" aria-expanded="${this.open}" aria-controls="match-panel">${t('match.button')}</button>`;
    h += `<div id="match-panel" class="match-panel${this.open || waiting ? '' : ' hidden'}" data-testid="match-panel">`;
    if (!waiting) h += `<h3>${t('match.title')}</h3>`;
    if (this.note) h += `<p class="match-note" role="status" data-testid="match-void">${esc(this.note)}</p>`;
    h += waiting ? this.waitingHtml() : this.formHtml();
    h += `<p class="match-error" role="alert" data-testid="match-error">${esc(this.error)}</p></div>`;
    n.innerHTML = h;
    n.querySelector('[data-testid=match-open]')?.addEventListener('click', () => { this.open = !this.open; this.render(); });
    n.querySelector('[data-testid=match-join]')?.addEventListener('click', () => this.join());
    n.querySelector('[data-testid=match-leave]')?.addEventListener('click', () => this.leave());
    n.querySelector('[data-testid=match-bot]')?.addEventListener('click', () => this.bots());
    n.querySelector('[data-testid=match-keep]')?.addEventListener('click', () => { this.keep = true; this.render(); });
    for (const s of n.querySelectorAll('select')) {
      s.addEventListener('change', () => {
        const k = s.name.slice(6);
        this.choice[k] = k === 'players' ? Number(s.value) : s.value;
        localStorage.setItem(CHOICE_KEY, JSON.stringify(this.choice));
      });
    }
  }
}
