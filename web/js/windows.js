// Which window holds this seat's controls (issue 22; docs/web.md "One seat
// in several windows"). Every page load is a window with an id of its own;
// the newest window to open a seat takes its controls, and every other
// window at that seat (another tab, another browser of the account, on any
// server process) shows a bar "open in another window" with a button that
// takes them back. Reconnecting only asks who holds the seat, so a window
// whose connection dropped for a moment does not take them from the window
// in use. A window without the controls does not play (game.js myTurn),
// ring or notify; it still shows the game and the chat.
import { t } from './i18n.js';

const hex = (n) => [...crypto.getRandomValues(new Uint8Array(n))].map((b) => b.toString(16).padStart(2, '0')).join('');
export const WINDOW_ID = hex(8); // 16 hex digits: the server's WINDOW_ID_LEN

export class SeatWindows {
  constructor(view) {
    this.view = view;
    this.took = new Set(); // the seats this window has taken once (pass-and-play has several)
    this.bar = document.createElement('div');
    this.bar.className = 'seat-elsewhere hidden';
    this.bar.dataset.testid = 'seat-elsewhere';
    this.bar.setAttribute('role', 'status');
    view.node.querySelector('.board-wrap').prepend(this.bar);
    this.bar.addEventListener('click', (e) => { if (e.target.closest('[data-act=take-seat]')) this.take(); });
    this.langHandler = () => this.paint();
    window.addEventListener('langchange', this.langHandler);
  }
  destroy() { window.removeEventListener('langchange', this.langHandler); }

  take() { this.view.live?.send({ type: 'window', window: WINDOW_ID, take: true }); }

  onMessage(m) {
    const v = this.view;
    if (v.replay) return;
    if (m.type === 'state' && v.you !== null && v.you !== undefined && v.table?.status !== 'over') {
      const first = !this.took.has(v.you);
      this.took.add(v.you);
      v.live?.send({ type: 'window', window: WINDOW_ID, take: first });
    } else if (m.type === 'state') {
      this.set(false); // watching, or the game is over: nothing to hold
    } else if (m.type === 'seat_window' && m.seat === v.you && v.table?.status !== 'over') {
      this.set(m.window !== WINDOW_ID);
    }
  }

  set(elsewhere) {
    const v = this.view;
    if (!!v.elsewhere === elsewhere) return;
    v.elsewhere = elsewhere;
    v.sel = v.freshSel();
    v.renderAll();
    this.paint();
  }

  paint() {
    const on = !!this.view.elsewhere;
    this.bar.classList.toggle('hidden', !on);
    if (!on) { this.bar.replaceChildren(); return; }
    this.bar.innerHTML = `<span>${t('window.elsewhere')}</span> <button type="button" class="primary" data-act="take-seat" data-testid="seat-take">${t('window.take')}</button>`;
  }
}
