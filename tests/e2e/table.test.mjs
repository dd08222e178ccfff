// The table screen for people (issue 13): the final table's every column in
// view and adding up (four languages, wide and phone), a log that tells the
// story (tile names, roles, what was scored), follower roles and the preview
// of the feature a follower joins, "no followers left", the phone layout,
// the score track, the replay's last step, one error toast in a race, and
// screenshots of all that in build/e2e-artifacts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, newPage, ready, shot, catalogue, waitTurnOrEnd, LANGS } from './lib.mjs';

const SIZES = [{ width: 1280, height: 800 }, { width: 390, height: 844 }];
let browser, bigGame;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function api(path, body) {
  const r = await fetch(BASE + path, body ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) } : {});
  const j = await r.json();
  if (!r.ok) throw new Error(`${path}: ${JSON.stringify(j)}`);
  return j;
}
// A table made through the API; with `name` this browser's page gets the seat.
async function makeTable(opts) { return api('/api/tables', opts); }
async function openTable(opts, { lang = 'en', seat = null, replay = false, ...ctx } = {}) {
  const page = await newPage(browser, ctx);
  await page.addInitScript(([l, s]) => {
    localStorage.setItem('carc.lang', l);
    if (s) localStorage.setItem('carc.seats', JSON.stringify({ [s.id]: { seat: s.seat, token: s.token, at: Date.now() } }));
  }, [lang, seat]);
  await page.goto(`${BASE}/?${replay ? 'replay' : 'table'}=${opts.id}`);
  await ready(page);
  return page;
}
async function waitOver(id, ms = 120000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const st = await api(`/api/tables/${id}/state`);
    if (st.game?.next?.over) return st;
    await new Promise((r) => setTimeout(r, 300));
  }
  throw new Error(`table ${id} did not finish`);
}
const codeRe = (code) => new RegExp(`(^|[\\s:(])${code.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([\\s,.:)]|$)`);

// Every cell of the final table inside the viewport and the card (no sideways
// scroll), and every player's numbers adding up to the total.
async function checkFinalTable(page, label) {
  await page.waitForSelector('[data-testid=final]:not(.hidden) .final-table');
  const r = await page.evaluate(() => {
    const vw = document.documentElement.clientWidth, vh = window.innerHeight;
    const card = document.querySelector('[data-testid=final] .card');
    const out = { bad: [], sums: {}, totals: {}, scroll: card.scrollWidth - card.clientWidth, cells: 0 };
    for (const c of document.querySelectorAll('.final-table th, .final-table td')) {
      const b = c.getBoundingClientRect();
      out.cells++;
      if (b.left < -0.5 || b.right > vw + 0.5 || b.top < -0.5 || b.bottom > vh + 0.5) out.bad.push(`${c.textContent.trim()} ${Math.round(b.left)}..${Math.round(b.right)} x ${Math.round(b.top)}..${Math.round(b.bottom)}`);
      // the text fits its cell: nothing cut off
      if (c.scrollWidth > c.clientWidth + 1) out.bad.push(`cut: ${c.textContent.trim()}`);
      const p = c.dataset.p, k = c.dataset.k;
      if (p === undefined || !k) continue;
      if (k === 'total') out.totals[p] = Number(c.textContent);
      else out.sums[p] = (out.sums[p] || 0) + Number(c.textContent);
    }
    out.kinds = [...new Set([...document.querySelectorAll('.final-table [data-k]')].map((c) => c.dataset.k))];
    return out;
  });
  assert.deepEqual(r.bad, [], `${label}: cells out of view`);
  assert.ok(r.scroll <= 1, `${label}: the card scrolls sideways by ${r.scroll}px`);
  assert.deepEqual(r.sums, r.totals, `${label}: the numbers add up to the totals`);
  return r;
}

