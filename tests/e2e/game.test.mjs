// A whole game in the browser against a bot, by clicking; a watcher on a
// phone-sized screen through the invite link; a reload in the middle; the
// final scores checked against `carc replay` of the downloaded record; the replay.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { BASE, CARC, ART, launch, newPage, ready, shot, createTable, waitTurnOrEnd, playTurn, isOver, tilesOnBoard, logLength, finalScores } from './lib.mjs';

let browser, gameId;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const PILE = 'U:2, E:2, V:2, B:1, D:1, K:1, J:1, L:1, A:1';

test('play a whole game against a bot by clicking, watched through the invite link, reloaded mid-game', async () => {
  const page = await newPage(browser);
  gameId = await createTable(page, { name: 'Alice', seat2: 'bot:medium', pile: PILE, botDelay: 80 });
  const invite = await page.inputValue('.table-info [data-testid=invite-link]');
  assert.match(invite, new RegExp(`/\\?table=${gameId}`));

  // a second browser, phone-sized, opens the invite link and watches
  const watcher = await newPage(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await watcher.goto(invite);
  await ready(watcher);
  await watcher.waitForSelector('.layer-tiles use');

  let moves = 0, followers = 0, reloaded = false, midShot = false;
  for (let guard = 0; guard < 40; guard++) {
    const st = await waitTurnOrEnd(page);
    if (st === 'over') break;
    const did = await playTurn(page, { follower: moves % 2 === 0 });
    moves++;
    if (did === 'follower') followers++;
    if (moves === 1) {
      // a dropped connection: the page reconnects by itself and gets the state again
      await page.evaluate(() => { window.oldWs = window.carcView.live.ws; window.oldWs.close(); });
      await page.waitForFunction(() => window.carcView.live.ws !== window.oldWs && window.carcView.live.ws?.readyState === 1, null, { timeout: 10000 });
    }
    if (moves === 2 && !reloaded) {
      // reload in the middle of the game: the seat and the board come back
      const tiles = await tilesOnBoard(page);
      await page.reload();
      await ready(page);
      await page.waitForFunction((n) => document.querySelectorAll('.layer-tiles use').length >= n, tiles);
      assert.ok(await page.locator('[data-testid=player-0] em').count(), 'still seated after the reload');
      reloaded = true;
    }
    if (moves === 3 && !midShot) {
      await page.waitForTimeout(300);
      await shot(page, 'board-midgame.png');
      await watcher.waitForFunction((n) => document.querySelectorAll('[data-testid=log] li').length >= n, await logLength(page));
      await shot(watcher, 'phone-watcher-midgame.png');
      midShot = true;
    }
  }
  assert.ok(await isOver(page), 'the game reached its end');
  assert.ok(reloaded, 'reloaded mid-game');
  assert.ok(moves >= 4, `played ${moves} turns by clicking`);
  assert.ok(followers >= 1, 'put at least one follower');
  assert.ok(await page.locator('[data-testid=winners]').isVisible());
  const scores = await finalScores(page, 2);
  await page.waitForTimeout(400);
  await shot(page, 'final-scores.png');

  // the watcher saw the same end and holds no seat
  await watcher.waitForFunction(() => !document.querySelector('[data-testid=final]').classList.contains('hidden'), null, { timeout: 15000 });
  assert.deepEqual(await finalScores(watcher, 2), scores);
  assert.equal(await watcher.locator('.game.mine').count(), 0);
  await shot(watcher, 'phone-watcher-final.png');

  // the record, downloaded as a person would, replayed by the engine
  const [dl] = await Promise.all([page.waitForEvent('download'), page.click('.table-info [data-testid=download]')]);
  const file = path.join(ART, 'record.json');
  await dl.saveAs(file);
  const rec = JSON.parse(fs.readFileSync(file, 'utf8'));
  assert.equal(rec.format, 'carc-record-1');
  const out = JSON.parse(execFileSync(CARC, ['replay', '--json', file], { encoding: 'utf8' }).trim().split('\n')[0]);
  assert.equal(out.ok, true, JSON.stringify(out));
  assert.deepEqual(out.scores, scores, 'browser final scores = carc replay');
  assert.deepEqual(page.errors, []);
  assert.deepEqual(watcher.errors, []);
  await watcher.context().close();
  await page.context().close();
});

test('replay the finished game turn by turn', async () => {
  assert.ok(gameId, 'needs the game of the first test');
  const page = await newPage(browser);
  await page.goto(`${BASE}/?replay=${gameId}`);
  await ready(page);
  await page.waitForSelector('[data-testid=replay-step]');
  const start = await tilesOnBoard(page);
  assert.equal(start, 1, 'step 0 shows the start tile');
  await page.click('[data-testid=replay-next]');
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=log] li').length === 1);
  await page.keyboard.press('End');
  await page.waitForSelector('[data-testid=final]:not(.hidden)');
  const state = await (await fetch(`${BASE}/api/tables/${gameId}/state`)).json();
  const n = state.game.log.length;
  assert.match(await page.textContent('[data-testid=replay-step]'), new RegExp(`\\b${n}\\b.*\\b${n}\\b`));
  assert.deepEqual(await finalScores(page, 2), state.game.next.final.scores);
  // the board pans by dragging, zooms with the wheel, and the fit button brings it all back
  await page.click('[data-act=closefinal]');
  const view = () => page.getAttribute('.viewport', 'transform');
  const fitted = await view();
  const box = await page.locator('[data-testid=board]').boundingBox();
  await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await page.mouse.wheel(0, -400);
  await page.waitForFunction((v) => document.querySelector('.viewport').getAttribute('transform') !== v, fitted);
  const zoomed = await view();
  await page.mouse.down();
  await page.mouse.move(box.x + box.width / 2 + 120, box.y + box.height / 2 + 60, { steps: 5 });
  await page.mouse.up();
  assert.notEqual(await view(), zoomed, 'dragging pans the board');
  await page.click('[data-testid=fit]');
  assert.equal(await view(), fitted, 'fit shows the whole board again');
  // one step back: the scores are those after the last turn, before the final scoring
  await page.keyboard.press('ArrowLeft');
  await page.waitForSelector('[data-testid=final].hidden', { state: 'attached' });
  const s0 = Number(await page.textContent('[data-testid=score-0]'));
  assert.equal(s0, state.game.log[n - 2].scores[0]);

  // the downloaded record, uploaded in the lobby, opens as a replay with the same end
  await page.goto(BASE + '/');
  await ready(page);
  await page.setInputFiles('[data-testid=upload]', path.join(ART, 'record.json'));
  await page.waitForURL(/\?replay=[0-9a-f]{16}/);
  await ready(page);
  await page.waitForSelector('[data-testid=replay-step]');
  await page.keyboard.press('End');
  await page.waitForSelector('[data-testid=final]:not(.hidden)');
  assert.deepEqual(await finalScores(page, 2), state.game.next.final.scores);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
