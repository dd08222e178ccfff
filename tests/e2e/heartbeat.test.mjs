// The web client's heartbeat (Live in web/js/api.js): a server that stops
// answering without closing anything (SIGSTOP: the connection stays open,
// nothing comes) is noticed within LIVE.pingMs + LIVE.answerMs, the page
// says so, and once the server answers again (SIGCONT) the page is back by
// itself and play goes on.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, launch, newPage, ready, shot, playTurn, waitTurnOrEnd, serve, createTable } from './lib.mjs';

// the heartbeat's numbers, from the one place they are set
const src = fs.readFileSync(path.join(ROOT, 'web/js/api.js'), 'utf8');
const LIVE = Object.fromEntries([...(/export const LIVE = \{([^}]*)\}/.exec(src)[1])
  .matchAll(/(\w+): (\d+)/g)].map((m) => [m[1], Number(m[2])]));

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'carc-e2e-'));
let browser;
let proc;

after(async () => {
  await browser?.close();
  if (proc && proc.exitCode === null) { proc.kill('SIGCONT'); proc.kill('SIGKILL'); }
  fs.rmSync(dir, { recursive: true, force: true });
});

test('a server that stops answering is noticed within the heartbeat deadline; the page comes back when it answers again', async () => {
  const s = await serve(path.join(dir, 'db.sqlite'), 0);
  proc = s.proc;
  browser = await launch();
  const page = await newPage(browser);
  await createTable(page, { base: s.url, seat2: null, pile: 'U:2, V:2, E:2', botDelay: 50 });
  await waitTurnOrEnd(page);
  await playTurn(page, { follower: false });
  await waitTurnOrEnd(page);

  proc.kill('SIGSTOP');
  const t0 = Date.now();
  const deadline = LIVE.pingMs + LIVE.answerMs;
  await page.waitForSelector('.conn:not(.hidden)', { timeout: deadline + 1500 });
  const noticed = Date.now() - t0;
  console.log(`heartbeat: a stopped server noticed after ${noticed} ms (deadline ${deadline} ms)`);
  assert.ok(noticed <= deadline + 1000, `noticed after ${noticed} ms`);
  await shot(page, 'heartbeat-lost.png');
  await page.waitForTimeout(1000);
  proc.kill('SIGCONT');
  await page.waitForSelector('.conn.hidden', { state: 'attached', timeout: 20000 });
  assert.equal(await waitTurnOrEnd(page), 'mine', 'the seat and the turn are back');
  await playTurn(page, { follower: false });
  assert.deepEqual(page.errors, []);
});
