// Princess & Dragon in the browser (issue 28): a person plays a game of the
// expansion to its end against a bot, on a short pile of volcano, dragon,
// magic portal and princess tiles with a few base tiles, at 1280x800 and at
// 390x844 (touch). The tiles draw their symbols; the dragon stands on its
// square; while it moves its path is drawn; on the person's dragon steps a
// highlighted square is clicked (tapped), and before Confirm the page shows
// what the engine's preview says would be eaten there (every figure on that
// square among it); the action step offers the fairy beside a follower (or
// the portal) on the board and "do nothing" as a button; the log words the
// steps in the catalogue's words; the final table shows. Screenshots in the
// artifacts: pd-dragon-<size>.png (a square chosen, what it eats shown),
// pd-action-<size>.png, pd-final-<size>.png; and the replay of the game
// (pd-replay.png) puts the dragon where each of its steps took it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { api, BASE, SIZES, launch, newPage, ready, shot, waitTurnOrEnd, catalogue } from './lib.mjs';

const EXP = 'princess-dragon';
let browser, vocabulary;
before(async () => {
  browser = await launch();
  vocabulary = await (await fetch(`${BASE}/api/vocabulary`)).json();
});
after(async () => { await browser?.close(); });

const en = catalogue('en');
const logCount = (page) => page.locator('[data-testid=log] li[data-turn]').count();
const head = (key) => en[key].split('{')[0];

// The client point of the middle of board square (x, y), once the layout
// holds still, if the board shows it uncovered there (on a phone the turn
// card covers the board's bottom); else null.
async function squarePoint(page, x, y) {
  const where = () => page.evaluate(([sx, sy]) => {
    window.carcView.board.ensureVisible(sx, sy);
    const [px, py] = window.carcView.board.clientPoint(sx + 0.5, sy + 0.5);
    const free = [[0, 0], [-15, 0], [15, 0], [0, -15], [0, 15]].every(([dx, dy]) => !!document.elementFromPoint(px + dx, py + dy)?.closest('.board-svg'));
    return { px, py, free };
  }, [x, y]);
  let p = await where();
  for (let k = 0; k < 10; k++) {
    await page.waitForTimeout(100);
    const q = await where();
    if (q.px === p.px && q.py === p.py) break;
    p = q;
  }
  if (!p.free) {
    // bring the square to the middle of the board, and look again
    await page.evaluate(([sx, sy]) => { const b = window.carcView.board; b.centreOn({ x: sx, y: sy, px: 60 }); }, [x, y]);
    await page.waitForTimeout(150);
    p = await where();
  }
  return p.free ? p : null;
}
const hitAt = (page, touch, p) => (touch ? page.touchscreen.tap(p.px, p.py) : page.mouse.click(p.px, p.py));

// A tile step: the tile on a square where it fits, a figure on its first
// spot when `figure`, confirmed.
async function placeTile(page, touch, figure) {
  const hit = (loc) => (touch ? loc.tap() : loc.click());
  if (await page.locator('[data-testid=discard]').count()) { await hit(page.locator('[data-testid=discard]')); return; }
  const cands = await page.$$eval('.layer-cands .cand', (ns) => ns.map((n) => ({ x: Number(n.dataset.x), y: Number(n.dataset.y), fits: !n.classList.contains('other') })));
  for (const c of [...cands.filter((q) => q.fits), ...cands]) {
    const p = await squarePoint(page, c.x, c.y);
    if (!p) continue;
    await hitAt(page, touch, p);
    await page.waitForSelector('[data-testid=confirm]');
    if (figure && await page.locator('[data-testid=spot-0]').count()) await hit(page.locator('[data-testid=spot-0]'));
    else await hit(page.locator('[data-testid=no-follower]'));
    await hit(page.locator('[data-testid=confirm]'));
    return;
  }
  throw new Error(`no square in view among ${JSON.stringify(cands)}`);
}

