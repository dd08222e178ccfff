// A step the client has no drawing of (issue 27): a test build of the engine
// knows the expansion "test-pass", where after a tile is placed the next
// player decides a step of that kind. The page plays a game of it to the end
// against a bot at 1280x800 and at 390x844 (touch): its tiles as always, and
// the test-pass decisions through the generic decision (a button per option,
// worded by the engine, under a translated heading), also in the bot's turns;
// the turn line says who decides while it is not the turn's player; the log
// and the replay show those steps in the engine's words, and the analysis
// places each analysed decision at its step. Without a test build
// (no "test-pass" in GET /api/vocabulary) the test is skipped.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { api, BASE, SIZES, launch, newPage, ready, shot, waitTurnOrEnd, catalogue } from './lib.mjs';

const STEP = 'test-pass';
let browser, vocabulary;
before(async () => {
  browser = await launch();
  vocabulary = await (await fetch(`${BASE}/api/vocabulary`)).json();
});
after(async () => { await browser?.close(); });

const en = catalogue('en');
const logCount = (page) => page.locator('[data-testid=log] li[data-turn]').count();

// Clicks (taps) a square where the tile fits, one whose centre the board
// shows uncovered, and around it too (on a phone the turn card covers the
// board's bottom, and a tap beside a tool button goes to the button), once
// the layout holds still (the turn card grows as the turn is drawn).
async function putTile(page, touch) {
  const cands = await page.$$eval('.layer-cands .cand', (ns) => ns.map((n) => ({ x: Number(n.dataset.x), y: Number(n.dataset.y), fits: !n.classList.contains('other') })));
  const where = (c) => page.evaluate(([x, y]) => {
    window.carcView.board.ensureVisible(x, y);
    const [px, py] = window.carcView.board.clientPoint(x + 0.5, y + 0.5);
    const free = [[0, 0], [-20, 0], [20, 0], [0, -20], [0, 20]].every(([dx, dy]) => !!document.elementFromPoint(px + dx, py + dy)?.closest('.board-svg'));
    return { px, py, free };
  }, [c.x, c.y]);
  for (const c of [...cands.filter((q) => q.fits), ...cands]) {
    let p = await where(c);
    for (let k = 0; k < 10; k++) {
      await page.waitForTimeout(100);
      const q = await where(c);
      if (q.px === p.px && q.py === p.py) break;
      p = q;
    }
    if (!p.free) continue;
    if (touch) await page.touchscreen.tap(p.px, p.py); else await page.mouse.click(p.px, p.py);
    await page.waitForSelector('[data-testid=confirm]').catch(async (e) => {
      await shot(page, 'steps-fail.png');
      console.log('# ' + await page.evaluate((q) => JSON.stringify({ q, at: document.elementFromPoint(q.px, q.py)?.outerHTML.slice(0, 120), cls: document.querySelector('.game').className, next: window.carcView.game.next.step_kind, sel: window.carcView.sel }), { ...p, c }));
      throw e;
    });
    return;
  }
  throw new Error(`no square in view among ${JSON.stringify(cands)}`);
}

