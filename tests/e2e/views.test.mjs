// The browser draws what the engine says (issue 27): at every turn of a real
// game with Inns & Cathedrals, Traders & Builders and the Abbot, what the page
// shows is held against the engine's own views, fetched from the server on a
// WebSocket of the test's own (not the page's code) and from the state:
//
// - the figure-placement hints: for every spot of every figure kind the
//   placed tile offers, the feature the hint tells of (its kind, tiles,
//   value and holders) and the outline's parts;
// - the supply shown for each player;
// - the figures on the board, after every scoring that sent some home;
// - a figure's feature on hover: its kind, tiles, value and holders;
// - the replay: at each step seen live, the figures on the board and the
//   supply shown equal the engine's at that step.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { api, BASE, launch, newPage, ready, shot, waitTurnOrEnd } from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// A question to the engine on a WebSocket the test opens in the page (a
// spectator's, apart from the client's own connection and code).
async function engine(page, id, msg) {
  return page.evaluate(async ([tid, m]) => {
    if (!window.__engine || window.__engine.readyState > 1) {
      window.__engine = new WebSocket(`ws://${location.host}/ws/${tid}`);
      window.__engineRef = 0;
      await new Promise((ok, no) => { window.__engine.onopen = ok; window.__engine.onerror = no; });
    }
    const ws = window.__engine, ref = `e2e-${++window.__engineRef}`;
    return new Promise((ok, no) => {
      const on = (ev) => {
        const a = JSON.parse(ev.data);
        if (a.ref !== ref) return;
        ws.removeEventListener('message', on);
        if (a.type === 'error') no(new Error(JSON.stringify(a))); else ok(a);
      };
      ws.addEventListener('message', on);
      ws.send(JSON.stringify({ ...m, ref }));
    });
  }, [id, msg]);
}

const figKey = (f) => `${f.player}/${f.kind}/${f.x},${f.y}/${f.at}`;
const shownFigures = (page) => page.$$eval('.layer-figures g[data-fig]', (ns) => ns.map((n) => `${n.dataset.player}/${n.dataset.kind}/${n.dataset.x},${n.dataset.y}/${n.dataset.at}`).sort());
const shownSupply = (page, players) => page.evaluate((np) => [...Array(np).keys()].map((i) => Object.fromEntries(
  [...document.querySelectorAll(`[data-testid=player-${i}] .fig[data-kind]`)].map((n) => [n.dataset.kind, Number(n.dataset.n)]))), players);
const logCount = (page) => page.locator('[data-testid=log] li[data-turn]').count();

// The hints of every spot of every figure kind on the placed tile, each held
// against the engine's preview of the placement. Returns how many.
async function checkHints(page, id, state) {
  const n = state.game.next;
  const pend = await page.evaluate(() => { const p = window.carcView.sel.pending; return p && { x: p.x, y: p.y, rot: p.rot }; });
  const pv = (await engine(page, id, { type: 'preview', step: n.step, move: { ...pend, meeple: null } })).preview;
  let checked = 0;
  const kinds = await page.$$eval('[data-act=kind]', (bs) => bs.map((b) => b.dataset.kind));
  for (const kind of kinds.length ? kinds : [null]) {
    if (kind) {
      await page.click(`[data-act=kind][data-kind="${kind}"]`);
      await page.waitForSelector(`[data-act=kind][data-kind="${kind}"].on`);
    }
    const spots = await page.$$eval('.spot-btn', (bs) => bs.map((b) => ({ i: b.dataset.i, at: b.dataset.at, kind: b.dataset.kind })));
    for (const s of spots) {
      await page.focus(`.spot-btn[data-i="${s.i}"]`);
      const info = await page.waitForFunction((q) => {
        const d = document.querySelector('[data-testid=preview-info]')?.dataset;
        return d && d.at === q.at && d.figure === q.kind && { ...d };
      }, s).then((h) => h.jsonValue());
      const o = pv.meeples.find((m) => m.kind === s.kind && m.at === s.at);
      assert.ok(o, `the engine offers ${s.kind} at ${s.at}`);
      const f = o.feature;
      assert.deepEqual({ kind: info.kind, tiles: Number(info.tiles), value: Number(info.value), holders: info.holders },
        { kind: f.kind, tiles: f.tiles, value: f.value, holders: f.holders.join(',') }, `the hint of ${s.kind} at ${s.at}`);
      // the outline: one shape a part (every part is on the board or the placed tile)
      const shapes = await page.locator('.layer-mark .preview > *').count();
      assert.equal(shapes, f.parts.length, `the outline of ${s.kind} at ${s.at}: ${JSON.stringify(f.parts)}`);
      checked++;
    }
  }
  return checked;
}

