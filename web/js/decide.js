// A decision made on the board: a step whose options name squares or places
// of the board (Princess & Dragon's dragon step names the square the dragon
// goes to; its action step the follower the fairy goes beside, the place a
// figure goes through the magic portal, the knight the princess sends home).
// The client knows none of those rules: it reads the options the engine
// lists (next.legal.options), draws those that name a square as squares to
// click, those that name a place ({x, y, at}) as spots to click (a ring
// around a figure standing there), and the others as buttons; the chosen
// option's preview (the engine's "eaten": who would go home) is shown
// before it is confirmed. Words come from the catalogue keyed by the
// decision's keys (decide.<keys>), else the engine's "text".
import { t, tOr, esc, listJoin } from './i18n.js';
import { roleName } from './story.js';
import { figurePose, figureIcon } from './colors.js';
import { names } from './vocab.js';

// What a decision names on the board: {path, x, y, at?, kind?} where path is
// the keys down to it ({"a": {"b": {x, y}}} -> ["a", "b"]), or null. A
// decision whose value is a word (a string) names none: {path, word}.
export function targetOf(decision) {
  const walk = (v, path) => {
    if (typeof v === 'string') return { path, word: v };
    if (!v || typeof v !== 'object' || Array.isArray(v)) return null;
    if (Number.isInteger(v.x) && Number.isInteger(v.y)) return { ...v, path };
    const ks = Object.keys(v);
    return ks.length === 1 ? walk(v[ks[0]], [...path, ks[0]]) : null;
  };
  return walk(decision, []);
}

// The options of a step read so: [{i, option, decision, target}]
export function readOptions(options) {
  return (options || []).map((option, i) => {
    const { text, ...decision } = option;
    return { i, option, decision, text, target: targetOf(decision) };
  });
}

// Whether a step is decided on the board: some option names a square or place.
export const onBoard = (options) => readOptions(options).some((o) => o.target && o.target.word === undefined);

// The catalogue's word for a group of decisions ("decide.a.b"), else the engine's text.
const groupWord = (o) => tOr(`decide.${o.target.path.join('.')}`, o.text || o.target.path.join(' '));

export class BoardDecision {
  // view: the GameView (game.js) whose step this is
  constructor(view, step) {
    this.v = view; this.step = step;
    this.chosen = null; // the option index chosen
    this.kind = null;   // the figure kind shown among places that name one
    this.eaten = null;  // the chosen option's preview: who would go home
  }

  opts() { return readOptions(this.v.game?.next?.legal?.options); }

  // the places of the options, as spots: those of the chosen kind (places
  // naming no kind always), with where they stand on their tile
  spots() {
    const v = this.v, out = [];
    const figs = v.game.figures || [];
    for (const o of this.opts()) {
      const tg = o.target;
      if (!tg || tg.word !== undefined || !tg.at) continue;
      if (tg.kind && tg.kind !== this.kind) continue;
      const b = v.board.placed.get(`${tg.x},${tg.y}`);
      if (!b) continue;
      const seg = v.tiles.segmentAt(b.tile, b.rot, tg.at);
      const feature = seg?.kind;
      const standing = figs.find((f) => f.x === tg.x && f.y === tg.y && f.at === tg.at);
      const kind = tg.kind || standing?.kind || names.figures[0];
      // a figure standing there is ringed where it is drawn (board.js)
      const spot = standing ? v.board.standsAt(standing, b) : v.tiles.spotAt(b.tile, b.rot, tg.at);
      const pos = [spot[0] + (standing ? 0 : figurePose(kind, feature).dx), spot[1]];
      const role = standing ? roleName(standing.kind, standing.feature ?? feature) : roleName(kind, feature);
      out.push({ i: o.i, x: tg.x, y: tg.y, at: tg.at, kind, pos, feature, ring: !!standing, selected: this.chosen === o.i, role, group: groupWord(o), label: `${groupWord(o)}: ${role}`, owner: standing?.player });
    }
    return out;
  }

  squares() {
    return this.opts().filter((o) => o.target && o.target.word === undefined && !o.target.at)
      .map((o) => ({ i: o.i, x: o.target.x, y: o.target.y, selected: this.chosen === o.i, group: groupWord(o) }));
  }

