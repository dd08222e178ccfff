// The lobby against a server of its own. The seat colours chosen in the form
// are kept by the server, so a spectator who comes from the lobby (no invite
// link, nothing in its storage) sees them; a finished game stays in the
// lobby's list of finished games after the server is killed and started
// again (only the store knows it then), on the page that "more" shows once
// newer games have pushed it off the first, and its replay opens. A double
// click makes one table; names of the API's longest (63 bytes) do not widen
// the lobby; each bot level is described by what its bot does.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { ROOT, CARC, ART, BASE, launch, newPage, ready, shot, serve, catalogue, playTurn, waitTurnOrEnd, isOver, finalScores } from './lib.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'carc-e2e-lobby-'));
const db = path.join(dir, 'db.sqlite');
const procs = [];
let browser;

before(async () => { browser = await launch(); });
after(async () => {
  await browser?.close();
  for (const p of procs) if (p.exitCode === null) p.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});

const colourOf = (page, sel) => page.getAttribute(sel, 'data-colour');

test('a spectator from the lobby sees the chosen colours; a finished game is listed and replayed after a restart', async () => {
  const first = await serve(db);
  procs.push(first.proc);

  // Alice plays green against a pink bot
  const alice = await newPage(browser);
  await alice.goto(first.url + '/');
  await ready(alice);
  await alice.fill('[data-testid=my-name]', 'Alice');
  await alice.click('label.swatch:has(> input[name=colour0][value=green])');
  await alice.selectOption('[data-testid=who-1]', 'bot:medium');
  await alice.click('label.swatch:has(> input[name=colour1][value=pink])');
  await alice.click('details.advanced summary');
  await alice.click('details.dev summary');
  await alice.fill('[data-testid=pile]', 'U:2, E:1');
  await alice.fill('[data-testid=bot-delay]', '50');
  await alice.click('[data-testid=create]');
  await alice.waitForURL(/\?table=[0-9a-f]{16}/);
  await ready(alice);
  const id = new URL(alice.url()).searchParams.get('table');
  await alice.waitForSelector('[data-testid=player-0][data-colour=green]');

  // a spectator with a storage of its own finds the game in the lobby
  const spec = await newPage(browser);
  await spec.goto(first.url + '/');
  await ready(spec);
  const row = spec.locator(`[data-testid=playing-tables] .trow[data-id="${id}"]`);
  await row.waitFor();
  assert.deepEqual(await row.locator('.who').evaluateAll((ns) => ns.map((n) => n.dataset.colour)), ['green', 'pink']);
  await spec.click(`[data-testid=watch-${id}]`);
  await spec.waitForURL(new RegExp(`\\?table=${id}$`));
  await ready(spec);
  await spec.waitForSelector('[data-testid=player-1]');
  assert.equal(await colourOf(spec, '[data-testid=player-0]'), 'green');
  assert.equal(await colourOf(spec, '[data-testid=player-1]'), 'pink');
  assert.match(await spec.textContent('[data-testid=player-1] .pname'), /Pink/);
  assert.equal(await spec.locator('.game.mine').count(), 0, 'watching, not playing');
  await shot(spec, 'spectator-colours.png');

  for (let guard = 0; guard < 10 && (await waitTurnOrEnd(alice)) === 'mine'; guard++) await playTurn(alice, { follower: false });
  assert.ok(await isOver(alice), 'the game ended');
  const scores = await finalScores(alice, 2);

  // kill -9 and a new server on the same database: the game is no longer in memory
  first.proc.kill('SIGKILL');
  const second = await serve(db);
  procs.push(second.proc);
  // 20 bot games end after it: Alice's game is on the second page
  for (let i = 0; i < 20; i++) {
    const r = await fetch(`${second.url}/api/tables`, { method: 'POST', body: JSON.stringify({ seats: [{ bot: 'random' }, { bot: 'random' }], tiles: { U: 1 }, bot_delay_ms: 0 }) });
    assert.equal(r.status, 201);
  }
  for (let i = 0; i < 100; i++) {
    const r = await (await fetch(`${second.url}/api/tables?status=over&limit=100`)).json();
    if (r.tables.length === 21) break;
    await new Promise((res) => setTimeout(res, 50));
  }
  const later = await newPage(browser);
  await later.goto(second.url + '/');
  await ready(later);
  const rows = later.locator('[data-testid=finished-games] .trow');
  await later.waitForFunction(() => document.querySelectorAll('[data-testid=finished-games] .trow').length === 20);
  const done = later.locator(`[data-testid=finished-games] .trow[data-id="${id}"]`);
  assert.equal(await done.count(), 0, 'not on the newest page');
  await later.click('[data-testid=more-finished]');
  await done.waitFor();
  assert.equal(await rows.count(), 21);
  assert.ok(await later.locator('.more-over').evaluate((n) => n.classList.contains('hidden')), 'no older page left');
  assert.deepEqual(await done.locator('.who').evaluateAll((ns) => ns.map((n) => n.dataset.colour)), ['green', 'pink']);
  assert.deepEqual((await done.locator('.pts').allTextContents()).map(Number), scores);
  await done.scrollIntoViewIfNeeded();
  await shot(later, 'lobby-finished.png');
  await later.click(`[data-testid=replay-${id}]`);
  await later.waitForURL(new RegExp(`\\?replay=${id}`));
  await ready(later);
  await later.waitForSelector('[data-testid=replay-step]');
  await later.keyboard.press('End');
  await later.waitForSelector('[data-testid=final]:not(.hidden)');
  assert.deepEqual(await finalScores(later, 2), scores);
  assert.equal(await colourOf(later, '[data-testid=player-1]'), 'pink');
  for (const p of [alice, spec, later]) assert.deepEqual(p.errors, []);
});

