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

async function timedTable() {
  const r = await fetch(BASE + '/api/tables', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({
      players: 2, name: 'Alice', seats: [{}, { bot: 'random' }], bot_delay_ms: 0,
      clock: { mode: 'realtime', move_s: 3, reserve_s: 0, max_timeouts: 5, takeover: 'random' },
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
  const a = seconds(await mine.locator('.clock-time').textContent());
  await page.waitForTimeout(1100);
  const b = seconds(await mine.locator('.clock-time').textContent());
  assert.ok(a <= 3 && b < a, `the clock counts down: ${a} then ${b}`);
  assert.match(await page.locator('[data-testid=clock-1]').textContent(), /0:03/);

  // low on time: the warning colour (the last second of a 3 s clock is below move_s / 2)
  await page.waitForSelector('[data-testid=clock-0].low', { timeout: 5000 });
  await shot(page, 'clock-low.png');

  // nobody moved: the bot moves for us at the deadline, and the bot seat after it
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=log] li').length >= 1, null, { timeout: 8000 });
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
