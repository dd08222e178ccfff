// Quick match in the browser (issue 22, item 2): a guest sees the choices
// and is asked to log in; two browser contexts with two accounts choose the
// same players, rules and clock, click "Find a game", and both land at the
// same table, each in its own seat; leaving the queue is one click. At
// 1280x800, and on a phone (390x844, touch) where nothing may run off the
// screen. A table voided because the other never made a first move (issue
// 26) says so and puts the one who came back in the queue, first in line.
// A game that ends before every seat made the minimum of own moves says on
// its final scores that it was not rated, and why (issue 29).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, newPage, ready, shot, catalogue, register, CARC, ROOT } from './lib.mjs';

const BASE = process.env.CARC_URL;
const en = catalogue('en');
const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

async function choose(page, { players, rules, clock }) {
  if (!(await page.locator('[data-testid=match-join]').isVisible())) await page.click('[data-testid=match-open]');
  await page.selectOption('[data-testid=match-players]', String(players));
  await page.selectOption('[data-testid=match-rules]', rules);
  await page.selectOption('[data-testid=match-clock]', clock);
}

const noSideScroll = (page) => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1);

async function meet(opts, choice, tag) {
  const suffix = Date.now().toString(36).slice(-5);
  const [a, b] = [await newPage(browser, opts), await newPage(browser, opts)];
  // a guest: the choices, a note, and no way to join
  await a.goto(BASE + '/');
  await ready(a);
  await a.click('[data-testid=match-open]');
  await a.waitForSelector('[data-testid=match-join]');
  assert.ok(await a.locator('[data-testid=match-join]').isDisabled());
  assert.match(await a.textContent('[data-testid=match-panel]'), /account/);
  assert.ok(await noSideScroll(a), 'the guest panel fits the screen');
  await shot(a, `quickmatch-guest-${tag}.png`);

  await register(a, `Qa ${suffix}`);
  await register(b, `Qb ${suffix}`);
  // a joins, leaves with one click, and joins again
  await choose(a, choice);
  await a.click('[data-testid=match-join]');
  await a.waitForSelector('[data-testid=match-status]');
  assert.ok(await noSideScroll(a), 'the waiting panel fits the screen');
  await shot(a, `quickmatch-waiting-${tag}.png`);
  await a.click('[data-testid=match-leave]');
  await a.waitForSelector('[data-testid=match-join]');
  assert.equal(await a.evaluate(async () => (await (await fetch('/api/match')).json()).state), 'none');
  await a.click('[data-testid=match-join]');
  await a.waitForSelector('[data-testid=match-status]');
  // b chooses the same: both go to one table
  await choose(b, choice);
  await b.click('[data-testid=match-join]');
  await Promise.all([a.waitForURL(/\?table=[0-9a-f]{16}/, { timeout: 20000 }), b.waitForURL(/\?table=[0-9a-f]{16}/, { timeout: 20000 })]);
  await Promise.all([ready(a), ready(b)]);
  const ids = [a, b].map((p) => new URL(p.url()).searchParams.get('table'));
  assert.equal(ids[0], ids[1], 'both at the same table');
  const info = await a.evaluate(async (id) => (await fetch(`/api/tables/${id}`)).json(), ids[0]);
  assert.equal(info.status, 'playing');
  assert.deepEqual(info.seats.map((s) => s.name).sort(), [`Qa ${suffix}`, `Qb ${suffix}`]);
  assert.equal(info.options.clock.move_s, choice.move_s);
  // each browser holds its own seat (claimed through the account)
  const held = await Promise.all([a, b].map((p) => p.evaluate((id) => JSON.parse(localStorage.getItem('carc.seats') || '{}')[id]?.seat, ids[0])));
  assert.deepEqual(held.sort(), [0, 1]);
  await a.waitForSelector('[data-testid=board]');
  assert.ok(await noSideScroll(b), 'the table fits the screen');
  await shot(b, `quickmatch-table-${tag}.png`);
  assert.deepEqual(a.errors, []);
  assert.deepEqual(b.errors, []);
  await a.context().close();
  await b.context().close();
}

test('two accounts find each other through quick match (1280x800)', async () => {
  await meet({}, { players: 2, rules: 'base', clock: 'rt-60', move_s: 60 }, 'desktop');
});

