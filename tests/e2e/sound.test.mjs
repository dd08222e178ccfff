// Sound (issue 29, item 4): the cues follow what the server sends (a tile
// laid, a figure set, points, your turn, the end), a bot's move sounds like
// anyone's, nothing plays before the first gesture, the mute button
// silences everything and is remembered across a reload, and its words
// exist in every language. The page's test hook window.__carcSound counts
// the cues asked for (`asked`) and played (`played`); the counts expected
// are worked out here from the server's log of the game, not from rules.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, LANGS, api, launch, newPage, ready, shot, catalogue, switchLang, waitTurnOrEnd, playTurn } from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// A short game against a bot that moves at once.
const table = (tiles, seed) => api('/api/tables', { name: 'Alice', seats: [{}, { bot: 'medium' }], tiles, seed, bot_delay_ms: 20 });

// The page sits at table `t` with its seat (localStorage, as the lobby does).
async function sit(page, t) {
  await page.evaluate(({ id, seat, token }) => {
    localStorage.setItem('carc.seats', JSON.stringify({ [id]: { seat, token, at: Date.now() } }));
  }, { id: t.id, seat: t.seat, token: t.token });
  await page.goto(`${BASE}/?table=${t.id}`);
  await ready(page);
  await page.waitForSelector('.layer-tiles use');
}

const hook = (page) => page.evaluate(() => ({ asked: [...window.__carcSound.asked], played: [...window.__carcSound.played] }));
const count = (list, name) => list.filter((x) => x === name).length;

// Plays by clicking (a figure whenever there is a spot) to the end.
async function playToEnd(page) {
  for (let guard = 0; guard < 30; guard++) {
    if (await waitTurnOrEnd(page) === 'over') return;
    await playTurn(page, { follower: true, rotate: false });
  }
  throw new Error('the game did not end');
}

// The cues the log's entries from `from` on call for, from the server's
// own fields: a tile step with x/y, a figure in the entry, points in a
// non-final event, the turn coming back to seat `you`.
function expected(log, from, you) {
  const e = log.slice(from);
  const isTurn = (k) => k + 1 < log.length && log[k].player !== you && log[k + 1].player === you;
  return {
    tile: e.filter((x) => Number.isInteger(x.x) && Number.isInteger(x.y)).length,
    figure: e.filter((x) => x.meeple).length,
    score: e.filter((x) => (x.events || []).some((v) => v.x !== undefined && !v.final && v.points && Math.max(...v.points) > 0)).length,
    turn: log.map((_, k) => k).filter((k) => k >= from && isTurn(k)).length,
  };
}

