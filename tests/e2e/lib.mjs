// Shared pieces of the end-to-end tests: the browser, the server's address,
// the artifacts folder, and playing a turn by clicking as a person would.
import { chromium } from 'playwright-core';
import { CHROMIUM_BIN } from './chromium.mjs';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const BASE = process.env.CARC_URL;
export const CARC = path.resolve(ROOT, process.env.CARC_BIN || 'build/release/carc');
export const ART = path.resolve(ROOT, process.env.E2E_ARTIFACTS || 'build/e2e-artifacts');
if (!BASE) throw new Error('CARC_URL is not set: run the tests through tests/e2e/run.sh');
fs.mkdirSync(ART, { recursive: true });

export const LANGS = ['en', 'fi', 'de', 'sl'];
export const DESK = { viewport: { width: 1280, height: 800 } };
export const PHONE = { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true };
export const SIZES = [['1280x800', DESK], ['390x844', PHONE]];
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// A JSON request to the suite's server (POST when there is a body, with
// the account's token when given); a refusal throws with .status and .body.
export async function api(path, body, token) {
  const headers = { 'content-type': 'application/json' };
  if (token) headers['x-carc-token'] = token;
  const r = await fetch(BASE + path, body ? { method: 'POST', headers, body: JSON.stringify(body) } : { headers });
  const j = await r.json();
  if (!r.ok) { const e = new Error(`${path}: ${JSON.stringify(j)}`); e.status = r.status; e.body = j; throw e; }
  return j;
}

// A page of `browser` with the language and, when given, the seat (or
// every pass-and-play seat) of a table and the clock's display setting;
// set once, so a reload keeps what the page did.
export async function openPage(browser, path, { lang = 'en', seat = null, pnp = null, ctx = DESK, clock = null } = {}) {
  const page = await newPage(browser, ctx);
  await page.addInitScript(([l, s, p, c]) => {
    if (sessionStorage.getItem('init')) return;
    sessionStorage.setItem('init', '1');
    localStorage.setItem('carc.lang', l);
    if (s) localStorage.setItem('carc.seats', JSON.stringify({ [s.id]: { seat: s.seat, token: s.token, at: Date.now() } }));
    if (p) localStorage.setItem('carc.pnp', JSON.stringify({ [p.id]: Object.fromEntries(p.tokens.map((x) => [x.seat, x.token])) }));
    if (c) localStorage.setItem('carc.clock', c);
  }, [lang, seat, pnp, clock]);
  await page.goto(BASE + path);
  await ready(page);
  return page;
}

// Polls a table's state until ok(state) holds (ms at the most).
export async function waitState(id, ok, ms = 120000) {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    const st = await api(`/api/tables/${id}/state`);
    if (ok(st)) return st;
    await sleep(200);
  }
  throw new Error(`table ${id}: not reached in ${ms} ms`);
}

export const catalogue = (lang) => JSON.parse(fs.readFileSync(path.join(ROOT, 'web/i18n', `${lang}.json`), 'utf8'));

// the browser: chromium.mjs
export async function launch() {
  return chromium.launch({
    executablePath: CHROMIUM_BIN,
    headless: true,
    timeout: 30000,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
      '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
}

// A page that fails the test on a script error. Every page prefers reduced
// motion unless the test asks otherwise (opts.reducedMotion: 'no-preference'
// for a test of the motion itself): the tests wait for what the server says,
// not for animations.
export async function newPage(browser, opts = {}) {
  const ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true, ...opts, reducedMotion: opts.reducedMotion ?? 'reduce' });
  const page = await ctx.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(e.message));
  page.setDefaultTimeout(15000);
  return page;
}

export async function ready(page) {
  await page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 15000 });
}

export const shot = (page, name) => page.screenshot({ path: path.join(ART, name) });

// An account for this page's browser context (the session cookie is set by
// the answer), registered from the lobby of `base`; the page is reloaded.
export async function register(page, name, base = BASE) {
  await page.goto(base + '/');
  await ready(page);
  const st = await page.evaluate(async (n) => (await fetch('/api/account/register', {
    method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: n, password: 'correct horse' }),
  })).status, name);
  if (st !== 201) throw new Error(`registering ${name}: HTTP ${st}`);
  await page.reload();
  await ready(page);
}

