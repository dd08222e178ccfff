// Motion (issue 29, item 3): the one browser test that runs WITHOUT
// reduced motion. A short game against a bot, played by clicking: every
// tile a step lays travels into place (sampled on the frame after it is
// added: it runs an animation and stands elsewhere than where it ends), a
// figure set down drops, each score event gives exactly one points label
// (and never two labels of different steps at once: the "+4" seen twice),
// figures that go home fly; and with reduced motion no animation runs and
// the board is right at once. What is expected comes from the server's log
// of the game, not from rules.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, DESK, api, launch, newPage, ready, shot, waitTurnOrEnd, playTurn, sleep } from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// a short game (a city closes at once, roads and a cloister) against a bot
const table = (seed, delay) => api('/api/tables', { name: 'Alice', seats: [{}, { bot: 'medium' }], tiles: { E: 4, U: 2, K: 2, B: 2, D: 2 }, seed, bot_delay_ms: delay });

// What the page did, seen from outside the app: each tile node added to the
// board (sampled on the next frame), each points label (the step the game
// was at when it came), each figure node added, each figure flying home;
// and on every frame, whether labels of two steps showed at once (`overlap`).
function watch() {
  window.__mo = { tiles: [], labels: [], figs: [], flying: [], overlap: [], dragon: [] };
  const frame = (f) => requestAnimationFrame(() => requestAnimationFrame(f));
  const seen = () => {
    const steps = new Set();
    for (const n of document.querySelectorAll('.layer-float .float-label')) {
      if (Number(getComputedStyle(n).opacity) > 0.05) steps.add(n.__step);
    }
    if (steps.size > 1) window.__mo.overlap.push([...steps]);
    requestAnimationFrame(seen);
  };
  requestAnimationFrame(seen);
  new MutationObserver((ms) => {
    for (const m of ms) {
      for (const n of m.addedNodes) {
        if (n.nodeType !== 1) continue;
        if (n.matches('.layer-tiles use')) {
          // (the step's handler has run: its animations are made)
          const a = n.getAnimations();
          // where its motion starts and ends (the keyframes' transforms)
          const k = a[0]?.effect.getKeyframes() || [];
          const path = k.length ? [k[0].transform, k[k.length - 1].transform] : [];
          frame(() => window.__mo.tiles.push({ x: Number(n.dataset.x), y: Number(n.dataset.y), anims: a.length, path, mid: getComputedStyle(n).transform, node: n }));
        } else if (n.matches('.layer-float .float-label')) {
          // the step the label tells of (the page's own mark; without one,
          // as on the code before it, the step the game was at)
          n.__step = n.dataset.step !== undefined ? Number(n.dataset.step) : window.carcView.game.log.at(-1).step;
          window.__mo.labels.push({ step: n.__step, text: n.textContent });
        } else if (n.matches('.layer-figures > g')) {
          window.__mo.figs.push({ key: n.dataset.key, anims: n.getAnimations().length });
        } else if (n.matches('.layer-beasts .dragon-piece')) {
          window.__mo.dragon.push({ x: Number(n.dataset.x), y: Number(n.dataset.y), anims: n.getAnimations().length });
        } else if (n.matches('.layer-fly .flying')) {
          window.__mo.flying.push({ kind: n.dataset.kind, player: Number(n.dataset.player), fresh: n.dataset.fresh === '1', anims: n.getAnimations().length });
        }
      }
    }
  }).observe(document, { subtree: true, childList: true });
}

async function sit(page, t) {
  await page.addInitScript(watch);
  await page.goto(BASE + '/');
  await ready(page);
  await page.evaluate(({ id, seat, token }) => {
    localStorage.setItem('carc.lang', 'en');
    localStorage.setItem('carc.seats', JSON.stringify({ [id]: { seat, token, at: Date.now() } }));
  }, { id: t.id, seat: t.seat, token: t.token });
  await page.goto(`${BASE}/?table=${t.id}`);
  await ready(page);
  await page.waitForSelector('.layer-tiles use');
  await page.evaluate(() => { window.__mo.tiles = []; window.__mo.figs = []; });
}

