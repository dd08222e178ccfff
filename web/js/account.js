// Accounts: the log-in / register / log-out control in the header (with
// "forgot your password": a recovery code), the recovery codes shown once
// after registering, the account page (/?account: change the password, a
// new set of recovery codes, download my games, delete my account), and
// the session's account for the other screens (docs/protocol.md,
// "Accounts" and "Keeping an account"; docs/web.md, "Account page").
// The session is an HttpOnly cookie: this module only asks /api/session who it
// is (200 for a guest too, so that a guest's visit logs no error).
import { t, esc } from './i18n.js';
import { seats } from './api.js';
import { copyText } from './ui.js';

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
// Callers at once (the header, the lobby, the friends panel) share the one request.
let asking = null;
export async function currentAccount() {
  if (!known) {
    asking ||= req('GET', '/api/session').then((r) => {
      me = r.status === 200 ? r.data.account : null;
      known = true;
      if (me) localStorage.setItem('carc.name', me.name); // the lobby's and the join form's name
    });
    await asking;
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

// The seat token of table `id` again when the one this browser holds
// (`stale`) was replaced: the account's password was changed or the account
// recovered (the server said bad_token; docs/protocol.md, "Accounts"). The
// new token (kept in `seats`), or null for a guest or a seat it does not hold.
export async function reclaimSeat(id, stale) {
  if (!id || !(await currentAccount())) return null;
  const r = await req('POST', `/api/tables/${encodeURIComponent(id)}/claim`, {});
  if (r.status !== 200 || !r.data?.token || r.data.token === stale) return null;
  seats.set(id, r.data.seat, r.data.token);
  return r.data.token;
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
  let recovering = false; // the form asks for a recovery code instead

  const paint = () => {
    board.textContent = t('nav.leaderboard');
    if (me) {
      box.innerHTML = `<a class="me" href="/?player=${encodeURIComponent(me.name)}" data-testid="account-name">${esc(me.name)}</a> <a class="account-link" href="/?account" data-testid="nav-account">${t('keep.nav')}</a> <button type="button" class="logout" data-testid="logout">${t('account.logout')}</button>`;
      box.querySelector('.logout').addEventListener('click', async () => {
        await req('POST', '/api/account/logout', {});
        location.reload();
      });
      return;
    }
    box.innerHTML = `<button type="button" class="login-open" data-testid="login-open" aria-expanded="${open}">${t('account.login')}</button>${open ? (recovering ? recoverForm() : form()) : ''}`;
    box.querySelector('.login-open').addEventListener('click', () => { open = !open; recovering = false; paint(); box.querySelector('input')?.focus(); });
    const f = box.querySelector('form');
    if (!f) return;
    f.addEventListener('submit', (e) => e.preventDefault());
    f.querySelector('.recover-open, .recover-back')?.addEventListener('click', () => { recovering = !recovering; paint(); box.querySelector('input')?.focus(); });
    if (recovering) {
      f.querySelector('[data-act=recover]').addEventListener('click', async () => {
        const name = f.querySelector('[name=acc-name]').value.normalize('NFC').trim();
        const code = f.querySelector('[name=acc-code]').value.trim();
        const password = f.querySelector('[name=acc-new-password]').value;
        const err = f.querySelector('.account-error');
        err.textContent = '';
        if (!name || !code || !password) { err.textContent = t('keep.err.missing'); return; }
        const r = await req('POST', '/api/account/recover', { name, code, password });
        if (r.status === 200) {
          localStorage.setItem('carc.name', r.data.account.name);
          sessionStorage.setItem('carc.recovered', String(r.data.codes_left));
          location.href = '/?account';
        } else {
          err.textContent = errorText(r.data);
        }
      });
      return;
    }
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
          // a new account sees its recovery codes once, then the page goes on
          if (r.status === 201) showCodes(r.data.recovery_codes || [], () => location.reload(), true);
          else location.reload();
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
    <button type="button" class="linkish recover-open" data-testid="recover-open">${t('keep.forgot')}</button>
    <small>${t('account.rules')}</small></form>`;

  const recoverForm = () => `<form class="account-form card" data-testid="recover-form">
    <strong>${t('keep.recover.title')}</strong>
    <small>${t('keep.recover.about')}</small>
    <label>${t('account.name')} <input name="acc-name" autocomplete="username" maxlength="24" data-testid="rec-name"></label>
    <label>${t('keep.code')} <input name="acc-code" autocomplete="one-time-code" maxlength="40" spellcheck="false" autocapitalize="none" data-testid="rec-code"></label>
    <label>${t('keep.new_password')} <input name="acc-new-password" type="password" autocomplete="new-password" maxlength="128" data-testid="rec-password"></label>
    <p class="account-error" role="alert" data-testid="account-error"></p>
    <div class="row"><button type="submit" class="primary" data-act="recover" data-testid="recover">${t('keep.recover.go')}</button>
    <button type="button" class="recover-back">${t('keep.back')}</button></div></form>`;

  window.addEventListener('langchange', paint);
  paint();
  currentAccount().then(paint);
  if (sessionStorage.getItem('carc.deleted')) {
    // said once, on the page the deletion led to
    sessionStorage.removeItem('carc.deleted');
    const p = Object.assign(document.createElement('p'), { className: 'card keep-deleted', role: 'status' });
    p.dataset.testid = 'deleted-note';
    const say = () => { p.textContent = t('keep.del.done'); };
    say();
    window.addEventListener('langchange', say);
    document.querySelector('main')?.before(p);
  }
}

// The recovery codes, shown once over the page: the player writes them down
// (or copies or saves them) and says so; then `done` runs.
export function showCodes(codes, done, fresh = false) {
  const ov = document.createElement('div');
  ov.className = 'codes-overlay';
  ov.dataset.testid = 'codes-overlay';
  const paint = () => {
    ov.innerHTML = `<div class="card codes-card" role="dialog" aria-modal="true" aria-labelledby="codes-title">
      <h2 id="codes-title">${t('keep.codes.title')}</h2>
      <p>${t(fresh ? 'keep.codes.fresh' : 'keep.codes.new')}</p>
      ${codes.length ? `<ol class="codes" data-testid="recovery-codes" style="--rows: ${Math.ceil(codes.length / 2)}">${codes.map((c) => `<li><code>${esc(c)}</code></li>`).join('')}</ol>`
        : `<p class="account-error">${t('keep.codes.none')}</p>`}
      <p><strong>${t('keep.codes.once')}</strong></p>
      <div class="row">${codes.length ? `<button type="button" class="copy" data-testid="codes-copy">${t('keep.codes.copy')}</button>
      <button type="button" class="save" data-testid="codes-save">${t('keep.codes.save')}</button>` : ''}
      <button type="button" class="primary done" data-testid="codes-done">${t('keep.codes.done')}</button></div>
      <p class="codes-note" role="status"></p></div>`;
    const text = codes.join('\n') + '\n';
    ov.querySelector('.copy')?.addEventListener('click', async () => {
      // every code at once (the list is also there to select)
      if (await copyText(text)) ov.querySelector('.codes-note').textContent = t('keep.codes.copied');
    });
    ov.querySelector('.save')?.addEventListener('click', () => saveFile('carc-recovery-codes.txt', text, 'text/plain'));
    ov.querySelector('.done').addEventListener('click', () => { window.removeEventListener('langchange', paint); ov.remove(); done?.(); });
    ov.querySelector('.done').focus();
  };
  window.addEventListener('langchange', paint);
  document.body.append(ov);
  paint();
}

function saveFile(name, text, type) {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = Object.assign(document.createElement('a'), { href: url, download: name });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}

// Every finished game of the account, page by page (GET /api/me/records),
// as one JSON document {"format": "carc-records-1", "records": [...]}.
export async function downloadGames(onPage) {
  const records = [];
  let after = '';
  for (let page = 0; page < 1000; page++) {
    const r = await req('GET', `/api/me/records?limit=25${after ? `&after=${encodeURIComponent(after)}` : ''}`);
    if (r.status !== 200) return { error: r.data, records };
    records.push(...r.data.records);
    onPage?.(records.length);
    if (!r.data.next) break;
    after = r.data.next;
  }
  return { records };
}

// The account page: /?account.
export class AccountView {
  constructor(root) {
    this.root = root;
    this.note = {};  // section -> [message key or text, is error]
    this.left = null;
    this.langHandler = () => this.render();
    window.addEventListener('langchange', this.langHandler);
    this.loaded = this.load();
  }
  destroy() { window.removeEventListener('langchange', this.langHandler); }

  async load() {
    this.me = await currentAccount();
    if (this.me) {
      const r = await req('GET', '/api/me/recovery');
      if (r.status === 200) this.left = r.data.left;
    }
    const rec = sessionStorage.getItem('carc.recovered');
    if (rec !== null) {
      sessionStorage.removeItem('carc.recovered');
      this.note.password = [t('keep.recovered', { n: Number(rec) }), false];
    }
    this.render();
  }

  say(section, text, error = false) {
    this.note[section] = [text, error];
    const p = this.root.querySelector(`[data-note=${section}]`);
    if (p) { p.textContent = text; p.classList.toggle('account-error', error); }
  }

  render() {
    const me = this.me;
    if (!me) {
      this.root.innerHTML = `<section class="card account-page" data-testid="account-page"><h2>${t('keep.title')}</h2><p>${t('keep.login_first')}</p></section>`;
      return;
    }
    const note = (s) => { const n = this.note[s]; return `<p class="keep-note${n?.[1] ? ' account-error' : ''}" role="status" data-note="${s}">${n ? esc(n[0]) : ''}</p>`; };
    this.root.innerHTML = `<section class="account-page" data-testid="account-page">
      <h2>${t('keep.title')}: ${esc(me.name)}</h2>
      <form class="card keep-password" data-testid="keep-password">
        <h3>${t('keep.pw.title')}</h3>
        <p>${t('keep.pw.about')}</p>
        <label>${t('keep.current_password')} <input name="current" type="password" autocomplete="current-password" maxlength="128" data-testid="pw-current"></label>
        <label>${t('keep.new_password')} <input name="new" type="password" autocomplete="new-password" maxlength="128" data-testid="pw-new"></label>
        <button type="submit" class="primary" data-testid="pw-change">${t('keep.pw.go')}</button>${note('password')}
      </form>
      <form class="card keep-codes" data-testid="keep-codes">
        <h3>${t('keep.codes.title')}</h3>
        <p data-testid="codes-left">${this.left === null ? '' : t('keep.codes.left', { n: this.left })}</p>
        <p>${t('keep.codes.about')}</p>
        <label>${t('keep.current_password')} <input name="current" type="password" autocomplete="current-password" maxlength="128" data-testid="codes-password"></label>
        <button type="submit" data-testid="codes-make">${t('keep.codes.make')}</button>${note('codes')}
      </form>
      <div class="card keep-download">
        <h3>${t('keep.dl.title')}</h3>
        <p>${t('keep.dl.about')}</p>
        <button type="button" data-testid="download-games">${t('keep.dl.go')}</button>${note('download')}
      </div>
      <form class="card keep-delete" data-testid="keep-delete">
        <h3>${t('keep.del.title')}</h3>
        <p>${t('keep.del.about')}</p>
        <ul><li>${t('keep.del.gone')}</li><li>${t('keep.del.kept')}</li><li>${t('keep.del.playing')}</li><li>${t('keep.del.name')}</li></ul>
        <label>${t('keep.current_password')} <input name="current" type="password" autocomplete="current-password" maxlength="128" data-testid="del-password"></label>
        <label class="check"><input type="checkbox" name="sure" data-testid="del-sure"> ${t('keep.del.sure')}</label>
        <button type="submit" class="danger" data-testid="delete-account">${t('keep.del.go')}</button>${note('delete')}
      </form></section>`;
    const forms = this.root.querySelectorAll('form');
    for (const f of forms) f.addEventListener('submit', (e) => e.preventDefault());
    const [pw, codes, del] = forms;
    pw.querySelector('button').addEventListener('click', async () => {
      const password = pw.current.value, np = pw.new.value;
      if (!password || !np) return this.say('password', t('keep.err.missing'), true);
      const r = await req('POST', '/api/account/password', { password, new_password: np });
      if (r.status !== 200) return this.say('password', errorText(r.data), true);
      pw.reset();
      this.say('password', t('keep.pw.done'));
    });
    codes.querySelector('button').addEventListener('click', async () => {
      const password = codes.current.value;
      if (!password) return this.say('codes', t('keep.err.missing'), true);
      const r = await req('POST', '/api/me/recovery', { password });
      if (r.status !== 200) return this.say('codes', errorText(r.data), true);
      codes.reset();
      this.left = r.data.recovery_codes.length;
      this.note.codes = [t('keep.codes.made'), false];
      showCodes(r.data.recovery_codes, () => this.render());
    });
    this.root.querySelector('[data-testid=download-games]').addEventListener('click', async (e) => {
      e.target.disabled = true;
      this.say('download', t('keep.dl.busy', { n: 0 }));
      const out = await downloadGames((n) => this.say('download', t('keep.dl.busy', { n })));
      e.target.disabled = false;
      if (out.error) return this.say('download', errorText(out.error), true);
      const doc = { format: 'carc-records-1', account: me.name, downloaded: new Date().toISOString(), records: out.records };
      saveFile(`carc-games-${me.name.replace(/[^\p{L}\p{N}_-]+/gu, '_')}.json`, JSON.stringify(doc, null, 1), 'application/json');
      this.say('download', t('keep.dl.done', { n: out.records.length }));
    });
    del.querySelector('button').addEventListener('click', async () => {
      const password = del.current.value;
      if (!password) return this.say('delete', t('keep.err.missing'), true);
      if (!del.sure.checked) return this.say('delete', t('keep.del.tick'), true);
      const r = await req('POST', '/api/account/delete', { password });
      if (r.status !== 200) return this.say('delete', errorText(r.data), true);
      localStorage.removeItem('carc.name');
      sessionStorage.setItem('carc.deleted', '1');
      location.href = '/';
    });
  }
}
