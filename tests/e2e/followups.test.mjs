// Loose ends of the merged web client: a game ended by a resignation shows
// as over (table, replay, lobby); the join form holds a name to the server's
// 63 bytes; counts in words by the language's plural rules; and screenshots
// of the main screens at a desktop and a phone size, with checks that
// nothing runs off the screen.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, newPage, ready, playTurn, waitTurnOrEnd, isOver, shot, catalogue, LANGS } from './lib.mjs';

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
    // a guest's game against a bot: no word on ratings, which cannot matter
    assert.equal(await p.locator('[data-testid=final-rating]:not(.hidden)').count(), 0, 'no rating line for guests');
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

// --- the screens as a person sees them -------------------------------------

const SIZES = [['desktop', { width: 1280, height: 800 }], ['phone', { width: 390, height: 844 }]];
const PW = 'correct horse';

async function account(page, act, name) {
  await page.goto(BASE + '/');
  await ready(page);
  await openMenu(page);
  await page.click('[data-testid=login-open]');
  await page.fill('[data-testid=acc-name]', name);
  await page.fill('[data-testid=acc-password]', PW);
  await page.click(`[data-testid=${act}]`);
  // a new account is shown its recovery codes once (keep.test.mjs) before it goes on
  if (act === 'register') await page.click('[data-testid=codes-done]');
  await page.waitForSelector('[data-testid=account-name]', { state: 'attached' });
  await ready(page);
}

// on a narrow screen the header's items are in the menu
async function openMenu(page) {
  if (await page.locator('[data-testid=menu]').isVisible() && !(await page.locator('.top.menu-open').count())) {
    await page.click('[data-testid=menu]');
    await page.waitForSelector('.top.menu-open nav');
  }
}

// every element of `sel` inside the window (not cut off at its edges)
async function inView(page, sel, what) {
  const boxes = await page.$$eval(sel, (ns) => ns.filter((n) => n.getClientRects().length).map((n) => { const b = n.getBoundingClientRect(); return { l: b.left, r: b.right, t: b.top, b: b.bottom, w: innerWidth, h: innerHeight, s: n.className }; }));
  assert.ok(boxes.length, `${what}: ${sel} is shown`);
  for (const b of boxes) assert.ok(b.l >= -1 && b.r <= b.w + 1 && b.t >= -1 && b.b <= b.h + 1, `${what}: ${sel} (${b.s}) at ${JSON.stringify(b)}`);
}