  draw(n) {
    const v = this.v, act = v.$('.actions');
    const opts = this.opts();
    const kinds = names.figures.filter((k) => opts.some((o) => o.target?.kind === k));
    if (kinds.length && !kinds.includes(this.kind)) this.kind = kinds[0];
    const squares = this.squares(), spots = this.spots();
    v.board.setChoices(squares);
    v.board.setSpots(spots, v.colors[v.you]);
    v.board.setEaten(this.eaten);
    const head = tOr(`step.${n.step_kind}`, t('decision.title'));
    let h = `<h4 class="decision-head" data-testid="decision-head">${esc(head)}</h4>`;
    const hint = [];
    if (squares.length) hint.push(t('decide.hint.square'));
    if (spots.length || kinds.length) hint.push(t('decide.hint.place'));
    h += `<p class="hint" data-testid="decision-hint">${hint.join(' ')}</p>`;
    if (kinds.length > 1) {
      h += `<div class="kinds" role="radiogroup">${kinds.map((k) => `<button class="kind${k === this.kind ? ' on' : ''}" data-act="kind" data-kind="${k}" role="radio" aria-checked="${k === this.kind}" data-testid="kind-${k}">${figureIcon(k, v.colors[v.you], 20)} ${tOr(`fig.${k}`, k)}</button>`).join('')}</div>`;
    }
    // every option as a button too (the keyboard's and a screen reader's way):
    // squares by the tile on them, places by what stands or would stand there
    const btn = (i, words, extra = '') => `<button class="spot-btn${this.chosen === i ? ' on' : ''}" data-act="choose" data-i="${i}" data-testid="choose-${i}"${extra}>${v.touch ? '' : `<kbd>${i + 1}</kbd> `}${words}</button>`;
    const list = [
      ...squares.map((s) => btn(s.i, `${esc(s.group)}: ${esc(v.tiles.name(v.board.placed.get(`${s.x},${s.y}`)?.tile))}`, ` data-x="${s.x}" data-y="${s.y}"`)),
      ...spots.map((s) => btn(s.i, `${esc(s.group)}: ${esc(s.role)}${s.ring ? ` (${esc(v.name(s.owner))})` : ''}`, ` data-at="${s.at}"`)),
    ];
    if (list.length) h += `<div class="spots-list" data-testid="choices">${list.join('')}</div>`;
    h += `<p class="eaten-info" data-testid="eaten-info" aria-live="polite">${this.eatenText()}</p>`;
    // the options that name nothing on the board (doing nothing): plain buttons
    const words = opts.filter((o) => o.target?.word !== undefined || !o.target);
    h += '<div class="row decision-none">';
    for (const o of words) {
      const key = o.target ? `decide.${[...o.target.path, o.target.word].join('.')}` : '';
      h += `<button data-act="decide" data-i="${o.i}" data-testid="decide-${esc(o.target?.word ?? o.i)}"${v.sel.sending ? ' disabled' : ''}>${v.touch ? '' : `<kbd>${o.i + 1}</kbd> `}${esc(key ? tOr(key, o.text) : o.text)}</button>`;
    }
    h += '</div>';
    if (this.chosen !== null) h += `<div class="row"><button class="primary" data-act="confirmchoice" data-testid="confirm-decision"${v.sel.sending ? ' disabled' : ''}>${t('act.confirm')} ⏎</button><button data-act="unchoose" data-testid="unchoose">${t('act.takeback')}</button></div>`;
    act.innerHTML = h;
    if (this.chosen !== null) {
      const s = squares.find((q) => q.i === this.chosen) || spots.find((q) => q.i === this.chosen);
      if (s) v.board.ensureVisible(s.x, s.y);
    }
  }

  eatenText() {
    const e = this.eaten;
    if (this.chosen === null || !e) return '';
    if (!e.length) return t('decide.eats.none');
    const v = this.v;
    return t('decide.eats', { list: listJoin(e.map((f) => t('decide.whose', { name: v.who(f.player), role: esc(roleName(f.kind, f.feature ?? v.tiles.segmentAt(v.board.placed.get(`${f.x},${f.y}`)?.tile, v.board.placed.get(`${f.x},${f.y}`)?.rot, f.at)?.kind)) }))) });
  }

  // option i chosen (again: unchosen); its preview asked for
  choose(i) {
    const o = this.opts()[i];
    if (!o) return;
    if (o.target?.word !== undefined || !o.target) { this.v.decide(i); return; }
    this.chosen = this.chosen === i ? null : i;
    this.eaten = null;
    this.v.renderTurn();
    if (this.chosen === null) return;
    const n = this.v.game.next, asked = this.chosen;
    this.v.views.preview(n.step, o.decision).then((pv) => {
      if (this.v.deciding !== this || this.chosen !== asked) return;
      this.eaten = Array.isArray(pv?.eaten) ? pv.eaten : null;
      this.v.renderTurn();
    }).catch(() => { /* no preview: the decision is still there to make */ });
  }
  confirm() { if (this.chosen !== null) this.v.decide(this.chosen); }

  // a click on a square of the board: an option naming it, or the one
  // place option on it when there is only one
  square(x, y) {
    const s = this.squares().find((q) => q.x === x && q.y === y);
    if (s) { this.choose(s.i); return; }
    const here = this.spots().filter((q) => q.x === x && q.y === y);
    if (here.length === 1) this.choose(here[0].i);
  }
  spot(k) { const s = this.spots()[k]; if (s) this.choose(s.i); }

  // the keyboard: 1..9 choose an option, Enter confirms, Escape unchooses
  key(k) {
    if (/^[1-9]$/.test(k)) { this.choose(Number(k) - 1); return true; }
    if (k === 'Enter') { this.confirm(); return true; }
    if (k === 'Escape' || k === 'Backspace') { this.chosen = null; this.eaten = null; this.v.renderTurn(); return true; }
    return false;
  }
}
