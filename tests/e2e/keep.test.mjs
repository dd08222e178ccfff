// Accounts people can keep, in the browser (issue 22, item 5): a new account
// registers and is shown its recovery codes once, plays a short game, logs
// out, sets a new password with a code, changes the password on the account
// page, downloads its games (a file of records the engine's checker
// accepts), and deletes the account; at 1280x800 and on a phone (390x844,
// touch), with no sideways scrolling on the phone. A game left open in one
// tab while the password is changed in another gets its seat back (issue
// 26: the change replaces every seat token of the account).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { launch, newPage, ready, register, createTable, waitTurnOrEnd, playTurn, isOver, shot, catalogue, CARC, ART, DESK } from './lib.mjs';

const BASE = process.env.CARC_URL;
const en = catalogue('en');
const PW = 'correct horse', PW2 = 'battery staple 42', PW3 = 'third time lucky';
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// On a narrow screen the header's items are in the menu.
async function openMenu(page) {
  if (await page.locator('[data-testid=menu]').isVisible() && !(await page.locator('.top.menu-open').count())) {
    await page.click('[data-testid=menu]');
    await page.waitForSelector('.top.menu-open nav');
  }
}

async function noSideways(page, width) {
  if (width > 500) return;
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= width, `page width ${wide} on a ${width} px screen`);
}

async function playToEnd(page) {
  for (let guard = 0; guard < 20; guard++) {
    if (await waitTurnOrEnd(page) === 'over') return;
    await playTurn(page, { follower: true });
  }
  assert.ok(await isOver(page));
}

const SIZES = [['desktop', { width: 1280, height: 800 }, {}], ['phone', { width: 390, height: 844 }, { isMobile: true, hasTouch: true }]];

