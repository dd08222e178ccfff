// The lobby: "Play a bot now" (one click to a game against a bot with the
// default options), tables to join or watch, finished games to replay, a form
// to make a table, and uploading a record to watch it. Open tables and games in
// progress are what the server holds; finished games come from its store a
// page at a time (the newest page refreshed, older pages on demand).
import { api, seats } from './api.js';
import { PALETTE, badge } from './colors.js';
import { t, tOr, esc, currentLanguage } from './i18n.js';
import { NAME_BYTES, fitName } from './names.js';
import { seatColors, serverColours, seatName, rememberColors } from './players.js';
import { toast, expName, expHelp, optionsSummary } from './ui.js';
import { names } from './vocab.js';

// An example of a pile for the form's hint, of the engine's tile names (GET
// /api/vocabulary: main.js loads them; none yet, none shown).
const pileExample = () => names.tiles.slice(20, 23).map((n, i) => `${n}:${i ? 2 : 3}`).join(', ');
import { clockFieldHtml, chosenClock } from './clock.js';
import { pnp } from './passplay.js';
import { offerHtml, markOffered, startGuided } from './guide.js';
import { FriendsPanel } from './friends.js';
import { currentAccount } from './account.js';
import { QuickMatch } from './quickmatch.js';

const BOT_LEVELS = ['random', 'easy', 'medium', 'hard', 'expert'];
const QUICK_LEVEL = 'medium'; // the bot of "Play a bot now" when the server has it
// the newest seats of this browser whose tables the lobby asks for its finished games
const MINE_OVER_ASKS = 10;

export class LobbyView {
  constructor(root) {
    this.root = root;
    this.options = null;
    this.account = null;       // the logged-in account (account.js), null for a guest
    this.form = this.loadForm();
    this.lists = { open: [], playing: [], over: [] };
    this.mineOver = [];        // finished games of this browser's seats (loadMineOver)
    this.overMore = false;     // the server has older finished games than the list shows
    this.olderLoaded = false;  // pages after the first were asked for
    this.busy = false;         // a table is being made: one request at a time (a double click makes one table)
    this.nameCut = false;      // the typed name was cut to what the server takes
    this.langHandler = () => this.render();
    window.addEventListener('langchange', this.langHandler);
    // back from the table (the page kept in memory): the buttons work again
    this.showHandler = (e) => { if (e.persisted) this.setBusy(false); };
    window.addEventListener('pageshow', this.showHandler);
    // "Play a person now" (quickmatch.js): its state outlives the lobby's renders
    this.match = new QuickMatch({ playBots: (c) => this.botsInstead(c), minMoves: () => this.options?.rated_min_moves });
    this.render();
    // the page is marked ready once the server's options (levels, expansions) are in
    this.loaded = Promise.all([this.load(), this.match.loaded]);
    this.timer = setInterval(() => this.refresh(), 4000);
  }
  destroy() {
    clearInterval(this.timer);
    this.friends?.destroy();
    this.match.destroy();
    window.removeEventListener('langchange', this.langHandler);
    window.removeEventListener('pageshow', this.showHandler);
  }

  loadForm() {
    const saved = (() => { try { return JSON.parse(localStorage.getItem('carc.form') || 'null'); } catch { return null; } })();
    const f = saved || {};
    return {
      players: f.players || 2,
      seats: f.seats || [{ who: 'me', colour: 'blue' }, { who: 'bot:medium', colour: 'red' }, { who: 'friend', colour: 'yellow' }, { who: 'friend', colour: 'black' }, { who: 'friend', colour: 'green' }, { who: 'friend', colour: 'pink' }],
      name: fitName(localStorage.getItem('carc.name') || '').name,
      farmers: f.farmers ?? true, farm_scoring: f.farm_scoring || names.farm_scoring[0], small_city: !!f.small_city,
      expansions: f.expansions || [], variant: f.variant || {},
      bot_delay_ms: f.bot_delay_ms ?? 700, seed: '', pile: '', private: false,
      pass_and_play: false, spectator_chat: !!f.spectator_chat,
      // "Rated game" (accounts only): ticked on every visit, as private and pass-and-play are off
      rated: true,
    };
  }

