// The lobby against a server of its own. The seat colours chosen in the form
// are kept by the server, so a spectator who comes from the lobby (no invite
// link, nothing in its storage) sees them; a finished game stays in the
// lobby's list of finished games after the server is killed and started
// again (only the store knows it then), on the page that "more" shows once
// newer games have pushed it off the first, and its replay opens.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, newPage, ready, shot, serve, playTurn, waitTurnOrEnd, isOver, finalScores } from './lib.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'carc-e2e-lobby-'));
const db = path.join(dir, 'db.sqlite');
const procs = [];
let browser;

after(async () => {
  await browser?.close();
  for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

const colourOf = (page, sel) => page.getAttribute(sel, 'data-colour');

test('a spectator from the lobby sees the chosen colours; a finished game is listed and replayed after a restart', async () => {
  const first = await serve(db);
  procs.push(first.proc);
  browser = await launch();

  // Alice plays green against a pink bot
  const alice = await newPage(browser);
  await alice.goto(first.url + '/');
  await ready(alice);
  await alice.fill('[data-testid=my-name]', 'Alice');
  await alice.click('label.swatch:has(> input[name=colour0][value=green])');
  await alice.selectOption('[data-testid=who-1]', 'bot:medium');
  await alice.click('label.swatch:has(> input[name=colour1][value=pink])');
  await alice.click('details.advanced summary');
  await alice.fill('[data-testid=pile]', 'U:2, E:1');
  await alice.fill('[data-testid=bot-delay]', '50');
  await alice.click('[data-testid=create]');
  await alice.waitForURL(/\?table=[0-9a-f]{16}/);
  await ready(alice);
  const id = new URL(alice.url()).searchParams.get('table');
  await alice.waitForSelector('[data-testid=player-0][data-colour=green]');

  // a spectator with a storage of its own finds the game in the lobby
  const spec = await newPage(browser);
  await spec.goto(first.url + '/');
  await ready(spec);
  const row = spec.locator(`[data-testid=playing-tables] .trow[data-id="${id}"]`);
  await row.waitFor();
  assert.deepEqual(await row.locator('.who').evaluateAll((ns) => ns.map((n) => n.dataset.colour)), ['green', 'pink']);
  await spec.click(`[data-testid=watch-${id}]`);
  await spec.waitForURL(new RegExp(`\\?table=${id}$`));
  await ready(spec);
  await spec.waitForSelector('[data-testid=player-1]');
  assert.equal(await colourOf(spec, '[data-testid=player-0]'), 'green');
  assert.equal(await colourOf(spec, '[data-testid=player-1]'), 'pink');
  assert.match(await spec.textContent('[data-testid=player-1] .pname'), /Pink/);
  assert.equal(await spec.locator('.game.mine').count(), 0, 'watching, not playing');
  await shot(spec, 'spectator-colours.png');

  for (let guard = 0; guard < 10 && (await waitTurnOrEnd(alice)) === 'mine'; guard++) await playTurn(alice, { follower: false });
  assert.ok(await isOver(alice), 'the game ended');
  const scores = await finalScores(alice, 2);

  // kill -9 and a new server on the same database: the game is no longer in memory
  first.proc.kill('SIGKILL');
  const second = await serve(db);
  procs.push(second.proc);
  // 20 bot games end after it: Alice's game is on the second page
  for (let i = 0; i < 20; i++) {
    const r = await fetch(`${second.url}/api/tables`, { method: 'POST', body: JSON.stringify({ seats: [{ bot: 'random' }, { bot: 'random' }], tiles: { U: 1 }, bot_delay_ms: 0 }) });
    assert.equal(r.status, 201);
  }
  for (let i = 0; i < 100; i++) {
    const r = await (await fetch(`${second.url}/api/tables?status=over&limit=100`)).json();
    if (r.tables.length === 21) break;
    await new Promise((res) => setTimeout(res, 50));
  }
  const later = await newPage(browser);
  await later.goto(second.url + '/');
  await ready(later);
  const rows = later.locator('[data-testid=finished-games] .trow');
  await later.waitForFunction(() => document.querySelectorAll('[data-testid=finished-games] .trow').length === 20);
  const done = later.locator(`[data-testid=finished-games] .trow[data-id="${id}"]`);
  assert.equal(await done.count(), 0, 'not on the newest page');
  await later.click('[data-testid=more-finished]');
  await done.waitFor();
  assert.equal(await rows.count(), 21);
  assert.ok(await later.locator('.more-over').evaluate((n) => n.classList.contains('hidden')), 'no older page left');
  assert.deepEqual(await done.locator('.who').evaluateAll((ns) => ns.map((n) => n.dataset.colour)), ['green', 'pink']);
  assert.deepEqual((await done.locator('.pts').allTextContents()).map(Number), scores);
  await done.scrollIntoViewIfNeeded();
  await shot(later, 'lobby-finished.png');
  await later.click(`[data-testid=replay-${id}]`);
  await later.waitForURL(new RegExp(`\\?replay=${id}`));
  await ready(later);
  await later.waitForSelector('[data-testid=replay-step]');
  await later.keyboard.press('End');
  await later.waitForSelector('[data-testid=final]:not(.hidden)');
  assert.deepEqual(await finalScores(later, 2), scores);
  assert.equal(await colourOf(later, '[data-testid=player-1]'), 'pink');
  for (const p of [alice, spec, later]) assert.deepEqual(p.errors, []);
});