test('cues follow the server after the first gesture; muted, nothing plays, and the choice survives a reload', async () => {
  const page = await newPage(browser);
  await page.goto(BASE + '/');
  await ready(page);
  await page.evaluate(() => localStorage.setItem('carc.lang', 'en'));

  // sound is on by default: the button is not pressed
  assert.equal(await page.getAttribute('[data-testid=sound]', 'aria-pressed'), 'false');
  const t = await table({ E: 3, U: 2, K: 1 }, 11);
  await sit(page, t);
  await page.waitForSelector('.game.mine');

  // the first move goes through the API (no gesture in the page): the
  // page hears of it and of the bot's answer, and plays nothing
  const st = await api(`/api/tables/${t.id}/state`);
  const p = st.game.next.legal.placements.find((x) => x.meeples.length) || st.game.next.legal.placements[0];
  await api(`/api/tables/${t.id}/move`, { x: p.x, y: p.y, rot: p.rot, meeple: p.meeples[0] || null, turn: st.game.next.turn, step: st.game.next.step, token: t.token });
  await page.waitForFunction(() => window.__carcSound.asked.includes('turn'), null, { timeout: 10000 });
  const early = await hook(page);
  assert.ok(early.asked.includes('tile'), `cues were asked for before the first gesture: ${early.asked}`);
  assert.deepEqual(early.played, [], 'nothing plays before the first gesture');

  // the first click and the rest of the game by clicking
  const from = (await api(`/api/tables/${t.id}/state`)).game.log.length;
  await playToEnd(page);
  await page.waitForFunction(() => window.__carcSound.played.includes('end'), null, { timeout: 10000 });
  const log = (await api(`/api/tables/${t.id}/state`)).game.log;
  const heard = (await hook(page)).played;
  const want = expected(log, from, t.seat);
  for (const name of ['tile', 'figure', 'score', 'turn']) {
    assert.ok(want[name] > 0, `the game had a "${name}" after the first click (log from ${from}: ${JSON.stringify(log.slice(from))})`);
    assert.equal(count(heard, name), want[name], `"${name}" played once for each in the log: ${heard}`);
  }
  assert.equal(count(heard, 'end'), 1, `"end" once: ${heard}`);
  await shot(page, 'sound-game-over.png');

  // muted: pressed, kept across a reload, and a whole game plays nothing
  await page.click('[data-testid=sound]');
  assert.equal(await page.getAttribute('[data-testid=sound]', 'aria-pressed'), 'true');
  await page.reload();
  await ready(page);
  assert.equal(await page.getAttribute('[data-testid=sound]', 'aria-pressed'), 'true', 'still muted after the reload');
  const t2 = await table({ E: 2, U: 1 }, 12);
  await sit(page, t2);
  await playToEnd(page);
  await page.waitForFunction(() => window.__carcSound.asked.includes('end'), null, { timeout: 10000 });
  const quiet = await hook(page);
  for (const name of ['tile', 'end']) assert.ok(quiet.asked.includes(name), `"${name}" was asked for while muted: ${quiet.asked}`);
  assert.deepEqual(quiet.played, [], 'nothing played while muted');

  // unmuted by the button: a tock says so, and the choice is kept
  await page.click('[data-testid=sound]');
  assert.equal(await page.getAttribute('[data-testid=sound]', 'aria-pressed'), 'false');
  assert.deepEqual((await hook(page)).played, ['figure']);
  await page.reload();
  await ready(page);
  assert.equal(await page.getAttribute('[data-testid=sound]', 'aria-pressed'), 'false', 'still on after the reload');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('every cue is made without an error; the mute button is named in every language', async () => {
  const page = await newPage(browser);
  await page.goto(BASE + '/');
  await ready(page);
  // each cue's sound is built (an error while building one would leave it
  // out of `played`), the time-low ticks among them
  const CUES = ['tile', 'figure', 'score', 'turn', 'low', 'end'];
  await page.click('main', { position: { x: 2, y: 2 } });
  const played = await page.evaluate(async (names) => {
    const { sound } = await import('/js/sound.js');
    for (const n of names) sound.play(n);
    return [...window.__carcSound.played];
  }, CUES);
  assert.deepEqual(played, CUES);
  // each, rendered offline: heard, not clipped, and short
  const sounds = await page.evaluate(async (names) => {
    const { renderCue } = await import('/js/sound.js');
    const r = {};
    for (const n of names) r[n] = await renderCue(n);
    return r;
  }, CUES);
  console.log(`cues rendered: ${CUES.map((n) => `${n} ${sounds[n].seconds.toFixed(3)} s peak ${sounds[n].peak.toFixed(3)}`).join(', ')}`);
  for (const n of CUES) {
    assert.ok(sounds[n].peak > 0.02 && sounds[n].peak < 1, `${n}: peak ${sounds[n].peak}`);
    assert.ok(sounds[n].seconds > 0.02 && sounds[n].seconds < 0.6, `${n}: ${sounds[n].seconds} s`);
  }
  for (const muted of [false, true]) {
    if (muted) await page.click('[data-testid=sound]');
    for (const l of LANGS) {
      const c = catalogue(l);
      await switchLang(page, l);
      assert.equal(await page.getAttribute('[data-testid=sound]', 'aria-label'), c['sound.mute'], `${l}: the button's name`);
      assert.equal(await page.getAttribute('[data-testid=sound]', 'title'), c[muted ? 'sound.off' : 'sound.on'], `${l}: its tip`);
    }
  }
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
