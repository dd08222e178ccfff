// One seat open in two browsers of one account (issue 22, defect 10), at
// 1280x800 and on a phone (390x844, touch): the newer browser takes the
// seat's controls ("Your turn!", the tile to place); the older one shows
// that the seat is open in another window, plays nothing, and takes the
// controls back with its button; the moves made in one show in the other.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, newPage, ready, createTable, playTurn, logLength, shot, catalogue } from './lib.mjs';

const BASE = process.env.CARC_URL;
const PW = 'correct horse';
const en = catalogue('en');
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// on the phone the header's log-in sits in the menu: the same requests the form makes
async function account(page, act, name) {
  await page.goto(BASE + '/');
  await ready(page);
  const st = await page.evaluate(async ([a, n, pw]) => (await fetch(`/api/account/${a}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: n, password: pw }), credentials: 'same-origin' })).status, [act, name, PW]);
  assert.ok(st === 200 || st === 201, `${act}: ${st}`);
  await page.reload();
  await ready(page);
}

const live = (p) => p.waitForFunction(() => document.querySelector('.game.mine') && document.querySelector('[data-testid=seat-elsewhere]')?.classList.contains('hidden'), null, { timeout: 15000 });
const passive = (p) => p.waitForFunction(() => !document.querySelector('.game.mine') && !document.querySelector('[data-testid=seat-elsewhere]')?.classList.contains('hidden'), null, { timeout: 15000 });

for (const [label, opts] of [
  ['desktop', { viewport: { width: 1280, height: 800 } }],
  ['phone', { viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true }],
]) {
  test(`${label}: the newer window holds the seat, the older one says so and takes it back`, async () => {
    const name = `Win ${label.slice(0, 2)} ${Date.now().toString(36).slice(-5)}`;
    const one = await newPage(browser, opts), two = await newPage(browser, opts);
    await account(one, 'register', name);
    await account(two, 'login', name);
    const id = await createTable(one, { name, seat2: 'bot:random', pile: 'U:3, E:3', botDelay: 0 });
    await live(one);
    assert.match(await one.textContent('[data-testid=turn-line]'), new RegExp(en['turn.yours']));
    // the second browser of the account opens the table: it takes the controls
    await two.goto(`${BASE}/?table=${id}`);
    await ready(two);
    await live(two);
    await passive(one);
    assert.equal(await one.textContent('[data-testid=seat-elsewhere] span'), en['window.elsewhere']);
    assert.equal(await one.textContent('[data-testid=turn-elsewhere]'), en['window.turn']);
    assert.equal(await one.locator('.layer-cands .cand').count(), 0, 'no squares to place on in the passive window');
    assert.ok(await one.locator('[data-testid=seat-take]').isVisible());
    await shot(one, `windows-elsewhere-${label}.png`);
    if (label === 'phone') {
      const wide = await one.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      assert.ok(wide <= 0, `no sideways scrolling on the phone (${wide}px)`);
      const box = await one.locator('[data-testid=seat-elsewhere]').boundingBox();
      assert.ok(box.x >= 0 && box.x + box.width <= 390, 'the bar fits the screen');
    }
    // the newer one plays a move; the older one sees it
    const before0 = await logLength(one);
    await playTurn(two, { follower: false });
    await one.waitForFunction((n) => document.querySelectorAll('[data-testid=log] li').length > n, before0);
    // the older one takes the controls back with its button
    await live(two);
    if (label === 'phone') await one.tap('[data-testid=seat-take]'); else await one.click('[data-testid=seat-take]');
    await live(one);
    await passive(two);
    await playTurn(one, { follower: false });
    // a reload of the passive window takes the controls (it is the newest)
    await two.reload();
    await ready(two);
    await passive(one);
    for (const p of [one, two]) assert.deepEqual(p.errors, []);
    for (const p of [one, two]) await p.context().close();
  });
}