test('an expansion game: the final table shows every column and adds up in every language, wide and on a phone; the replay ends with the live supply', async () => {
  const t0 = await makeTable({
    players: 4, seats: [{ bot: 'medium' }, { bot: 'medium' }, { bot: 'medium' }, { bot: 'medium' }],
    expansions: ['inns-cathedrals', 'traders-builders', 'abbot'], seed: 1313, bot_delay_ms: 0,
  });
  bigGame = t0.id;
  const st = await waitOver(bigGame);
  const f = st.game.next.final;
  const kinds = Object.keys(Object.assign({}, ...f.by_kind)).filter((k) => f.by_kind.some((b) => b[k]));
  assert.ok(kinds.includes('goods'), `an expansion game with goods: ${kinds}`);
  for (const size of SIZES) {
    for (const lang of LANGS) {
      const page = await openTable(t0, { lang, viewport: size, ...(size.width < 500 ? { isMobile: true, hasTouch: true } : {}) });
      const r = await checkFinalTable(page, `${lang} ${size.width}x${size.height}`);
      for (const k of kinds) assert.ok(r.kinds.includes(k), `${lang} ${size.width}: column ${k} shown`);
      for (let i = 0; i < 4; i++) assert.equal(r.totals[i], f.scores[i], 'the totals are the server\'s');
      if (lang === 'de' && size.width < 500) await shot(page, 'final-de-phone.png');
      if (lang === 'en' && size.width > 500) {
        await shot(page, 'final-expansions.png');
        // the fitted view of the whole game: pieces told apart
        await page.click('[data-act=closefinal]');
        await page.click('[data-testid=fit]');
        await page.waitForTimeout(300);
        await shot(page, 'expansions-fitted.png');
        assert.ok(await page.locator('.layer-figures .figure').count() > 0, 'figures on the board');
        // the live supply, for the replay below
        bigGame = { id: t0.id, supply: await page.$$eval('.players .player .figs', (ns) => ns.map((n) => n.textContent.replace(/\s+/g, ' ').trim())) };
      }
      assert.deepEqual(page.errors, []);
      await page.context().close();
    }
  }
  // the replay's last step: the supply of the finished game, as the live game shows it
  const page = await openTable(t0, { replay: true });
  await page.waitForSelector('[data-testid=replay-step]');
  await page.keyboard.press('End');
  await page.waitForSelector('[data-testid=final]:not(.hidden)');
  const supply = await page.$$eval('.players .player .figs', (ns) => ns.map((n) => n.textContent.replace(/\s+/g, ' ').trim()));
  assert.deepEqual(supply, bigGame.supply, 'replay end = live supply');
  assert.ok(supply.some((s) => /[1-9]/.test(s)), `figures back in the supply: ${supply}`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// A square where the tile fits (in its rotation if there is one)
async function candidate(page) {
  const fit = page.locator('.layer-cands .cand:not(.other)');
  return (await fit.count()) ? fit.first() : page.locator('.layer-cands .cand').first();
}

// A short game of one person (clicking, a figure every turn) against a bot.
async function playShort(page, turns, pick = null) {
  let moves = 0;
  for (let guard = 0; guard < turns; guard++) {
    if (await waitTurnOrEnd(page, 40000) === 'over') break;
    const before = await page.locator('[data-testid=log] li[data-turn]').count();
    if (await page.locator('[data-testid=discard]').count()) await page.click('[data-testid=discard]');
    else {
      await (await candidate(page)).click();
      await page.waitForSelector('[data-testid=confirm]');
      const btns = page.locator('.spot-btn');
      if (await btns.count()) {
        let k = 0;
        if (pick) { const texts = await btns.allTextContents(); k = Math.max(0, texts.findIndex((s) => pick.test(s))); }
        await btns.nth(k).click();
      }
      await page.click('[data-testid=confirm]');
    }
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid=log] li[data-turn]').length > n, before);
    moves++;
  }
  return moves;
}

test('the log tells the story: tile names, roles, what was scored and by whom; a click marks it on the board; the score track', async () => {
  const en = catalogue('en');
  const t0 = await makeTable({ players: 2, seats: [{}, { bot: 'medium' }], name: 'Alice', tiles: { E: 4, U: 2, V: 2, B: 1, K: 1, J: 1, D: 1 }, seed: 7, bot_delay_ms: 50 });
  const page = await openTable(t0, { seat: t0 });
  await playShort(page, 20);
  await page.waitForSelector('[data-testid=final]:not(.hidden)');
  const st = await api(`/api/tables/${t0.id}/state`);
  await page.click('[data-act=closefinal]');
  // every placement names its tile in words, never its code
  const lines = await page.$$eval('[data-testid=log] li[data-turn]', (ns) => ns.map((n) => ({ tile: n.dataset.tile, text: n.querySelector('.what').textContent })));
  assert.equal(lines.length, st.game.log.length);
  const tiles = await (await fetch(`${BASE}/api/tiles`)).json();
  const codes = tiles.tiles.map((x) => x.name);
  for (const l of lines) {
    for (const c of codes) assert.doesNotMatch(l.text, codeRe(c), `no tile code "${c}" in "${l.text}"`);
    assert.ok(Object.entries(en).some(([k, v]) => k.startsWith('tn.') && !k.startsWith('tn.x.') && k !== 'tn.with' && l.text.includes(v.replace(/^one:|\|.*$/g, '').replace(/\{.*$/, '').trim())), `a tile name in "${l.text}"`);
  }
  // figures are named by their role
  const placed = st.game.log.filter((e) => e.meeple).length;
  const roles = await page.$$eval('[data-testid=log] li[data-turn] .what', (ns, words) => ns.filter((n) => words.some((w) => n.textContent.includes(w))).length,
    ['knight', 'robber', 'monk', 'farmer'].map((r) => en[`log.put.${r}`]));
  assert.equal(roles, placed, 'every figure placed is named by its role');
  // the scoring lines say what was scored, its size, who and how much
  const evs = await page.$$eval('[data-testid=log] .ev:not(.final)', (ns) => ns.map((n) => n.textContent));
  // (scoring events: figures going home are events too, without points)
  const all = st.game.log.flatMap((e) => e.events).filter((e) => e.points && Math.max(...e.points) > 0);
  const scored = all.filter((e) => !e.final);
  assert.equal(evs.length, scored.length, 'one line per feature scored in the game');
  assert.ok(evs.length >= 1, `scoring lines: ${evs.join(' / ')}`);
  assert.equal(await page.locator('[data-testid=log] .ev.final').count(), all.length - scored.length, 'one line per feature of the final scoring');
  for (const [i, ev] of scored.entries()) {
    const text = evs[i];
    if (ev.kind === 'city' || ev.kind === 'road') assert.match(text, new RegExp(`\\b${ev.tiles} tiles?\\b`), `size in "${text}"`);
    if (ev.shields) assert.match(text, new RegExp(`${ev.shields} shields?`));
    for (const [p, pts] of ev.points.entries()) if (pts > 0) assert.ok(text.includes(String(pts)), `points of ${p} in "${text}"`);
  }
  assert.equal(await page.locator('[data-testid=log-final]').count(), 1, 'the final scoring is a group of its own');
  assert.ok(await page.locator('[data-testid=log-final] .ev').count() >= 1);
  // clicking a scoring line marks its feature on the board (after the last flash has gone)
  await page.waitForTimeout(2300);
  const line = page.locator('[data-testid=log] .ev[data-mark]').first();
  await line.scrollIntoViewIfNeeded();
  await line.click();
  // (the feature's parts are the engine's: asked for, then marked)
  await page.waitForFunction(() => document.querySelectorAll('.layer-mark .mark > *').length >= 1, null, { timeout: 5000 });
  await page.waitForTimeout(150);
  await shot(page, 'log-scoring.png');

  // the score track: on by default, each marker on its square, hidden by its tool and remembered
  const scores = st.game.next.final.scores;
  assert.ok(await page.locator('[data-testid=track]').isVisible());
  for (let i = 0; i < 2; i++) {
    const cell = await page.locator(`[data-testid=track] [data-testid=track-p${i}]`).evaluate((m) => Number(m.closest('[data-cell]').dataset.cell));
    assert.equal(cell, scores[i] % 50, `player ${i}'s marker on ${scores[i] % 50}`);
  }
  await page.click('[data-testid=track-toggle]');
  assert.equal(await page.locator('[data-testid=track]').isVisible(), false);
  await page.reload();
  await ready(page);
  await page.waitForSelector('.layer-tiles use');
  assert.equal(await page.locator('[data-testid=track]').isVisible(), false, 'the choice is kept');
  await page.click('[data-act=closefinal]');
  await page.click('[data-testid=track-toggle]');
  assert.ok(await page.locator('[data-testid=track]').isVisible());

  // the same log in the other languages: tile names and roles, no codes, no "mit Gefolgsmann"
  for (const lang of ['de', 'fi', 'sl']) {
    const cat = catalogue(lang);
    const p2 = await openTable(t0, { lang });
    await p2.waitForFunction((n) => document.querySelectorAll('[data-testid=log] li[data-turn]').length === n, st.game.log.length);
    const texts = await p2.$$eval('[data-testid=log] li[data-turn] .what', (ns) => ns.map((n) => n.textContent));
    for (const s of texts) for (const c of codes) assert.doesNotMatch(s, codeRe(c), `${lang}: no code "${c}" in "${s}"`);
    const withRole = texts.filter((s) => ['knight', 'robber', 'monk', 'farmer'].some((r) => s.includes(cat[`log.put.${r}`]))).length;
    assert.equal(withRole, placed, `${lang}: roles named`);
    assert.ok(!texts.some((s) => /mit Gefolgsmann/.test(s)));
    assert.deepEqual(p2.errors, []);
    await p2.context().close();
  }
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('figure spots are named by role, and hovering one previews the feature it joins', async () => {
  const t0 = await makeTable({ players: 2, seats: [{}, { bot: 'medium' }], name: 'Alice', tiles: { U: 3, V: 3, E: 3, B: 1 }, seed: 11, bot_delay_ms: 50 });
  for (const lang of ['en', 'de', 'fi', 'sl']) {
    const cat = catalogue(lang);
    const page = await openTable(t0, { lang, seat: t0 });
    assert.equal(await waitTurnOrEnd(page), 'mine');
    // a square next to the start tile's road or city: the feature reaches across tiles
    await (await candidate(page)).click();
    await page.waitForSelector('.spot-btn');
    const texts = await page.locator('.spot-btn').allTextContents();
    const words = ['knight', 'robber', 'monk', 'farmer'].map((r) => cat[`role.${r}`]);
    for (const s of texts) assert.ok(words.some((w) => s.includes(w)), `${lang}: a role in "${s}"`);
    // hover each spot on the board: the feature is marked and described
    const spots = page.locator('.layer-spots .spot');
    let across = false;
    for (let i = 0; i < await spots.count(); i++) {
      await spots.nth(i).hover();
      await page.waitForFunction(() => document.querySelector('[data-testid=preview-info]')?.textContent.length > 0);
      const info = await page.textContent('[data-testid=preview-info]');
      assert.ok(words.some((w) => info.includes(w)), `${lang}: the role in "${info}"`);
      assert.match(info, /\d/, 'a size and a value');
      assert.ok(info.includes(cat['pv.open']) || info.includes(cat['pv.closed']) || /\d/.test(info));
      const marked = await page.locator('.layer-mark .preview > *').count();
      assert.ok(marked >= 1, 'the feature is marked on the board');
      if (marked >= 2) across = true;
      if (lang === 'en' && marked >= 2 && !(await page.evaluate(() => window.shotDone))) {
        await shot(page, 'follower-preview.png');
        await page.evaluate(() => { window.shotDone = true; });
      }
    }
    assert.ok(across, `${lang}: a preview reaches across tiles`);
    // focus works as hover does (keyboard)
    await page.mouse.move(5, 5);
    await page.locator('.spot-btn').first().focus();
    await page.waitForFunction(() => document.querySelector('[data-testid=preview-info]')?.textContent.length > 0);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('"no followers left" instead of "no figure can go here" when the supply is empty', async () => {
  const en = catalogue('en');
  // cloisters in fields: a farmer every turn, and farmers never come back
  // cloisters in fields: a monk or a farmer every turn until none is left
  const t0 = await makeTable({ players: 2, seats: [{}, { bot: 'random' }], name: 'Alice', tiles: { B: 24 }, seed: 5, bot_delay_ms: 30 });
  const page = await openTable(t0, { seat: t0 });
  let st;
  for (let k = 0; k < 11; k++) {
    await playShort(page, 1, new RegExp(en['role.farmer']));
    st = await api(`/api/tables/${t0.id}/state`);
    if (st.game.supply[0].follower === 0 || st.game.next.over) break;
  }
  assert.equal(st.game.supply[0].follower, 0, 'all seven followers placed');
  assert.equal(await waitTurnOrEnd(page), 'mine');
  await (await candidate(page)).click();
  await page.waitForSelector('[data-testid=confirm]');
  assert.equal(await page.textContent('[data-testid=figure-hint]'), en['hint.nofollowers']);
  assert.equal(await page.locator('.spot-btn').count(), 0);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('phone (390x844, touch): the board takes the screen, hand and confirm under the thumb, scores one tap away, spots of 32 px, no key hints', async () => {
  const t0 = await makeTable({ players: 2, seats: [{}, { bot: 'medium' }], name: 'Alice', seed: 21, bot_delay_ms: 50 });
  const page = await openTable(t0, { seat: t0, viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  // a few turns so that the board is not a single tile
  await playShort(page, 4);
  assert.equal(await waitTurnOrEnd(page), 'mine');
  const vh = 844;
  const board = await page.locator('.board-wrap').boundingBox();
  assert.ok(board.height >= 0.5 * vh && board.width >= 380, `the board takes the screen: ${JSON.stringify(board)}`);
  assert.equal(await page.locator('.keys').first().isVisible(), false, 'no keyboard hints on touch');
  for (const sel of ['[data-testid=rotr]', '[data-testid=rotl]']) {
    const b = await page.locator(sel).boundingBox();
    assert.ok(b.y > vh / 2 && b.y + b.height <= vh, `${sel} in the lower half: ${JSON.stringify(b)}`);
  }
  await (await candidate(page)).tap();
  await page.waitForSelector('[data-testid=confirm]');
  await page.waitForTimeout(100);
  const c = await page.locator('[data-testid=confirm]').boundingBox();
  assert.ok(c.y > vh / 2 && c.y + c.height <= vh && c.height >= 44, `confirm under the thumb: ${JSON.stringify(c)}`);
  const spots = await page.locator('.layer-spots .spot').evaluateAll((ns) => ns.map((n) => n.getBoundingClientRect()).map((r) => ({ w: r.width, h: r.height, x: r.x, y: r.y })));
  assert.ok(spots.length >= 1, 'spots to choose');
  for (const s of spots) {
    assert.ok(s.w >= 32 && s.h >= 32, `a spot of at least 32 px: ${JSON.stringify(s)}`);
    assert.ok(s.x >= 0 && s.y >= 0 && s.x + s.w <= 390 && s.y + s.h <= board.y + board.height, `spot in view: ${JSON.stringify(s)}`);
  }
  await page.locator('.layer-spots .spot').first().tap();
  await page.waitForSelector('.layer-spots .spot.selected');
  // no hover on a touch screen: the chosen spot's feature is previewed
  await page.waitForFunction(() => document.querySelector('[data-testid=preview-info]')?.textContent.length > 0);
  assert.ok(await page.locator('.layer-mark .preview > *').count() >= 1);
  const c2 = await page.locator('[data-testid=confirm]').boundingBox();
  assert.ok(c2.y > vh / 2 && c2.y + c2.height <= vh, `confirm still in view with a spot chosen: ${JSON.stringify(c2)}`);
  await shot(page, 'phone-choosing-spot.png');
  await page.locator('[data-testid=confirm]').tap();
  // the scores: a strip always in view; one tap opens players and log
  const strip = page.locator('[data-testid=mini-scores]');
  assert.ok(await strip.isVisible());
  assert.equal(await page.locator('[data-testid=players]').isVisible(), false);
  await strip.tap();
  await page.waitForSelector('[data-testid=players]', { state: 'visible' });
  const pb = await page.locator('[data-testid=player-0]').boundingBox();
  assert.ok(pb.y >= 0 && pb.y + pb.height <= vh, 'the players in view');
  await shot(page, 'phone-scores.png');
  await strip.tap();
  await page.waitForSelector('[data-testid=players]', { state: 'hidden' });
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a race of two tabs on one seat shows the error toast once', async () => {
  const t0 = await makeTable({ players: 2, seats: [{}, { bot: 'medium' }], name: 'Alice', tiles: { U: 4, V: 4 }, seed: 3, bot_delay_ms: 2000 });
  const a = await openTable(t0, { seat: t0 });
  const b = await a.context().newPage();
  b.errors = [];
  b.on('pageerror', (e) => b.errors.push(e.message));
  await b.goto(`${BASE}/?table=${t0.id}`);
  await ready(b);
  // the newer tab holds the seat's controls (windows.js): it moves by clicking;
  // the older one, a moment late, sends the same turn's move itself (three
  // times: a double tap and a retry), as a tab did before it heard of the other
  assert.equal(await waitTurnOrEnd(b), 'mine');
  await (await candidate(b)).click();
  await b.waitForSelector('[data-testid=confirm]');
  const m = await b.evaluate(() => { const v = window.carcView; const p = v.sel.pending; return { type: 'move', x: p.x, y: p.y, rot: p.rot, meeple: null, turn: v.game.next.turn }; });
  await b.evaluate(() => window.carcView.confirm());
  await a.evaluate((mv) => { for (let i = 0; i < 3; i++) window.carcView.live.send(mv); }, m);
  await a.waitForTimeout(1200);
  const na = await a.locator('.toast.error').count(), nb = await b.locator('.toast.error').count();
  assert.equal(nb, 0, 'the tab that moved shows no error');
  assert.equal(na, 1, `the tab that lost the race says so once (${na} toasts)`);
  assert.deepEqual(a.errors, []);
  assert.deepEqual(b.errors, []);
  await a.context().close();
});

test('plural rules per language (Slovenian dual: 2 igralca), and the table screen uses them', async () => {
  const want = {
    sl: { 1: '1 igralec', 2: '2 igralca', 3: '3 igralci', 4: '4 igralci', 5: '5 igralcev', 102: '102 igralca' },
    de: { 1: '1 Spieler', 2: '2 Spieler' },
    fi: { 1: '1 pelaaja', 2: '2 pelaajaa' },
    en: { 1: '1 player', 2: '2 players' },
  };
  const t0 = await makeTable({ players: 2, seats: [{}, {}], tiles: { U: 2 } });
  for (const [lang, forms] of Object.entries(want)) {
    const page = await openTable(t0, { lang });
    const got = await page.evaluate(async (ns) => {
      const { t } = await import('/js/i18n.js');
      return Object.fromEntries(ns.map((n) => [n, t('opt.players.n', { n })]));
    }, Object.keys(forms).map(Number));
    assert.deepEqual(got, Object.fromEntries(Object.entries(forms)), lang);
    // (the options are drawn with the table's description: wait for them, bounded)
    const said = await page.waitForFunction((w) => document.querySelector('.table-info')?.textContent.includes(w), forms[2], { timeout: 5000 }).then(() => true, () => false);
    assert.ok(said, `${lang}: the table's options say "${forms[2]}" (${await page.textContent('.table-info')})`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('a scoring flash is readable on any ground: its label sits on a pill of the scorer\'s colour with that colour\'s ink', async () => {
  const t0 = await makeTable({ players: 2, seats: [{}, {}], tiles: { U: 2 } });
  const page = await openTable(t0);
  await page.waitForSelector('.layer-tiles use');
  const r = await page.evaluate(async () => {
    const { PALETTE } = await import('/js/colors.js');
    const v = window.carcView;
    const lum = (hex) => {
      if (/^#[0-9a-f]{3}$/i.test(hex)) hex = '#' + [...hex.slice(1)].map((x) => x + x).join('');
      const c = hex.match(/[0-9a-f]{2}/gi).map((x) => parseInt(x, 16) / 255).map((x) => (x <= 0.03928 ? x / 12.92 : ((x + 0.055) / 1.055) ** 2.4));
      return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2];
    };
    const ratio = (a, b) => { const [x, y] = [lum(a), lum(b)].sort((p, q) => q - p); return (x + 0.05) / (y + 0.05); };
    const b = v.game.board[0];
    const seg = v.tiles.defs.get(b.tile).segments[0];
    const out = [];
    for (const c of PALETTE) {
      v.board.flash([{ x: b.x, y: b.y, seg }], 'garden', '+9', c);
      const g = [...document.querySelectorAll('.layer-float .float-label')].pop();
      const rect = g.querySelector('rect'), text = g.querySelector('text');
      out.push({ id: c.id, ratio: ratio(rect.getAttribute('fill'), text.getAttribute('fill')), stroke: rect.getAttribute('stroke'), label: text.textContent });
    }
    return out;
  });
  for (const x of r) {
    assert.ok(x.ratio >= 3, `${x.id}: contrast (large bold text: WCAG asks 3:1) ${x.ratio.toFixed(2)} of the label on its pill`);
    assert.equal(x.stroke, '#fff', 'a white rim parts the pill from the yellow flash');
    assert.equal(x.label, '+9');
  }
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