// ---- one table per click, long names, bot levels -------------------------

// A server of this file's own with extra options (killed in after()).
function serveWith(name, extra = []) {
  const p = spawn(CARC, ['serve', '--host', '127.0.0.1', '--port', '0', '--db', path.join(dir, name), '--web', path.join(ROOT, 'web'), '--bot-delay', '50', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  procs.push(p);
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`server did not start: ${out}`)), 10000);
    const onData = (d) => {
      out += d;
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) { clearTimeout(timer); resolve({ proc: p, url: m[0] }); }
    };
    p.stdout.on('data', onData);
    p.stderr.on('data', onData);
    p.on('exit', () => { clearTimeout(timer); reject(new Error(`server exited: ${out}`)); });
  });
}
const getJson = async (url) => (await fetch(url)).json();
async function postJson(url, body, token) {
  const r = await fetch(url, { method: 'POST', headers: token ? { 'X-Carc-Token': token } : {}, body: JSON.stringify(body) });
  return { status: r.status, body: await r.json() };
}
const sleep = (ms) => new Promise((res) => setTimeout(res, ms));
async function until(what, fn, tries = 100) {
  for (let i = 0; i < tries; i++) { if (await fn()) return; await sleep(50); }
  assert.fail(`timed out: ${what}`);
}

