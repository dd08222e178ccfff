// Loose ends of the merged web client: a game ended by a resignation shows
// as over (table, replay, lobby); the join form holds a name to the server's
// 63 bytes; counts in words by the language's plural rules; and screenshots
// of the main screens at a desktop and a phone size, with checks that
// nothing runs off the screen.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, newPage, ready, playTurn, waitTurnOrEnd, isOver, shot, catalogue } from './lib.mjs';

const LANGS = ['en', 'fi', 'de', 'sl'];
const cat = Object.fromEntries(LANGS.map((l) => [l, catalogue(l)]));
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const getJson = async (p) => (await fetch(BASE + p)).json();
async function postJson(p, body) {
  const r = await fetch(BASE + p, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
  const j = await r.json();
  assert.ok(r.status < 300, `${p}: ${r.status} ${JSON.stringify(j)}`);
  return j;
}
const fill = (s, vars) => s.replace(/\{(\w+)\}/g, (m, k) => (vars[k] !== undefined ? String(vars[k]) : m));
// the plural form of a catalogue value for n, by the language's rules
function form(lang, key, n) {
  const s = cat[lang][key];
  if (!/^(zero|one|two|few|many|other):/.test(s)) return s;
  const forms = Object.fromEntries(s.split('|').map((p) => [p.slice(0, p.indexOf(':')), p.slice(p.indexOf(':') + 1)]));
  return forms[new Intl.PluralRules(lang).select(n)] ?? forms.other;
}
const words = (lang, key, vars = {}) => fill(form(lang, key, vars.n ?? 0), vars);

// a page holding the seat of an API-made table (as the lobby keeps it)
async function seated(t, opts = {}) {
  const page = await newPage(browser, opts);
  await page.addInitScript(({ id, seat, token, lang }) => {
    const s = JSON.parse(localStorage.getItem('carc.seats') || '{}');
    s[id] = { seat, token, at: Date.now() };
    localStorage.setItem('carc.seats', JSON.stringify(s));
    if (lang) localStorage.setItem('carc.lang', lang);
  }, { id: t.id, seat: t.seat, token: t.token, lang: opts.lang });
  await page.goto(`${BASE}/?table=${t.id}`);
  await ready(page);
  return page;
}

async function noOverflow(page, what) {
  const r = await page.evaluate(() => {
    const w = document.documentElement.clientWidth;
    const wide = [...document.querySelectorAll('body *')].filter((n) => {
      if (!n.getClientRects().length || n.closest('.hidden, [hidden], .board, svg, .tile-grid, .log, .chat-lines')) return false;
      const b = n.getBoundingClientRect();
      const st = getComputedStyle(n);
      return b.width > 0 && b.height > 0 && st.visibility !== 'hidden' && (b.right > w + 1 || b.left < -1) && st.position !== 'fixed';
    }).map((n) => `${n.tagName.toLowerCase()}.${[...n.classList].join('.')}[${n.dataset.testid || ''}]`);
    return { scroll: document.documentElement.scrollWidth, w, wide: wide.slice(0, 8) };
  });
  assert.ok(r.scroll <= r.w + 1, `${what}: the page is ${r.scroll} px wide in a window of ${r.w}: ${r.wide.join(' ')}`);
  assert.deepEqual(r.wide, [], `${what}: elements outside the window`);
}

test('a resigned game shows as over: who resigned, the winner, the scores as they stood, the replay; the lobby marks it', async () => {
  const t = await postJson('/api/tables', { players: 2, name: 'Alice', seats: [{}, { bot: 'random' }], bot_delay_ms: 0 });
  const page = await seated(t);
  const watcher = await newPage(browser, { viewport: { width: 390, height: 844 } });
  await watcher.goto(`${BASE}/?table=${t.id}`);
  await ready(watcher);
  for (let i = 0; i < 4; i++) {
    assert.equal(await waitTurnOrEnd(page), 'mine');
    await playTurn(page, { follower: true });
  }
  await waitTurnOrEnd(page);
  // resign: two clicks on the button (WebSocket "resign")
  await page.click('[data-testid=resign]');
  await page.click('[data-testid=resign]');
  const st = await getJson(`/api/tables/${t.id}/state`);
  for (let i = 0; i < 50 && st.table.status !== 'over'; i++) { await page.waitForTimeout(100); Object.assign(st, await getJson(`/api/tables/${t.id}/state`)); }
  assert.equal(st.table.status, 'over');
  assert.deepEqual(st.table.clock.ended, { reason: 'resigned', seat: 0, winners: [1] });
  const scores = st.game.next.scores;
  const bot = st.table.seats[1].name;
  for (const p of [page, watcher]) {
    await p.waitForSelector('[data-testid=final]:not(.hidden)');
    assert.ok(await isOver(p));
    const line = await p.textContent('[data-testid=turn-line]');
    assert.ok(!line.includes(fill(cat.en['turn.other'], { name: '' }).trim()), `no "is playing" once over: ${line}`);
    assert.equal((await p.textContent('[data-testid=resigned-line]')).trim(), fill(cat.en['clock.resigned'], { name: 'Alice' }));
    assert.ok(line.includes(fill(cat.en['final.winner'], { name: bot })), `the winner in the turn line: ${line}`);
    assert.equal((await p.textContent('[data-testid=final-resigned]')).trim(), fill(cat.en['final.resigned'], { name: 'Alice' }));
    assert.equal((await p.textContent('[data-testid=winners]')).trim(), fill(cat.en['final.winner'], { name: bot }));
    for (let i = 0; i < 2; i++) assert.equal(Number(await p.textContent(`[data-testid=final-score-${i}]`)), scores[i], `seat ${i}'s score as it stood`);
    assert.equal(await p.getAttribute('[data-testid=to-replay]', 'href'), `/?replay=${t.id}`);
    assert.equal(await p.locator('.hand:not(.hidden)').count(), 0, 'no tile in hand');
  }
  await shot(page, 'resigned-table.png');
  await shot(watcher, 'resigned-table-phone.png');

  // the same in every language (reloaded: the state comes from the server)
  for (const lang of ['fi', 'de', 'sl']) {
    await page.evaluate((l) => localStorage.setItem('carc.lang', l), lang);
    await page.reload();
    await ready(page);
    await page.waitForSelector('[data-testid=final]:not(.hidden)');
    assert.equal((await page.textContent('[data-testid=final-resigned]')).trim(), fill(cat[lang]['final.resigned'], { name: 'Alice' }), lang);
    assert.equal((await page.textContent('[data-testid=resigned-line]')).trim(), fill(cat[lang]['clock.resigned'], { name: 'Alice' }), lang);
  }

  // the replay ends on the same box
  await page.evaluate(() => localStorage.setItem('carc.lang', 'en'));
  await page.goto(`${BASE}/?replay=${t.id}`);
  await ready(page);
  await page.waitForSelector('[data-testid=replay-last]');
  assert.ok(!(await isOver(page)), 'no final box at the start of the replay');
  await page.click('[data-testid=replay-last]');
  await page.waitForSelector('[data-testid=final]:not(.hidden)');
  assert.equal((await page.textContent('[data-testid=final-resigned]')).trim(), fill(cat.en['final.resigned'], { name: 'Alice' }));
  for (let i = 0; i < 2; i++) assert.equal(Number(await page.textContent(`[data-testid=final-score-${i}]`)), scores[i]);

  // the lobby's finished list marks it, in each language
  for (const lang of LANGS) {
    await page.evaluate((l) => localStorage.setItem('carc.lang', l), lang);
    await page.goto(BASE + '/');
    await ready(page);
    const mark = page.locator(`[data-testid=resigned-${t.id}]`);
    await mark.waitFor();
    assert.equal((await mark.textContent()).trim(), fill(cat[lang]['lobby.resigned'], { name: 'Alice' }), lang);
    assert.ok(await page.locator(`.list.over [data-testid=resigned-${t.id}]`).count(), 'in the finished list');
  }
  // a game played to its end has no mark
  const finished = (await getJson('/api/tables?status=over')).tables;
  for (const g of finished.filter((x) => !x.ended)) assert.equal(await page.locator(`[data-testid=resigned-${g.id}]`).count(), 0);
  await page.evaluate(() => localStorage.setItem('carc.lang', 'en'));
  assert.deepEqual(page.errors, []);
  assert.deepEqual(watcher.errors, []);
  await page.context().close();
  await watcher.context().close();
});

test('the join form holds a name to the server\'s 63 bytes, with the note, and the server takes it', async () => {
  const t = await postJson('/api/tables', { players: 2, name: 'Alice', seats: [{}, {}] });
  const page = await newPage(browser);
  await page.goto(`${BASE}/?table=${t.id}`);
  await ready(page);
  const input = page.locator('.waiting [data-testid=join-name]');
  await input.waitFor();
  assert.ok(await page.locator('[data-testid=join-name-cut].hidden').count(), 'no note before');
  await input.fill('ä'.repeat(40)); // 80 bytes: 40 UTF-16 units passed the old maxlength
  assert.equal(await input.inputValue(), 'ä'.repeat(31), 'cut at 62 bytes, a whole letter');
  await page.waitForSelector('[data-testid=join-name-cut]:not(.hidden)');
  assert.equal((await page.textContent('[data-testid=join-name-cut]')).trim(), words('en', 'create.name.cut', { n: 63 }));
  await input.fill('Bob');
  await page.waitForSelector('[data-testid=join-name-cut].hidden', { state: 'attached' });
  await input.fill('👍'.repeat(20)); // 80 bytes: 15 whole emoji fit
  assert.equal(await input.inputValue(), '👍'.repeat(15));
  await input.fill('ä'.repeat(40));
  await page.click('.waiting [data-testid=join]');
  await page.waitForSelector('.waiting.hidden', { state: 'attached' });
  const st = await getJson(`/api/tables/${t.id}`);
  assert.equal(st.status, 'playing');
  assert.equal(st.seats[1].name, 'ä'.repeat(31));
  assert.equal(await page.evaluate(() => localStorage.getItem('carc.name')), 'ä'.repeat(31));
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('counts follow the language\'s plural rules: tiles, players, seats, points, games', async () => {
  // t() of the page, for every count word, against the catalogue's forms
  const page = await newPage(browser);
  await page.goto(BASE + '/');
  await ready(page);
  const keys = ['opt.players.n', 'opt.pile.n', 'lobby.seats.open', 'lobby.points', 'profile.games', 'n.tiles', 'tiles.left', 'chat.toolong', 'create.name.cut'];
  const want = { sl: { 'opt.players.n': ['1 igralec', '2 igralca', '3 igralci', '4 igralci', '5 igralcev'], 'opt.pile.n': ['Kratka igra: 1 ploščica', 'Kratka igra: 2 ploščici', 'Kratka igra: 3 ploščice', 'Kratka igra: 4 ploščice', 'Kratka igra: 5 ploščic'] },
    en: { 'opt.players.n': ['1 player', '2 players'], 'opt.pile.n': ['Short game: 1 tile', 'Short game: 2 tiles'], 'profile.games': ['1 rated game', '2 rated games'] } };
  for (const lang of LANGS) {
    const got = await page.evaluate(async ({ l, keys }) => {
      const i = await import('/js/i18n.js');
      await i.setLanguage(l);
      return Object.fromEntries(keys.map((k) => [k, [1, 2, 3, 4, 5, 21, 102, 103].map((n) => i.t(k, { n }))]));
    }, { l: lang, keys });
    for (const k of keys) {
      [1, 2, 3, 4, 5, 21, 102, 103].forEach((n, j) => {
        assert.equal(got[k][j], words(lang, k, { n }), `${lang} ${k} ${n}`);
        assert.ok(!/(zero|one|two|few|many|other):/.test(got[k][j]) && !got[k][j].includes('{n}'), `${lang} ${k} ${n}: ${got[k][j]}`);
      });
      (want[lang]?.[k] || []).forEach((s, j) => assert.equal(got[k][j], s, `${lang} ${k} ${j + 1}`));
    }
  }

  // on screen: a one-tile table for two with one seat open, in Slovenian and English
  const t = await postJson('/api/tables', { players: 2, name: 'Ana', seats: [{}, {}], tiles: { U: 1 } });
  for (const [lang, pile, seatsOpen, players] of [['sl', 'Kratka igra: 1 ploščica', '1 prost sedež', '2 igralca'], ['en', 'Short game: 1 tile', '1 seat open', '2 players']]) {
    await page.evaluate((l) => localStorage.setItem('carc.lang', l), lang);
    await page.goto(BASE + '/');
    await ready(page);
    const row = page.locator(`.list.open .trow[data-id="${t.id}"]`);
    await row.waitFor();
    const text = await row.textContent();
    assert.ok(text.includes(pile), `${lang} lobby row: ${text}`);
    assert.ok(text.includes(seatsOpen), `${lang} lobby row: ${text}`);
    await page.goto(`${BASE}/?table=${t.id}`);
    await ready(page);
    await page.waitForSelector('.table-info .opts li');
    const opts = await page.$$eval('.table-info .opts li', (ls) => ls.map((l) => l.textContent));
    assert.ok(opts.includes(players), `${lang} table info: ${opts}`);
    assert.ok(opts.includes(pile), `${lang} table info: ${opts}`);
  }
  await page.evaluate(() => localStorage.setItem('carc.lang', 'en'));
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
