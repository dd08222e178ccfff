// A dropped connection for real: the server is killed (kill -9) in the middle
// of a game and started again on the same database; the page shows that it
// lost the connection, comes back by itself, and the game goes on.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT, CARC, launch, newPage, ready, shot, playTurn, waitTurnOrEnd } from './lib.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'carc-e2e-'));
const procs = [];
let browser;

// starts `carc serve` and resolves with its address once it listens
function serve(port) {
  const p = spawn(CARC, ['serve', '--host', '127.0.0.1', '--port', String(port), '--db', path.join(dir, 'db.sqlite'), '--web', path.join(ROOT, 'web'), '--bot-delay', '50'], { stdio: ['ignore', 'pipe', 'pipe'] });
  procs.push(p);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 10000);
    const onData = (d) => {
      out += d;
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) { clearTimeout(timer); resolve({ proc: p, url: m[0], port: Number(m[1]) }); }
    };
    p.stdout.on('data', onData);
    p.stderr.on('data', onData);
    p.on('exit', () => { clearTimeout(timer); reject(new Error(`server exited: ${out}`)); });
  });
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
  await page.goto(first.url + '/');
  await ready(page);
  await page.fill('[data-testid=my-name]', 'Alice');
  await page.click('details.advanced summary');
  await page.fill('[data-testid=pile]', 'U:2, V:2, E:2');
  await page.fill('[data-testid=bot-delay]', '50');
  await page.click('[data-testid=create]');
  await page.waitForURL(/\?table=/);
  await ready(page);
  await waitTurnOrEnd(page);
  await playTurn(page, { follower: false });

  first.proc.removeAllListeners('exit');
  first.proc.kill('SIGKILL');
  await page.waitForSelector('.conn:not(.hidden)', { timeout: 10000 });
  await shot(page, 'connection-lost.png');

  const second = await serve(first.port);
  second.proc.removeAllListeners('exit');
  await page.waitForSelector('.conn.hidden', { state: 'attached', timeout: 20000 });
  assert.equal(await waitTurnOrEnd(page), 'mine', 'the seat and the turn are back');
  await playTurn(page, { follower: false });
  assert.ok(await page.locator('[data-testid=log] li').count() >= 3);
  assert.deepEqual(page.errors, []);
});