// The person's moves through the API to the end: a figure on the first
// spot of the first placement that has one, each after a person's pause
// (quicker news is shown by skipping ahead, which this test does not look at).
async function apiToEnd(t) {
  for (let guard = 0; guard < 40; guard++) {
    await sleep(1000);
    const st = await waitStateOf(t.id, (s) => s.game.next.over || s.game.next.to_move === t.seat);
    const n = st.game.next;
    if (n.over) return;
    const p = n.legal.placements.find((x) => x.meeples.length) || n.legal.placements[0];
    const move = p ? { x: p.x, y: p.y, rot: p.rot, meeple: p.meeples[0] || null } : { discard: true };
    await api(`/api/tables/${t.id}/move`, { ...move, turn: n.turn, step: n.step, token: t.token });
  }
  throw new Error('the game did not end');
}

// what the log's entries say: tiles laid, figures set, points labels per
// step (a scored non-final event with a place), figures sent home
function fromLog(log) {
  const scored = {};
  for (const e of log) {
    const n = (e.events || []).filter((v) => v.x !== undefined && !v.final && v.points && Math.max(...v.points) > 0).length;
    if (n) scored[e.step] = n;
  }
  return {
    tiles: log.filter((e) => Number.isInteger(e.x) && Number.isInteger(e.y)),
    figures: log.filter((e) => e.meeple).length,
    scored,
    home: log.flatMap((e) => (e.events || []).filter((v) => v.returned !== undefined)).length,
  };
}