  async load() {
    // who is logged in and the server's options, asked for at once
    const [account, options] = await Promise.allSettled([currentAccount(), api.options()]);
    this.account = account.status === 'fulfilled' ? account.value : null;
    if (options.status === 'fulfilled') this.options = options.value;
    else toast(options.reason.message, 'error');
    this.render();
    await this.refresh();
    await this.loadMineOver();
  }
  async refresh() {
    try {
      const [open, playing, over] = await Promise.all([api.tables(), api.tables('playing'), api.finished()]);
      const list = (x) => (Array.isArray(x) ? x : x?.tables || []);
      this.lists.open = list(open);
      this.lists.playing = list(playing);
      if (this.olderLoaded) this.addOver(list(over));
      else { this.lists.over = list(over); this.overMore = !!over?.more; }
      this.addMineOver();
      this.renderLists();
    } catch { /* the next refresh tries again */ }
  }
  // The finished games this browser played, private ones too (the guided
  // game is private, and a person looks for it among the finished games):
  // the tables of its newest MINE_OVER_ASKS seats, asked once when the lobby
  // opens; refresh() keeps them in the list.
  async loadMineOver() {
    const held = Object.entries(seats.all()).sort((a, b) => (b[1].at || 0) - (a[1].at || 0)).slice(0, MINE_OVER_ASKS);
    const known = new Set([...this.lists.open, ...this.lists.playing].map((tb) => tb.id));
    const got = await Promise.all(held.filter(([id]) => !known.has(id)).map(([id]) => api.table(id).catch(() => null)));
    this.mineOver = got.filter((tb) => tb?.status === 'over');
    if (!this.mineOver.length) return;
    this.addMineOver();
    this.renderLists();
  }
  // ... those the server's finished list lacks (its entries say more: how a game ended)
  addMineOver() {
    const have = new Set(this.lists.over.map((tb) => tb.id));
    this.addOver(this.mineOver.filter((tb) => !have.has(tb.id)));
  }
  // finished games in the server's order: newest first, then by id
  addOver(items) {
    const byId = new Map(this.lists.over.map((tb) => [tb.id, tb]));
    for (const tb of items) byId.set(tb.id, tb);
    const key = (tb) => tb.finished_ms ?? tb.updated_ms ?? 0;
    this.lists.over = [...byId.values()].sort((a, b) => key(b) - key(a) || (a.id < b.id ? 1 : a.id > b.id ? -1 : 0));
  }
  async moreOver() {
    const last = this.lists.over[this.lists.over.length - 1];
    if (!last || this.loadingOver) return;
    this.loadingOver = true;
    try {
      const r = await api.finished(last.id);
      this.olderLoaded = true;
      this.addOver(r.tables || []);
      this.overMore = !!r.more;
    } catch (e) { toast(tOr(`err.${e.code}`, e.message), 'error'); }
    this.loadingOver = false;
    this.renderLists();
  }

