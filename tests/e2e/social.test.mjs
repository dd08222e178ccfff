// Friends in the browser (web/js/friends.js): two people in two browser
// contexts register, befriend each other from the lobby's panel, one makes a
// table and invites the other from its waiting screen, the other finds the
// invite in "my games" and in the lobby, takes the seat in one click, and
// both play a first move. At 1280x800 and on a phone (390x844, touch).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, newPage, ready, createTable, waitTurnOrEnd, playTurn, shot, catalogue } from './lib.mjs';

const BASE = process.env.CARC_URL;
const PW = 'correct horse';
const en = catalogue('en');
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function register(page, name) {
  await page.goto(BASE + '/');
  await ready(page);
  if (await page.locator('[data-testid=menu]').isVisible()) await page.click('[data-testid=menu]');
  await page.click('[data-testid=login-open]');
  await page.fill('[data-testid=acc-name]', name);
  await page.fill('[data-testid=acc-password]', PW);
  await page.click('[data-testid=register]');
  // a new account is shown its recovery codes once (keep.test.mjs) before it goes on
  await page.waitForFunction(() => document.querySelector('[data-testid=codes-done]')
    || document.querySelector('[data-testid=account-name]'));
  if (await page.locator('[data-testid=codes-done]').count()) await page.click('[data-testid=codes-done]');
  await page.waitForSelector('[data-testid=account-name]', { state: 'attached' });
  await ready(page);
}

async function lobby(page) {
  await page.goto(BASE + '/');
  await ready(page);
  await page.waitForSelector('[data-testid=friends-panel] [data-testid=friend-name]');
}

const SIZES = [
  ['desktop', { viewport: { width: 1280, height: 800 } }],
  ['phone', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }],
];

for (const [label, opts] of SIZES) {
  test(`two accounts befriend each other, one invites the other, both play (${label})`, async () => {
    const suffix = `${label[0]}${Date.now().toString(36).slice(-4)}`;
    const [na, nb] = [`Alice ${suffix}`, `Bob ${suffix}`];
    const alice = await newPage(browser, opts), bob = await newPage(browser, opts);
    await register(alice, na);
    await register(bob, nb);

    // Alice asks Bob from the lobby's panel
    await lobby(alice);
    await alice.fill('[data-testid=friend-name]', nb);
    await alice.click('[data-testid=friend-add]');
    await alice.waitForSelector(`[data-testid=outgoing][data-name="${nb}"]`);
    // Bob accepts
    await lobby(bob);
    const req = bob.locator(`[data-testid=incoming][data-name="${na}"]`);
    await req.waitFor();
    assert.match(await req.textContent(), new RegExp(en['friends.wants'].replace('{name}', na)));
    await req.locator('button[data-act=accept]').click();
    await bob.waitForSelector(`[data-testid=friend][data-name="${na}"]`);
    // Alice sees Bob among her friends, online (he has just been here)
    await lobby(alice);
    const fb = alice.locator(`[data-testid=friend][data-name="${nb}"]`);
    await fb.waitFor();
    assert.equal(await fb.getAttribute('data-state'), 'online');
    if (label === 'phone') {
      const wide = await alice.evaluate(() => document.documentElement.scrollWidth);
      assert.ok(wide <= 390, `the lobby is ${wide} px wide`);
    }
    await shot(alice, `social-friends-${label}.png`);

    // Alice makes a table with an open seat and invites Bob from its waiting screen
    const id = await createTable(alice, { name: na, seat2: 'friend', pile: 'U:2, V:2, E:1' });
    await alice.waitForSelector('.waiting:not(.hidden)');
    const inv = alice.locator(`[data-testid=invite-friend][data-name="${nb}"] button`);
    await inv.waitFor();
    await shot(alice, `social-waiting-${label}.png`);
    await inv.click();
    await alice.waitForFunction((s) => [...document.querySelectorAll('.toast')].some((n) => n.textContent.includes(s)), nb);

    // Bob finds it in "my games" and in the lobby, and takes the seat in one click
    await bob.goto(BASE + '/?mygames');
    await ready(bob);
    await bob.waitForSelector(`[data-testid=mygame-${id}] [data-testid=take-seat]`);
    await lobby(bob);
    const row = bob.locator(`[data-testid=invite][data-table="${id}"]`);
    await row.waitFor();
    assert.match(await row.textContent(), new RegExp(na));
    // the invite lies over the lobby, not in its flow: the cards below do not move
    const gap = await bob.evaluate(() => document.querySelector('.lobby .create').getBoundingClientRect().top - document.querySelector('.lobby .quick').getBoundingClientRect().bottom);
    assert.ok(gap < 40, `the lobby moved down by ${gap} px for the invite`);
    await shot(bob, `social-invite-${label}.png`);
    if (label === 'phone') await row.locator('[data-testid=take-seat]').tap();
    else await row.locator('[data-testid=take-seat]').click();
    await bob.waitForURL(new RegExp(`\\?table=${id}`));
    await ready(bob);
    await alice.waitForSelector('.waiting.hidden', { state: 'attached' });
    await bob.waitForSelector('.waiting.hidden', { state: 'attached' });
    assert.match(await alice.textContent('[data-testid=player-1]'), new RegExp(nb));

    // both play a first move
    const players = [alice, bob];
    const moved = new Set();
    for (let guard = 0; guard < 6 && moved.size < 2; guard++) {
      const mine = await Promise.all(players.map((p) => p.evaluate(() => !!document.querySelector('.game.mine'))));
      const i = mine.indexOf(true);
      if (i < 0) { await alice.waitForTimeout(150); continue; }
      assert.equal(await waitTurnOrEnd(players[i]), 'mine');
      await playTurn(players[i], { follower: false });
      moved.add(i);
    }
    assert.equal(moved.size, 2, 'both played a move');
    const st = await (await fetch(`${BASE}/api/tables/${id}`)).json();
    assert.equal(st.status, 'playing');
    // the server holds Bob's seat for his account
    assert.equal(st.seats[1].name, nb);
    assert.deepEqual(alice.errors, []);
    assert.deepEqual(bob.errors, []);
    await alice.context().close();
    await bob.context().close();
  });
}
