// A dropped connection for real: the server is killed (kill -9) in the middle
// of a game and started again on the same database; the page shows that it
// lost the connection, comes back by itself, and the game goes on.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, newPage, ready, shot, playTurn, waitTurnOrEnd, serve as serveOn, createTable } from './lib.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'carc-e2e-'));
const procs = [];
let browser;

// starts `carc serve` on this test's database and resolves once it listens
async function serve(port) {
  const s = await serveOn(path.join(dir, 'db.sqlite'), port);
  procs.push(s.proc);
  return s;
}

after(async () => {
  await browser?.close();
  for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the server dies mid-game and comes back: the page reconnects by itself and play goes on', async () => {
  const first = await serve(0);
  browser = await launch();
  const page = await newPage(browser);
  await createTable(page, { base: first.url, seat2: null, pile: 'U:2, V:2, E:2', botDelay: 50 });
  await waitTurnOrEnd(page);
  await playTurn(page, { follower: false });

  first.proc.kill('SIGKILL');
  await page.waitForSelector('.conn:not(.hidden)', { timeout: 10000 });
  await shot(page, 'connection-lost.png');

  await serve(first.port);
  await page.waitForSelector('.conn.hidden', { state: 'attached', timeout: 20000 });
  assert.equal(await waitTurnOrEnd(page), 'mine', 'the seat and the turn are back');
  await playTurn(page, { follower: false });
  assert.ok(await page.locator('[data-testid=log] li').count() >= 3);
  assert.deepEqual(page.errors, []);
});
