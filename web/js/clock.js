// The table's clock (issue 14): every seat's time, counting down for the
// seat to move; a warning (colour, sound) for the player whose time runs
// low; who was taken over by the bot; and the resign button. The server
// keeps the time: each state, move and table message carries the clock
// (docs/protocol.md, "Clocks"), with the server's time so that a browser
// whose own clock is off still counts right.
//
// Mounted by game.js: new ClockView(afterNode, {resign}) and
// view.update(message, yourSeat) for every message.
import { t } from './i18n.js';
import { sound } from './sound.js';
import { toast, fmtTime, clockText } from './ui.js';
import { badge } from './colors.js';
import { seatColors, seatName } from './players.js';

const LOW_TURN_MS = 3600 * 1000; // turn-based games: the last hour

const fmt = fmtTime;

// The lobby's choice of a clock: a few presets (the server takes any time in
// range, docs/protocol.md "Clocks"). The choice is kept in localStorage, so
// that it survives the form being drawn again.
const PRESET_KEY = 'carc.clock';
const PRESETS = {
  none: null,
  'rt-30': { mode: 'realtime', move_s: 30, reserve_s: 60 },
  'rt-60': { mode: 'realtime', move_s: 60, reserve_s: 120 },
  'rt-120': { mode: 'realtime', move_s: 120, reserve_s: 300 },
  'tb-1d': { mode: 'turn', move_s: 86400 },
  'tb-3d': { mode: 'turn', move_s: 3 * 86400 },
};
const preset = () => (localStorage.getItem(PRESET_KEY) in PRESETS ? localStorage.getItem(PRESET_KEY) : 'none');

// A clock option in words ("1:00 a move + 2:00 reserve", "1 day a move"); null: no clock.
// quickmatch.js names its presets with it too.
export function clockLabel(p) {
  if (!p) return t('clock.none');
  return clockText(p);
}

export function clockFieldHtml() {
  const label = (k) => clockLabel(PRESETS[k]);
  const opts = Object.keys(PRESETS).map((k) => `<option value="${k}" ${k === preset() ? 'selected' : ''}>${label(k)}</option>`).join('');
  return `<fieldset><legend>${t('opt.clock')}</legend><label class="form-field"><select name="clock_preset" data-testid="clock-preset" aria-label="${t('opt.clock')}">${opts}</select></label></fieldset>`;
}

// The chosen clock as the table option, or null (no clock).
export function chosenClock() { return PRESETS[preset()]; }

document.addEventListener('change', (e) => {
  if (e.target?.name === 'clock_preset') localStorage.setItem(PRESET_KEY, e.target.value);
});

export class ClockView {
  constructor(after, { resign }) {
    this.onResign = resign;
    this.node = document.createElement('section');
    this.node.className = 'clock-card hidden';
    this.node.dataset.testid = 'clock';
    this.node.innerHTML = '<ol class="clock-seats"></ol><div class="clock-note" aria-live="polite"></div>'
      + '<button class="resign hidden" data-testid="resign"></button>';
    after.insertAdjacentElement('afterend', this.node);
    this.btn = this.node.querySelector('.resign');
    this.btn.addEventListener('click', () => this.clickResign());
    this.clock = null; this.seats = []; this.status = null; this.you = null; this.offset = 0;
    this.warned = -1; this.arming = null;
    this.timer = setInterval(() => this.tick(), 250);
    this.langHandler = () => this.render();
    window.addEventListener('langchange', this.langHandler);
  }

  destroy() {
    clearInterval(this.timer);
    clearTimeout(this.arming);
    window.removeEventListener('langchange', this.langHandler);
    this.node.remove();
  }

  update(m, you) {
    const c = m.type === 'move' ? m.clock : m.table?.clock;
    // a move's "table" is the table's id; state and table messages carry the table
    if (m.table && typeof m.table === 'object') { this.table = m.table; this.seats = m.table.seats || this.seats; this.status = m.table.status; this.colors = seatColors(m.table); }
    this.you = you ?? null;
    if (m.type === 'resigned') toast(t('clock.you_resigned'));
    if (!c) return;
    const prev = this.clock;
    // the server's time when the message left, against ours now
    this.offset = c.server_ms - Date.now();
    this.clock = c;
    if (m.type === 'move' && prev && c.mode !== 'none') {
      const p = m.entry.player;
      if (c.seats[p] && prev.seats[p] && c.seats[p].timeouts > prev.seats[p].timeouts) {
        toast(t('clock.timed_out', { name: this.name(p) }), 'error');
      }
    }
    // the one who resigned reads "You resigned." once (the toast of the same words is not doubled), the others "Alice resigned."
    if (prev && !prev.ended && c.ended) toast(this.endedText(c.ended, true));
    this.render();
  }