// Fill the lobby's form and make a table; returns its id.
// `base`: another server than the suite's; `seat2: null` keeps the form's
// choice for the second seat.
export async function createTable(page, { base = BASE, name = 'Alice', seat2 = 'bot:medium', pile, botDelay = 60 } = {}) {
  await page.goto(base + '/');
  await ready(page);
  await page.fill('[data-testid=my-name]', name);
  if (seat2) await page.selectOption('[data-testid=who-1]', seat2);
  await page.click('details.advanced summary');
  await page.click('details.dev summary');
  if (pile) await page.fill('[data-testid=pile]', pile);
  await page.fill('[data-testid=bot-delay]', String(botDelay));
  await page.click('[data-testid=create]');
  await page.waitForURL(/\?table=[0-9a-f]{16}/);
  await ready(page);
  return new URL(page.url()).searchParams.get('table');
}

export const logLength = (page) => page.locator('[data-testid=log] li').count();
export const tilesOnBoard = (page) => page.locator('.layer-tiles use').count();
export const isOver = (page) => page.$eval('[data-testid=final]', (n) => !n.classList.contains('hidden'));

// Wait until this page may move, or the game is over.
export async function waitTurnOrEnd(page, timeout = 30000) {
  await page.waitForFunction(() => {
    const f = document.querySelector('[data-testid=final]');
    return (f && !f.classList.contains('hidden')) || document.querySelector('.game.mine');
  }, null, { timeout });
  return (await isOver(page)) ? 'over' : 'mine';
}

// One turn by clicking: rotate, put the tile on a highlighted square, maybe a
// figure on its first spot, confirm. Returns what was done.
export async function playTurn(page, { follower = true, rotate = true } = {}) {
  const before = await logLength(page);
  if (await page.locator('[data-testid=discard]').count()) {
    await page.click('[data-testid=discard]');
  } else {
    if (rotate && await page.locator('[data-testid=rotr]').isEnabled()) await page.click('[data-testid=rotr]');
    let cand = page.locator('.layer-cands .cand:not(.other)');
    if (!(await cand.count())) cand = page.locator('.layer-cands .cand');
    await cand.first().click();
    await page.waitForSelector('[data-testid=confirm]');
    let placed = false;
    const spots = page.locator('.layer-spots .spot');
    if (follower && await spots.count()) {
      await spots.first().click();
      await page.waitForSelector('.layer-spots .spot.selected');
      placed = true;
    }
    await page.click('[data-testid=confirm]');
    await page.waitForFunction((n) => document.querySelectorAll('[data-testid=log] li').length > n, before, { timeout: 15000 });
    return placed ? 'follower' : 'tile';
  }
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=log] li').length > n, before, { timeout: 15000 });
  return 'discard';
}

export async function finalScores(page, players) {
  const out = [];
  for (let i = 0; i < players; i++) out.push(Number(await page.textContent(`[data-testid=final-score-${i}]`)));
  return out;
}

// One turn with the keyboard only: → puts the tile on the next square where it
// fits, R turns it (among the rotations that fit there), 1 picks the first
// figure spot, Enter confirms.
export async function playTurnByKeys(page) {
  const before = await logLength(page);
  await page.locator('body').focus();
  if (await page.locator('[data-testid=discard]').count()) {
    await page.click('[data-testid=discard]');
  } else {
    await page.keyboard.press('ArrowRight');
    await page.waitForSelector('[data-testid=confirm]');
    await page.keyboard.press('r');
    await page.keyboard.press('1');
    await page.keyboard.press('Enter');
  }
  await page.waitForFunction((n) => document.querySelectorAll('[data-testid=log] li').length > n, before, { timeout: 15000 });
}

// A `carc serve` of a test's own on `db` (port 0: a free one); resolves with
// {proc, url, port} once it listens. The caller kills proc when done.
export function serve(db, port = 0) {
  const p = spawn(CARC, ['serve', '--host', '127.0.0.1', '--port', String(port), '--db', db, '--web', path.join(ROOT, 'web'), '--bot-delay', '50'], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => { p.kill('SIGKILL'); reject(new Error(`server did not start: ${out}`)); }, 10000);
    const onData = (d) => {
      out += d;
      const m = /http:\/\/127\.0\.0\.1:(\d+)/.exec(out);
      if (m) { clearTimeout(timer); p.removeAllListeners('exit'); resolve({ proc: p, url: m[0], port: Number(m[1]) }); }
    };
    p.stdout.on('data', onData);
    p.stderr.on('data', onData);
    p.on('exit', () => { clearTimeout(timer); reject(new Error(`server exited: ${out}`)); });
  });
}

