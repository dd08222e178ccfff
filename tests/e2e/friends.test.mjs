// Two people: one makes a table with a seat for a friend, the friend joins
// through the invite link, and they play to the end (the friend with the keyboard only).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launch, newPage, ready, createTable, waitTurnOrEnd, playTurn, playTurnByKeys, isOver, finalScores } from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('a friend joins through the invite link and both play to the end, the friend by keyboard', async () => {
  const alice = await newPage(browser);
  const id = await createTable(alice, { name: 'Alice', seat2: 'friend', pile: 'U:2, V:2, E:1' });
  await alice.waitForSelector('.waiting:not(.hidden)');
  const invite = await alice.inputValue('.waiting [data-testid=invite-link]');
  const bob = await newPage(browser);
  await bob.goto(invite);
  await ready(bob);
  await bob.fill('.waiting [data-testid=join-name]', 'Bob');
  await bob.click('.waiting [data-testid=join]');
  await alice.waitForSelector('.waiting.hidden', { state: 'attached' });
  await bob.waitForSelector('.waiting.hidden', { state: 'attached' });
  assert.match(await alice.textContent('[data-testid=player-1]'), /Bob/);
  const players = [alice, bob];
  for (let guard = 0; guard < 20; guard++) {
    const states = await Promise.all(players.map((p) => p.evaluate(() => {
      const f = document.querySelector('[data-testid=final]');
      return f && !f.classList.contains('hidden') ? 'over' : document.querySelector('.game.mine') ? 'mine' : 'wait';
    })));
    if (states.every((s) => s === 'over')) break;
    const i = states.indexOf('mine');
    if (i < 0) { await alice.waitForTimeout(150); continue; }
    await waitTurnOrEnd(players[i]);
    // Alice clicks, Bob uses only the keyboard
    if (i === 0) await playTurn(players[i], { follower: true });
    else await playTurnByKeys(players[i]);
  }
  assert.ok(await isOver(alice) && await isOver(bob));
  assert.deepEqual(await finalScores(alice, 2), await finalScores(bob, 2));
  const st = await (await fetch(`${process.env.CARC_URL}/api/tables/${id}`)).json();
  assert.equal(st.status, 'over');
  assert.deepEqual(alice.errors, []);
  assert.deepEqual(bob.errors, []);
});