async function playPrincess(size, ctx) {
  const touch = !!ctx.hasTouch;
  const t = await api('/api/tables', {
    name: 'Ada', seats: [{}, { bot: 'easy' }], expansions: [EXP], seed: 11, bot_delay_ms: 250,
    tiles: { pd1: 2, pd7: 2, pd12: 1, pd24: 1, pd18: 1, pd22: 1, E: 2, U: 2, K: 1 },
  });
  const page = await newPage(browser, ctx);
  await page.addInitScript(([tid, token]) => {
    localStorage.setItem('carc.lang', 'en');
    localStorage.setItem('carc.seats', JSON.stringify({ [tid]: { seat: 0, token, at: Date.now() } }));
  }, [t.id, t.token]);
  await page.goto(`${BASE}/?table=${t.id}`);
  await ready(page);
  // the expansion by its name among the table's options
  // (the table's description may come a moment after the page is ready)
  await page.waitForFunction((w) => document.querySelector('.table-info')?.textContent.includes(w), en['exp.pd'], { timeout: 10000 })
    .catch(() => assert.fail('the table names the expansion'));
  const hit = (loc) => (touch ? loc.tap() : loc.click());
  let dragonClicks = 0, actions = 0, tiles = 0, sawPath = false, sawDragon = false;
  for (let guard = 0; guard < 80; guard++) {
    if (await waitTurnOrEnd(page, 30000) === 'over') break;
    const st = await api(`/api/tables/${t.id}/state`);
    const g = st.game, n = g.next;
    const before = await logCount(page);
    if (g.dragon && !sawDragon) {
      // the dragon stands on its square
      await page.waitForSelector('[data-testid=dragon-piece]');
      assert.deepEqual(await page.$eval('[data-testid=dragon-piece]', (d) => [Number(d.dataset.x), Number(d.dataset.y)]), [g.dragon.x, g.dragon.y]);
      sawDragon = true;
    }
    if (n.step_kind === 'dragon') {
      assert.equal(await page.textContent('[data-testid=decision-head]'), en['step.dragon']);
      if (g.dragon_move?.steps > 0) {
        // its path so far is drawn
        assert.equal(Number(await page.getAttribute('[data-testid=dragon-path]', 'data-steps')), g.dragon_move.steps);
        sawPath = true;
      }
      // the highlighted squares are the engine's options
      const squares = await page.$$eval('.layer-cands .choice', (rs) => rs.map((r) => `${r.dataset.x},${r.dataset.y}`).sort());
      assert.deepEqual(squares, n.legal.options.map((o) => `${o.dragon.x},${o.dragon.y}`).sort());
      let chosen = null;
      for (const o of n.legal.options) {
        const p = await squarePoint(page, o.dragon.x, o.dragon.y);
        if (!p) continue;
        await hitAt(page, touch, p);
        chosen = o.dragon;
        break;
      }
      assert.ok(chosen, `a square in view among ${JSON.stringify(n.legal.options)}`);
      await page.waitForSelector('.layer-cands .choice.on');
      // what it would eat, before confirming: the engine's preview, and every
      // figure standing on that square among it
      const info = await page.waitForFunction(() => document.querySelector('[data-testid=eaten-info]')?.textContent || null).then((h) => h.jsonValue());
      const onSquare = g.figures.filter((f) => f.x === chosen.x && f.y === chosen.y);
      const marks = await page.locator('.layer-eaten .eaten').count();
      assert.ok(marks >= onSquare.length, `${marks} marked, ${onSquare.length} on the square`);
      if (onSquare.length) assert.ok(info.startsWith(head('decide.eats')), info);
      else if (!marks) assert.equal(info, en['decide.eats.none']);
      if (!dragonClicks || onSquare.length) await shot(page, `pd-dragon-${size}.png`);
      await hit(page.locator('[data-testid=confirm-decision]'));
      await page.waitForFunction((k) => document.querySelectorAll('[data-testid=log] li[data-turn]').length > k, before, { timeout: 15000 });
      // the log says it, and the dragon stands there
      const line = await page.$$eval('[data-testid=log] li[data-kind=dragon]', (ls) => ls.at(-1).textContent);
      const words = en['log.dragon'].split('{name}')[1].split('{tile}')[0].trim();
      assert.ok(line.includes(words), line);
      // the step as stored: the person's latest dragon step (the bot may
      // already have made the next one, so the dragon may have gone on)
      const st2 = await api(`/api/tables/${t.id}/state`);
      const mine = st2.game.log.filter((e) => e.dragon && e.player === n.to_move).at(-1);
      assert.deepEqual(mine.dragon, { x: chosen.x, y: chosen.y });
      assert.deepEqual(mine.dragon_at, { x: chosen.x, y: chosen.y });
      if (st2.game.dragon && st2.game.dragon.x === chosen.x && st2.game.dragon.y === chosen.y) {
        await page.waitForFunction(([x, y]) => { const d = document.querySelector('[data-testid=dragon-piece]'); return d && Number(d.dataset.x) === x && Number(d.dataset.y) === y; }, [chosen.x, chosen.y]);
      }
      dragonClicks++;
      continue;
    }
    if (n.step_kind === 'action') {
      assert.equal(await page.textContent('[data-testid=decision-head]'), en['step.action']);
      // doing nothing is a button; the other options are on the board
      assert.equal((await page.textContent('[data-testid=decide-none]')).replace(/^\d+\s/, ''), en['decide.action.none']);
      const places = n.legal.options.filter((o) => typeof o.action === 'object');
      const spots = await page.locator('.layer-spots .spot').count();
      assert.ok(spots > 0 === places.length > 0, `${spots} spots for ${places.length} options`);
      if (actions === 0) await shot(page, `pd-action-${size}.png`);
      if (spots && actions % 2 === 0) {
        await hit(page.locator('[data-testid^=choose-]').first());
        await page.waitForSelector('[data-testid=confirm-decision]');
        await hit(page.locator('[data-testid=confirm-decision]'));
      } else await hit(page.locator('[data-testid=decide-none]'));
      actions++;
    } else if (n.step_kind === 'tile') {
      await placeTile(page, touch, tiles % 2 === 0);
      tiles++;
    } else throw new Error(`a step of kind ${n.step_kind}`);
    await page.waitForFunction((k) => document.querySelectorAll('[data-testid=log] li[data-turn]').length > k, before, { timeout: 15000 });
  }
  const end = await api(`/api/tables/${t.id}/state`);
  assert.ok(end.game.next.over, 'played to the end');
  await page.waitForSelector('[data-testid=final]:not(.hidden)');
  assert.ok(dragonClicks >= 1, `the person moved the dragon ${dragonClicks} times`);
  assert.ok(sawDragon, 'the dragon was drawn');
  console.log(`# ${size}: ${tiles} tiles, ${dragonClicks} dragon squares clicked, ${actions} action steps, path seen: ${sawPath}`);
  // every dragon and action step in the log, worded by the catalogue (not the engine's English "text")
  const steps = end.game.log.filter((e) => e.dragon !== undefined || e.action !== undefined);
  const lines = await page.$$eval('[data-testid=log] li[data-kind=dragon], [data-testid=log] li[data-kind=action]', (ls) => ls.map((l) => l.textContent));
  assert.equal(lines.length, steps.length, 'a log line for each');
  for (const l of lines) assert.ok(!/dragon to \(|fairy to|decided:/.test(l), `worded by the catalogue: ${l}`);
  await shot(page, `pd-final-${size}.png`);
  const m = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, iw: innerWidth }));
  assert.ok(m.sw <= m.iw, `${m.sw} px wide on ${m.iw}`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
  if (!touch) await checkReplay(ctx, t.id, end.game);
}