  render() {
    this.root.innerHTML = `
<div class="lobby">${offerHtml()}
  <section class="card quick" aria-label="${t('quick.label')}">
    <button type="button" class="primary large" data-testid="quick-start" ${this.busy ? 'disabled' : ''}>${t('quick.button')}</button>
    <div class="quick-text"><p class="quick-what" data-testid="quick-what">${esc(this.quickWhat())}</p><p class="quick-error" role="alert"></p>
      <p class="guide-link"><a href="/?guide" data-testid="guide-link">${t('guide.link')}</a></p>
      <nav class="jump" aria-label="${t('lobby.jump')}"><a href="#create-h">${t('create.title')}</a> <a href="#friends-h">${t('friends.title')}</a> <a href="#mine-h">${t('lobby.mine')}</a> <a href="#open-h">${t('lobby.open')}<span class="n"></span></a> <a href="#playing-h">${t('lobby.playing')}<span class="n"></span></a> <a href="#over-h">${t('lobby.over')}</a></nav></div>
    <div class="match" data-testid="match"></div>
  </section>
  <section class="card invites-top hidden" aria-live="polite" data-testid="invites-top"></section>
  <section class="card create" aria-labelledby="create-h">
    <h2 id="create-h">${t('create.title')}</h2>
    <form class="create-form" data-testid="create-form" novalidate aria-busy="${this.busy}">${this.formHtml()}</form>
  </section>
  <div class="lists">
    <section class="card friends-panel" aria-labelledby="friends-h" data-testid="friends-panel"></section>
    <section class="card"><h2 id="mine-h">${t('lobby.mine')}</h2><div class="list mine" data-testid="my-tables"></div></section>
    <section class="card"><h2 id="open-h">${t('lobby.open')}</h2><div class="list open" data-testid="open-tables"></div></section>
    <section class="card"><h2 id="playing-h">${t('lobby.playing')}</h2><div class="list playing" data-testid="playing-tables"></div></section>
    <section class="card"><h2 id="over-h">${t('lobby.over')}</h2><div class="list over" data-testid="finished-games"></div>
      <p class="more-over hidden"><button type="button" class="linkish" data-testid="more-finished">${t('lobby.more')}</button></p>
      <label class="upload">${t('lobby.upload')} <input type="file" accept=".json,application/json" data-testid="upload"></label></section>
  </div>
</div>`;
    const form = this.root.querySelector('form');
    form.addEventListener('input', (e) => this.onInput(e));
    form.addEventListener('change', (e) => this.onInput(e));
    form.addEventListener('submit', (e) => { e.preventDefault(); this.create(); });
    this.root.querySelector('[data-testid=quick-start]').addEventListener('click', () => this.quickStart());
    this.root.querySelector('[data-testid=guide-start]')?.addEventListener('click', () => this.guided());
    this.root.querySelector('[data-testid=guide-no]')?.addEventListener('click', () => { markOffered('declined'); this.root.querySelector('.guide-offer')?.remove(); });
    this.match.mount(this.root.querySelector('[data-testid=match]'));
    this.root.querySelector('[data-testid=upload]').addEventListener('change', (e) => this.upload(e.target.files[0]));
    this.root.querySelector('[data-testid=more-finished]').addEventListener('click', () => this.moreOver());
    this.friends = this.friends || new FriendsPanel(); // friends.js: the panel keeps its data across redraws
    this.friends.attach(this.root.querySelector('.friends-panel'), this.root.querySelector('.invites-top'));
    this.renderLists();
  }

  maxPlayers() {
    const o = this.options;
    let max = o?.players_max || 5;
    for (const e of this.chosenExpansions()) {
      const d = o?.expansions?.find((x) => x.name === e);
      if (d?.players_max) max = Math.max(max, d.players_max);
    }
    return max;
  }
  chosenExpansions() {
    // an expansion ticked, or the variant of it chosen under it
    return this.form.expansions.map((e) => this.form.variant?.[e] || e);
  }
  levels() {
    const l = this.options?.bot_levels?.filter((b) => b.available !== false).map((b) => b.level);
    return l?.length ? l : BOT_LEVELS;
  }
  // What a level's bot does, from the spec the server lists for it (a level
  // is a name; "easy" may well be the random bot): "thinks ahead (Monte Carlo
  // tree search) · up to 1 s a move". A level the operator added
  // (--bot-level NAME=SPEC) has no translated name: its spec is shown too.
  botHint(level) {
    const lv = this.options?.bot_levels?.find((b) => b.level === level);
    const spec = lv?.spec ?? '';
    const does = tOr(`create.bot.does.${spec.split(':')[0]}`, '');
    const parts = does ? [does] : [];
    const time = /(?:^|[:,])time=(\d+(?:\.\d+)?)/.exec(spec);
    if (does && time) parts.push(t('create.bot.time', { s: new Intl.NumberFormat(currentLanguage()).format(Number(time[1])) }));
    if (!does || tOr(`bot.${level}`, null) === null) parts.push(spec);
    // the level's fixed rating, measured in bot matches (docs/bots.md, "Levels")
    if (lv?.rating != null) parts.push(t('create.bot.rating', { r: lv.rating }));
    return { text: parts.filter(Boolean).join(' · '), spec };
  }
  quickLevel() {
    const l = this.levels();
    return l.includes(QUICK_LEVEL) ? QUICK_LEVEL : l[0];
  }
  quickName() { return (this.form.name || '').trim() || t('quick.name'); }
  quickWhat() {
    const level = this.quickLevel();
    return t('quick.what', { name: this.quickName(), level: tOr(`bot.${level}`, level), does: this.botHint(level).text || level });
  }

