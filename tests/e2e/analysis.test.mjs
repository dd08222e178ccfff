// The analysis on the replay screen: a bot game played to the end, its
// replay opened, "Analyse" clicked, the progress line, then the
// win-probability curve (one path per player, a point per turn and the
// start), the marked turns; a marked turn selected shows the position
// before it with the better move as a ghost on the board and a line in
// words; a click on the curve goes to that turn. Also at a phone size, and
// the stored analysis comes back at once on a second visit. Issue 22: every
// listed mistake says why in words that name a feature, the selected one
// lists its reasons at their squares, the tile box shows the mistake's own
// tile, the curve has turn numbers and axis titles, and a game ended by a
// resignation has its analysis panel too (1280x800 and 390x844).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, catalogue, launch, newPage, ready, shot } from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function postJson(p, body) {
  const r = await fetch(BASE + p, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const j = await r.json();
  assert.ok(r.status < 300, `${p}: ${r.status} ${JSON.stringify(j)}`);
  return j;
}
const getJson = async (p) => (await fetch(BASE + p)).json();

async function botGame() {
  const t = await postJson('/api/tables', { seats: [{ bot: 'random' }, { bot: 'random' }], bot_delay_ms: 0 });
  const deadline = Date.now() + 60000;
  while (Date.now() < deadline) {
    if ((await getJson(`/api/tables/${t.id}`)).status === 'over') return t.id;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error('the bot game did not end');
}

let gameId;

// the words each feature kind goes by in the English reasons
const KIND_WORD = { city: /\bcit(y|ies)\b/, road: /\broads?\b/, field: /\bfields?\b/, cloister: /\bcloisters?\b/, garden: /\bgardens?\b/ };

// every listed mistake has a reason naming a feature (its kind, in words)
async function checkListedReasons(page) {
  const rows = await page.$$eval('[data-testid=an-worst] li', (ls) => ls.map((l) => {
    const w = l.querySelector('[data-testid=an-why]');
    return { turn: Number(l.querySelector('[data-an-turn]').dataset.anTurn), kind: w?.dataset.kind, code: w?.dataset.code, text: w?.textContent || '' };
  }));
  assert.ok(rows.length > 0, 'mistakes are listed');
  for (const r of rows) {
    assert.ok(KIND_WORD[r.kind], `turn ${r.turn}: a reason with a feature kind (${r.kind}, ${r.code})`);
    assert.match(r.text, KIND_WORD[r.kind], `turn ${r.turn}: the reason names the ${r.kind}: "${r.text}"`);
  }
  return rows;
}

// the curve's axes: titled, turn numbers from 0 to the last turn
async function checkAxes(page, n) {
  const ticks = await page.$$eval('[data-testid=an-tick]', (ts) => ts.map((x) => Number(x.textContent)));
  assert.ok(ticks.length >= 3, `turn numbers on the curve: ${ticks}`);
  assert.equal(ticks[0], 0);
  assert.equal(ticks[ticks.length - 1], n, 'the last turn is numbered');
  assert.equal(await page.textContent('[data-testid=an-xtitle]'), 'Turn');
  assert.match(await page.textContent('[data-testid=an-chart]'), /Chance of winning/);
  assert.match(await page.textContent('[data-testid=an-chart]'), /100 %.*50 %.*0 %/);
}

// mistake k selected: the tile box holds that turn's own tile
async function checkHand(page, a, k) {
  await page.waitForFunction((kk) => document.querySelector('.hand-tile')?.dataset.turn === String(kk), k);
  assert.equal(await page.getAttribute('.hand-tile', 'data-tile'), a.turns[k - 1].tile, `turn ${k}'s tile in the tile box`);
  assert.match(await page.textContent('.hand-tile .hand-name'), new RegExp(`Turn ${k}:`));
}

test('analyse a finished game on its replay: curve, marked turns, the better move on the board', async () => {
  gameId = await botGame();
  const state = await getJson(`/api/tables/${gameId}/state`);
  const n = state.game.log.length;
  const page = await newPage(browser);
  await page.goto(`${BASE}/?replay=${gameId}`);
  await ready(page);
  await page.waitForSelector('[data-testid=an-start]');
  await page.click('[data-testid=an-start]');
  await page.waitForSelector('[data-testid=an-progress]');
  await page.waitForSelector('[data-testid=an-curve]', { timeout: 90000 });
  // one path per player, each with a point per turn and the start
  const paths = await page.$$eval('[data-testid=an-curve] path.an-line', (ps) => ps.map((p) => ({ player: p.dataset.player, points: Number(p.dataset.points), d: p.getAttribute('d'), stroke: p.getAttribute('stroke') })));
  assert.equal(paths.length, 2, 'a line per player');
  for (const p of paths) {
    assert.equal(p.points, n + 1, `player ${p.player}: ${n} turns and the start`);
    assert.equal((p.d.match(/[ML]/g) || []).length, n + 1, 'as many points in the path');
  }
  assert.notEqual(paths[0].stroke, paths[1].stroke, 'each in the player\'s colour');
  const a = await getJson(`/api/tables/${gameId}/analysis`);
  assert.equal(a.status, 'done');
  assert.equal(a.turns.length, n);
  // the marked turns: on the curve and in the list, the same ones
  const marks = await page.$$eval('[data-testid=an-mark]', (ms) => ms.map((m) => Number(m.dataset.anTurn)));
  const listed = await page.$$eval('[data-testid=an-worst] [data-an-turn]', (ms) => ms.map((m) => Number(m.dataset.anTurn)));
  assert.ok(marks.length > 0, 'random bots lose points somewhere');
  assert.deepEqual(listed, marks);
  // the largest loss of each player is among them
  for (const lg of a.largest) if (lg.turn && lg.lost >= 1) assert.ok(marks.includes(lg.turn), `turn ${lg.turn} marked`);
  // select the largest loss: the position before it, the ghost of the better move
  const k = a.largest_turn;
  assert.ok(listed.includes(k), 'the largest loss of the game is listed');
  await page.click(`[data-testid=an-worst] [data-an-turn="${k}"]`);
  await page.waitForSelector('[data-testid=an-selected]');
  assert.match(await page.textContent('[data-testid=replay-step]'), new RegExp(`\\b${k - 1}\\b`));
  const best = a.turns[k - 1].best;
  if (!best.discarded) {
    await page.waitForSelector('[data-testid=hint-ghost]', { state: 'attached' });
    const tr = await page.getAttribute('[data-testid=hint-ghost]', 'transform');
    assert.match(tr, new RegExp(`translate\\(${best.x * 100} ${best.y * 100}\\)`), 'the ghost is where the better move goes');
    assert.equal(await page.locator('[data-testid=hint-figure]').count(), best.meeple ? 1 : 0, 'its figure with it');
    assert.equal(await page.locator('.layer-hint .hint-played').count(), a.turns[k - 1].played.discarded ? 0 : 1, 'the move played framed');
  }
  const line = await page.textContent('[data-testid=an-selected]');
  assert.ok(line.includes(state.table.seats[a.turns[k - 1].player].name) || line.length > 20, line);
  // why: the reasons of the turn, each at its square, and the points by kind
  const why = a.turns[k - 1].why;
  assert.ok(why && why.reasons.length >= 1, 'the largest loss has a why');
  const reasons = await page.$$eval('[data-testid=an-reason]', (rs) => rs.map((r) => ({ ...r.dataset, text: r.textContent })));
  assert.equal(reasons.length, why.reasons.length);
  reasons.forEach((r, i) => {
    const w = why.reasons[i];
    assert.equal(r.code, w.code);
    assert.equal(r.kind, w.kind);
    assert.deepEqual([Number(r.x), Number(r.y), r.at], [w.x, w.y, w.at], 'the reason\'s place');
    assert.match(r.text, KIND_WORD[w.kind], r.text);
  });
  assert.match(await page.textContent('[data-testid=an-now]'), /Scored at once/);
  assert.match(await page.textContent('[data-testid=an-end]'), /Expected by the end/);
  await checkHand(page, a, k);
  await checkAxes(page, n);
  await checkListedReasons(page);
  await page.locator('[data-testid=board]').scrollIntoViewIfNeeded();
  await shot(page, 'analysis-desktop.png');
  // a click on the curve goes to that turn and takes the ghost away
  await page.locator('[data-testid=an-curve]').scrollIntoViewIfNeeded();
  const box = await page.locator('[data-testid=an-curve]').boundingBox();
  await page.mouse.click(box.x + box.width - 3, box.y + box.height / 2);
  await page.waitForFunction((nn) => new RegExp(`\\b${nn}\\b.*\\b${nn}\\b`).test(document.querySelector('[data-testid=replay-step]').textContent), n);
  assert.equal(await page.locator('[data-testid=hint-ghost]').count(), 0);
  // stepping moves the cursor
  const x1 = await page.getAttribute('[data-testid=an-cursor]', 'x1');
  await page.keyboard.press('Home');
  await page.waitForFunction((v) => document.querySelector('[data-testid=an-cursor]').getAttribute('x1') !== v, x1);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a stored analysis shows at once, also on a phone', async () => {
  assert.ok(gameId, 'needs the game of the first test');
  const page = await newPage(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await page.goto(`${BASE}/?replay=${gameId}`);
  await ready(page);
  await page.waitForSelector('[data-testid=an-curve]');
  assert.equal(await page.locator('[data-testid=an-start]').count(), 0, 'no button: it is stored');
  const first = page.locator('[data-testid=an-worst] [data-an-turn]').first();
  await first.scrollIntoViewIfNeeded();
  await first.click();
  await page.waitForSelector('[data-testid=an-selected]');
  const a = await getJson(`/api/tables/${gameId}/analysis`);
  await checkHand(page, a, Number(await first.getAttribute('data-an-turn')));
  await checkListedReasons(page);
  await checkAxes(page, a.turns.length);
  // nothing runs off the screen sideways
  const wide = await page.evaluate(() => document.documentElement.scrollWidth);
  assert.ok(wide <= 390, `page width ${wide}`);
  const curve = await page.locator('[data-testid=an-curve]').boundingBox();
  assert.ok(curve.width > 200 && curve.x >= 0 && curve.x + curve.width <= 390, JSON.stringify(curve));
  await shot(page, 'analysis-phone.png');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the reasons in German, Finnish and Slovenian: every sentence from the catalogue, no key or placeholder left', async () => {
  assert.ok(gameId, 'needs the game of the first test');
  for (const [lang, locale] of [['de', 'de-DE'], ['fi', 'fi-FI'], ['sl', 'sl-SI']]) {
    const c = catalogue(lang);
    const page = await newPage(browser, { locale });
    await page.goto(`${BASE}/?replay=${gameId}`);
    await ready(page);
    await page.waitForSelector('[data-testid=an-curve]');
    assert.equal(await page.textContent('[data-testid=an-xtitle]'), c['an.axis.x']);
    await page.locator('[data-testid=an-worst] [data-an-turn]').first().click();
    await page.waitForSelector('[data-testid=an-reason]');
    const text = await page.textContent('[data-testid=analysis]');
    assert.doesNotMatch(text, /an\.(why|p|on|held|pts)\.|\{\w+\}/, `${lang}: ${text}`);
    assert.ok(text.includes(c['an.why.title']), `${lang}: the reasons' heading`);
    await page.locator('[data-testid=an-selected]').scrollIntoViewIfNeeded();
    await shot(page, `analysis-${lang}.png`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

// a person against a bot, a few moves, then the person resigns: the game
// is over without its last tiles, and its replay offers the analysis
async function resignedGame() {
  const t = await postJson('/api/tables', { seats: [{}, { bot: 'random' }], bot_delay_ms: 0, name: 'ann' });
  const H = { 'Content-Type': 'application/json', Authorization: `Bearer ${t.token}` };
  const deadline0 = Date.now() + 30000;
  for (let moves = 0; moves < 4;) {
    assert.ok(Date.now() < deadline0, 'four moves in 30 s');
    const st = await (await fetch(`${BASE}/api/tables/${t.id}/state`, { headers: H })).json();
    const nx = st.game.next;
    if (nx.to_move !== 0) { await new Promise((r) => setTimeout(r, 100)); continue; }
    const pl = nx.legal.placements[0];
    const body = nx.legal.discard ? { discard: true } : { x: pl.x, y: pl.y, rot: pl.rot, meeple: pl.meeples[0] || null };
    const r = await fetch(`${BASE}/api/tables/${t.id}/move`, { method: 'POST', headers: H, body: JSON.stringify(body) });
    if (r.status === 200) moves++;
    else await new Promise((res) => setTimeout(res, 100));
  }
  // (refused with stale_turn while the bot's move is being stored: again)
  let r;
  for (let i = 0; i < 50; i++) {
    r = await fetch(`${BASE}/api/tables/${t.id}/resign`, { method: 'POST', headers: H, body: '{}' });
    if (r.status !== 409) break;
    await new Promise((res) => setTimeout(res, 100));
  }
  assert.equal(r.status, 200, await r.text());
  const deadline = Date.now() + 10000;
  while (Date.now() < deadline) {
    if ((await getJson(`/api/tables/${t.id}`)).status === 'over') return t.id;
    await new Promise((res) => setTimeout(res, 100));
  }
  throw new Error('the resigned game did not end');
}

for (const [label, opts] of [['desktop', { viewport: { width: 1280, height: 800 } }], ['phone', { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true }]]) {
  test(`a game ended by a resignation has its analysis panel (${label})`, async () => {
    const id = await resignedGame();
    const st = await getJson(`/api/tables/${id}/state`);
    assert.equal(st.game.next.over, false, 'the engine\'s game did not reach its end');
    const page = await newPage(browser, opts);
    await page.goto(`${BASE}/?replay=${id}`);
    await ready(page);
    await page.waitForSelector('[data-testid=analysis]:not(.hidden)');
    await page.click('[data-testid=an-start]');
    await page.waitForSelector('[data-testid=an-curve]', { timeout: 60000 });
    await checkAxes(page, st.game.log.length);
    const wide = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(wide <= opts.viewport.width, `page width ${wide}`);
    await shot(page, `analysis-resigned-${label}.png`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  });
}