// The replay steps through the game: after each dragon step the dragon on
// the square it went to, at the end where the engine's view has it, each
// step's log line in the catalogue's words.
async function checkReplay(ctx, id, game) {
  const rp = await newPage(browser, ctx);
  await rp.goto(`${BASE}/?replay=${id}`);
  await ready(rp);
  await rp.waitForSelector('[data-testid=replay-range]');
  for (let k = 1; k <= game.log.length; k++) {
    await rp.evaluate((s) => window.carcView.goStep(s), k);
    const e = game.log[k - 1];
    if (e.dragon === undefined) continue;
    const at = await rp.$eval('[data-testid=dragon-piece]', (d) => [Number(d.dataset.x), Number(d.dataset.y)]);
    assert.deepEqual(at, [e.dragon.x, e.dragon.y], `replay step ${k}`);
  }
  if (game.dragon) assert.deepEqual(await rp.$eval('[data-testid=dragon-piece]', (d) => [Number(d.dataset.x), Number(d.dataset.y)]), [game.dragon.x, game.dragon.y]);
  await shot(rp, 'pd-replay.png');
  assert.deepEqual(rp.errors, []);
  await rp.context().close();
}

for (const [size, ctx] of SIZES) {
  test(`a Princess & Dragon game against a bot, the dragon's squares chosen on the board (${size})`, async (tc) => {
    if (!vocabulary.expansions?.includes(EXP)) { tc.skip('the engine has no Princess & Dragon'); return; }
    await playPrincess(size, ctx);
  });
}