  formHtml() {
    const f = this.form, max = this.maxPlayers();
    if (f.players > max) f.players = max;
    let h = `<div class="form-field"><label for="f-players">${t('create.players')}</label><select id="f-players" name="players" data-testid="players">`;
    for (let n = this.options?.players_min || 2; n <= max; n++) h += `<option value="${n}" ${n === f.players ? 'selected' : ''}>${n}</option>`;
    h += `</select></div><table class="seat-table"><thead><tr><th>${t('create.seat')}</th><th>${t('create.colour')}</th><th>${t('create.who')}</th><th>${t('create.name')}</th></tr></thead><tbody>`;
    for (let i = 0; i < f.players; i++) {
      const s = f.seats[i];
      const used = f.seats.slice(0, f.players).map((x) => x.colour);
      h += `<tr><td>${i + 1}</td><td><div class="swatches" role="radiogroup" aria-label="${t('create.colour')} ${i + 1}">`;
      for (const c of PALETTE) {
        const taken = c.id !== s.colour && used.includes(c.id);
        h += `<label class="swatch${c.id === s.colour ? ' on' : ''}${taken ? ' taken' : ''}" title="${t(`colour.${c.id}`)}"><input type="radio" name="colour${i}" value="${c.id}" ${c.id === s.colour ? 'checked' : ''} ${taken ? 'disabled' : ''}>${badge(c, 22)}</label>`;
      }
      h += `</div></td><td><select name="who${i}" data-testid="who-${i}">`;
      const opts = [];
      if (i === 0) opts.push(['me', t('create.me')]);
      // pass-and-play: a person at this screen, named here; else a friend who joins with the link
      else opts.push(['friend', t(f.pass_and_play ? 'create.pnp.person' : 'create.friend')]);
      // a level the operator added (--bot-level) has no translation: its name, and its spec as the hint
      for (const l of this.levels()) opts.push([`bot:${l}`, t('create.bot', { level: tOr(`bot.${l}`, l) })]);
      // a level saved in this browser that this server no longer has: its default
      if (this.options && s.who.startsWith('bot:') && !this.levels().includes(s.who.slice(4))) s.who = `bot:${this.quickLevel()}`;
      if (i === 0 && s.who === 'friend') s.who = 'me';
      if (i > 0 && s.who === 'me') s.who = 'friend';
      for (const [v, label] of opts) h += `<option value="${v}" ${v === s.who ? 'selected' : ''}>${esc(label)}</option>`;
      h += '</select></td><td>';
      // maxlength counts UTF-16 units; fitName holds the name to the server's bytes
      if (s.who === 'me') {
        h += `<input name="name" maxlength="${NAME_BYTES}" required value="${esc(f.name)}" placeholder="${t('create.name.ph')}" data-testid="my-name" aria-label="${t('create.name')}" aria-describedby="name-cut">`;
        h += `<small id="name-cut" class="name-cut${this.nameCut ? '' : ' hidden'}" data-testid="name-cut">${t('create.name.cut', { n: NAME_BYTES })}</small>`;
      } else if (s.who === 'friend' && f.pass_and_play) {
        h += `<input name="seatname${i}" maxlength="${NAME_BYTES}" value="${esc(s.name || '')}" placeholder="${esc(t('player.n', { n: i + 1 }))}" data-testid="seat-name-${i}" aria-label="${esc(t('create.pnp.name', { n: i + 1 }))}">`;
      } else if (s.who === 'friend') h += `<span class="hint">${t('create.friend.hint')}</span>`;
      else {
        const hint = this.botHint(s.who.slice(4));
        h += `<span class="hint" data-testid="bot-hint-${i}" title="${esc(hint.spec)}">${esc(hint.text)}</span>`;
      }
      h += '</td></tr>';
    }
    h += '</tbody></table>';
    h += `<fieldset><legend>${t('create.rules')}</legend>
      <label class="check"><input type="checkbox" name="farmers" ${f.farmers ? 'checked' : ''}> ${t('opt.farmers')}<small>${t('opt.farmers.help')}</small></label>
      <div class="radios ${f.farmers ? '' : 'disabled'}" role="radiogroup" aria-label="${t('opt.farm')}"><span class="label">${t('opt.farm')}</span>`;
    for (const fs of this.options?.farm_scoring || names.farm_scoring) {
      h += `<label class="check"><input type="radio" name="farm_scoring" value="${fs}" ${fs === f.farm_scoring ? 'checked' : ''} ${f.farmers ? '' : 'disabled'}> ${t(`farm.${fs}`)}<small>${t(`farm.${fs}.help`)}</small></label>`;
    }
    h += `</div><label class="check"><input type="checkbox" name="small_city" ${f.small_city ? 'checked' : ''}> ${t('opt.smallcity')}<small>${t('opt.smallcity.help')}</small></label></fieldset>`;
    h += `<fieldset><legend>${t('opt.expansions')}</legend>`;
    // the server's expansions; one named after another ("x-tiles": x's tiles
    // without its rules) is a variant of it, offered under it
    const all = (this.options?.expansions || []).map((e) => e.name);
    const variantsOf = (b) => all.filter((v) => v !== b && v.startsWith(`${b}-`));
    const exps = all.filter((n) => !all.some((b) => b !== n && n.startsWith(`${b}-`)));
    for (const e of exps) {
      const on = f.expansions.includes(e);
      h += `<label class="check"><input type="checkbox" name="exp" value="${e}" ${on ? 'checked' : ''} data-testid="exp-${e}"> ${expName(e)}<small>${expHelp(e)}</small></label>`;
      const vs = variantsOf(e);
      if (vs.length) {
        const cur = vs.includes(f.variant?.[e]) ? f.variant[e] : e;
        const radio = (v, words) => `<label class="check"><input type="radio" name="variant-${e}" value="${v}" ${cur === v ? 'checked' : ''} ${on ? '' : 'disabled'} data-testid="variant-${v}"> ${words}</label>`;
        h += `<div class="sub ${on ? '' : 'disabled'}">${radio(e, t('exp.ic.whole'))}${vs.map((v) => radio(v, `${expName(v)}<small>${expHelp(v)}</small>`)).join('')}</div>`;
      }
    }
    // "More options": what a player may want; inside it, "Advanced": the
    // settings for trying things out (the bots' pause, a seed, a pile)
    h += `</fieldset>${clockFieldHtml()}<details class="advanced"><summary>${t('create.advanced')}</summary>
      ${this.account ? `<label class="check"><input type="checkbox" name="rated" ${f.rated ? 'checked' : ''} data-testid="rated"> ${t('opt.rated.label')}<small>${t('opt.rated.help')}</small></label>` : ''}
      <label class="check"><input type="checkbox" name="private" ${f.private ? 'checked' : ''}> ${t('opt.private.label')}<small>${t('opt.private.help')}</small></label>
      <label class="check"><input type="checkbox" name="pass_and_play" ${f.pass_and_play ? 'checked' : ''} data-testid="pass-and-play"> ${t('pnp.label')}<small>${t('pnp.help')}</small></label>
      <label class="check"><input type="checkbox" name="spectator_chat" ${f.spectator_chat ? 'checked' : ''} data-testid="spectator-chat"> ${t('opt.spectatorchat.label')}<small>${t('opt.spectatorchat.help')}</small></label>
      <details class="dev" data-testid="dev-options"><summary>${t('create.dev')}</summary>
      <label class="form-field">${t('opt.botdelay')} <input type="number" name="bot_delay_ms" min="0" max="60000" step="100" value="${f.bot_delay_ms}" data-testid="bot-delay"></label>
      <label class="form-field">${t('opt.seed')} <input type="number" name="seed" min="0" value="${esc(f.seed)}" placeholder="${t('opt.seed.ph')}"></label>
      <label class="form-field">${t('opt.pile')} <input name="pile" value="${esc(f.pile)}" placeholder="${esc(pileExample())}" data-testid="pile"><small>${t('opt.pile.help', { example: esc(pileExample()) })}</small></label>
      </details>
    </details>
    <div class="create-bar"><p class="form-error" role="alert"></p>
      <div class="create-go"><button type="submit" class="primary large" data-testid="create" ${this.busy ? 'disabled' : ''}>${t('create.button')}</button>
      <span class="create-summary" data-testid="create-summary">${this.summary()}</span></div></div>`;
    return h;
  }