test('a double click on "Create table" makes one table; while the request runs the form sends nothing more; a refusal gives the button back', async () => {
  const s = await serve(path.join(dir, 'dbl.sqlite'));
  procs.push(s.proc);
  const openIds = async () => (await getJson(`${s.url}/api/tables`)).tables.map((tb) => tb.id).sort();
  const page = await newPage(browser);
  await page.goto(s.url + '/');
  await ready(page);
  await page.fill('[data-testid=my-name]', 'Dora');
  await page.selectOption('[data-testid=who-1]', 'friend'); // a seat for a friend: the table waits in the lobby
  await page.dblclick('[data-testid=create]');
  await page.waitForURL(/\?table=[0-9a-f]{16}/);
  const first = new URL(page.url()).searchParams.get('table');
  await sleep(500); // a second request would have been answered by now
  assert.deepEqual(await openIds(), [first], 'one table, the one the page went to');

  // a slow answer: the button is disabled at once, and Enter or another submit send nothing
  await page.goto(s.url + '/');
  await ready(page);
  let posts = 0, release;
  const held = new Promise((res) => { release = res; });
  await page.route('**/api/tables', async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    posts++;
    await held;
    return route.continue();
  });
  assert.equal(await page.inputValue('[data-testid=my-name]'), 'Dora', 'the name from last time');
  await page.click('[data-testid=create]');
  assert.equal(await page.isDisabled('[data-testid=create]'), true, 'disabled while the request runs');
  assert.equal(await page.isDisabled('[data-testid=quick-start]'), true, 'quick start too');
  assert.equal(await page.getAttribute('[data-testid=create-form]', 'aria-busy'), 'true');
  await page.focus('[data-testid=my-name]');
  await page.keyboard.press('Enter');
  await page.evaluate(() => document.querySelector('[data-testid=create-form]').requestSubmit());
  await sleep(300);
  assert.equal(posts, 1, 'one request');
  release();
  await page.waitForURL(/\?table=[0-9a-f]{16}/);
  await page.unroute('**/api/tables');
  const second = new URL(page.url()).searchParams.get('table');
  assert.equal(posts, 1);
  assert.deepEqual(await openIds(), [first, second].sort());

  // refused: the message, and the button works again
  await page.goto(s.url + '/');
  await ready(page);
  await page.click('details.advanced summary');
  await page.click('details.dev summary');
  await page.fill('[data-testid=pile]', 'ZZ:1');
  await page.click('[data-testid=create]');
  await page.waitForFunction(() => /ZZ/.test(document.querySelector('.form-error').textContent));
  assert.equal(await page.isEnabled('[data-testid=create]'), true);
  await page.fill('[data-testid=pile]', 'U:2');
  await page.click('[data-testid=create]');
  await page.waitForURL(/\?table=[0-9a-f]{16}/);
  assert.equal((await openIds()).length, 3);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// 63 bytes each, the longest name the API takes; unbroken
const LONG = {
  ascii: 'W'.repeat(63),
  umlaut: 'ä'.repeat(31) + 'x',
  emoji: '😀'.repeat(15) + 'abc',
  family: '👨‍👩‍👧‍👦'.repeat(2) + 'q'.repeat(13),
};

test('names of 63 bytes (ASCII, ä, emoji) in every list: no sideways scrolling at 1280x800 and 390x844, cut with an ellipsis, whole in a title; the form takes what the API takes', async () => {
  for (const n of Object.values(LONG)) assert.equal(Buffer.byteLength(n), 63);
  const s = await serve(path.join(dir, 'names.sqlite'));
  procs.push(s.proc);
  const api = s.url + '/api/tables';
  for (const bad of ['W'.repeat(64), 'ä'.repeat(32), LONG.family + 'x']) {
    assert.equal((await postJson(api, { seats: [{}, {}], name: bad })).status, 400, 'the API takes at most 63 bytes');
  }
  const mine = {};
  // open: one per name, seats kept in this browser ("your games")
  for (const name of Object.values(LONG)) {
    const r = await postJson(api, { seats: [{}, {}], name });
    assert.equal(r.status, 201);
    mine[r.body.id] = { seat: r.body.seat, token: r.body.token, at: Date.now() };
  }
  // two people each: in progress, and finished after one tile
  const pair = async (a, b, tiles) => {
    const r = await postJson(api, { seats: [{}, {}], name: a, ...(tiles ? { tiles } : {}) });
    assert.equal(r.status, 201);
    const j = await postJson(`${api}/${r.body.id}/join`, { name: b });
    assert.equal(j.status, 200, JSON.stringify(j.body));
    return r.body;
  };
  for (const [a, b] of [[LONG.ascii, LONG.family], [LONG.umlaut, LONG.emoji]]) {
    const r = await pair(a, b);
    mine[r.id] = { seat: r.seat, token: r.token, at: Date.now() };
  }
  for (const [a, b] of [[LONG.emoji, LONG.ascii], [LONG.family, LONG.umlaut]]) {
    const r = await pair(a, b, { U: 1 });
    const st = await (await fetch(`${api}/${r.id}/state`, { headers: { 'X-Carc-Token': r.token } })).json();
    const p = st.game.next.legal.placements[0];
    const m = await postJson(`${api}/${r.id}/move`, { x: p.x, y: p.y, rot: p.rot, meeple: null }, r.token);
    assert.equal(m.status, 200, JSON.stringify(m.body));
    assert.equal(m.body.next.over, true);
  }
  await until('two finished games in the store', async () => (await getJson(`${api}?status=over`)).tables.length === 2);

  for (const [w, h] of [[1280, 800], [390, 844]]) {
    const page = await newPage(browser, { viewport: { width: w, height: h } });
    await page.addInitScript((m) => localStorage.setItem('carc.seats', m), JSON.stringify(mine));
    await page.goto(s.url + '/');
    await ready(page);
    const lists = { 'my-tables': 6, 'open-tables': 4, 'playing-tables': 2, 'finished-games': 2 };
    await page.waitForFunction((l) => Object.entries(l).every(([id, n]) => document.querySelectorAll(`[data-testid=${id}] .trow`).length === n), lists);
    const m = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, iw: innerWidth }));
    assert.ok(m.sw <= m.iw, `${w}x${h}: the lobby is ${m.sw} px wide on a ${m.iw} px screen`);
    for (const id of Object.keys(lists)) {
      const names = await page.$$eval(`[data-testid=${id}] .trow .who .nm`, (ns) => ns.map((n) => {
        const r = n.getBoundingClientRect(), cs = getComputedStyle(n);
        return { title: n.title, text: n.textContent, right: r.right, cut: n.scrollWidth > n.clientWidth, ellipsis: cs.textOverflow === 'ellipsis' && cs.overflow === 'hidden' && cs.whiteSpace === 'nowrap' };
      }));
      for (const name of Object.values(LONG)) {
        if (id === 'open-tables' || id === 'my-tables' || names.some((n) => n.title === name)) {
          assert.ok(names.some((n) => n.title === name && n.text === name), `${w}: ${id} has "${name}" whole in a title`);
        }
      }
      for (const n of names) {
        assert.ok(n.right <= m.iw + 0.5, `${w}: ${id}: a name reaches ${n.right} px`);
        assert.ok(n.ellipsis, `${w}: ${id}: a long name is cut with an ellipsis`);
      }
      if (w === 390) assert.ok(names.some((n) => n.title === LONG.ascii && n.cut), `${id}: the ASCII name is cut at 390 px`);
      const buttons = await page.$$eval(`[data-testid=${id}] .tact .button`, (ns) => ns.map((n) => n.getBoundingClientRect().right));
      assert.equal(buttons.length, lists[id]);
      for (const r of buttons) assert.ok(r <= m.iw, `${w}: ${id}: a button ends at ${r} px`);
    }
    const pts = await page.$$eval('[data-testid=finished-games] .pts', (ns) => ns.map((n) => [Number(n.textContent), n.title]));
    assert.equal(pts.length, 4);
    for (const [n, title] of pts) assert.equal(title, `${n} ${n === 1 ? 'point' : 'points'}`);
    await shot(page, `lobby-long-names-${w}.png`);
    await page.locator('.lists').screenshot({ path: path.join(ART, `lobby-long-names-lists-${w}.png`) });
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }

  // the form: what the API takes, cut at a whole character when longer
  const page = await newPage(browser);
  await page.goto(s.url + '/');
  await ready(page);
  const nameIn = '[data-testid=my-name]';
  assert.equal(await page.getAttribute(nameIn, 'maxlength'), '63');
  await page.fill(nameIn, LONG.ascii);
  assert.equal(await page.inputValue(nameIn), LONG.ascii);
  assert.equal(await page.isVisible('[data-testid=name-cut]'), false);
  await page.fill(nameIn, 'ä'.repeat(40));
  assert.equal(await page.inputValue(nameIn), 'ä'.repeat(31), '62 bytes: a 32nd ä would make 64');
  assert.equal(await page.isVisible('[data-testid=name-cut]'), true, 'says why');
  await page.fill(nameIn, '👨‍👩‍👧‍👦'.repeat(3));
  assert.equal(await page.inputValue(nameIn), '👨‍👩‍👧‍👦'.repeat(2), 'an emoji stays whole or goes whole');
  await page.fill(nameIn, LONG.emoji);
  assert.equal(await page.isVisible('[data-testid=name-cut]'), false);
  await page.selectOption('[data-testid=who-1]', 'friend');
  await page.click('[data-testid=create]');
  await page.waitForURL(/\?table=[0-9a-f]{16}/);
  const id = new URL(page.url()).searchParams.get('table');
  const tb = await getJson(`${api}/${id}`);
  assert.equal((tb.table || tb).seats[0].name, LONG.emoji);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('each bot level is described by what its bot does, in every language; a level the operator added shows its name and spec; counts use plural rules', async () => {
  const s = await serveWith('levels.sqlite', ['--bot-level', 'blitz=mcts:time=0.2']);
  const opts = await getJson(`${s.url}/api/options`);
  const levels = opts.bot_levels.filter((b) => b.available);
  assert.ok(levels.some((b) => b.level === 'blitz'));
  const bot = (spec) => spec.split(':')[0];
  const en = catalogue('en');
  // what the issue asks for, word for word
  assert.equal(en['create.bot.does.random'], 'places tiles at random: for learning the controls');
  assert.equal(en['create.bot.does.greedy'], 'takes the best points of each move');
  assert.equal(en['create.bot.does.mcts'], 'thinks ahead (Monte Carlo tree search)');
  // open tables with 1, 2, 3 and 5 open seats
  for (const [players, name] of [[2, 'Ana'], [3, 'Bor'], [4, 'Cene'], [5, undefined]]) {
    const r = await postJson(`${s.url}/api/tables`, { players, ...(name ? { name } : {}) });
    assert.equal(r.status, 201);
  }
  const seatsOpen = {
    en: ['1 seat open', '2 seats open', '3 seats open', '5 seats open'],
    fi: ['1 paikka vapaana', '2 paikkaa vapaana', '3 paikkaa vapaana', '5 paikkaa vapaana'],
    de: ['1 Platz frei', '2 Plätze frei', '3 Plätze frei', '5 Plätze frei'],
    sl: ['1 prost sedež', '2 prosta sedeža', '3 prosti sedeži', '5 prostih sedežev'],
  };
  for (const lang of ['en', 'fi', 'de', 'sl']) {
    const cat = catalogue(lang);
    for (const k of ['create.bot.hint.random', 'create.bot.hint.easy', 'create.bot.hint.medium', 'create.bot.hint.hard']) assert.ok(!(k in cat), `${lang}: ${k} (a level described by its name) is gone`);
    const page = await newPage(browser);
    await page.addInitScript((l) => localStorage.setItem('carc.lang', l), lang);
    await page.goto(s.url + '/');
    await ready(page);
    for (const lv of levels) {
      await page.selectOption('[data-testid=who-1]', `bot:${lv.level}`);
      const hint = await page.textContent('[data-testid=bot-hint-1]');
      const does = cat[`create.bot.does.${bot(lv.spec)}`];
      assert.ok(does, `${lang}: a description of the ${bot(lv.spec)} bot`);
      assert.ok(hint.startsWith(does), `${lang} ${lv.level} (${lv.spec}): "${hint}" starts with "${does}"`);
      assert.equal(await page.getAttribute('[data-testid=bot-hint-1]', 'title'), lv.spec);
      const label = await page.$eval('[data-testid=who-1]', (sel) => sel.selectedOptions[0].textContent);
      if (!(`bot.${lv.level}` in cat)) {
        assert.ok(label.includes(lv.level), `${lang}: the operator's level is named: ${label}`);
        assert.ok(hint.includes(lv.spec), `${lang}: and its spec is shown: ${hint}`);
      } else assert.ok(label.includes(cat[`bot.${lv.level}`]), label);
      if (lv.rating != null) assert.ok(hint.includes(cat['create.bot.rating'].replace('{r}', lv.rating)), `${lang}: the rating of ${lv.level} in "${hint}"`);
      if (/time=/.test(lv.spec)) {
        const secs = new Intl.NumberFormat(lang).format(Number(/time=([\d.]+)/.exec(lv.spec)[1]));
        assert.ok(hint.includes(cat['create.bot.time'].replace('{s}', secs)), `${lang}: the time of ${lv.spec} in "${hint}"`);
      }
    }
    const easy = levels.find((b) => b.level === 'easy');
    if (easy && bot(easy.spec) === 'random') {
      await page.selectOption('[data-testid=who-1]', 'bot:easy');
      assert.equal(await page.textContent('[data-testid=bot-hint-1]'), cat['create.bot.does.random'], `${lang}: easy is the random bot and says so`);
    }
    await page.waitForFunction(() => document.querySelectorAll('[data-testid=open-tables] .trow').length === 4);
    const open = await page.$$eval('[data-testid=open-tables] .trow .open-seats', (ns) => ns.map((n) => n.textContent));
    assert.deepEqual(open.sort(), [...seatsOpen[lang]].sort(), `${lang}: seats open`);
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('the lobby and the leaderboard are ready only when the server\'s options are in: a slow /api/options leaves no empty bot hint, no default level list, no missing bot rating', async () => {
  const s = await serveWith('slow-options.sqlite', ['--bot-level', 'blitz=mcts:time=0.2']);
  const page = await newPage(browser);
  let answered = false;
  await page.route('**/api/options', async (route) => {
    await new Promise((r) => setTimeout(r, 800));
    answered = true;
    await route.continue();
  });
  await page.goto(s.url + '/');
  await ready(page);
  assert.ok(answered, 'ready came after the options were answered');
  // the operator's level is only in the server's list
  const values = await page.$$eval('[data-testid=who-1] option', (os) => os.map((o) => o.value));
  assert.ok(values.includes('bot:blitz'), values.join(' '));
  await page.selectOption('[data-testid=who-1]', 'bot:medium');
  const hint = await page.textContent('[data-testid=bot-hint-1]');
  assert.ok(hint.startsWith(catalogue('en')['create.bot.does.greedy']), `"${hint}"`);
  // the leaderboard too: ready with the bots' ratings from the same slow options
  answered = false;
  await page.goto(s.url + '/?leaderboard');
  await ready(page);
  assert.ok(answered, 'the leaderboard was ready after the options');
  const opts = await getJson(`${s.url}/api/options`);
  const about = await page.textContent('[data-testid=board-about]');
  for (const l of opts.bot_levels.filter((b) => b.rating != null)) assert.ok(about.includes(`${l.level} ${l.rating}`), `${l.level} in "${about}"`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

// An expansion the server offers as a variant of another (named after it,
// "x-tiles"), offered under it in the form, not as an expansion of its own:
// choosing it makes a table of the variant; the choice is kept over a reload.
test('an expansion\'s variant is offered under it and makes its table', async () => {
  const o = await getJson(`${BASE}/api/options`);
  const all = o.expansions.map((e) => e.name);
  const base = all.find((b) => all.some((v) => v !== b && v.startsWith(`${b}-`)));
  assert.ok(base, `an expansion with a variant among ${all}`);
  const variant = all.find((v) => v !== base && v.startsWith(`${base}-`));
  const page = await newPage(browser);
  await page.goto(BASE + '/');
  await ready(page);
  assert.equal(await page.locator(`[data-testid=exp-${variant}]`).count(), 0, 'no checkbox of its own');
  await page.check(`[data-testid=exp-${base}]`);
  await page.check(`[data-testid=variant-${variant}]`);
  await page.reload();
  await ready(page);
  assert.ok(await page.isChecked(`[data-testid=variant-${variant}]`), 'kept');
  await page.fill('[data-testid=my-name]', 'Vera');
  await page.selectOption('[data-testid=who-1]', 'friend');
  await page.click('[data-testid=create]');
  await page.waitForURL(/\?table=[0-9a-f]{16}/);
  const id = new URL(page.url()).searchParams.get('table');
  const tb = await getJson(`${BASE}/api/tables/${id}`);
  assert.deepEqual(tb.options.expansions, [variant]);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