  // How the game ended early: a resignation ("You resigned." to the one who
  // did, once), or a quick match void because a seat never came (issue 26)
  endedText(e, toYou) {
    if (e.reason === 'no_show') return t('clock.no_show', { name: this.name(e.seat) });
    return toYou && e.seat === this.you ? t('clock.you_resigned') : t('clock.resigned', { name: this.name(e.seat) });
  }

  // as the players list names a seat: an open seat "Open seat", a bot by its colour and level
  name(i) { return this.table ? seatName(this.table, i, this.colors) : this.seats[i]?.name || t('player.n', { n: i + 1 }); }

  left(i) {
    const c = this.clock;
    if (c.deadline_ms !== null && c.seat === i) return c.deadline_ms - (Date.now() + this.offset);
    return null;
  }

  render() {
    const c = this.clock;
    if (!c) return;
    const timed = c.mode !== 'none';
    const mine = this.you !== null && this.you !== undefined && c.seats[this.you];
    const canResign = mine && this.status === 'playing' && !c.seats[this.you].forfeited && !c.ended;
    // without a clock the seats are listed once one of them is played by the bot
    const list = timed || c.seats.some((s) => s.forfeited);
    this.node.classList.toggle('hidden', !list && !canResign && !c.ended);
    // no seats listed (a game without a clock): only the resign button or the note;
    // on a phone that goes in the sheet, so the board keeps the screen
    this.node.classList.toggle('bare', !list);
    const ol = this.node.querySelector('.clock-seats');
    ol.replaceChildren();
    if (list) {
      c.seats.forEach((s, i) => {
        const li = document.createElement('li');
        li.dataset.testid = `clock-${i}`;
        const nm = document.createElement('span'); nm.className = 'clock-name'; nm.textContent = this.name(i);
        const tm = document.createElement('span'); tm.className = 'clock-time';
        // the seat's colour and mark, as everywhere else at the table
        if (this.colors?.[i]) { const bd = document.createElement('span'); bd.className = 'clock-badge'; bd.innerHTML = badge(this.colors[i], 14); li.append(bd); }
        li.append(nm, tm);
        if (s.forfeited) {
          const b = document.createElement('em'); b.className = 'clock-bot';
          b.textContent = t(s.resigned ? 'clock.resigned_short' : 'clock.bot');
          li.append(b);
        }
        ol.append(li);
      });
    }
    const note = this.node.querySelector('.clock-note');
    note.textContent = c.ended ? this.endedText(c.ended, false)
      : timed ? clockText(c) : '';
    this.btn.classList.toggle('hidden', !canResign);
    if (!this.arming) this.btn.textContent = t('clock.resign');
    this.tick();
  }

  tick() {
    const c = this.clock;
    if (!c || c.mode === 'none') return;
    const low = c.mode === 'turn' ? LOW_TURN_MS : Math.min(10000, c.move_ms / 2);
    c.seats.forEach((s, i) => {
      const li = this.node.querySelector(`[data-testid=clock-${i}]`);
      if (!li) return;
      const left = this.left(i);
      const running = left !== null;
      li.classList.toggle('running', running);
      li.querySelector('.clock-time').textContent = running ? fmt(left) : (s.forfeited ? '' : fmt(c.move_ms + s.reserve_ms));
      const isLow = running && left <= low;
      li.classList.toggle('low', isLow);
      if (isLow && i === this.you && this.warned !== c.turn) {
        // once a turn: the colour stays, the sound and the note come once
        this.warned = c.turn;
        sound.play('low');
        toast(t('clock.low'), 'error');
      }
    });
  }

  clickResign() {
    if (!this.arming) {
      // two clicks: a resignation cannot be taken back
      this.btn.textContent = t('clock.resign_confirm');
      this.btn.classList.add('arming');
      this.arming = setTimeout(() => { this.arming = null; this.btn.classList.remove('arming'); this.render(); }, 4000);
      return;
    }
    clearTimeout(this.arming); this.arming = null;
    this.btn.classList.remove('arming');
    this.onResign();
  }
}
