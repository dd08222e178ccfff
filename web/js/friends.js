// Friends (docs/protocol.md "Friends"): the lobby's panel (invites to a
// table with "Take the seat", friend requests to answer, friends online or
// playing with a link to watch, requests sent, blocked accounts), the
// "invite" box of a table's waiting screen, and the invites for "my games".
// Everything comes from GET /api/friends, asked every REFRESH_MS while the
// panel is shown (that also tells the server this account is online). A new
// invite raises a browser notification when the player switched them on
// (notify.js) and the tab is hidden.
import { seats } from './api.js';
import { t, tOr, esc } from './i18n.js';
import { toast } from './ui.js';
import { notify } from './notify.js';
import { currentAccount } from './account.js';

const REFRESH_MS = 10000;
const NAME_MAX = 24; // accounts.h ACC_NAME_MAX (characters)

async function call(method, path, body) {
  let r;
  try {
    r = await fetch(path, { method, credentials: 'same-origin', headers: body ? { 'Content-Type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined });
  } catch (e) {
    return { status: 0, data: { error: { code: 'network', message: e.message } } };
  }
  let data = null;
  try { data = await r.json(); } catch { data = null; }
  return { status: r.status, data };
}

export const friendsApi = {
  list: () => call('GET', '/api/friends'),
  act: (verb, body) => call('POST', `/api/friends/${verb}`, body),
};

function errText(data) {
  const code = data?.error?.code || 'network';
  return tOr(`friends.err.${code}`, tOr(`err.${code}`, data?.error?.message || code));
}

// "Invite" beside a friend online: the server invites only to an open seat
// of a table one sits at (docs/protocol.md, "Friends"), so a table for two
// is made (this account and an open seat), the friend invited to it, and
// the page goes to its waiting screen, where the link and the invite box are.
async function inviteToNewTable(id, name) {
  const me = await currentAccount();
  if (!me) return;
  const r = await call('POST', '/api/tables', { players: 2, name: me.name, seats: [{}, {}] });
  if (r.status !== 201) { toast(errText(r.data), 'error'); return; }
  seats.set(r.data.id, r.data.seat, r.data.token);
  const v = await friendsApi.act('invite', { table: r.data.id, id });
  if (v.status === 200) sessionStorage.setItem('carc.invited', name); // told on the waiting screen (mountInvite)
  else toast(errText(v.data), 'error');
  location.href = `/?table=${encodeURIComponent(r.data.id)}`;
}

// Takes the seat an invite offers, as the account, then opens the table.
export async function takeSeat(table) {
  const me = await currentAccount();
  const r = await call('POST', `/api/tables/${encodeURIComponent(table)}/join`, { name: me?.name || t('player.guest') });
  if (r.status !== 200) { toast(errText(r.data), 'error'); return false; }
  seats.set(table, r.data.seat, r.data.token);
  location.href = `/?table=${encodeURIComponent(table)}`;
  return true;
}

// invites already told about (a notification once per invite and page)
const told = new Set(JSON.parse(sessionStorage.getItem('carc.invites.told') || '[]'));
function tellNew(invites) {
  for (const v of invites) {
    if (told.has(v.id)) continue;
    told.add(v.id);
    if (notify.on && document.hidden) {
      try {
        const n = new Notification(t('notify.invite.title'), { body: t('notify.invite.body', { name: v.from.name }), tag: `carc-invite-${v.id}`, icon: '/favicon.svg' });
        n.onclick = () => { window.focus(); n.close(); };
      } catch { /* some browsers only notify from a service worker */ }
    }
  }
  sessionStorage.setItem('carc.invites.told', JSON.stringify([...told].slice(-200)));
}

// The lobby's panel. attach(el) after every redraw of the lobby.
export class FriendsPanel {
  constructor() {
    this.data = null;
    this.me = undefined;
    this.el = null;
    this.typed = '';
    this.loaded = this.load();
    this.timer = setInterval(() => this.load(), REFRESH_MS);
  }
  destroy() { clearInterval(this.timer); }
  // el: the panel; top: where invites show, at the top of the lobby (on a
  // phone the panel is far down the page)
  attach(el, top) { this.el = el; this.top = top; this.render(); }

  async load() {
    if (this.me === undefined) this.me = await currentAccount();
    if (!this.me) { this.render(); return; }
    const r = await friendsApi.list();
    if (r.status === 200) {
      this.data = r.data;
      tellNew(r.data.invites || []);
    }
    this.render();
  }

  async act(verb, body, done) {
    const r = await friendsApi.act(verb, body);
    if (r.status !== 200) toast(errText(r.data), 'error');
    else if (done) toast(done(r.data));
    await this.load();
  }

  personRow(p, kind) {
    const nm = esc(p.name);
    const b = (act, label) => `<button type="button" class="linkish" data-act="${act}" data-id="${p.id}" data-name="${nm}">${t(label)}</button>`;
    if (kind === 'friends') {
      const state = p.playing ? 'playing' : p.online ? 'online' : 'offline';
      const watch = p.game ? ` <a href="/?table=${esc(p.game)}" data-testid="watch">${t('friends.watch')}</a>` : '';
      const invite = state === 'online' ? `<button type="button" class="primary" data-act="invite-new" data-id="${p.id}" data-name="${nm}" data-testid="friend-invite" title="${esc(t('friends.invite.new', { name: p.name }))}">${t('friends.invite.button')}</button> ` : '';
      return `<li class="person" data-testid="friend" data-name="${nm}" data-state="${state}"><span class="dot ${state === 'offline' ? 'off' : 'on'}" aria-hidden="true"></span> <a href="/?player=${encodeURIComponent(p.name)}">${nm}</a> <span class="hint">${t(`friends.${state}`)}</span>${watch} <span class="acts">${invite}${b('remove', 'friends.remove')} ${b('block', 'friends.block')}</span></li>`;
    }
    if (kind === 'incoming') return `<li class="person" data-testid="incoming" data-name="${nm}">${t('friends.wants', { name: nm })} <span class="acts"><button type="button" class="primary" data-act="accept" data-id="${p.id}" data-name="${nm}">${t('friends.accept')}</button> ${b('decline', 'friends.decline')} ${b('block', 'friends.block')}</span></li>`;
    if (kind === 'outgoing') return `<li class="person" data-testid="outgoing" data-name="${nm}">${nm} <span class="hint">${t('friends.waiting')}</span> <span class="acts">${b('remove', 'friends.cancel')}</span></li>`;
    return `<li class="person" data-testid="blocked" data-name="${nm}">${nm} <span class="acts">${b('unblock', 'friends.unblock')}</span></li>`;
  }

  render() {
    const el = this.el;
    if (!el) return;
    const input = el.querySelector('[data-testid=friend-name]');
    if (input) this.typed = input.value;
    const focused = input && document.activeElement === input;
    let h = `<h2 id="friends-h">${t('friends.title')}</h2>`;
    const d = this.data;
    if (this.me === null) {
      h += `<p class="hint">${t('friends.login')}</p>`;
    } else if (!d) {
      h += '<p class="loading">…</p>';
    } else {
      h += `<form class="friend-add row" data-testid="friend-add-form"><input data-testid="friend-name" maxlength="${NAME_MAX}" autocomplete="off" placeholder="${t('friends.name')}" aria-label="${t('friends.name')}"><button type="submit" data-testid="friend-add">${t('friends.add')}</button></form>`;
      if (d.incoming.length) h += `<h3>${t('friends.incoming')}</h3><ul class="list">${d.incoming.map((p) => this.personRow(p, 'incoming')).join('')}</ul>`;
      h += `<h3>${t('friends.list')}</h3><ul class="list" data-testid="friends-list">${d.friends.map((p) => this.personRow(p, 'friends')).join('') || `<li class="hint">${t('friends.none')}</li>`}</ul>`;
      if (d.outgoing.length) h += `<h3>${t('friends.outgoing')}</h3><ul class="list">${d.outgoing.map((p) => this.personRow(p, 'outgoing')).join('')}</ul>`;
      if (d.blocked.length) h += `<details class="blocked"><summary>${t('friends.blocked', { n: d.blocked.length })}</summary><p class="hint">${t('friends.blocked.hint')}</p><ul class="list">${d.blocked.map((p) => this.personRow(p, 'blocked')).join('')}</ul></details>`;
    }
    el.innerHTML = h;
    const inv = d?.invites || [];
    if (this.top) {
      this.top.classList.toggle('hidden', !inv.length);
      this.top.innerHTML = inv.length ? `<h2>${t('friends.invites')}</h2><ul class="list invites" data-testid="invites">${inv.map((v) => `<li class="invite-row" data-testid="invite" data-table="${esc(v.table)}">${t('friends.invite.from', { name: esc(v.from.name) })} <span class="acts"><button type="button" class="primary" data-act="take" data-table="${esc(v.table)}" data-testid="take-seat">${t('friends.take')}</button> <button type="button" class="linkish" data-act="dismiss" data-invite="${v.id}">${t('friends.dismiss')}</button></span></li>`).join('')}</ul>` : '';
    }
    const again = el.querySelector('[data-testid=friend-name]');
    if (again) { again.value = this.typed; if (focused) again.focus(); }
    el.querySelector('form')?.addEventListener('submit', (e) => {
      e.preventDefault();
      const name = again.value.normalize('NFC').trim();
      if (!name) return;
      again.value = ''; this.typed = '';
      this.act('request', { name }, (r) => t(r.outcome === 'friends' ? 'friends.now' : 'friends.sent', { name: r.account?.name || name }));
    });
    for (const b of [...el.querySelectorAll('button[data-act]'), ...(this.top?.querySelectorAll('button[data-act]') || [])]) {
      b.addEventListener('click', () => {
        const act = b.dataset.act;
        if (act === 'take') takeSeat(b.dataset.table);
        else if (act === 'dismiss') this.act('dismiss', { invite: Number(b.dataset.invite) });
        else if (act === 'invite-new') { b.disabled = true; inviteToNewTable(Number(b.dataset.id), b.dataset.name).finally(() => { b.disabled = false; }); }
        else this.act(act, { id: Number(b.dataset.id) }, act === 'accept' ? () => t('friends.now', { name: b.dataset.name }) : null);
      });
    }
  }
}

// The waiting screen of a table this browser sits at: invite an account
// (a friend in one click, anyone by name) to an open seat.
let friendsCache = null, friendsAt = 0;
export async function mountInvite(box, table) {
  if (!box || !(await currentAccount())) return;
  // the lobby's "Invite" made this table and invited a friend: said here, where the page went
  const invited = sessionStorage.getItem('carc.invited');
  if (invited) { sessionStorage.removeItem('carc.invited'); toast(t('friends.invite.sent', { name: invited })); }
  const div = document.createElement('div');
  div.className = 'invite-friends';
  div.dataset.testid = 'invite-friends';
  box.append(div);
  if (!friendsCache || Date.now() - friendsAt > REFRESH_MS) {
    const r = await friendsApi.list();
    friendsCache = r.status === 200 ? r.data.friends : [];
    friendsAt = Date.now();
  }
  const send = async (body, name) => {
    const r = await friendsApi.act('invite', { table, ...body });
    toast(r.status === 200 ? t('friends.invite.sent', { name }) : errText(r.data), r.status === 200 ? 'info' : 'error');
  };
  div.innerHTML = `<h3>${t('friends.invite.title')}</h3><p class="hint">${t('friends.invite.hint')}</p>
    <ul class="list">${friendsCache.map((p) => `<li data-testid="invite-friend" data-name="${esc(p.name)}"><span class="dot ${p.online ? 'on' : 'off'}" aria-hidden="true"></span> ${esc(p.name)} <button type="button" data-id="${p.id}" data-name="${esc(p.name)}">${t('friends.invite.button')}</button></li>`).join('')}</ul>
    <form class="row"><input maxlength="${NAME_MAX}" placeholder="${t('friends.name')}" aria-label="${t('friends.name')}" data-testid="invite-name"><button type="submit">${t('friends.invite.button')}</button></form>`;
  for (const b of div.querySelectorAll('li button')) b.addEventListener('click', () => send({ id: Number(b.dataset.id) }, b.dataset.name));
  const f = div.querySelector('form');
  f.addEventListener('submit', (e) => {
    e.preventDefault();
    const name = f.querySelector('input').value.normalize('NFC').trim();
    if (name) send({ name }, name);
  });
}

// For "my games": the invites of the logged-in account ([] for a guest).
export async function myInvites() {
  if (!(await currentAccount())) return []; // a guest has no friends' invites (and no 401 to log)
  const r = await friendsApi.list();
  return r.status === 200 ? r.data.invites || [] : [];
}
