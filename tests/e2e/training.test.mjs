// Training against bots in the browser (web/js/training.js): moves taken
// back after confirming them with the undo bar, and a placed figure's
// feature outlined with what it would score if the game ended now, by
// hovering it (1280x800) and by a long press (390x844, touch). A logged-in
// person trains at a table made with "Rated game" unticked in the lobby.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, newPage, ready, shot, waitTurnOrEnd, catalogue, register } from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const en = catalogue('en');

async function api(path, body) {
  const r = await fetch(BASE + path, body ? { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) } : {});
  return { status: r.status, body: await r.json() };
}

// A table of one person against a bot, opened in a page that holds the seat.
async function trainingPage(ctx = {}, seed = 31) {
  const { status, body } = await api('/api/tables', { seats: [{}, { bot: 'medium' }], name: 'Alice', seed, bot_delay_ms: 60 });
  assert.equal(status, 201, JSON.stringify(body));
  const page = await newPage(browser, ctx);
  await page.addInitScript(([id, token]) => {
    localStorage.setItem('carc.lang', 'en');
    localStorage.setItem('carc.seats', JSON.stringify({ [id]: { seat: 0, token, at: Date.now() } }));
  }, [body.id, body.token]);
  await page.goto(`${BASE}/?table=${body.id}`);
  await ready(page);
  return { page, id: body.id };
}

const logCount = (page) => page.locator('[data-testid=log] li[data-turn]').count();

// One turn by clicking (or tapping): the first square that fits, a figure on the first spot.
async function playTurn(page, tap = false) {
  assert.equal(await waitTurnOrEnd(page, 30000), 'mine');
  const before = await logCount(page);
  const hit = async (loc) => (tap ? loc.tap() : loc.click());
  if (await page.locator('[data-testid=discard]').count()) await hit(page.locator('[data-testid=discard]'));
  else {
    const fit = page.locator('.layer-cands .cand:not(.other)');
    await hit((await fit.count()) ? fit.first() : page.locator('.layer-cands .cand').first());
    await page.waitForSelector('[data-testid=confirm]');
    const btns = page.locator('.spot-btn');
    if (await btns.count()) await hit(btns.first());
    await hit(page.locator('[data-testid=confirm]'));
  }
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=log] li[data-turn]').length > n, before);
}

// the screen point of placed figure i (its drawing's centre)
async function figurePoint(page, i) {
  const b = await page.locator(`[data-fig="${i}"] .figure`).boundingBox();
  return { x: b.x + b.width / 2, y: b.y + b.height / 2 };
}

// what the figure info says matches the pill on the board, and names the score
async function checkFigureInfo(page) {
  await page.waitForSelector('[data-testid=figure-info]:not(.hidden)');
  const text = await page.textContent('[data-testid=figure-info]');
  const worth = await page.textContent('[data-testid=figure-worth]');
  const n = Number(/(\d+)/.exec(worth)[1]);
  assert.match(worth, /if the game ended now/);
  assert.equal(Number(await page.textContent('[data-testid=mark-label] text')), n, 'the pill shows the same points');
  assert.ok(await page.locator('.layer-mark .figure-mark .mark-area, .layer-mark .figure-mark .mark-line').count() > 0, 'the feature is outlined');
  return { text, n };
}

