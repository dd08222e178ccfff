// The web client's defects of issue 22 (3, 4, 5, 7, 8, 9, 11), each a
// test that failed before its fix: the phone's move log at the newest
// moves; pass-and-play (names typed in the form, the move's result shown
// over a visible board before the hand-over, the seats present); the chat
// following a language switch; text that is never cut or split mid-word
// (player list, clock, final table, the analysis' marked turns) in four
// languages at 1280x800 and 390x844; distinct words (Slovenian goods and
// cloth, Finnish replay and rematch) and whose knights got nothing; the
// first turn's tile turned to a rotation that fits; and the small ones
// (one toast on resigning, no tiles left once over, the timeout toast
// clear of the player's rows, the log on screen during play, an open
// seat's name in the clock, the clock in the create form's summary, words
// for the invited person).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, newPage, ready, shot, catalogue, playTurn, waitTurnOrEnd, inView, textTrouble, switchLang, api, LANGS, DESK, PHONE, SIZES, sleep, openPage, waitState } from './lib.mjs';

const cat = Object.fromEntries(LANGS.map((l) => [l, catalogue(l)]));
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// the form of a plural value for n (English and the tests' numbers: one / other)
const form = (s, n) => {
  if (!/^(zero|one|two|few|many|other):/.test(s)) return s;
  const f = Object.fromEntries(s.split('|').map((p) => [p.slice(0, p.indexOf(':')), p.slice(p.indexOf(':') + 1)]));
  return (n === 1 ? f.one : f.other) ?? f.other;
};
const fill = (s, vars = {}) => form(s, vars.n).replace(/\{(\w+)\}/g, (m, k) => (vars[k] !== undefined ? String(vars[k]) : m));

// Our turns through the API (the first legal placement, no figure), waiting for the bots between.
async function playApi(t, turns) {
  for (let k = 0; k < turns; k++) {
    let st;
    for (let i = 0; i < 200; i++) {
      st = await api(`/api/tables/${t.id}/state`, null, t.token);
      if (st.game.next.over || st.game.next.to_move === t.seat) break;
      await sleep(50);
    }
    const n = st.game.next;
    if (n.over) return;
    const p = n.legal.discard ? { discard: true } : (({ x, y, rot }) => ({ x, y, rot, meeple: null }))(n.legal.placements[0]);
    await api(`/api/tables/${t.id}/move`, { ...p, turn: n.turn }, t.token);
  }
}

// --- 3 and 11: the move log shows the newest moves, on the phone and during play at 1280x800 ---

