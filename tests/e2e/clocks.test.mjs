// A timed game in the browser (issue 14, point 3): the clock is shown and
// counts down, the player whose time runs low is warned, the human who
// does not move is timed out and the bot moves for them, and the resign
// button ends the two-player game. The table is made through the API (the
// lobby's form is being reworked); the seat is handed to the page the way
// the lobby does it (localStorage).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, newPage, ready, shot } from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// 8 s a move: the clock runs from the table's creation, and on a busy
// machine the two page loads before the first reading took over 5 s (CI:
// the bot had already moved for the idle seat when the test looked)
async function timedTable() {
  const r = await fetch(BASE + '/api/tables', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      players: 2, name: 'Alice', seats: [{}, { bot: 'random' }], bot_delay_ms: 0,
      clock: { mode: 'realtime', move_s: 8, reserve_s: 0, max_timeouts: 5, takeover: 'random' },
    }),
  });
  assert.equal(r.status, 201);
  return r.json();
}

const seconds = (s) => { const [m, x] = s.trim().split(':').map(Number); return m * 60 + x; };

test('a timed game: the clock counts down, the bot moves when time runs out, resign ends the game', async () => {
  const t = await timedTable();
  const page = await newPage(browser);
  await page.goto(BASE + '/');
  await ready(page);
  await page.evaluate(({ id, seat, token }) => {
    localStorage.setItem('carc.seats', JSON.stringify({ [id]: { seat, token, at: Date.now() } }));
  }, { id: t.id, seat: t.seat, token: t.token });
  await page.goto(`${BASE}/?table=${t.id}`);
  await ready(page);

  // the clock is shown, the seat to move (ours) runs and counts down
  const mine = page.locator('[data-testid=clock-0]');
  await mine.waitFor({ state: 'visible' });
  await page.waitForSelector('[data-testid=clock-0].running');
  const turn = await page.evaluate(() => window.carcView.clock.clock.turn);
  const a = seconds(await mine.locator('.clock-time').textContent());
  // the display has whole seconds, so it drops within a second; a busy
  // machine may hold the page's 250 ms tick back, so up to two are allowed
  await page.waitForFunction((before) => {
    const [m, x] = document.querySelector('[data-testid=clock-0] .clock-time').textContent.trim().split(':').map(Number);
    return m * 60 + x < before;
  }, a, { timeout: 2000 }).catch(() => {});
  const b = seconds(await mine.locator('.clock-time').textContent());
  assert.equal(await page.evaluate(() => window.carcView.clock.clock.turn), turn, 'still the first turn');
  assert.ok(a <= 8 && b < a, `the clock counts down: ${a} then ${b}`);
  assert.match(await page.locator('[data-testid=clock-1]').textContent(), /0:08/);

  // low on time: the warning colour (under move_s / 2, 4 s, left)
  await page.waitForSelector('[data-testid=clock-0].low', { timeout: 8000 });
  await shot(page, 'clock-low.png');

  // nobody moved: the bot moves for us at the deadline, and the bot seat after it
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=log] li').length >= 1, null, { timeout: 10000 });
  const c = await page.evaluate(() => window.carcView.clock.clock);
  assert.ok(c.seats[0].timeouts >= 1, 'the timed-out move was counted');
  const first = await page.evaluate(() => window.carcView.game.log[0]);
  assert.equal(first.player, 0, 'the first move was made for the idle human');
  await page.waitForSelector('.toast', { timeout: 3000 });

  // resign: two clicks (the first only arms the button), then the game is over
  const btn = page.locator('[data-testid=resign]');
  await btn.waitFor({ state: 'visible' });
  await btn.click();
  await page.waitForSelector('[data-testid=resign].arming');
  await btn.click();
  await page.waitForFunction(() => window.carcView.clock.clock?.ended, null, { timeout: 5000 });
  const ended = await page.evaluate(() => window.carcView.clock.clock.ended);
  assert.deepEqual(ended, { reason: 'resigned', seat: 0, winners: [1] });
  await page.waitForSelector('[data-testid=resign].hidden', { state: 'attached' });
  assert.match(await page.locator('[data-testid=clock] .clock-note').textContent(), /Alice/);
  const info = await (await fetch(`${BASE}/api/tables/${t.id}`)).json();
  assert.equal(info.status, 'over');
  await shot(page, 'clock-resigned.png');
  assert.deepEqual(page.errors, []);
});

test('the lobby makes a table with a clock, shown on the table screen', async () => {
  const page = await newPage(browser);
  await page.goto(BASE + '/');
  await ready(page);
  await page.fill('[data-testid=my-name]', 'Carla');
  await page.selectOption('[data-testid=who-1]', 'bot:random');
  await page.selectOption('[data-testid=clock-preset]', 'rt-60');
  await page.click('[data-testid=create]');
  await page.waitForURL(/\?table=[0-9a-f]{16}/);
  await ready(page);
  const id = new URL(page.url()).searchParams.get('table');
  const info = await (await fetch(`${BASE}/api/tables/${id}`)).json();
  assert.deepEqual(info.options.clock, { mode: 'realtime', move_s: 60, reserve_s: 120, max_timeouts: 3, takeover: 'medium' });
  // our turn: 60 s + 120 s reserve = 3:00, counting down
  await page.waitForSelector('[data-testid=clock-0].running');
  assert.match(await page.locator('[data-testid=clock-0] .clock-time').textContent(), /^(3:00|2:5\d)$/);
  assert.match(await page.locator('[data-testid=clock-1] .clock-time').textContent(), /^3:00$/);
  // the choice is kept for the next table; "no time limit" again for the other tests
  await page.goto(BASE + '/');
  await ready(page);
  assert.equal(await page.inputValue('[data-testid=clock-preset]'), 'rt-60');
  await page.selectOption('[data-testid=clock-preset]', 'none');
  assert.deepEqual(page.errors, []);
});