test('undo after confirming against a bot, and hovering a figure shows its feature (1280x800)', async () => {
  const { page, id } = await trainingPage();
  for (let i = 0; i < 3; i++) await playTurn(page);
  assert.equal(await waitTurnOrEnd(page), 'mine');
  const state = (await api(`/api/tables/${id}/state`)).body;
  const mine = state.game.log.filter((e) => e.player === 0).map((e) => e.turn);
  assert.equal(mine.length, 3);
  // the undo bar: training against a bot
  await page.waitForSelector('[data-testid=undo-bar]:not(.hidden)');
  assert.match(await page.textContent('[data-testid=undo-bar]'), /Training against bots/);
  assert.equal(await page.locator('[data-testid=undo-count] option').count(), 3);
  await page.selectOption('[data-testid=undo-count]', '2');
  assert.equal((await page.textContent('[data-testid=undo]')).trim(), `↶ ${en['undo.button'].split('|')[1].replace('other:', '').replace('{n}', '2')}`);
  await shot(page, 'training-undo-bar.png');
  await page.click('[data-testid=undo]');
  // back to my second move's turn: it and everything after it taken back
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=log] li[data-turn]').length === n, mine[1]);
  assert.equal(await waitTurnOrEnd(page), 'mine');
  assert.equal(await page.locator('.layer-tiles use').count(), mine[1] + 1, 'the board lost the tiles taken back');
  const after = (await api(`/api/tables/${id}/state`)).body;
  assert.equal(after.game.log.length, mine[1]);
  assert.equal(after.table.undos, 2);
  // one more: the bar offers what is left
  assert.equal(await page.locator('[data-testid=undo-count] option').count(), 1);
  // play on from there
  await playTurn(page);
  assert.equal(await waitTurnOrEnd(page), 'mine');

  // hovering a placed figure outlines its feature with its worth
  const figs = await page.locator('.layer-figures [data-fig]').count();
  assert.ok(figs >= 1, 'a figure on the board');
  const p = await figurePoint(page, 0);
  await page.mouse.move(p.x, p.y);
  const { text } = await checkFigureInfo(page);
  assert.match(text, /Alice|Bot/);
  await shot(page, 'training-hover-figure.png');
  // moving away hides it again
  await page.mouse.move(5, 5);
  await page.waitForSelector('[data-testid=figure-info].hidden', { state: 'attached' });
  assert.equal(await page.locator('[data-testid=mark-label]').count(), 0);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('long-pressing a figure on a phone shows its feature; undo by tapping (390x844, touch)', async () => {
  const { page, id } = await trainingPage({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }, 32);
  for (let i = 0; i < 2; i++) await playTurn(page, true);
  assert.equal(await waitTurnOrEnd(page), 'mine');
  assert.ok(await page.locator('.layer-figures [data-fig]').count() >= 1, 'a figure on the board');
  const before = await logCount(page);
  // a long press: a touch held on the figure (the page's own touch events)
  const p = await figurePoint(page, 0);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: p.x, y: p.y }] });
  await page.waitForTimeout(700);
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await checkFigureInfo(page);
  // it stays after the finger is lifted, and the press placed nothing
  await page.waitForTimeout(300);
  assert.ok(await page.locator('[data-testid=figure-info]:not(.hidden)').count());
  assert.equal(await logCount(page), before);
  const box = await page.locator('[data-testid=figure-info]').boundingBox();
  assert.ok(box.x >= 0 && box.x + box.width <= 390, `the info fits the screen: ${JSON.stringify(box)}`);
  await shot(page, 'training-longpress-phone.png');
  // a short tap elsewhere hides it
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: [{ x: 20, y: 60 }] });
  await cdp.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  await page.waitForSelector('[data-testid=figure-info].hidden', { state: 'attached' });
  // undo by tapping: the last move of mine
  const mine = (await api(`/api/tables/${id}/state`)).body.game.log.filter((e) => e.player === 0).map((e) => e.turn);
  await page.locator('[data-testid=undo]').scrollIntoViewIfNeeded();
  await page.locator('[data-testid=undo]').tap();
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=log] li[data-turn]').length === n, mine[mine.length - 1]);
  assert.equal(await waitTurnOrEnd(page), 'mine');
  const sw = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(sw <= 390, `no sideways scroll: ${sw}`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a logged-in person unticks "Rated game" in the lobby and takes a move back against the bot', async () => {
  const page = await newPage(browser);
  await page.addInitScript(() => localStorage.setItem('carc.lang', 'en'));
  await page.goto(BASE + '/');
  await ready(page);
  // a guest's game is never rated: no choice to make
  await page.click('details.advanced summary');
  assert.equal(await page.locator('[data-testid=rated]').count(), 0);
  const name = `Trainer ${Date.now().toString(36).slice(-5)}`;
  await register(page, name);
  await page.selectOption('[data-testid=who-1]', 'bot:medium');
  await page.click('details.advanced summary');
  await page.click('details.dev summary');
  const rated = page.locator('[data-testid=rated]');
  assert.ok(await rated.isChecked(), 'rated by default');
  assert.match(await page.locator('label.check:has([data-testid=rated])').textContent(), new RegExp(en['opt.rated.label']));
  assert.ok(!(await page.textContent('[data-testid=create-summary]')).includes(en['opt.unrated']));
  await rated.uncheck();
  assert.ok((await page.textContent('[data-testid=create-summary]')).includes(en['opt.unrated']), 'the summary says so');
  await page.fill('[data-testid=bot-delay]', '60');
  await shot(page, 'training-unrated-form.png');
  await page.click('[data-testid=create]');
  await page.waitForURL(/\?table=[0-9a-f]{16}/);
  await ready(page);
  const id = new URL(page.url()).searchParams.get('table');
  const tb = (await api(`/api/tables/${id}`)).body;
  assert.equal(tb.options.rated, false);
  assert.equal(tb.seats[0].name, name);
  assert.equal(tb.seats[0].account, true);
  assert.equal(tb.undo_seat, 0);
  // the table screen says the game is not rated
  // (the table's description may come a moment after the page is ready)
  await page.waitForFunction((w) => document.querySelector('.table-info')?.textContent.includes(w), en['opt.unrated'], { timeout: 10000 });
  // one move, then taken back with the undo bar
  await playTurn(page);
  assert.equal(await waitTurnOrEnd(page), 'mine');
  await page.waitForSelector('[data-testid=undo-bar]:not(.hidden)');
  await shot(page, 'training-unrated-undo.png');
  await page.click('[data-testid=undo]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=log] li[data-turn]').length === 0);
  assert.equal(await waitTurnOrEnd(page), 'mine');
  const after = (await api(`/api/tables/${id}/state`)).body;
  assert.equal(after.game.log.length, 0);
  assert.equal(after.table.undos, 1);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
