// A rematch between two accounts with a clock (issue 22, defects 1 and 2):
// Alice and Bob register in two browser contexts, play a 0:30 + 1:00
// reserve game to its end (a short pile: the rating is checked by
// tests/py/test_rematch.py with the standard pile's rules), Alice asks for
// the rematch; Bob's second browser, where he only logged in, finds it in
// "my games" and picks up the seat kept for him; the rematch's clock shows
// the full 1:30 on both seats, and both accounts' "my games" list it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, newPage, ready, waitTurnOrEnd, playTurn, isOver, shot } from './lib.mjs';

const BASE = process.env.CARC_URL;
const PW = 'correct horse';
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function account(page, act, name) {
  await page.goto(BASE + '/');
  await ready(page);
  await page.click('[data-testid=login-open]');
  await page.fill('[data-testid=acc-name]', name);
  await page.fill('[data-testid=acc-password]', PW);
  await page.click(`[data-testid=${act}]`);
  if (act === 'register') {
    // a new account is shown its recovery codes once (keep.test.mjs) before it goes on
    await page.waitForFunction(() => document.querySelector('[data-testid=codes-done]')
      || document.querySelector('[data-testid=account-name]'));
    if (await page.locator('[data-testid=codes-done]').count()) await page.click('[data-testid=codes-done]');
  }
  await page.waitForSelector('[data-testid=account-name]');
  await ready(page);
}

const secs = (s) => { const [m, x] = s.trim().split(':').map(Number); return m * 60 + x; };

// both pages play whoever's turn it is until the game ends
async function playBoth(a, b) {
  for (let guard = 0; guard < 20; guard++) {
    const who = await Promise.race([
      waitTurnOrEnd(a).then((r) => [a, r]),
      waitTurnOrEnd(b).then((r) => [b, r]),
    ]);
    if (who[1] === 'over') break;
    await playTurn(who[0], { follower: true });
  }
  await a.waitForFunction(() => !document.querySelector('[data-testid=final]')?.classList.contains('hidden'), null, { timeout: 20000 });
  await b.waitForFunction(() => !document.querySelector('[data-testid=final]')?.classList.contains('hidden'), null, { timeout: 20000 });
  assert.ok(await isOver(a) && await isOver(b));
}

async function myGames(page, id) {
  await page.goto(BASE + '/?mygames');
  await ready(page);
  const row = page.locator(`[data-testid=mygame-${id}]`);
  await row.waitFor({ timeout: 15000 });
  return row;
}

test('a rematch with a clock keeps the reserve and is in both accounts\' games', async () => {
  const suffix = Date.now().toString(36).slice(-5);
  const [na, nb] = [`Alice ${suffix}`, `Bob ${suffix}`];
  const alice = await newPage(browser), bob = await newPage(browser), bob2 = await newPage(browser);
  await account(alice, 'register', na);
  await account(bob, 'register', nb);
  await account(bob2, 'login', nb.toLowerCase());

  // Alice's table: a friend's seat, the 0:30 + 1:00 clock, a short pile
  await alice.goto(BASE + '/');
  await ready(alice);
  await alice.selectOption('[data-testid=who-1]', 'friend');
  await alice.click('details.advanced summary');
  await alice.click('details.dev summary');
  await alice.fill('[data-testid=pile]', 'U:2, E:1');
  await alice.selectOption('[data-testid=clock-preset]', 'rt-30');
  await alice.click('[data-testid=create]');
  await alice.waitForURL(/\?table=[0-9a-f]{16}/);
  await ready(alice);
  const tid = new URL(alice.url()).searchParams.get('table');
  await bob.goto(`${BASE}/?table=${tid}`);
  await ready(bob);
  await bob.click('[data-testid=join]');
  await bob.waitForSelector('[data-testid=clock-1]');
  assert.equal(secs(await alice.locator('[data-testid=clock-1] .clock-time').textContent()), 90, 'the first game: 0:30 + 1:00');
  await playBoth(alice, bob);

  // Alice asks for the rematch and sits down in it
  await alice.click('[data-testid=rematch]');
  await alice.waitForURL((u) => u.searchParams.get('table') && u.searchParams.get('table') !== tid);
  await ready(alice);
  const nid = new URL(alice.url()).searchParams.get('table');
  // Bob's first browser is invited
  await bob.waitForSelector('[data-testid=rematch-invite]:not(.hidden) [data-testid=rematch-accept]');
  // a stranger's lobby: the rematch's seats are kept, so it offers no "Join"
  const guest = await newPage(browser);
  await guest.goto(BASE + '/');
  await ready(guest);
  await guest.waitForSelector(`[data-testid=kept-${nid}]`);
  assert.equal(await guest.locator(`[data-testid=join-${nid}]`).count(), 0);
  await guest.context().close();

  // Bob's second browser never saw the first game: "my games" has the rematch
  const row = await myGames(bob2, nid);
  await shot(bob2, 'rematch-mygames.png');
  await row.locator('a').click();
  await bob2.waitForURL(new RegExp(`table=${nid}`));
  await ready(bob2);
  // the seat kept for him is his in this browser: the game starts, he is seat 0
  await bob2.waitForFunction(() => window.carcView?.you === 0 && window.carcView?.table?.status === 'playing', null, { timeout: 15000 });
  await alice.waitForFunction(() => window.carcView?.table?.status === 'playing', null, { timeout: 15000 });
  // defect 1: the full clock on both seats (the running one counts down from 1:30)
  for (const p of [alice, bob2]) {
    await p.waitForSelector('[data-testid=clock-0].running');
    const c0 = secs(await p.locator('[data-testid=clock-0] .clock-time').textContent());
    const c1 = secs(await p.locator('[data-testid=clock-1] .clock-time').textContent());
    assert.ok(c0 > 80 && c0 <= 90, `the seat to move has its reserve: ${c0} s`);
    assert.equal(c1, 90, 'the other seat: 0:30 + 1:00');
    const clock = await p.evaluate(() => window.carcView.clock.clock);
    assert.deepEqual(clock.seats.map((s) => s.reserve_ms), [60000, 60000]);
  }
  await shot(bob2, 'rematch-clock.png');
  // Bob's first browser, still at the old table: his seat was taken by his
  // account elsewhere, so the invitation becomes a link to the rematch
  await bob.waitForSelector('[data-testid=rematch-invite]:not(.hidden) [data-testid=rematch-open]');
  assert.equal(await bob.locator('[data-testid=rematch-accept]').count(), 0);
  await shot(bob, 'rematch-elsewhere.png');
  // the rematch is in both accounts' games
  for (const p of [alice, bob]) {
    const r = await myGames(p, nid);
    assert.match(await r.textContent(), new RegExp(nb));
  }
  // Bob's first browser opens it and holds the same seat (the account's)
  await bob.goto(`${BASE}/?table=${tid}`);
  await ready(bob);
  await bob.click('[data-testid=rematch-open]');
  await bob.waitForURL(new RegExp(`table=${nid}`));
  await ready(bob);
  await bob.waitForFunction(() => window.carcView?.you === 0, null, { timeout: 15000 });
  for (const p of [alice, bob, bob2]) assert.deepEqual(p.errors, []);
  for (const p of [alice, bob, bob2]) await p.context().close();
});
