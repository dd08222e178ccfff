// The top of the lobby: "Play a bot now" makes a game against a bot with the
// default options in one click and opens it; the form's "Create table" is on
// the first screen of an empty lobby (1280x800 and 390x844).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, newPage, ready, shot, serve, catalogue, waitTurnOrEnd, playTurn, logLength } from './lib.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'carc-e2e-quick-'));
let browser, server;
before(async () => {
  browser = await launch();
  server = await serve(path.join(dir, 'db.sqlite'));
});
after(async () => {
  await browser?.close();
  if (server?.proc.exitCode === null) server.proc.kill('SIGKILL');
  fs.rmSync(dir, { recursive: true, force: true });
});
const getJson = async (url) => (await fetch(url)).json();
const sleep = (ms) => new Promise((res) => setTimeout(res, ms));

// The element is on the first screen, not covered by anything.
async function onFirstScreen(page, sel) {
  const r = await page.$eval(sel, (n) => {
    const b = n.getBoundingClientRect();
    const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
    return { top: b.top, bottom: b.bottom, left: b.left, right: b.right, hit: !!hit && (hit === n || n.contains(hit)), scrollY };
  });
  const { width, height } = page.viewportSize();
  assert.equal(r.scrollY, 0);
  assert.ok(r.top >= 0 && r.bottom <= height && r.left >= 0 && r.right <= width, `${sel} at ${JSON.stringify(r)} on a ${width}x${height} screen`);
  assert.ok(r.hit, `${sel} is not covered`);
}

test('an empty lobby at 1280x800: "Play a bot now" and "Create table" on the first screen; one click plays the medium bot with the default options', async () => {
  const en = catalogue('en');
  const page = await newPage(browser);
  await page.goto(server.url + '/');
  await ready(page);
  await page.waitForSelector('[data-testid=open-tables] .empty');
  await onFirstScreen(page, '[data-testid=quick-start]');
  await onFirstScreen(page, '[data-testid=create]');
  assert.equal(await page.textContent('[data-testid=quick-start]'), en['quick.button']);
  const what = await page.textContent('[data-testid=quick-what]');
  assert.ok(what.includes(en['quick.name']) && what.includes(en['bot.medium']), what);
  await shot(page, 'lobby-1280.png');

  await page.click('[data-testid=quick-start]');
  await page.waitForURL(/\?table=[0-9a-f]{16}$/);
  await ready(page);
  const id = new URL(page.url()).searchParams.get('table');
  const tb = await getJson(`${server.url}/api/tables/${id}`);
  const table = tb.table || tb;
  assert.equal(table.seats.length, 2);
  assert.equal(table.seats[0].kind, 'human');
  assert.equal(table.seats[0].name, en['quick.name'], 'a default name');
  assert.equal(table.seats[1].kind, 'bot');
  assert.equal(table.seats[1].level, 'medium');
  assert.deepEqual(table.options.expansions, []);
  assert.equal(table.options.farmers, true);
  assert.equal(table.options.farm_scoring, 'international');
  assert.equal(table.options.small_city, false);
  assert.equal(table.options.private, false);
  assert.equal(table.options.tiles, undefined, 'the whole pile');
  assert.equal(await waitTurnOrEnd(page), 'mine', 'the player moves first');
  await playTurn(page);
  // the bot answers and it is the player's turn again
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=log] li').length >= 2);
  assert.equal(await waitTurnOrEnd(page), 'mine');
  assert.ok(await logLength(page) >= 2);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('quick start at 390x844 in Slovenian with the name from last time; a double click starts one game', async () => {
  const sl = catalogue('sl');
  const page = await newPage(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await page.addInitScript(() => { localStorage.setItem('carc.lang', 'sl'); localStorage.setItem('carc.name', 'Zoë Žnidaršič'); });
  await page.goto(server.url + '/');
  await ready(page);
  await onFirstScreen(page, '[data-testid=quick-start]');
  await onFirstScreen(page, '[data-testid=create]');
  assert.equal(await page.textContent('[data-testid=quick-start]'), sl['quick.button']);
  assert.ok((await page.textContent('[data-testid=quick-what]')).includes('Zoë Žnidaršič'));
  const m = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, iw: innerWidth }));
  assert.ok(m.sw <= m.iw, `${m.sw} px wide on ${m.iw}`);
  await shot(page, 'lobby-390.png');
  const playing = async () => (await getJson(`${server.url}/api/tables?status=playing`)).tables.map((x) => x.id);
  const before = await playing();
  await page.dblclick('[data-testid=quick-start]');
  await page.waitForURL(/\?table=[0-9a-f]{16}$/);
  await ready(page);
  const id = new URL(page.url()).searchParams.get('table');
  await sleep(500);
  assert.deepEqual((await playing()).filter((x) => !before.includes(x)), [id], 'one new game');
  const table = await getJson(`${server.url}/api/tables/${id}`);
  assert.equal((table.table || table).seats[0].name, 'Zoë Žnidaršič');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