// A placed figure hovered: the feature the page tells of is the engine's.
async function checkHover(page, id, fig) {
  const pt = await page.evaluate((f) => {
    const b = window.carcView.board;
    const i = b.figs.findIndex((g) => g.player === f.player && g.kind === f.kind && g.x === f.x && g.y === f.y && g.at === f.at);
    const p = b.figPos.find((q) => q.i === i);
    b.ensureVisible(f.x, f.y);
    const [x, y] = b.clientPoint(p.x / 100, p.y / 100);
    return { x, y, free: !!document.elementFromPoint(x, y)?.closest('.board-svg') };
  }, fig);
  if (!pt.free) return false;
  await page.mouse.move(1, 1);
  await page.mouse.move(pt.x, pt.y);
  const info = await page.waitForFunction((f) => {
    const d = document.querySelector('[data-testid=figure-info]:not(.hidden)')?.dataset;
    return d && Number(d.x) === f.x && Number(d.y) === f.y && d.at === f.at && { ...d };
  }, fig).then((h) => h.jsonValue());
  const fv = (await engine(page, id, { type: 'feature', x: fig.x, y: fig.y, at: fig.at })).feature;
  assert.deepEqual({ kind: info.kind, tiles: Number(info.tiles), value: Number(info.value), holders: info.holders },
    { kind: fv.kind, tiles: fv.tiles, value: fv.value, holders: fv.holders.join(',') }, `the feature of ${figKey(fig)}`);
  const most = Math.max(...fv.holders);
  assert.equal(info.winners, fv.holders.map((w, p) => [p, w]).filter(([, w]) => w === most && w > 0).map(([p]) => p).join(','));
  assert.ok(fv.figures.some((g) => figKey({ ...g }) === figKey(fig)), 'the engine has the figure on it');
  await page.mouse.move(1, 1);
  return true;
}