test('the screens at 1280x800 and 390x844: lobby, table with chat, clock, leaderboard, profile', async () => {
  const suffix = Date.now().toString(36).slice(-5);
  const name = `Zoë ${suffix}`;
  // a rated game for the leaderboard and the profile
  const setup = await newPage(browser);
  await account(setup, 'register', name);
  await postJson('/api/tables', { players: 2, name: 'Long-named player Bartholomew', seats: [{}, { bot: 'random' }], bot_delay_ms: 0, tiles: { U: 2, E: 1 } });
  await setup.fill('[data-testid=my-name]', name);
  await setup.selectOption('[data-testid=who-1]', 'bot:random');
  await setup.click('details.advanced summary');
  await setup.click('details.dev summary');
  await setup.fill('[data-testid=pile]', 'U:2, E:1');
  await setup.fill('[data-testid=bot-delay]', '0');
  await setup.click('[data-testid=create]');
  await setup.waitForURL(/\?table=[0-9a-f]{16}/);
  await ready(setup);
  for (let i = 0; i < 10 && await waitTurnOrEnd(setup) !== 'over'; i++) await playTurn(setup, { follower: true });
  assert.ok(await isOver(setup));
  // the final scores say it counted (the finished table's "rating"; this
  // suite's server rates short piles and has no minimum of moves)
  await setup.waitForSelector('[data-testid=final-rating]:not(.hidden)');
  assert.equal((await setup.textContent('[data-testid=final-rating]')).trim(), cat.en['final.rating.rated']);
  await setup.context().close();

  for (const [size, viewport] of SIZES) {
    // the lobby, not logged in
    const anon = await newPage(browser, { viewport });
    await anon.goto(BASE + '/');
    await ready(anon);
    await anon.waitForSelector('.list.over .trow');
    await shot(anon, `screen-lobby-${size}.png`);
    await anon.screenshot({ path: `${process.env.E2E_ARTIFACTS}/screen-lobby-full-${size}.png`, fullPage: true });
    await noOverflow(anon, `lobby ${size}`);
    await openMenu(anon);
    for (const sel of ['[data-testid=login-open]', '[data-testid=nav-mygames]', '[data-testid=nav-leaderboard]', '.top .help', '[data-testid=notify]', '[data-testid=lang]']) await inView(anon, sel, `header ${size}`);
    await anon.click('[data-testid=login-open]');
    await inView(anon, '[data-testid=account-form]', `log-in form ${size}`);
    await shot(anon, `screen-header-${size}.png`);
    await noOverflow(anon, `header ${size}`);
    // logged in
    const page = await newPage(browser, { viewport });
    await account(page, 'login', name);
    await page.waitForSelector('.list.over .trow');
    await shot(page, `screen-lobby-login-${size}.png`);
    await noOverflow(page, `lobby logged in ${size}`);
    await openMenu(page);
    await inView(page, '[data-testid=account-name]', `lobby logged in ${size}`);
    await inView(page, '[data-testid=logout]', `lobby logged in ${size}`);
    await noOverflow(page, `header logged in ${size}`);

    // a table in play, two people and the chat
    const t = await postJson('/api/tables', { players: 2, name, seats: [{}, {}] });
    const j = await postJson(`/api/tables/${t.id}/join`, { name: 'Bob' });
    const tp = await seated(t, { viewport });
    const bob = await seated({ id: t.id, seat: j.seat, token: j.token });
    assert.equal(await waitTurnOrEnd(tp), 'mine');
    await playTurn(tp, { follower: true });
    await bob.waitForSelector('[data-testid=chat-input]');
    await bob.fill('[data-testid=chat-input]', 'Hi! Good luck, nice to play with you again – a longish line to see it wrap in the panel.');
    await bob.press('[data-testid=chat-input]', 'Enter');
    await tp.waitForFunction(() => document.querySelectorAll('[data-testid=chat-text]').length >= 1);
    if (size === 'phone') {
      // on a phone the chat is in the sheet the strip of scores opens, so the
      // board keeps the screen; a line comes as a toast while it is closed
      await tp.waitForFunction(() => [...document.querySelectorAll('.toast')].some((n) => n.textContent.startsWith('Bob: Hi! Good luck')));
      assert.equal(await tp.locator('[data-testid=chat]').isVisible(), false, 'no chat in the bottom panel');
      const bw = await tp.locator('.board-wrap').boundingBox();
      assert.ok(bw.height >= 0.5 * viewport.height, `the board takes the screen: ${JSON.stringify(bw)}`);
      await shot(tp, `screen-table-${size}.png`);
      await tp.click('[data-testid=mini-scores]');
      await tp.locator('[data-testid=chat]').waitFor();
      await inView(tp, '[data-testid=resign]', 'the resign button in the sheet');
    }
    await tp.fill('[data-testid=chat-input]', 'Thanks! Averyveryverylongwordwithoutanyspacesatalltoseethatitbreaks');
    await tp.press('[data-testid=chat-input]', 'Enter');
    await tp.waitForFunction(() => document.querySelectorAll('[data-testid=chat-text]').length >= 2);
    await tp.click('[data-testid=phrase-gl]');
    await tp.waitForFunction(() => document.querySelectorAll('[data-testid=chat-text]').length >= 3);
    await tp.locator('[data-testid=chat-input]').scrollIntoViewIfNeeded();
    await shot(tp, `screen-table-chat-${size}.png`);
    await noOverflow(tp, `table ${size}`);
    await inView(tp, '[data-testid=chat-input]', `table ${size}`);
    await bob.context().close();

    // the clock card of a timed game
    const c = await postJson('/api/tables', { players: 2, name, seats: [{}, { bot: 'random' }], bot_delay_ms: 0, clock: { mode: 'realtime', move_s: 60, reserve_s: 120 } });
    const cp = await seated(c, { viewport });
    await cp.waitForSelector('[data-testid=clock-0].running');
    await cp.locator('[data-testid=clock]').scrollIntoViewIfNeeded();
    await shot(cp, `screen-clock-${size}.png`);
    await cp.locator('[data-testid=clock]').screenshot({ path: `${process.env.E2E_ARTIFACTS}/screen-clock-card-${size}.png` });
    await noOverflow(cp, `clock ${size}`);
    await inView(cp, '[data-testid=clock]', `clock ${size}`);
    await inView(cp, '[data-testid=resign]', `clock ${size}`);
    await cp.context().close();

    // the leaderboard and a profile
    await page.goto(BASE + '/?leaderboard');
    await ready(page);
    await page.waitForSelector('[data-testid=board-row]');
    await shot(page, `screen-leaderboard-${size}.png`);
    await noOverflow(page, `leaderboard ${size}`);
    await page.goto(`${BASE}/?player=${encodeURIComponent(name)}`);
    await ready(page);
    await page.waitForSelector('[data-testid=profile-game]');
    await shot(page, `screen-profile-${size}.png`);
    await noOverflow(page, `profile ${size}`);
    // my games: a table the account made (with its session) is there
    const mine = await page.evaluate(async (nm) => (await (await fetch('/api/tables', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ players: 2, name: nm, seats: [{}, { bot: 'random' }], bot_delay_ms: 0 }) })).json()).id, name);
    await page.goto(BASE + '/?mygames');
    await ready(page);
    await page.waitForSelector(`[data-testid=mygame-${mine}]`);
    await shot(page, `screen-mygames-${size}.png`);
    await noOverflow(page, `my games ${size}`);
    for (const p of [anon, page, tp]) assert.deepEqual(p.errors, [], size);
    for (const p of [anon, page, tp]) await p.context().close();
  }
});