for (const [label, viewport, extra] of SIZES) {
  test(`a new account keeps itself: codes, recovery, password, download, deletion (${label})`, async () => {
    const name = `Keeper ${label.slice(0, 2)}${Date.now().toString(36).slice(-5)}`;
    const page = await newPage(browser, { viewport, ...extra });
    await page.goto(BASE + '/');
    await ready(page);
    // register: the codes are shown once, over the page
    await openMenu(page);
    await page.click('[data-testid=login-open]');
    await page.fill('[data-testid=acc-name]', name);
    await page.fill('[data-testid=acc-password]', PW);
    await page.click('[data-testid=register]');
    await page.waitForSelector('[data-testid=recovery-codes]');
    const codes = await page.$$eval('[data-testid=recovery-codes] code', (cs) => cs.map((c) => c.textContent));
    assert.equal(codes.length, 8);
    for (const c of codes) assert.match(c, /^[2-9a-hjkmnp-z]{4}(-[2-9a-hjkmnp-z]{4}){3}$/);
    const box = await page.locator('.codes-card').boundingBox();
    assert.ok(box.x >= 0 && box.x + box.width <= viewport.width, JSON.stringify(box));
    await noSideways(page, viewport.width);
    await shot(page, `keep-codes-${label}.png`);
    await page.click('[data-testid=codes-done]');
    await page.waitForSelector('[data-testid=account-name]', { state: 'attached' });
    await ready(page);
    // never shown again: not on the account page
    await page.goto(BASE + '/?account');
    await ready(page);
    await page.waitForFunction(() => document.querySelector('[data-testid=codes-left]')?.textContent);
    assert.equal(await page.textContent('[data-testid=codes-left]'), en['keep.codes.left'].replace('{n}', '8'));
    assert.ok(!(await page.content()).includes(codes[0]));

    // a short game against a bot, to download later
    const table = await createTable(page, { name, seat2: 'bot:random', pile: 'U:2, E:1', botDelay: 0 });
    await playToEnd(page);

    // log out, then a new password with a code
    await openMenu(page);
    await page.click('[data-testid=logout]');
    await page.waitForSelector('[data-testid=login-open]', { state: 'attached' });
    await ready(page);
    await openMenu(page);
    await page.click('[data-testid=login-open]');
    await page.click('[data-testid=recover-open]');
    await page.fill('[data-testid=rec-name]', name);
    await page.fill('[data-testid=rec-code]', '2222-2222-2222-2222');
    await page.fill('[data-testid=rec-password]', PW2);
    await page.click('[data-testid=recover]');
    await page.waitForFunction((s) => document.querySelector('[data-testid=account-error]')?.textContent === s, en['account.err.bad_recovery']);
    await page.fill('[data-testid=rec-code]', codes[2].toUpperCase());
    await noSideways(page, viewport.width);
    await shot(page, `keep-recover-${label}.png`);
    await page.click('[data-testid=recover]');
    await page.waitForURL(/\?account$/);
    await ready(page);
    await page.waitForSelector('[data-testid=keep-password]');
    await page.waitForFunction((s) => document.querySelector('[data-note=password]')?.textContent === s,
      en['keep.recovered'].replace('{n}', '7'));
    assert.equal(await page.textContent('[data-testid=codes-left]'), en['keep.codes.left'].replace('{n}', '7'));

    // change the password (the current one is needed)
    await page.fill('[data-testid=pw-current]', PW);
    await page.fill('[data-testid=pw-new]', PW3);
    await page.click('[data-testid=pw-change]');
    await page.waitForFunction((s) => document.querySelector('[data-note=password]')?.textContent === s, en['account.err.bad_login']);
    await page.fill('[data-testid=pw-current]', PW2);
    await page.fill('[data-testid=pw-new]', PW3);
    await page.click('[data-testid=pw-change]');
    await page.waitForFunction((s) => document.querySelector('[data-note=password]')?.textContent === s, en['keep.pw.done']);
    const login = async (pw) => (await page.request.post(`${BASE}/api/account/login`, {
      data: { name, password: pw }, headers: { Origin: BASE } })).status();
    assert.equal(await login(PW2), 401);

    // download my games: one JSON file of records that replay
    const [dl] = await Promise.all([page.waitForEvent('download'), page.click('[data-testid=download-games]')]);
    const file = path.join(ART, `keep-games-${label}.json`);
    await dl.saveAs(file);
    const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
    assert.equal(doc.format, 'carc-records-1');
    assert.equal(doc.records.length, 1);
    assert.equal(doc.records[0].table, table);
    const one = path.join(ART, `keep-record-${label}.json`);
    fs.writeFileSync(one, JSON.stringify(doc.records[0]));
    const rp = spawnSync(CARC, ['replay', '--json', one], { encoding: 'utf8' });
    assert.equal(rp.status, 0, rp.stdout + rp.stderr);
    assert.equal(JSON.parse(rp.stdout).ok, true);
    await page.waitForFunction((s) => document.querySelector('[data-note=download]')?.textContent === s, en['keep.dl.done'].split('|')[0].replace(/^one:/, '').replace('{n}', '1'));
    await noSideways(page, viewport.width);
    await shot(page, `keep-account-${label}.png`);

    // delete the account: the password and the box are needed
    await page.fill('[data-testid=del-password]', PW3);
    await page.click('[data-testid=delete-account]');
    await page.waitForFunction((s) => document.querySelector('[data-note=delete]')?.textContent === s, en['keep.del.tick']);
    await page.check('[data-testid=del-sure]');
    await page.click('[data-testid=delete-account]');
    await page.waitForURL((u) => u.pathname === '/' && !u.search);
    await ready(page);
    await page.waitForSelector('[data-testid=deleted-note]');
    assert.equal(await page.textContent('[data-testid=deleted-note]'), en['keep.del.done']);
    await page.waitForSelector('[data-testid=login-open]', { state: 'attached' });
    assert.equal(await login(PW3), 401);
    // the finished game stays, with a neutral name in the seat
    const info = await (await fetch(`${BASE}/api/tables/${table}`)).json();
    assert.equal(info.status, 'over');
    assert.equal(info.seats[0].name, '(deleted player)');
    await noSideways(page, viewport.width);
    await shot(page, `keep-deleted-${label}.png`);
    // the seat's neutral name in the reader's language (German here)
    await page.evaluate(() => localStorage.setItem('carc.lang', 'de'));
    await page.goto(`${BASE}/?replay=${table}`);
    await ready(page);
    await page.waitForFunction((s) => document.querySelector('main').textContent.includes(s), catalogue('de')['keep.anon']);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
}

test('a game tab claims its seat again when the password changes in another tab', async () => {
  const name = `Rekey ${Date.now().toString(36).slice(-5)}`;
  const page = await newPage(browser, DESK);
  await register(page, name);
  const table = await createTable(page, { name, seat2: 'bot:random', botDelay: 0 });
  const held = () => page.evaluate((id) => JSON.parse(localStorage.getItem('carc.seats') || '{}')[id]?.token, table);
  const before = await held();
  assert.ok(before);
  assert.equal(await waitTurnOrEnd(page), 'mine');
  // another tab of this browser changes the password: every token of the
  // account is replaced, this tab's connection is told bad_token
  const st = (await page.request.post(`${BASE}/api/account/password`, {
    data: { password: PW, new_password: PW2 }, headers: { Origin: BASE } })).status();
  assert.equal(st, 200);
  await page.waitForFunction(([id, old]) => {
    const s = JSON.parse(localStorage.getItem('carc.seats') || '{}')[id];
    return s && s.token !== old;
  }, [table, before]);
  // the tab holds its seat with the new token and plays on
  assert.equal(await waitTurnOrEnd(page), 'mine');
  await playTurn(page, { follower: false });
  const info = await (await fetch(`${BASE}/api/tables/${table}/state`, { headers: { Authorization: `Bearer ${await held()}` } })).json();
  assert.equal(info.you?.seat, 0);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