test('the hints, supplies, figures and features the page shows are the engine\'s, live and in the replay', async () => {
  const pile = { U: 3, V: 3, E: 4, K: 2, J: 2, A: 2, B: 1, ic1: 1, ic5: 1, ic9: 1, tb1: 1, tb3: 1, tb6: 1, tb9: 1, Eg: 1, Vg: 1, Ug: 1 };
  const t = await api('/api/tables', {
    name: 'Ada', seats: [{}, { bot: 'easy' }], expansions: ['inns-cathedrals', 'traders-builders', 'abbot'],
    tiles: pile, seed: 17, bot_delay_ms: 40,
  });
  const page = await newPage(browser);
  await page.addInitScript(([tid, token]) => {
    localStorage.setItem('carc.lang', 'en');
    localStorage.setItem('carc.seats', JSON.stringify({ [tid]: { seat: 0, token, at: Date.now() } }));
  }, [t.id, t.token]);
  await page.goto(`${BASE}/?table=${t.id}`);
  await ready(page);
  const seen = new Map(); // log length -> {figures, supply} as the engine had them
  let hints = 0, hovers = 0, afterReturns = 0, turns = 0;
  while (await waitTurnOrEnd(page, 30000) === 'mine') {
    const st = await api(`/api/tables/${t.id}/state`);
    const g = st.game;
    if (await logCount(page) !== g.log.length) { await page.waitForFunction((k) => document.querySelectorAll('[data-testid=log] li[data-turn]').length === k, g.log.length); }
    seen.set(g.log.length, { figures: g.figures.map(figKey).sort(), supply: g.supply });
    // the supply and the figures shown are the engine's
    assert.deepEqual(await shownSupply(page, 2), g.supply, `the supply at step ${g.next.step}`);
    assert.deepEqual(await shownFigures(page), g.figures.map(figKey).sort(), `the figures at step ${g.next.step}`);
    if (g.log.some((e) => (e.events || []).some((ev) => ev.returned !== undefined))) afterReturns++;
    // a figure's feature on hover (two a turn at the most)
    for (const f of g.figures.slice(0, 2)) if (await checkHover(page, t.id, f)) hovers++;
    // the hints of the placement, then a figure on its first spot
    const before = await logCount(page);
    if (await page.locator('[data-testid=discard]').count()) await page.click('[data-testid=discard]');
    else {
      const fit = page.locator('.layer-cands .cand:not(.other)');
      await ((await fit.count()) ? fit.first() : page.locator('.layer-cands .cand').first()).click();
      await page.waitForSelector('[data-testid=confirm]');
      hints += await checkHints(page, t.id, st);
      if (turns === 2) await shot(page, 'views-hint.png');
      const btns = page.locator('.spot-btn');
      if (await btns.count()) await btns.first().click();
      await page.click('[data-testid=confirm]');
    }
    await page.waitForFunction((k) => document.querySelectorAll('[data-testid=log] li[data-turn]').length > k, before);
    turns++;
  }
  const end = await api(`/api/tables/${t.id}/state`);
  console.log(`# views: ${turns} turns of the page, ${hints} hints, ${hovers} figures hovered, ${afterReturns} positions after figures went home, ${seen.size} steps for the replay`);
  assert.ok(end.game.next.over, 'played to the end');
  assert.deepEqual(await shownSupply(page, 2), end.game.supply, 'the supply after the final scoring');
  assert.ok(hints >= 20, `hints held against the engine: ${hints}`);
  assert.ok(hovers >= 5, `figures hovered: ${hovers}`);
  assert.ok(afterReturns >= 3, `positions after figures went home: ${afterReturns}`);
  assert.deepEqual(page.errors, []);

  // the replay, at every step seen live: the same figures and supply
  const rp = await newPage(browser);
  await rp.goto(`${BASE}/?replay=${t.id}`);
  await ready(rp);
  await rp.waitForSelector('[data-testid=replay-range]');
  for (const [k, want] of seen) {
    await rp.evaluate((s) => window.carcView.goStep(s), k);
    assert.deepEqual(await shownFigures(rp), want.figures, `the replay's figures at step ${k}`);
    assert.deepEqual(await shownSupply(rp, 2), want.supply, `the replay's supply at step ${k}`);
  }
  // the start: every figure in supply (those in supply at the end and those
  // the end left on the board: farmers and pigs stay where they scored)
  const owned = end.game.supply.map((s, p) => {
    const all = { ...s };
    for (const f of end.game.figures) if (f.player === p) all[f.kind]++;
    return all;
  });
  // (held against the first step's supply: what it left, with the figure it
  // put on the board and without those its scoring sent home)
  const first = end.game.log[0];
  const before = first.supply.map((s, p) => {
    const all = { ...s };
    if (p === first.player && first.meeple) all[first.meeple.kind]++;
    for (const ev of first.events || []) if (ev.returned !== undefined && ev.player === p) all[ev.returned]--;
    return all;
  });
  assert.deepEqual(owned, before, 'every figure a player owns, at the end as at the start');
  await rp.evaluate(() => window.carcView.goStep(0));
  assert.deepEqual(await shownFigures(rp), []);
  assert.deepEqual(await shownSupply(rp, 2), owned, 'the replay starts with every figure in supply');
  // and ends with the engine's figures of the end
  await rp.evaluate((n) => window.carcView.goStep(n), end.game.log.length);
  assert.deepEqual(await shownFigures(rp), end.game.figures.map(figKey).sort(), 'the replay ends with the figures the end left');
  await shot(rp, 'views-replay.png');
  assert.deepEqual(rp.errors, []);
  await rp.context().close();
  await page.context().close();
});
