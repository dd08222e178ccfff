// The table's chat, the rematch after the final scores, and the pieces that
// live beside the table screen (turn notifications, pass-and-play). Mounted
// by game.js with mountSocial(view); it reads the view (table, game, you,
// live) and never changes how game.js draws.
//
// Chat lines are shown with textContent only: a line is text, never markup.
//
// What it needs of the view (keep these when game.js changes): the fields
// id, replay, table, game, you, live (send, token), colors; the methods
// name(i), who(i) and myTurn(); and in view.node the elements .side (the chat
// goes after its .log-wrap), .board-wrap (the invitation banner), .final-box with
// a .card inside when the final scores show (the rematch button), and
// .turn-card with its .hand (the hand-over goes before it; .game.handing
// hides the tile and the squares where it fits, passplay.js).
import { seats } from './api.js';
import { t, tOr } from './i18n.js';
import { notify } from './notify.js';
import { PassPlay, pnp } from './passplay.js';
import { toast } from './ui.js';

// a speech bubble, the unread mark's picture (also in game.js's score strip)
export const BUBBLE = '<svg class="bubble" viewBox="0 0 16 16" width="14" height="14" aria-hidden="true"><path d="M2 2.5h12a1 1 0 0 1 1 1v7a1 1 0 0 1-1 1H7.5L4 14.5v-3H2a1 1 0 0 1-1-1v-7a1 1 0 0 1 1-1z" fill="currentColor"/></svg>';
const PHRASES = ['hello', 'gl', 'gg', 'wp', 'thanks', 'sorry', 'oops'];
const QUICK = ['gg', 'wp', 'thanks', 'hello', 'gl', 'sorry'];

const el = (tag, cls, text) => {
  const n = document.createElement(tag);
  if (cls) n.className = cls;
  if (text !== undefined) n.textContent = text;
  return n;
};

async function getJson(path) {
  const r = await fetch(path);
  if (!r.ok) throw new Error(`HTTP ${r.status}`);
  return r.json();
}

