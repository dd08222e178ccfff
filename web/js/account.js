// Accounts: the log-in / register / log-out control in the header, and the
// session's account for the other screens (docs/protocol.md, "Accounts").
// The session is an HttpOnly cookie: this module only asks /api/me who it is.
import { t, esc } from './i18n.js';
import { seats } from './api.js';

let me = null;       // {id, name, rating, rd, games} or null (a guest)
let known = false;

async function req(method, path, body) {
  let r;
  try {
    // a POST always has a body (the server wants JSON)
    r = await fetch(path, { method, headers: body ? { 'Content-Type': 'application/json' } : {}, body: body ? JSON.stringify(body) : undefined, credentials: 'same-origin' });
  } catch (e) {
    return { status: 0, data: { error: { code: 'network', message: e.message } } };
  }
  let data = null;
  try { data = await r.json(); } catch { data = null; }
  return { status: r.status, data };
}

// Who is logged in (null: nobody); asks the server once per page.
export async function currentAccount() {
  if (!known) {
    const r = await req('GET', '/api/me');
    me = r.status === 200 ? r.data.account : null;
    known = true;
    if (me) localStorage.setItem('carc.name', me.name); // the lobby's and the join form's name
  }
  return me;
}

// A second browser of the same account: the seat token of table `id`, when
// the account holds a seat there and this browser does not know it yet.
export async function claimSeat(id) {
  if (!id || seats.get(id) || !(await currentAccount())) return;
  const r = await req('POST', `/api/tables/${encodeURIComponent(id)}/claim`, {});
  if (r.status === 200) seats.set(id, r.data.seat, r.data.token);
}

function errorText(data) {
  const code = data?.error?.code || 'http';
  const key = `account.err.${code}`;
  const s = t(key);
  return s === key ? (data?.error?.message || code) : s;
}

export function mountAccount(nav) {
  const box = document.createElement('span');
  box.className = 'account';
  const board = document.createElement('a');
  board.className = 'leaderboard-link';
  board.href = '/?leaderboard';
  board.dataset.testid = 'nav-leaderboard';
  // the header: my games, leaderboard, help (links), then the account, then the buttons
  const help = nav.querySelector('.help');
  if (help) { help.before(board); help.after(box); } else nav.prepend(box, board);
  let open = false;

  const paint = () => {
    board.textContent = t('nav.leaderboard');
    if (me) {
      box.innerHTML = `<a class="me" href="/?player=${encodeURIComponent(me.name)}" data-testid="account-name">${esc(me.name)}</a> <button type="button" class="logout" data-testid="logout">${t('account.logout')}</button>`;
      box.querySelector('.logout').addEventListener('click', async () => {
        await req('POST', '/api/account/logout', {});
        location.reload();
      });
      return;
    }
    box.innerHTML = `<button type="button" class="login-open" data-testid="login-open" aria-expanded="${open}">${t('account.login')}</button>${open ? form() : ''}`;
    box.querySelector('.login-open').addEventListener('click', () => { open = !open; paint(); box.querySelector('input')?.focus(); });
    const f = box.querySelector('form');
    if (!f) return;
    f.addEventListener('submit', (e) => e.preventDefault());
    for (const b of f.querySelectorAll('button[data-act]')) {
      b.addEventListener('click', async () => {
        const name = f.querySelector('[name=acc-name]').value.normalize('NFC').trim();
        const password = f.querySelector('[name=acc-password]').value;
        const err = f.querySelector('.account-error');
        err.textContent = '';
        if (!name || !password) { err.textContent = t('account.err.missing'); return; }
        const r = await req('POST', `/api/account/${b.dataset.act}`, { name, password });
        if (r.status === 200 || r.status === 201) {
          localStorage.setItem('carc.name', r.data.account.name);
          location.reload();
        } else {
          err.textContent = errorText(r.data);
        }
      });
    }
  };

  const form = () => `<form class="account-form card" data-testid="account-form">
    <label>${t('account.name')} <input name="acc-name" autocomplete="username" maxlength="24" data-testid="acc-name"></label>
    <label>${t('account.password')} <input name="acc-password" type="password" autocomplete="current-password" maxlength="128" data-testid="acc-password"></label>
    <p class="account-error" role="alert" data-testid="account-error"></p>
    <div class="row"><button type="submit" class="primary" data-act="login" data-testid="login">${t('account.login')}</button>
    <button type="button" data-act="register" data-testid="register">${t('account.register')}</button></div>
    <small>${t('account.rules')}</small></form>`;

  window.addEventListener('langchange', paint);
  paint();
  currentAccount().then(paint);
}