test('3, 11: the move log shows its newest entry: on the phone when the sheet opens, at 1280x800 during play', async () => {
  const t = await api('/api/tables', { name: 'Alice', seats: [{}, { bot: 'random' }], bot_delay_ms: 0, seed: 5, clock: { mode: 'turn', move_s: 86400 } });
  await playApi(t, 8);
  await waitState(t.id, (s) => s.game.next.to_move === 0);
  for (const [size, ctx] of SIZES) {
    const page = await openPage(browser, `/?table=${t.id}`, { seat: t, ctx });
    await page.waitForSelector('.game.mine');
    assert.equal(await page.locator('[data-testid=log] > li').count(), 16);
    if (size === '390x844') {
      await page.locator('[data-testid=mini-scores]').tap();
      await page.waitForSelector('[data-testid=log]', { state: 'visible' });
      await page.waitForTimeout(100);
    }
    await shot(page, `defect3-log-${size}.png`);
    assert.equal(await inView(page, '[data-testid=log] > li:last-child'), 'ok', `${size}: the newest move in view`);
    assert.equal(await page.$eval('[data-testid=log] > li:last-child .tn', (n) => n.textContent), '16');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

// --- 4: pass-and-play: in chat.test.mjs, beside the game it plays ---

// --- 5: the chat follows the language ---

test('5: switching the language at the table switches the chat: title, empty line, phrases, placeholder, send, lines', async () => {
  const t = await api('/api/tables', { name: 'Alice', seats: [{}, { bot: 'random' }], bot_delay_ms: 0 });
  const page = await openPage(browser, `/?table=${t.id}`, { seat: t });
  await page.waitForSelector('[data-testid=chat] .chat-empty');
  const read = () => page.evaluate(() => ({
    title: document.querySelector('[data-testid=chat] h3').textContent,
    empty: document.querySelector('[data-testid=chat] .chat-empty')?.textContent ?? null,
    phrases: [...document.querySelectorAll('[data-testid=chat] .chip')].map((b) => b.textContent),
    placeholder: document.querySelector('[data-testid=chat-input]').placeholder,
    send: document.querySelector('[data-testid=chat-send]').textContent,
    lines: [...document.querySelectorAll('[data-testid=chat-text]')].map((n) => n.textContent),
  }));
  const expect = (l, lines) => ({
    title: cat[l]['chat.title'], empty: lines ? null : cat[l]['chat.empty'],
    phrases: ['gg', 'wp', 'thanks', 'hello', 'gl', 'sorry'].map((p) => cat[l][`chat.p.${p}`]),
    placeholder: cat[l]['chat.placeholder'], send: cat[l]['chat.send'], lines: lines ? [cat[l]['chat.p.gg']] : [],
  });
  assert.deepEqual(await read(), expect('en', false));
  for (const l of ['fi', 'de', 'sl']) {
    await page.selectOption('.top .lang', l);
    await page.waitForFunction((v) => document.documentElement.lang === v, l);
    assert.deepEqual(await read(), expect(l, false), l);
  }
  await page.click('[data-testid=phrase-gg]');
  await page.waitForSelector('[data-testid=chat-text]');
  for (const l of ['fi', 'en']) {
    await page.selectOption('.top .lang', l);
    await page.waitForFunction((v) => document.documentElement.lang === v, l);
    assert.deepEqual(await read(), expect(l, true), `${l}, with a line`);
  }
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// --- 8: words ---

test('8: distinct words (Slovenian goods and cloth, Finnish replay and rematch); an unfinished cathedral city names whose knights got nothing', async () => {
  assert.notEqual(cat.sl['kind.goods'].toLowerCase(), cat.sl['goods.cloth'].toLowerCase());
  assert.ok(!fill(cat.sl['fin.goods'], { good: cat.sl['goods.cloth'], points: '' }).toLowerCase().includes(`${cat.sl['goods.cloth']} (${cat.sl['goods.cloth']})`));
  for (const k of ['info.replay', 'replay.title', 'lobby.replay']) {
    assert.ok(!/uusint/i.test(cat.fi[k]), `fi ${k}: "${cat.fi[k]}" is not the rematch's word`);
  }
  // one tile: the cathedral north of the start with Alice's knight; the city stays open
  const t = await api('/api/tables', { name: 'Alice', seats: [{}, { bot: 'random' }], expansions: ['inns-cathedrals'], tiles: { ic1: 1 }, bot_delay_ms: 0 });
  const st = await api(`/api/tables/${t.id}/state`, null, t.token);
  const p = st.game.next.legal.placements[0];
  await api(`/api/tables/${t.id}/move`, { x: p.x, y: p.y, rot: p.rot, meeple: p.meeples.find((m) => m.kind === 'follower'), turn: 0 }, t.token);
  for (const path of [`/?table=${t.id}`, `/?replay=${t.id}&step=1`]) {
    const page = await openPage(browser, path);
    for (const lang of LANGS) {
      await switchLang(page, lang);
      const line = page.locator('[data-testid=log-final] .ev');
      await line.first().waitFor();
      const text = (await line.first().textContent()).trim();
      assert.ok(text.includes('Alice'), `${lang} ${path}: "${text}" names whose knight got nothing`);
      assert.ok(!text.endsWith(cat[lang]['log.nobody']), `${lang}: not "… ${cat[lang]['log.nobody']}"`);
    }
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

// --- 9: the tile in hand is turned to a rotation that fits ---

test('9: a turn starts with the tile turned to a rotation that fits, so the yellow squares the hint speaks of are there', async () => {
  // E (a city cap) fits next to the start tile only turned: not at rotation 0
  const t = await api('/api/tables', { name: 'Alice', seats: [{}, { bot: 'random' }], tiles: { E: 3, U: 3 }, seed: 2, bot_delay_ms: 0 });
  const st = await api(`/api/tables/${t.id}/state`, null, t.token);
  assert.equal(st.game.next.tile, 'E');
  assert.ok(!st.game.next.legal.placements.some((p) => p.rot === 0), 'E does not fit at rotation 0');
  for (const [size, ctx] of SIZES) {
    const page = await openPage(browser, `/?table=${t.id}`, { seat: t, ctx });
    await page.waitForSelector('.game.mine');
    const yellow = await page.locator('.layer-cands .cand:not(.other)').count();
    assert.ok(yellow > 0, `${size}: squares with a yellow frame: ${yellow}`);
    const rot = await page.evaluate(() => window.carcView.sel.rot);
    assert.ok(st.game.next.legal.placements.some((p) => p.rot === rot), `${size}: rotation ${rot} fits`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
  // and every later turn of the game
  const page = await openPage(browser, `/?table=${t.id}`, { seat: t });
  for (let k = 0; k < 2; k++) {
    if ((await waitTurnOrEnd(page)) === 'over') break;
    await page.waitForFunction(() => document.querySelectorAll('.layer-cands .cand').length > 0);
    assert.ok(await page.locator('.layer-cands .cand:not(.other)').count() > 0, `turn ${k}: a yellow square`);
    await playTurn(page, { follower: false, rotate: false });
  }
  await page.context().close();
});

// --- 11: the small ones ---

test('11: resigning shows one toast; no "tiles left" once over', async () => {
  const t = await api('/api/tables', { name: 'Alice', seats: [{}, { bot: 'random' }], bot_delay_ms: 0, clock: { mode: 'realtime', move_s: 60, reserve_s: 0 } });
  const page = await openPage(browser, `/?table=${t.id}`, { seat: t });
  await page.waitForSelector('.game.mine');
  assert.ok(await page.locator('[data-testid=tiles-left]').isVisible());
  await page.click('[data-testid=resign]');
  await page.click('[data-testid=resign]');
  await page.waitForSelector('[data-testid=final]:not(.hidden)');
  await page.waitForTimeout(600);
  const toasts = await page.$$eval('.toast', (ns) => ns.map((n) => n.textContent));
  const about = toasts.filter((s) => s.includes('Alice') || s.includes(cat.en['clock.you_resigned']) || /resign/i.test(s));
  assert.equal(about.length, 1, `one toast about the resignation: ${JSON.stringify(toasts)}`);
  assert.equal(await page.locator('[data-testid=tiles-left]').isVisible(), false, 'no "tiles left" once over');
  await page.reload();
  await ready(page);
  await page.waitForSelector('[data-testid=final]:not(.hidden)');
  assert.equal(await page.locator('[data-testid=tiles-left]').isVisible(), false, 'nor after a reload');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('11: the timeout toast covers none of the player\'s own rows, at both sizes', async () => {
  for (const [size, ctx] of SIZES) {
    const t = await api('/api/tables', { name: 'Alice', seats: [{}, { bot: 'random' }], bot_delay_ms: 0, clock: { mode: 'realtime', move_s: 5, reserve_s: 0, max_timeouts: 5, takeover: 'random' } });
    const page = await openPage(browser, `/?table=${t.id}`, { seat: t, ctx });
    const want = fill(cat.en['clock.timed_out'], { name: 'Alice' });
    await page.waitForFunction((w) => [...document.querySelectorAll('.toast')].some((n) => n.textContent === w), want, { timeout: 12000 });
    const hit = await page.evaluate((w) => {
      const toast = [...document.querySelectorAll('.toast')].find((n) => n.textContent === w).getBoundingClientRect();
      const over = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
      const rows = ['[data-testid=player-0]', '[data-testid=clock-0]', '[data-testid=mini-scores]', '.turn-card'];
      return rows.flatMap((s) => [...document.querySelectorAll(s)].filter((n) => n.getClientRects().length && over(toast, n.getBoundingClientRect())).map(() => s));
    }, want);
    assert.deepEqual(hit, [], `${size}: the toast covers ${hit}`);
    await shot(page, `defect11-timeout-${size}.png`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('11: the clock names an open seat; the invited person reads words meant for them', async () => {
  const t = await api('/api/tables', { name: 'Alice', seats: [{}, {}], clock: { mode: 'realtime', move_s: 30, reserve_s: 60 } });
  const page = await openPage(browser, `/?table=${t.id}`, { seat: t });
  for (const lang of LANGS) {
    await switchLang(page, lang);
    await page.waitForSelector('[data-testid=clock-1]');
    assert.equal((await page.textContent('[data-testid=clock-1] .clock-name')).trim(), cat[lang]['seat.open'], lang);
    assert.ok(!(await page.textContent('[data-testid=clock]')).includes('#2'));
  }
  await page.context().close();
  for (const [size, ctx] of SIZES) {
    const guest = await openPage(browser, `/?table=${t.id}`, { ctx });
    for (const lang of LANGS) {
      await switchLang(guest, lang);
      await guest.waitForSelector('.waiting:not(.hidden) [data-testid=join]');
      const text = await guest.textContent('.waiting .card');
      const host = fill(cat[lang]['wait.text'], { n: 1 });
      assert.ok(!text.includes(host), `${lang}: the host's words are not the guest's`);
      assert.ok(text.includes(fill(cat[lang]['wait.text.guest'], { n: 1 })), `${lang} ${size}: the guest's words`);
      assert.deepEqual(await textTrouble(guest, '.waiting .card'), [], `${lang} ${size}`);
    }
    assert.deepEqual(guest.errors, []);
    await guest.context().close();
  }
  // the host keeps "send this link"
  const host = await openPage(browser, `/?table=${t.id}`, { seat: t });
  await host.waitForSelector('.waiting:not(.hidden)');
  assert.ok((await host.textContent('.waiting .card')).includes(fill(cat.en['wait.text'], { n: 1 })));
  await host.context().close();
});

test('11: the create form\'s summary has the clock', async () => {
  const page = await openPage(browser, '/');
  for (const lang of LANGS) {
    await switchLang(page, lang);
    await page.selectOption('[data-testid=clock-preset]', 'rt-30');
    const want = fill(cat[lang]['clock.rule'], { move: '0:30', reserve: '1:00' });
    await page.waitForFunction((w) => document.querySelector('[data-testid=create-summary]').textContent.includes(w), want, { timeout: 3000 }).catch(() => {});
    assert.ok((await page.textContent('[data-testid=create-summary]')).includes(want), `${lang}: "${await page.textContent('[data-testid=create-summary]')}" has "${want}"`);
    await page.selectOption('[data-testid=clock-preset]', 'tb-1d');
    const turn = fill(cat[lang]['clock.rule_turn'], { move: fill(cat[lang]['clock.days'], { n: 1 }) });
    assert.ok((await page.textContent('[data-testid=create-summary]')).includes(turn), `${lang}: turn-based`);
    await page.selectOption('[data-testid=clock-preset]', 'none');
    assert.ok(!(await page.textContent('[data-testid=create-summary]')).includes(turn));
  }
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