// Whether an element is in view: inside the window and inside every
// ancestor that clips (a scrolling list, the sheet).
export const inView = (page, sel) => page.$eval(sel, (el) => {
  const r = el.getBoundingClientRect();
  if (!r.width || !r.height) return `${el.tagName} has no box`;
  if (r.top < -1 || r.bottom > innerHeight + 1 || r.left < -1 || r.right > innerWidth + 1) return `outside the window: ${Math.round(r.top)}..${Math.round(r.bottom)} of ${innerHeight}`;
  for (let a = el.parentElement; a; a = a.parentElement) {
    const s = getComputedStyle(a);
    if (s.overflowY === 'visible' && s.overflowX === 'visible') continue;
    const b = a.getBoundingClientRect();
    if (r.top < b.top - 1 || r.bottom > b.bottom + 1) return `clipped by ${a.className || a.tagName}: ${Math.round(r.top)}..${Math.round(r.bottom)} in ${Math.round(b.top)}..${Math.round(b.bottom)}`;
  }
  return 'ok';
});

// Text that does not show whole under `sel`: an element that cuts its
// content (an ellipsis, a clamp, hidden overflow), a word broken across
// two lines (its characters' boxes on different lines; a break after a
// hyphen, "Marja-|Liisa", is a break between words), and lines of one
// item that do not start at its left edge (text in columns: ragged).
export async function textTrouble(page, sel, { ragged = null } = {}) {
  return page.evaluate(([s, rag]) => {
    const out = [];
    const roots = [...document.querySelectorAll(s)].filter((r) => r.getClientRects().length);
    for (const root of roots) {
      for (const el of [root, ...root.querySelectorAll('*')]) {
        if (!el.getClientRects().length || el.closest('svg')) continue;
        const st = getComputedStyle(el);
        const txt = el.textContent.trim().slice(0, 40);
        if (!txt) continue;
        if (st.textOverflow === 'ellipsis' && el.scrollWidth > el.clientWidth + 1) out.push(`cut (ellipsis): "${txt}"`);
        else if (st.overflowX !== 'visible' && el.scrollWidth > el.clientWidth + 1) out.push(`cut sideways: "${txt}" ${el.scrollWidth} > ${el.clientWidth}`);
        if ((st.overflowY === 'hidden' || st.overflowY === 'clip') && el.scrollHeight > el.clientHeight + 1) out.push(`cut below: "${txt}" ${el.scrollHeight} > ${el.clientHeight}`);
      }
      const walk = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      for (let n = walk.nextNode(); n; n = walk.nextNode()) {
        if (!n.parentElement.getClientRects().length) continue;
        for (const m of n.data.matchAll(/[^\s\-\u2010]+/g)) {
          const range = document.createRange();
          range.setStart(n, m.index); range.setEnd(n, m.index + m[0].length);
          const tops = new Set([...range.getClientRects()].filter((r) => r.width > 0.5).map((r) => Math.round(r.bottom / 4)));
          if (tops.size > 1) out.push(`split word: "${m[0]}"`);
        }
      }
    }
    for (const item of rag ? document.querySelectorAll(rag) : []) {
      if (!item.getClientRects().length) continue;
      const range = document.createRange();
      range.selectNodeContents(item);
      const left = item.getBoundingClientRect().left + parseFloat(getComputedStyle(item).paddingLeft) + parseFloat(getComputedStyle(item).borderLeftWidth);
      const lines = new Map();
      for (const r of range.getClientRects()) {
        if (r.width < 0.5) continue;
        const k = Math.round(r.bottom / 4);
        lines.set(k, Math.min(lines.get(k) ?? Infinity, r.left));
      }
      for (const [, l] of lines) if (Math.abs(l - left) > 3) { out.push(`ragged: "${item.textContent.trim().slice(0, 50)}" has a line at ${Math.round(l - left)} px`); break; }
    }
    return out;
  }, [sel, ragged]);
}

// The language switched in the page, as the header's choice does (every
// screen draws itself again on "langchange").
export async function switchLang(page, lang) {
  await page.evaluate(async (l) => { const m = await import('/js/i18n.js'); await m.setLanguage(l, true); }, lang);
  await page.waitForFunction((l) => document.documentElement.lang === l, lang);
}
