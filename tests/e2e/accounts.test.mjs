// Accounts in the browser: two people register from the header, each plays a
// short game against a bot (one of them finishes it from a second browser
// where she logged in: the seat follows the account), and both find their
// ratings on the leaderboard and their profiles; a taken name is refused
// with a clear message.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, newPage, ready, createTable, waitTurnOrEnd, playTurn, isOver, shot, catalogue } from './lib.mjs';

const BASE = process.env.CARC_URL;
const PW = 'correct horse';
const en = catalogue('en');
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function account(page, act, name, password = PW) {
  await page.goto(BASE + '/');
  await ready(page);
  await page.click('[data-testid=login-open]');
  await page.fill('[data-testid=acc-name]', name);
  await page.fill('[data-testid=acc-password]', password);
  await page.click(`[data-testid=${act}]`);
  if (act !== 'register') return;
  // a new account is shown its recovery codes once (keep.test.mjs) before it goes on
  await page.waitForFunction(() => document.querySelector('[data-testid=codes-done]')
    || document.querySelector('[data-testid=account-error]')?.textContent);
  if (await page.locator('[data-testid=codes-done]').count()) await page.click('[data-testid=codes-done]');
}

async function loggedIn(page, name) {
  await page.waitForSelector('[data-testid=account-name]');
  await ready(page);
  assert.equal(await page.textContent('[data-testid=account-name]'), name);
}

async function playToEnd(page) {
  for (let guard = 0; guard < 20; guard++) {
    if (await waitTurnOrEnd(page) === 'over') return;
    await playTurn(page, { follower: true });
  }
  assert.ok(await isOver(page));
}

test('two players register, play against bots, and see their ratings', async () => {
  const suffix = Date.now().toString(36).slice(-5);
  const names = [`Alice ${suffix}`, `Bob ${suffix}`];
  const [alice, bob] = [await newPage(browser), await newPage(browser)];
  await account(alice, 'register', names[0]);
  await loggedIn(alice, names[0]);
  await account(bob, 'register', names[1]);
  await loggedIn(bob, names[1]);
  // the lobby's form has the account's name
  assert.equal(await alice.inputValue('[data-testid=my-name]'), names[0]);
  // a taken name, in another case, is refused with a message
  const eve = await newPage(browser);
  await account(eve, 'register', names[0].toUpperCase());
  await eve.waitForFunction(() => document.querySelector('[data-testid=account-error]')?.textContent);
  assert.equal(await eve.textContent('[data-testid=account-error]'), en['account.err.name_taken']);
  await account(eve, 'login', names[0], 'wrong password');
  await eve.waitForFunction((s) => document.querySelector('[data-testid=account-error]')?.textContent === s, en['account.err.bad_login']);

  // Bob plays a short game against the medium bot
  const bobTable = await createTable(bob, { name: names[1], seat2: 'bot:medium', pile: 'U:2, E:1', botDelay: 0 });
  await playToEnd(bob);
  // Alice makes a table against the random bot and finishes it from a
  // second browser where she logs in
  const aliceTable = await createTable(alice, { name: names[0], seat2: 'bot:random', pile: 'U:2, E:1', botDelay: 0 });
  const alice2 = await newPage(browser);
  await account(alice2, 'login', names[0].toLowerCase());
  await loggedIn(alice2, names[0]);
  await alice2.goto(`${BASE}/?table=${aliceTable}`);
  await ready(alice2);
  await playToEnd(alice2);
  for (const id of [bobTable, aliceTable]) {
    const st = await (await fetch(`${BASE}/api/tables/${id}`)).json();
    assert.equal(st.status, 'over');
  }

  // the leaderboard shows both, with a rating; the profile the game
  await bob.goto(BASE + '/?leaderboard');
  await ready(bob);
  await bob.waitForSelector('[data-testid=board-row]');
  const rows = await bob.$$eval('[data-testid=board-row]', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  for (const n of names) {
    const row = rows.find((r) => r[1] === n);
    assert.ok(row, `${n} on the leaderboard: ${JSON.stringify(rows)}`);
    assert.match(row[2], /^\d{3,4}$/);
    assert.equal(row[3], '1');
  }
  // the bots' fixed ratings, as the server lists them for its levels
  const levels = (await (await fetch(`${BASE}/api/options`)).json()).bot_levels.filter((l) => l.rating != null);
  assert.ok(levels.some((l) => l.level === 'expert'), JSON.stringify(levels));
  await bob.waitForFunction((n) => (document.querySelector('[data-testid=board-about]')?.textContent.match(/\d{4}/g) || []).length >= n, levels.length);
  const about = await bob.textContent('[data-testid=board-about]');
  for (const l of levels) assert.ok(about.includes(`${l.level} ${l.rating}`), `${l.level} ${l.rating} in "${about}"`);
  await shot(bob, 'accounts-leaderboard.png');
  await bob.click(`text=${names[0]}`);
  await bob.waitForSelector('[data-testid=profile]');
  assert.equal(await bob.locator('[data-testid=profile-game]').count(), 1);
  // the plural form for one ("one:{n} rated game|other:...")
  assert.ok((await bob.textContent('[data-testid=profile]')).includes(en['profile.games'].split('|').find((f) => f.startsWith('one:')).slice(4).replace('{n}', '1')));
  assert.match(await bob.textContent('[data-testid=bot-row]'), /1000/);
  await shot(bob, 'accounts-profile.png');
  // log out: the header offers to log in again
  await alice.goto(BASE + '/');
  await ready(alice);
  await alice.click('[data-testid=logout]');
  await alice.waitForSelector('[data-testid=login-open]');
  for (const p of [alice, alice2, bob, eve]) assert.deepEqual(p.errors, []);
});