test('a step moves: the tile travels in, a figure drops, one label per score event travels, figures fly home', async () => {
  const page = await newPage(browser, { ...DESK, reducedMotion: 'no-preference' });
  assert.equal(await page.evaluate(() => matchMedia('(prefers-reduced-motion: reduce)').matches), false);
  const t = await table(5, 600);
  await sit(page, t);
  // the first move by clicking (the tile leaves the hand), the others
  // through the API (as from another window: quicker)
  await waitTurnOrEnd(page);
  await playTurn(page, { follower: true, rotate: false });
  await apiToEnd(t);
  await page.waitForFunction(() => !document.querySelector('[data-testid=final]').classList.contains('hidden'), null, { timeout: 20000 });
  // the last motions end (a label travels 1.5 s after its tile lands)
  await page.waitForFunction(() => !document.querySelector('.layer-float .float-label, .layer-fly .flying'), null, { timeout: 10000 });
  await sleep(300);
  const log = (await api(`/api/tables/${t.id}/state`)).game.log;
  const want = fromLog(log);
  const mo = await page.evaluate(() => {
    const m = window.__mo;
    // where each tile ended (its transform once nothing moves it)
    return { ...m, tiles: m.tiles.map((x) => ({ ...x, end: getComputedStyle(x.node).transform, node: undefined, left: x.node.getAnimations().length })) };
  });
  await shot(page, 'motion-end.png');

  // every tile a step laid moved: it was given an animation from another
  // place than its end, and (sampled on a frame soon after; a busy machine
  // may miss a few) stood elsewhere mid-way than where it ended
  assert.equal(mo.tiles.length, want.tiles.length, `one tile node per tile laid: ${JSON.stringify(mo.tiles.map((x) => [x.x, x.y]))}`);
  for (const x of mo.tiles) {
    assert.ok(x.anims >= 1, `the tile at ${x.x},${x.y} was animated`);
    assert.notEqual(x.path[0], x.path[1], `the tile at ${x.x},${x.y} travels: ${x.path}`);
    assert.equal(x.left, 0, 'and nothing moves it any more');
  }
  const seenMoving = mo.tiles.filter((x) => x.mid !== x.end).length;
  assert.ok(seenMoving * 2 >= mo.tiles.length, `tiles seen mid-way elsewhere than at their end: ${seenMoving} of ${mo.tiles.length}`);
  // each figure set down dropped (one the same step sent home drops as
  // it starts on its way home)
  assert.ok(want.figures > 0, 'the game set figures');
  const dropped = mo.figs.filter((f) => f.anims >= 1).length + mo.flying.filter((f) => f.fresh && f.anims >= 1).length;
  assert.equal(dropped, want.figures, `each figure set was animated: ${JSON.stringify(mo.figs)} ${JSON.stringify(mo.flying)}`);

  // one points label per score event, and labels of two steps never at once
  const steps = Object.keys(want.scored).map(Number);
  assert.ok(steps.length >= 2, `the game scored in two steps at least: ${JSON.stringify(want.scored)}`);
  const per = {};
  for (const l of mo.labels) per[l.step] = (per[l.step] || 0) + 1;
  assert.deepEqual(per, want.scored, `labels per step ${JSON.stringify(mo.labels)}`);
  assert.deepEqual(mo.overlap.slice(0, 3), [], 'labels of two steps never show at once (the "+4" seen twice)');

  // the figures that went home flew
  assert.ok(want.home > 0, 'figures went home');
  assert.equal(mo.flying.length, want.home, `one flying figure per figure gone home: ${JSON.stringify(mo.flying)}`);
  for (const f of mo.flying) assert.ok(f.anims >= 1, 'a figure going home is animated');

  // the board is right at the end: every tile, the figures of the state
  const st = await api(`/api/tables/${t.id}/state`);
  assert.equal(await page.locator('.layer-tiles use').count(), st.game.board.length);
  assert.equal(await page.locator('.layer-figures > g').count(), st.game.figures.length);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the dragon moves: from the square it stood on to the next, each step of its way', async () => {
  // two bots play Princess & Dragon (the volcano, the dragon's tiles early);
  // the page watches with motion on
  const t = await api('/api/tables', {
    name: 'Ada', seats: [{ bot: 'easy' }, { bot: 'easy' }], expansions: ['princess-dragon'], seed: 11, bot_delay_ms: 350,
    tiles: { pd1: 2, pd7: 2, pd12: 1, pd24: 1, pd18: 1, pd22: 1, E: 2, U: 2, K: 1 },
  });
  const page = await newPage(browser, { ...DESK, reducedMotion: 'no-preference' });
  await page.addInitScript(watch);
  await page.addInitScript(() => localStorage.setItem('carc.lang', 'en'));
  await page.goto(`${BASE}/?table=${t.id}`);
  await ready(page);
  await page.waitForSelector('[data-testid=final]:not(.hidden)', { timeout: 90000 });
  await page.waitForFunction(() => !document.querySelector('.layer-float .float-label, .layer-fly .flying'), null, { timeout: 10000 });
  // the dragon's squares as the log tells them: each dragon step's entry
  const log = (await api(`/api/tables/${t.id}/state`)).game.log;
  const moves = log.filter((e) => e.kind === 'dragon' || e.step_kind === 'dragon').length;
  const seen = await page.evaluate(() => window.__mo.dragon);
  // a dragon node drawn on another square than the one before it moved there
  const moved = seen.filter((d, i) => i > 0 && (d.x !== seen[i - 1].x || d.y !== seen[i - 1].y));
  assert.ok(moved.length >= 2, `the dragon moved on the board (${moves} dragon steps in the log): ${JSON.stringify(seen)}`);
  for (const d of moved) assert.ok(d.anims >= 1, `the dragon's step to ${d.x},${d.y} moves: ${JSON.stringify(seen)}`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('moves in quick succession: the board never lags more than the cap behind the news', async () => {
  const page = await newPage(browser, { ...DESK, reducedMotion: 'no-preference' });
  const t = await table(7, 100);
  // on every tile laid: how long from the news (the node added) until it stops moving
  await page.addInitScript(() => {
    window.__lag = [];
    new MutationObserver((ms) => {
      for (const m of ms) {
        for (const n of m.addedNodes) {
          if (n.nodeType !== 1 || !n.matches('.layer-tiles use') || !window.__lagOn) continue;
          const came = performance.now();
          Promise.all(n.getAnimations().map((x) => x.finished.catch(() => {}))).then(() => window.__lag.push(performance.now() - came));
        }
      }
    }).observe(document, { subtree: true, childList: true });
  });
  await sit(page, t);
  await page.evaluate(() => { window.__lagOn = true; });
  // the person's moves at once through the API, the bot's 0.1 s after: a
  // step every few tenths of a second, each asking for up to 2.5 s of motion
  for (let guard = 0; guard < 30; guard++) {
    const st = await waitStateOf(t.id, (x) => x.game.next.over || x.game.next.to_move === t.seat);
    const n = st.game.next;
    if (n.over) break;
    const p = n.legal.placements.find((x) => x.meeples.length) || n.legal.placements[0];
    await api(`/api/tables/${t.id}/move`, { x: p.x, y: p.y, rot: p.rot, meeple: p.meeples[0] || null, turn: n.turn, step: n.step, token: t.token });
  }
  await page.waitForSelector('[data-testid=final]:not(.hidden)', { timeout: 20000 });
  await page.waitForFunction(() => !document.querySelector('.layer-float .float-label, .layer-fly .flying'), null, { timeout: 10000 });
  const lag = await page.evaluate(() => window.__lag);
  console.log(`# ms from a tile's news to its landing: ${lag.map(Math.round).join(' ')}`);
  const st = await api(`/api/tables/${t.id}/state`);
  assert.equal(lag.length, st.game.board.length - 1, 'every tile laid was seen');
  // the steps did queue (a tile waited for the one before) ...
  assert.ok(Math.max(...lag) > 1000, `a tile waited its turn: ${lag.map(Math.round)}`);
  // ... and a step waits 2.2 s at the most, then lands in 0.64 s (some slack for a busy machine)
  assert.ok(Math.max(...lag) < 4000, `a tile landed at most 4 s after its news: ${lag.map(Math.round)}`);
  assert.equal(await page.locator('.layer-tiles use').count(), st.game.board.length);
  assert.equal(await page.locator('.layer-figures > g').count(), st.game.figures.length);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('with reduced motion nothing moves and the board is right at once', async () => {
  const page = await newPage(browser, { ...DESK, reducedMotion: 'reduce' });
  const t = await table(5, 60);
  await sit(page, t);
  let checked = 0;
  // right after a move: no animation at all, and the board as the server says
  const check = async () => {
    const now = await page.evaluate(() => ({
      anims: document.getAnimations().map((a) => `${a.constructor.name} ${a.effect?.target?.getAttribute?.('class')}`),
      tiles: document.querySelectorAll('.layer-tiles use').length,
      log: window.carcView.game.log.filter((e) => Number.isInteger(e.x)).length,
    }));
    assert.deepEqual(now.anims, [], 'no animation runs');
    assert.equal(now.tiles, now.log + 1, 'every tile laid is on the board (and the start tile)');
    checked++;
  };
  // the first move by clicking, the others through the API (seen by the page)
  await waitTurnOrEnd(page);
  await playTurn(page, { follower: true, rotate: false });
  await check();
  for (let guard = 0; guard < 30; guard++) {
    const st = await waitStateOf(t.id, (x) => x.game.next.over || x.game.next.to_move === t.seat);
    const n = st.game.next;
    if (n.over) break;
    const p = n.legal.placements.find((x) => x.meeples.length) || n.legal.placements[0];
    await api(`/api/tables/${t.id}/move`, { x: p.x, y: p.y, rot: p.rot, meeple: p.meeples[0] || null, turn: n.turn, step: n.step, token: t.token });
    await page.waitForFunction((k) => window.carcView.game.log.length > k, st.game.log.length);
    await check();
  }
  assert.ok(checked >= 2);
  const st = await waitState(t.id);
  const want = fromLog(st.game.log);
  const mo = await page.evaluate(() => window.__mo);
  for (const x of mo.tiles) assert.equal(x.anims, 0, 'a tile appears in place');
  assert.equal(mo.flying.length, 0, 'no figure flies');
  // still one label per score event
  const per = {};
  for (const l of mo.labels) per[l.step] = (per[l.step] || 0) + 1;
  assert.deepEqual(per, want.scored, `labels per step ${JSON.stringify(mo.labels)}`);
  assert.deepEqual(mo.overlap.slice(0, 3), [], 'labels of two steps never show at once (the "+4" seen twice)');
  assert.equal(await page.locator('.layer-tiles use').count(), st.game.board.length);
  assert.equal(await page.locator('.layer-figures > g').count(), st.game.figures.length);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// the game's state once ok(state) holds (by default: it is over)
async function waitStateOf(id, ok = (s) => s.game.next.over) {
  for (let i = 0; i < 200; i++) {
    const st = await api(`/api/tables/${id}/state`);
    if (ok(st)) return st;
    await sleep(50);
  }
  throw new Error('not reached');
}
const waitState = (id) => waitStateOf(id);