async function playTestPass(size, ctx) {
  const touch = !!ctx.hasTouch;
  const t = await api('/api/tables', {
    name: 'Ada', seats: [{}, { bot: 'easy' }], expansions: [STEP], tiles: { U: 3, E: 2, V: 2, K: 1 }, seed: 7, bot_delay_ms: 400,
  });
  const page = await newPage(browser, ctx);
  await page.addInitScript(([tid, token]) => {
    localStorage.setItem('carc.lang', 'en');
    localStorage.setItem('carc.seats', JSON.stringify({ [tid]: { seat: 0, token, at: Date.now() } }));
  }, [t.id, t.token]);
  await page.goto(`${BASE}/?table=${t.id}`);
  await ready(page);
  const hit = (loc) => (touch ? loc.tap() : loc.click());
  let decided = 0, tiles = 0, sawOther = false, reloaded = false;
  for (let guard = 0; guard < 80; guard++) {
    if (await waitTurnOrEnd(page, 30000) === 'over') break;
    const st = await api(`/api/tables/${t.id}/state`);
    const n = st.game.next;
    const before = await logCount(page);
    if (n.step_kind === STEP) {
      // the generic decision: the heading, one button per option in the engine's words
      await page.waitForSelector('[data-testid=decision]');
      assert.equal(await page.textContent('[data-testid=decision-head]'), en['decision.title']);
      const labels = await page.$$eval('[data-testid=decision] button', (bs) => bs.map((b) => b.textContent.replace(/^\d\s/, '')));
      assert.deepEqual(labels, n.legal.options.map((o) => o.text), 'the buttons say what the engine says');
      assert.notEqual(n.turn_player, n.to_move, 'the next player decides after a tile');
      // the turn line: whose decision in whose turn
      const mine = en['turn.decides.you'].split('{player}')[0];
      const tl = await page.textContent('[data-testid=turn-line]');
      assert.ok(tl.startsWith(mine) && tl.includes('bot'), `the turn line: ${tl}`);
      assert.equal(await page.locator('.hand:not(.hidden)').count(), 0, 'no tile to place');
      if (decided === 1) await shot(page, `steps-decision-${size}.png`);
      const i = decided % n.legal.options.length;
      await hit(page.locator(`[data-testid=decision-${i}]`));
      decided++;
    } else {
      if (await page.locator('[data-testid=discard]').count()) await hit(page.locator('[data-testid=discard]'));
      else {
        await putTile(page, touch);
        await hit(page.locator('[data-testid=confirm]'));
      }
      tiles++;
      // the bot decides the test-pass step of this tile: the turn line says so
      // (its pause is 400 ms: the line is there to read)
      if (!sawOther) {
        const words = en['turn.decides'].replace('{name}', '').trim();
        const line = await page.waitForFunction((w) => {
          const l = document.querySelector('[data-testid=turn-line]');
          return l && l.textContent.includes(w) && { text: l.textContent, who: l.dataset.toMove };
        }, words, { timeout: 10000 }).then((h) => h.jsonValue());
        assert.equal(line.who, '1', 'the bot decides');
        assert.ok(line.text.includes('bot'), line.text);
        sawOther = true;
      }
    }
    await page.waitForFunction((k) => document.querySelectorAll('[data-testid=log] li[data-turn]').length > k, before, { timeout: 15000 });
    if (!reloaded && decided === 2) {
      // a reload in the middle: the log still words the steps
      await page.reload();
      await ready(page);
      reloaded = true;
    }
  }
  const end = await api(`/api/tables/${t.id}/state`);
  assert.ok(end.game.next.over, 'played to the end');
  await page.waitForSelector('[data-testid=final]:not(.hidden)');
  assert.ok(decided >= 3 && tiles >= 3, `decided ${decided}, placed ${tiles}`);
  // the log: every test-pass step, in the engine's words, by the player who decided
  const steps = end.game.log.filter((e) => e[STEP] !== undefined);
  assert.ok(steps.length >= 6, `${steps.length} steps of the kind`);
  const lines = await page.$$eval(`[data-testid=log] li[data-kind="${STEP}"]`, (ls) => ls.map((l) => ({ step: Number(l.dataset.step), text: l.textContent })));
  assert.equal(lines.length, steps.length, 'a log line for each');
  for (const e of steps) {
    const l = lines.find((x) => x.step === e.step);
    assert.ok(l && l.text.includes(`${STEP} ${e[STEP]}`), `step ${e.step}: ${l?.text}`);
  }
  await shot(page, `steps-final-${size}.png`);
  const m = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, iw: innerWidth }));
  assert.ok(m.sw <= m.iw, `${m.sw} px wide on ${m.iw}`);
  assert.deepEqual(page.errors, []);

  // the replay steps through every step, those too
  const rp = await newPage(browser, ctx);
  await rp.goto(`${BASE}/?replay=${t.id}`);
  await ready(rp);
  await rp.waitForSelector('[data-testid=replay-range]');
  for (let k = 1; k <= end.game.log.length; k++) {
    await rp.evaluate((s) => window.carcView.goStep(s), k);
    const last = await rp.$$eval('[data-testid=log] li[data-turn]', (ls) => ls.map((l) => ({ kind: l.dataset.kind, text: l.textContent })).pop());
    const e = end.game.log[k - 1];
    if (e[STEP] !== undefined) assert.ok(last.kind === STEP && last.text.includes(`${STEP} ${e[STEP]}`), `replay step ${k}: ${last.text}`);
    // the line counts turns (two steps a turn here), the slider steps
    const line = await rp.textContent('[data-testid=replay-step]');
    assert.ok(line.includes(en['replay.step'].replace('{k}', e.turn + 1).replace('{n}', end.game.log.at(-1).turn + 1)), `replay step ${k}: ${line}`);
    assert.equal(await rp.locator('.layer-tiles use').count(), 1 + end.game.log.slice(0, k).filter((x) => Number.isInteger(x.x)).length);
  }
  await shot(rp, `steps-replay-${size}.png`);
  assert.deepEqual(rp.errors, []);
  if (!touch) await checkAnalysis(rp, t.id, end.game);
  await rp.context().close();
  await page.context().close();
}