  // the form's choices in a line beside the button, which stays on screen
  summary() {
    const f = this.form;
    let tiles;
    try { tiles = f.pile.trim() ? this.parsePile(f.pile) : undefined; } catch { tiles = undefined; }
    // without the players: the form shows them just above
    return optionsSummary({ players: f.players, farmers: f.farmers, farm_scoring: f.farm_scoring, small_city: f.small_city, expansions: this.chosenExpansions(), tiles, clock: chosenClock(), private: f.private, pass_and_play: f.pass_and_play, rated: this.unrated() ? false : undefined }).slice(1).join(' · ');
  }
  // "Rated game" unticked: only an account is offered the choice (a guest's game is never rated)
  unrated() { return !!this.account && !this.form.rated; }

  onInput(e) {
    const f = this.form, el = e.target, n = el.name;
    if (!n) return;
    let rerender = false;
    if (n === 'players') { f.players = Number(el.value); rerender = true; }
    else if (n.startsWith('colour')) {
      const i = Number(n.slice(6));
      const other = f.seats.findIndex((s, j) => j !== i && s.colour === el.value);
      if (other >= 0) f.seats[other].colour = f.seats[i].colour;
      f.seats[i].colour = el.value; rerender = true;
    } else if (n.startsWith('who')) { f.seats[Number(n.slice(3))].who = el.value; rerender = true; }
    else if (n === 'name') {
      const { name, cut } = fitName(el.value);
      if (cut) el.value = name;
      f.name = name;
      if (e.type === 'input') {
        this.nameCut = cut;
        this.root.querySelector('[data-testid=name-cut]')?.classList.toggle('hidden', !cut);
      }
      const q = this.root.querySelector('[data-testid=quick-what]');
      if (q) q.textContent = this.quickWhat();
    }
    else if (n.startsWith('seatname')) {
      const { name, cut } = fitName(el.value);
      if (cut) el.value = name;
      f.seats[Number(n.slice(8))].name = name;
    }
    // the summary reads the preset from where clock.js keeps it: kept before the summary is drawn
    else if (n === 'clock_preset') localStorage.setItem('carc.clock', el.value);
    else if (n === 'farmers' || n === 'small_city' || n === 'private' || n === 'pass_and_play' || n === 'spectator_chat' || n === 'rated') { f[n] = el.checked; rerender = n === 'farmers' || n === 'pass_and_play'; }
    else if (n === 'farm_scoring') f[n] = el.value;
    else if (n.startsWith('variant-')) f.variant = { ...f.variant, [n.slice(8)]: el.value };
    else if (n === 'exp') {
      f.expansions = el.checked ? [...new Set([...f.expansions, el.value])] : f.expansions.filter((x) => x !== el.value);
      rerender = true;
    } else if (n === 'bot_delay_ms') f.bot_delay_ms = el.value === '' ? '' : Number(el.value);
    else if (n === 'seed' || n === 'pile') f[n] = el.value;
    if (e.type === 'change' && rerender) {
      const form = this.root.querySelector('form');
      const focus = el.name;
      const open = [...form.querySelectorAll('details')].filter((d) => d.open).map((d) => d.className);
      form.innerHTML = this.formHtml();
      for (const c of open) { const d = form.querySelector(`details.${c}`); if (d) d.open = true; }
      form.querySelector(`[name="${focus}"]`)?.focus();
    }
    const sum = this.root.querySelector('[data-testid=create-summary]');
    if (sum) sum.innerHTML = this.summary();
    const { seed, pile, name, ...keep } = f; // eslint-disable-line no-unused-vars
    localStorage.setItem('carc.form', JSON.stringify(keep));
  }