test('two accounts find each other through quick match on phones (390x844, touch)', async () => {
  await meet(PHONE, { players: 2, rules: 'ic', clock: 'tb-1d', move_s: 86400 }, 'phone');
});

// A server of this test's own that offers the bot game after 1 s.
function serveQuick(dir, extra = []) {
  const p = spawn(CARC, ['serve', '--host', '127.0.0.1', '--port', '0', '--db', path.join(dir, 'q.sqlite'), '--web', path.join(ROOT, 'web'), '--bot-delay', '50', '--match-bot-after', '1', ...extra], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => { p.kill('SIGKILL'); reject(new Error(`server did not start: ${out}`)); }, 10000);
    const onData = (d) => {
      out += d;
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) { clearTimeout(timer); resolve({ proc: p, url: m[0] }); }
    };
    p.stdout.on('data', onData);
    p.stderr.on('data', onData);
  });
}

test('after the documented wait a bot game is offered: keep waiting, or play the bots', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'carc-qm-'));
  const srv = await serveQuick(dir);
  try {
    const page = await newPage(browser, PHONE);
    await register(page, 'Quinn', srv.url);
    await choose(page, { players: 3, rules: 'all', clock: 'rt-30' });
    // the promise of a rated game states the rule that voids it (the server's
    // default --rated-min-moves, as GET /api/options tells it)
    const min = await page.evaluate(async () => (await (await fetch('/api/options')).json()).rated_min_moves);
    assert.equal(min, 10);
    assert.equal(await page.textContent('[data-testid=match-note]'), en['match.rated.min'].replace('{n}', '10'));
    await page.click('[data-testid=match-join]');
    await page.waitForSelector('[data-testid=match-offer]', { timeout: 10000 });
    assert.equal(await page.textContent('[data-testid=match-keep]'), en['match.keep']);
    await page.click('[data-testid=match-keep]');
    await page.waitForSelector('[data-testid=match-offer]', { state: 'detached' });
    await page.waitForTimeout(2500); // polls go on, the offer stays away
    assert.equal(await page.locator('[data-testid=match-offer]').count(), 0);
    assert.equal(await page.locator('[data-testid=match-status]').count(), 1);
    // the page again (a reload finds the queue's entry), and this time the bots
    await page.reload();
    await ready(page);
    await page.waitForSelector('[data-testid=match-bot]', { timeout: 10000 });
    await page.click('[data-testid=match-bot]');
    await page.waitForURL(/\?table=[0-9a-f]{16}/);
    await ready(page);
    const id = new URL(page.url()).searchParams.get('table');
    const info = await page.evaluate(async (t) => (await fetch(`/api/tables/${t}`)).json(), id);
    assert.equal(info.seats.length, 3);
    assert.equal(info.seats.filter((s) => s.kind === 'bot').length, 2);
    assert.equal(info.options.clock.move_s, 30);
    assert.equal(info.options.expansions.length, 4);
    assert.equal(await page.evaluate(async () => (await (await fetch('/api/match')).json()).state), 'none');

    // the rule kept: a game given up at once is not rated, and the final
    // scores say why (the table's "rating": nobody made the 10 own moves)
    const g = await page.evaluate(async () => (await fetch('/api/tables', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ players: 2, name: 'Quinn', seats: [{}, { bot: 'random' }], bot_delay_ms: 0 }) })).json());
    await page.evaluate(({ id, seat, token }) => {
      const s = JSON.parse(localStorage.getItem('carc.seats') || '{}');
      s[id] = { seat, token, at: Date.now() };
      localStorage.setItem('carc.seats', JSON.stringify(s));
    }, g);
    await page.goto(`${srv.url}/?table=${g.id}`);
    await ready(page);
    assert.equal(await page.evaluate(async ({ id, token }) => (await fetch(`/api/tables/${id}/resign`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, body: '{}' })).status, g), 200);
    await page.waitForSelector('[data-testid=final-rating]:not(.hidden)', { timeout: 10000 });
    const over = await page.evaluate(async (id) => (await fetch(`/api/tables/${id}`)).json(), g.id);
    assert.deepEqual(over.rating, { rated: false, why: 'few_moves', min_moves: 10, own_moves: [0, 0] });
    const names = over.seats.map((s) => s.name);
    const many = (lang, and) => { const c = catalogue(lang)['final.rating.few.many']; return c.split('|').find((f) => f.startsWith('other:')).slice(6).replace('{n}', '10').replace('{names}', `${names[0]} ${and} ${names[1]}`); };
    // (each name is drawn after its colour mark: spaces collapsed as a reader sees them)
    const line = async () => (await page.textContent('[data-testid=final-rating]')).replace(/\s+/g, ' ').trim();
    assert.equal(await line(), many('en', en['word.and']));
    // and in German, where the words wrap inside the card on the phone
    await page.evaluate(() => localStorage.setItem('carc.lang', 'de'));
    await page.reload();
    await ready(page);
    await page.waitForSelector('[data-testid=final-rating]:not(.hidden)', { timeout: 10000 });
    // (the bot's name is said in the reader's language: the words around the names)
    const [pre, post] = many('de', '').split(`${names[0]}  ${names[1]}`);
    const de = await line();
    assert.ok(de.startsWith(pre) && de.endsWith(post) && de.includes(`Quinn ${catalogue('de')['word.and']} `), de);
    assert.ok(await noSideScroll(page), 'the final scores fit the phone');
    await shot(page, 'quickmatch-unrated-why.png');
    assert.deepEqual(page.errors, []);
    await page.context().close();
  } finally {
    srv.proc.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('a table the other never came to is void, and who came is back in the queue first', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'carc-qm-'));
  // a first move is due within 8 s (--match-first-move): time enough for
  // the page that came to load and move, and the other never does
  const srv = await serveQuick(dir, ['--match-first-move', '8']);
  try {
    const [a, b] = [await newPage(browser, {}), await newPage(browser, {})];
    await register(a, 'Came', srv.url);
    await register(b, 'Parked', srv.url);
    const choice = { players: 2, rules: 'base', clock: 'rt-30' };
    await choose(a, choice);
    await a.click('[data-testid=match-join]');
    await a.waitForSelector('[data-testid=match-status]');
    // the parked account joins by a script and never goes to its table
    assert.equal((await b.evaluate(async (c) => (await fetch('/api/match', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(c) })).status, choice)), 201);
    await a.waitForURL(/\?table=[0-9a-f]{16}/, { timeout: 20000 });
    const id = new URL(a.url()).searchParams.get('table');
    await b.context().close();
    // the one who came makes its first move when it is its turn (the API: the board is not the point here)
    await a.evaluate(async (t) => {
      const { seat, token } = await (await fetch(`/api/tables/${t}/claim`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{}' })).json();
      for (let i = 0; i < 100; i++) {
        const st = await (await fetch(`/api/tables/${t}/state`)).json();
        if (st.table.status === 'over' || st.game.log.some((e) => e.player === seat)) return;
        const n = st.game.next;
        if (n.to_move === seat) {
          const p = n.legal.placements[0];
          await fetch(`/api/tables/${t}/move`, { method: 'POST', headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${token}` }, body: JSON.stringify({ x: p.x, y: p.y, rot: p.rot, meeple: null, turn: n.turn }) });
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }, id);
    // the table says why it ended, then the page goes back to the queue
    await a.waitForSelector('[data-testid=void-line]', { timeout: 20000 });
    assert.match(await a.textContent('[data-testid=void-line]'), /Parked/);
    await a.waitForSelector('[data-testid=match-void]', { timeout: 10000 });
    assert.equal(await a.textContent('[data-testid=match-void]'), en['match.void'].replace('{name}', 'Parked'));
    await a.waitForSelector('[data-testid=match-status]');
    const q = await a.evaluate(async () => (await fetch('/api/match')).json());
    assert.equal(q.state, 'waiting');
    assert.ok(q.waited_ms >= 8000, `waits from when the table was made: ${q.waited_ms} ms`);
    const info = await a.evaluate(async (t) => (await fetch(`/api/tables/${t}`)).json(), id);
    assert.equal(info.status, 'over');
    await shot(a, 'quickmatch-void.png');
    assert.deepEqual(a.errors, []);
    await a.context().close();
  } finally {
    srv.proc.kill('SIGKILL');
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