// The analysis of the game on its replay: the server analyses every
// decision, each at its step (a turn holds two here: the tile, then the
// test-pass); the curve's marks stand at steps; a test-pass step selected
// says who decided what in the engine's words and draws no tile on the board.
async function checkAnalysis(rp, id, game) {
  await api(`/api/tables/${id}/analysis`, {});
  let a;
  for (let i = 0; i < 300; i++) {
    a = await api(`/api/tables/${id}/analysis`);
    if (a.status === 'done') break;
    await new Promise((r) => setTimeout(r, 200));
  }
  assert.equal(a.status, 'done', 'the analysis is done');
  assert.deepEqual(a.turns.map((x) => x.step), game.log.map((e) => e.step), 'one analysed decision a step');
  await rp.reload();
  await ready(rp);
  await rp.waitForSelector('[data-testid=an-chart]');
  const marks = await rp.$$eval('[data-testid=an-mark]', (ms) => ms.map((m) => Number(m.dataset.anTurn)));
  for (const k of marks) assert.ok(a.turns[k - 1].lost > 0, `a mark at step ${k}: a decision that lost points`);
  const k = game.log.findIndex((e) => e[STEP] !== undefined) + 1;
  await rp.evaluate((s) => window.carcView.analysis.select(s), k);
  const line = await rp.textContent('[data-testid=an-selected]');
  const e = game.log[k - 1], x = a.turns[k - 1];
  const name = await rp.evaluate((p) => window.carcView.name(p), e.player);
  assert.ok(line.includes(name), `the decider named: ${line}`);
  if (JSON.stringify(x.best) !== JSON.stringify(x.played)) assert.ok(line.includes(`${STEP} ${x.played[STEP]}`), line);
  assert.equal(await rp.locator('[data-testid=hint-ghost]').count(), 0, 'no tile drawn for a decision that puts none');
  assert.equal(await rp.evaluate(() => document.querySelector('.layer-hint')?.innerHTML.includes('NaN') ?? false), false);
  await shot(rp, 'steps-analysis.png');
  assert.deepEqual(rp.errors, []);
}

for (const [size, ctx] of SIZES) {
  test(`a game with a step the client has no drawing of, played through the generic decision (${size})`, async (tc) => {
    if (!vocabulary.steps?.includes(STEP)) { tc.skip('not a test build of the engine: no test-pass step'); return; }
    await playTestPass(size, ctx);
  });
}