  // "U:3, E:2" -> {U: 3, E: 2}
  parsePile(s) {
    const out = {};
    for (const part of s.split(/[,;\s]+/).filter(Boolean)) {
      const m = /^([A-Za-z0-9]+)(?:[:=x*](\d+))?$/.exec(part);
      if (!m) throw new Error(t('opt.pile.bad', { part }));
      out[m[1]] = (out[m[1]] || 0) + Number(m[2] || 1);
    }
    return out;
  }

  // While a table is being made both buttons are off and a submit does
  // nothing (a double click, Enter twice): one request, one table.
  setBusy(on) {
    this.busy = on;
    for (const b of this.root.querySelectorAll('[data-testid=create], [data-testid=quick-start], [data-testid=guide-start]')) b.disabled = on;
    this.root.querySelector('[data-testid=create-form]')?.setAttribute('aria-busy', String(on));
  }

  // POST /api/tables and go to the table; the message of a refusal in errEl.
  async start(body, colours, errEl) {
    if (this.busy) return;
    this.setBusy(true);
    errEl.textContent = '';
    try {
      const r = await api.create(body);
      if (!serverColours(r.table)) rememberColors(r.id, colours);
      if (r.token) seats.set(r.id, r.seat, r.token);
      if (r.tokens) pnp.set(r.id, r.tokens);
      location.assign(`/?table=${r.id}`); // busy until the page goes
    } catch (e) {
      this.setBusy(false);
      errEl.textContent = e.message;
    }
  }