async function postJson(path, body) {
  const r = await fetch(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const data = await r.json().catch(() => null);
  if (!r.ok) { const e = new Error(data?.error?.message || `HTTP ${r.status}`); e.code = data?.error?.code; throw e; }
  return data;
}

export class ChatBox {
  constructor(view) {
    this.view = view; this.lines = new Map(); this.max = 300; this.len = 300; this.spectators = false;
    this.node = el('section', 'chat');
    this.node.dataset.testid = 'chat';
    this.node.innerHTML = `<h3></h3><ol class="chat-lines" data-testid="chat-lines" aria-live="polite"></ol>
      <div class="chat-quick"></div>
      <form class="chat-form"><input class="chat-input" data-testid="chat-input" autocomplete="off"><button class="chat-send" data-testid="chat-send" type="submit"></button></form>
      <p class="hint chat-ro hidden"></p>`;
    this.$ = (s) => this.node.querySelector(s);
    // lines from the others that arrived while the chat was out of sight:
    // a mark at the bottom of the side (one column) and in the phone's score
    // strip (view.chatUnread, drawn by game.js's renderMini); gone once the
    // chat is seen (the side scrolled, the sheet opened, a wider window)
    this.unread = 0;
    this.mark = el('button', 'chat-unread hidden');
    this.mark.type = 'button';
    this.mark.dataset.testid = 'chat-unread';
    this.mark.addEventListener('click', () => this.show());
    this.seen = () => { if (this.unread && this.inSight()) this.setUnread(0); };
    this.$('.chat-form').addEventListener('submit', (e) => { e.preventDefault(); this.sendText(); });
    this.$('.chat-quick').addEventListener('click', (e) => { const b = e.target.closest('[data-phrase]'); if (b) this.send({ type: 'chat', phrase: b.dataset.phrase }); });
    // after the log: during play the log stays on screen, the chat below it
    const side = view.node.querySelector('.side');
    const after = side.querySelector('.log-wrap') || side.querySelector('.players');
    if (after) after.after(this.node); else side.appendChild(this.node);
    side.appendChild(this.mark);
    side.addEventListener('scroll', this.seen, { passive: true });
    window.addEventListener('resize', this.seen);
    // the phone's sheet opens with a class on the table screen
    this.sheetObs = new MutationObserver(this.seen);
    this.sheetObs.observe(view.node, { attributes: true, attributeFilter: ['class'] });
    this.paint();
    this.load();
  }

  async load() {
    try {
      const r = await getJson(`/api/tables/${this.view.id}/chat`);
      this.max = r.max; this.len = r.len; this.spectators = !!r.spectator_chat;
      for (const m of r.chat || []) this.add(m);
      this.paint();
    } catch { /* a table without a chat (an old server): the box stays empty */ }
  }

  canWrite() {
    const v = this.view;
    if (v.replay || v.table?.status === 'view') return false;
    return v.you !== null && v.you !== undefined ? true : this.spectators || !!v.table?.options?.spectator_chat;
  }

  paint() {
    this.$('h3').textContent = t('chat.title');
    const input = this.$('.chat-input');
    input.placeholder = t('chat.placeholder');
    input.maxLength = this.len * 2; // UTF-16 units: the server counts code points
    this.$('.chat-send').textContent = t('chat.send');
    const quick = this.$('.chat-quick');
    quick.replaceChildren(...QUICK.map((p) => { const b = el('button', 'chip', t(`chat.p.${p}`)); b.type = 'button'; b.dataset.phrase = p; b.dataset.testid = `phrase-${p}`; return b; }));
    const w = this.canWrite();
    this.$('.chat-form').classList.toggle('hidden', !w);
    quick.classList.toggle('hidden', !w);
    const ro = this.$('.chat-ro');
    ro.textContent = this.view.replay ? '' : t('chat.readonly');
    ro.classList.toggle('hidden', w || this.view.replay);
    if (this.unread) this.setUnread(this.unread);
    for (const m of this.lines.values()) this.fill(m.li, m);
    if (!this.lines.size) this.empty();
  }

  relang() { this.paint(); }

  destroy() {
    this.node.closest('.side')?.removeEventListener('scroll', this.seen);
    window.removeEventListener('resize', this.seen);
    this.sheetObs.disconnect();
  }

  setUnread(n) {
    this.unread = n;
    this.mark.innerHTML = n ? BUBBLE : '';
    if (n) this.mark.append(` ${t('chat.unread', { n })}`);
    this.mark.classList.toggle('hidden', !n);
    this.view.chatUnread = n;
    this.view.renderMini?.();
  }

  // brings the chat into sight: the phone's sheet opens, the side scrolls to it
  show() {
    const v = this.view.node;
    if (!this.$('.chat-lines').getClientRects().length && !v.classList.contains('sheet-open')) v.querySelector('.mini-scores')?.click();
    this.node.scrollIntoView({ block: 'end' });
    this.setUnread(0);
  }

  empty() {
    const ol = this.$('.chat-lines');
    if (!this.lines.size) ol.replaceChildren(el('li', 'chat-empty', t('chat.empty')));
  }

  fill(li, m) {
    const who = m.seat === null || m.seat === undefined ? (m.name || t('chat.spectator')) : (m.name || this.view.name?.(m.seat) || `#${m.seat + 1}`);
    const text = m.phrase ? (PHRASES.includes(m.phrase) ? t(`chat.p.${m.phrase}`) : m.phrase) : m.text;
    const w = el('span', 'who', who);
    if (m.seat !== null && m.seat !== undefined && this.view.colors?.[m.seat]) w.style.color = this.view.colors[m.seat].hex;
    const x = el('span', m.phrase ? 'text phrase' : 'text', text);
    x.dataset.testid = 'chat-text';
    li.replaceChildren(w, document.createTextNode(' '), x);
    li.title = new Date(m.at_ms).toLocaleTimeString();
  }

  add(m) {
    if (this.lines.has(m.n)) return;
    const ol = this.$('.chat-lines');
    if (!this.lines.size) ol.replaceChildren();
    const li = el('li');
    li.dataset.n = m.n;
    this.fill(li, m);
    this.lines.set(m.n, { ...m, li });
    // in order of n, also when the history arrives after a live line
    const later = [...ol.children].find((c) => Number(c.dataset.n) > m.n);
    ol.insertBefore(li, later || null);
    ol.scrollTop = ol.scrollHeight;
  }

  // whether some of the lines are on screen (not in a closed sheet, not scrolled away in the side)
  inSight() {
    const ol = this.$('.chat-lines');
    if (!ol.getClientRects().length) return false;
    const r = ol.getBoundingClientRect(), side = this.node.closest('.side')?.getBoundingClientRect();
    const top = Math.max(0, side ? side.top : 0), bottom = Math.min(innerHeight, side ? side.bottom : innerHeight);
    return Math.min(r.bottom, bottom) - Math.max(r.top, top) >= 16;
  }

  send(msg) {
    if (!this.view.live?.send(msg)) toast(t('err.network'), 'error');
  }

  sendText() {
    const input = this.$('.chat-input');
    const text = input.value.trim();
    if (!text) return;
    if ([...text].length > this.len) { toast(t('chat.toolong', { n: this.len }), 'error'); return; }
    const msg = { type: 'chat', text };
    if (this.view.you === null || this.view.you === undefined) msg.name = localStorage.getItem('carc.name') || undefined;
    this.send(msg);
    input.value = '';
  }

  onMessage(m) {
    if (m.type === 'chat') {
      const fresh = !this.lines.has(m.n);
      this.add(m);
      // on a phone the chat is in the sheet, in one column it may be scrolled
      // under the log: while it is out of sight, another's line shows as a
      // toast, and the unread mark counts it until the chat is seen
      const li = this.lines.get(m.n)?.li;
      if (fresh && li && m.seat !== this.view.you && !this.inSight()) {
        toast(`${li.querySelector('.who').textContent}: ${li.querySelector('.text').textContent}`, 'info', 'chat');
        this.setUnread(this.unread + 1);
      }
    }
    else if (m.type === 'state' || m.type === 'table') this.paint();
  }
}

// The rematch: a button with the final scores, the invitation to the others.
export class Rematch {
  constructor(view) {
    this.view = view; this.invite = null;
    this.banner = el('div', 'rematch-invite hidden');
    this.banner.dataset.testid = 'rematch-invite';
    view.node.querySelector('.board-wrap').appendChild(this.banner);
    this.banner.addEventListener('click', (e) => { if (e.target.closest('[data-rematch]')) this.ask(); });
    // game.js redraws the final box as it likes: the button goes back in each time
    const box = view.node.querySelector('.final-box');
    this.obs = new MutationObserver(() => this.button());
    this.obs.observe(box, { childList: true });
    box.addEventListener('click', (e) => { if (e.target.closest('[data-rematch]')) this.ask(); });
    // a seat taken by this account in another browser: a link to it (issue 22)
    import('./account.js').then((a) => a.currentAccount()).then((me) => { this.me = me; this.paintInvite(); }).catch(() => {});
  }
  destroy() { this.obs.disconnect(); }
  relang() {
    this.view.node.querySelector('.final-box .rematch-bar')?.remove();
    this.button();
    this.paintInvite();
  }

  mine() { const v = this.view; return !v.replay && v.you !== null && v.you !== undefined && v.table?.status === 'over'; }

  button() {
    const card = this.view.node.querySelector('.final-box .card');
    if (!card || card.querySelector('.rematch-bar') || !this.mine()) return;
    const bar = el('p', 'rematch-bar');
    const b = el('button', 'primary', t('rematch.button'));
    b.type = 'button'; b.dataset.rematch = '1'; b.dataset.testid = 'rematch';
    bar.appendChild(b);
    card.appendChild(bar);
  }

  // the seat this browser would take at the rematch, and whether it is free
  paintInvite() {
    const v = this.view, inv = this.invite;
    if (!inv || !this.mine()) { this.banner.classList.add('hidden'); return; }
    const n = inv.seats.length;
    const mySeat = inv.seats.find((s) => s.from === v.you);
    if (mySeat?.taken && !seats.get(inv.rematch) && this.me && mySeat.kind === 'human' && mySeat.name === this.me.name) {
      const a = el('a', 'button primary', t('rematch.open'));
      a.href = `/?table=${inv.rematch}`; a.dataset.testid = 'rematch-open';
      this.banner.replaceChildren(el('span', '', t('rematch.elsewhere')), document.createTextNode(' '), a);
      this.banner.classList.remove('hidden');
      return;
    }
    if (seats.get(inv.rematch) || !mySeat || mySeat.taken) {
      this.banner.classList.add('hidden');
      return;
    }
    const by = inv.seats.find((s) => s.taken && s.kind === 'human');
    const msg = el('span', '', by ? t('rematch.invite', { name: by.name }) : t('rematch.invite.any'));
    const b = el('button', 'primary', t('rematch.accept'));
    b.type = 'button'; b.dataset.rematch = '1'; b.dataset.testid = 'rematch-accept';
    this.banner.replaceChildren(msg, document.createTextNode(' '), b);
    this.banner.classList.remove('hidden');
    void n;
  }

  async ask() {
    const v = this.view;
    const held = pnp.get(v.id);
    if (held && Object.keys(held).length > 1) {
      // pass-and-play: every seat this browser holds goes to the rematch
      let first = null;
      for (const [seat, token] of Object.entries(held)) {
        try {
          const r = await postJson(`/api/tables/${v.id}/rematch`, { token });
          pnp.add(r.id, r.seat, r.token);
          if (!first || Number(seat) === v.you) first = r;
        } catch (e) { if (e.code !== 'seat_taken') toast(tOr(`err.${e.code}`, e.message), 'error'); }
      }
      if (first) { seats.set(first.id, first.seat, first.token); location.assign(`/?table=${first.id}`); }
      return;
    }
    if (this.invite && seats.get(this.invite.rematch)) { location.assign(`/?table=${this.invite.rematch}`); return; }
    if (!v.live?.send({ type: 'rematch' })) toast(t('err.network'), 'error');
  }

  onMessage(m) {
    const v = this.view;
    if (m.type === 'rematch' && m.table === v.id) { this.invite = m; this.paintInvite(); }
    else if (m.type === 'rematch_seat' && m.table === v.id) {
      seats.set(m.rematch, m.seat, m.token);
      location.assign(`/?table=${m.rematch}`);
    } else if (m.type === 'error' && m.code === 'seat_taken' && this.invite) {
      // taken by this browser, or by the account in another one: main.js
      // claims the account's seat when the rematch opens (issue 22)
      import('./account.js').then((a) => a.currentAccount()).then((me) => {
        if (me || seats.get(this.invite.rematch)) location.assign(`/?table=${this.invite.rematch}`);
      });
    } else if ((m.type === 'state' || m.type === 'table') && v.table?.rematch && !this.invite) {
      // after a reload: the invitation comes from the table's description
      getJson(`/api/tables/${v.table.rematch}`).then((nt) => {
        const n = nt.seats.length;
        this.invite = { table: v.id, rematch: nt.id, seats: nt.seats.map((s, j) => ({ seat: j, from: (j + 1) % n, kind: s.kind, name: s.name, taken: !s.reserved })) };
        this.paintInvite();
      }).catch(() => {});
    }
    if (m.type === 'state' || m.type === 'table') { this.button(); this.paintInvite(); }
  }
}

// Everything beside the table screen, for game.js: one object that gets
// every message after game.js has handled it.
export function mountSocial(view) {
  const parts = [new ChatBox(view), new PassPlay(view)];
  if (!view.replay) parts.push(new Rematch(view));
  let wasMine = false;
  // a language chosen at the table: every part says its words again
  const relang = () => { for (const p of parts) p.relang?.(); };
  window.addEventListener('langchange', relang);
  return {
    onMessage(m) {
      for (const p of parts) p.onMessage(m);
      const mine = view.myTurn?.() || false;
      if (mine && !wasMine && (m.type === 'move' || m.type === 'state')) notify.yourTurn(view.id);
      wasMine = mine;
    },
    destroy() { window.removeEventListener('langchange', relang); for (const p of parts) p.destroy?.(); },
  };
}