  // the guided first game (guide.js), from the offer
  async guided() {
    if (this.busy) return;
    this.setBusy(true);
    try { await startGuided(this.form.name); } catch (e) {
      this.setBusy(false);
      this.root.querySelector('.quick-error').textContent = e.message;
    }
  }

  // "Play a bot now": you against the bot of QUICK_LEVEL with the server's
  // default options, under the name typed last (or "Player"), in the colours
  // of the form's first two seats.
  quickStart() {
    if (this.busy) return;
    if (this.root.querySelector('.guide-offer')) markOffered('declined'); // a choice made
    const f = this.form;
    let c0 = f.seats[0]?.colour || PALETTE[0].id, c1 = f.seats[1]?.colour;
    if (!c1 || c1 === c0) c1 = PALETTE.find((c) => c.id !== c0).id;
    const name = fitName(this.quickName()).name;
    if ((f.name || '').trim()) localStorage.setItem('carc.name', name);
    this.start({ players: 2, seats: [{ colour: c0 }, { bot: this.quickLevel(), colour: c1 }], name }, [c0, c1], this.root.querySelector('.quick-error'));
  }

  // Quick match's "play bots instead": the chosen players, rules and clock,
  // every other seat the bot of "Play a bot now".
  botsInstead({ players, expansions, clock }) {
    const f = this.form;
    const colours = f.seats.slice(0, players).map((s) => s.colour);
    const body = { players, expansions, seats: colours.map((c, i) => (i ? { bot: this.quickLevel(), colour: c } : { colour: c })), name: fitName(this.quickName()).name };
    if (clock) body.clock = clock;
    this.start(body, colours, this.root.querySelector('.quick-error'));
  }

  create() {
    if (this.busy) return;
    if (this.root.querySelector('.guide-offer')) markOffered('declined');
    const f = this.form, err = this.root.querySelector('.form-error');
    err.textContent = '';
    const body = { players: f.players, seats: [], farmers: f.farmers, small_city: f.small_city, expansions: this.chosenExpansions() };
    if (f.farmers) body.farm_scoring = f.farm_scoring;
    const colours = [];
    let me = false;
    for (let i = 0; i < f.players; i++) {
      const s = f.seats[i];
      colours.push(s.colour);
      if (s.who.startsWith('bot:')) body.seats.push({ bot: s.who.slice(4), colour: s.colour });
      // pass-and-play: the name typed for the person, else "Player 2" in this language
      else if (s.who === 'friend' && f.pass_and_play) body.seats.push({ colour: s.colour, name: fitName((s.name || '').trim()).name.trim() || t('player.n', { n: i + 1 }) });
      else { body.seats.push({ colour: s.colour }); if (s.who === 'me') me = true; }
    }
    if (me) {
      const name = (f.name || '').trim();
      if (!name) { err.textContent = t('create.name.missing'); this.root.querySelector('[name=name]')?.focus(); return; }
      body.name = name;
      localStorage.setItem('carc.name', name);
    }
    if (f.bot_delay_ms !== '' && f.bot_delay_ms !== undefined) body.bot_delay_ms = Number(f.bot_delay_ms);
    if (String(f.seed).trim() !== '') body.seed = Number(f.seed);
    if (f.private) body.private = true;
    if (chosenClock()) body.clock = chosenClock();
    if (f.pass_and_play) body.pass_and_play = true;
    if (f.spectator_chat) body.spectator_chat = true;
    if (this.unrated()) body.rated = false;
    try {
      if (f.pile.trim()) body.tiles = this.parsePile(f.pile);
    } catch (e) { err.textContent = e.message; return; }
    // the seat list must put "me" on the first open seat: the server seats the creator there
    this.start(body, colours, err);
  }

  async upload(file) {
    if (!file) return;
    try {
      const text = await file.text();
      const r = await api.upload(text);
      location.assign(`/?replay=${r.id}`);
    } catch (e) { toast(t('lobby.upload.bad', { msg: e.message }), 'error'); }
  }

  // `note`: a word on the row's meta line (it wraps there; the actions do not)
  rowHtml(tb, actions, note = '') {
    const cols = seatColors(tb);
    const won = new Set(tb.winners || []);
    const names = tb.seats.map((s, i) => {
      const pts = tb.scores?.[i];
      const score = pts === undefined ? '' : ` <b class="pts" title="${esc(t('lobby.points', { n: pts }))}">${pts}</b>${won.has(i) ? '<span class="crown" aria-hidden="true">★</span>' : ''}`;
      // a name of up to 63 bytes, unbroken: cut with an ellipsis, whole in the title
      const nm = esc(seatName(tb, i, cols));
      return `<span class="who" data-colour="${cols[i].id}">${badge(cols[i], 14)}<span class="nm" title="${nm}">${nm}</span>${score}</span>`;
    }).join(' ');
    const open = tb.status === 'playing' || tb.status === 'over' ? 0 : tb.seats.filter((s) => s.kind === 'open').length;
    const meta = note ? [note] : [];
    if (open) meta.push(`<span class="open-seats">${esc(t('lobby.seats.open', { n: open }))}</span>`);
    const ms = tb.finished_ms || tb.updated_ms || tb.created_ms || Date.now();
    const d = new Date(ms), lang = currentLanguage();
    // older than today: with the date
    const when = d.toDateString() === new Date().toDateString()
      ? d.toLocaleTimeString(lang, { hour: '2-digit', minute: '2-digit' })
      : d.toLocaleString(lang, { dateStyle: 'short', timeStyle: 'short' });
    // a game ended by a resignation (the finished list's `ended`)
    if (tb.ended?.reason === 'resigned') meta.push(`<span class="resigned" data-testid="resigned-${tb.id}">${esc(t('lobby.resigned', { name: seatName(tb, tb.ended.seat, cols) }))}</span>`);
    meta.push(...optionsSummary(tb.options).slice(1));
    if (tb.status === 'playing') meta.push(t('lobby.turn', { n: (tb.turn ?? 0) + 1 }));
    meta.push(when);
    return `<div class="trow" data-id="${tb.id}"><div class="tmain"><div class="tnames">${names}</div><div class="tmeta">${meta.join(' · ')}</div></div><div class="tact">${actions}</div></div>`;
  }

  renderLists() {
    const q = (s) => this.root.querySelector(s);
    if (!q('.list.open')) return;
    const mine = seats.all();
    const known = new Map([...this.lists.open, ...this.lists.playing, ...this.lists.over].map((tb) => [tb.id, tb]));
    const myRows = Object.keys(mine).filter((id) => known.has(id) && known.get(id).status !== 'over' && mine[id].token).map((id) => this.rowHtml(known.get(id), `<a class="button primary" href="/?table=${id}">${t('lobby.continue')}</a>`));
    q('.list.mine').innerHTML = myRows.join('') || `<p class="empty">${t('lobby.mine.none')}</p>`;
    // a rematch whose seats are all kept for the old game's players: nothing to join
    const joinable = (tb) => tb.seats.some((s) => s.kind === 'open');
    q('.list.open').innerHTML = this.lists.open.map((tb) => this.rowHtml(tb, joinable(tb)
      ? `<a class="button primary" href="/?table=${tb.id}" data-testid="join-${tb.id}">${t('lobby.join')}</a>`
      : `<a class="button" href="/?table=${tb.id}" data-testid="watch-${tb.id}">${t('lobby.watch')}</a>`,
      joinable(tb) ? '' : `<span data-testid="kept-${tb.id}">${esc(t('lobby.kept'))}</span>`)).join('') || `<p class="empty">${t('lobby.open.none')}</p>`;
    q('.list.playing').innerHTML = this.lists.playing.map((tb) => this.rowHtml(tb, `<a class="button" href="/?table=${tb.id}" data-testid="watch-${tb.id}">${t('lobby.watch')}</a>`)).join('') || `<p class="empty">${t('lobby.playing.none')}</p>`;
    q('.list.over').innerHTML = this.lists.over.map((tb) => this.rowHtml(tb, `<a class="button" href="/?replay=${tb.id}" data-testid="replay-${tb.id}">${t('lobby.replay')}</a>`)).join('') || `<p class="empty">${t('lobby.over.none')}</p>`;
    q('.more-over').classList.toggle('hidden', !this.overMore || !this.lists.over.length);
    q('[data-testid=more-finished]').disabled = !!this.loadingOver;
    // the counts in the jump links (narrow screens)
    const jumps = this.root.querySelectorAll('.jump .n');
    if (jumps.length === 2) {
      jumps[0].textContent = this.lists.open.length ? ` (${this.lists.open.length})` : '';
      jumps[1].textContent = this.lists.playing.length ? ` (${this.lists.playing.length})` : '';
    }
  }
}
