// The guided first game (web/js/guide.js): a new visitor is offered it once,
// accepts, and plays it to the end following the tips (where the tile fits
// and how to turn it, a knight, what the completed city scored, a road, a
// cloister, a farmer, the fields at the end), at 1280x800 and on a phone at
// 390x844 with touch; a visitor who says no is not asked again and keeps the
// link; the tips come in the page's language.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, newPage, ready, shot, serve, catalogue, waitTurnOrEnd, logLength } from './lib.mjs';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'carc-e2e-guided-'));
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

// a catalogue value as the page shows it: the plural form for n, the
// placeholders filled, and only the text before the first markup placeholder
function text(cat, lang, key, vars = {}) {
  let v = cat[key];
  if (/^(zero|one|two|few|many|other):/.test(v)) {
    const forms = Object.fromEntries(v.split('|').map((p) => [p.slice(0, p.indexOf(':')), p.slice(p.indexOf(':') + 1)]));
    v = forms[new Intl.PluralRules(lang).select(vars.n)] ?? forms.other;
  }
  return v.replace(/\{(\w+)\}/g, (m, k) => (k in vars ? String(vars[k]) : m));
}
const before1 = (s) => s.split('{name}')[0];

async function stepText(page, id) {
  const sel = `[data-testid=guide-step-${id}]`;
  await page.waitForSelector(sel, { timeout: 30000 });
  return page.textContent(sel);
}

// The centre of board square (x, y) in the page, checked to be uncovered.
async function squarePoint(page, x, y) {
  return page.evaluate(([sx, sy]) => {
    const [px, py] = window.carcView.board.clientPoint(sx + 0.5, sy + 0.5);
    const hit = document.elementFromPoint(px, py);
    return { px, py, free: !!hit?.closest('.board-svg') };
  }, [x, y]);
}
// Click (or tap) a board square where the tile fits; prefers `want`.
async function putTile(page, touch, want = null) {
  const cands = await page.$$eval('.layer-cands .cand', (ns) => ns.map((n) => ({ x: Number(n.dataset.x), y: Number(n.dataset.y), fits: !n.classList.contains('other') })));
  const order = want ? [want, ...cands] : [...cands.filter((c) => c.fits), ...cands];
  for (const c of order) {
    await page.evaluate(([x, y]) => window.carcView.board.ensureVisible(x, y), [c.x, c.y]);
    const p = await squarePoint(page, c.x, c.y);
    if (!p.free) continue;
    if (touch) await page.touchscreen.tap(p.px, p.py); else await page.mouse.click(p.px, p.py);
    await page.waitForSelector('[data-testid=confirm]');
    return c;
  }
  throw new Error(`no free square among ${JSON.stringify(cands)}`);
}
// How many turns of the tile in hand fit on the square it lies on.
const turnsHere = (page) => page.evaluate(() => {
  const v = window.carcView, p = v.sel.pending;
  return new Set(v.game.next.legal.placements.filter((q) => q.x === p.x && q.y === p.y).map((q) => q.rot)).size;
});
// The spot button whose role is `role`, if any: chosen.
async function chooseRole(page, role) {
  const b = page.locator('.spots-list .spot-btn', { hasText: role });
  if (!(await b.count())) return false;
  await b.first().click();
  await page.waitForSelector('.spots-list .spot-btn.on');
  return true;
}
async function confirm(page) {
  const n = await logLength(page);
  await page.click('[data-testid=confirm]');
  await page.waitForFunction((k) => document.querySelectorAll('[data-testid=log] li').length > k, n, { timeout: 15000 });
}

async function playGuided(page, { lang, touch, tag }) {
  const c = catalogue(lang);
  await page.goto(server.url + '/');
  await ready(page);
  // offered to a new visitor, with the link beside "Play a bot now"
  await page.waitForSelector('[data-testid=guide-offer]');
  assert.ok((await page.textContent('[data-testid=guide-offer]')).includes(c['guide.offer.title']));
  assert.equal(await page.textContent('[data-testid=guide-link]'), c['guide.link']);
  await shot(page, `guided-offer-${tag}.png`);
  await page.click('[data-testid=guide-start]');
  await page.waitForURL(/\?table=[0-9a-f]{16}$/);
  await ready(page);
  const id = new URL(page.url()).searchParams.get('table');
  assert.equal(await waitTurnOrEnd(page), 'mine', 'the person moves first');
  // a private table: the page's own view of it (the server shows it to its seats only)
  const table = await page.evaluate(() => window.carcView.table);
  assert.equal(table.options.tutorial, true, 'a tutorial table');
  assert.equal(table.seats[1].level, 'easy');

  // 1. where the tile fits, and the square where it closes the start tile's city
  assert.ok((await stepText(page, 'place')).includes(c['guide.place']));
  const close = page.locator('[data-testid=guide-close]');
  assert.equal(await close.textContent(), c['guide.place.close']);
  const at = { x: Number(await close.getAttribute('data-x')), y: Number(await close.getAttribute('data-y')) };
  assert.equal(await page.locator('[data-testid=hint-ghost]').count(), 1, 'the faded tile shows how');
  await shot(page, `guided-place-${tag}.png`);
  await putTile(page, touch, at);
  // 2. turning it: not here, where only the one turn fits (the tip comes
  // where turning the tile gives another choice)
  assert.equal(await turnsHere(page), 1);
  assert.equal(await page.locator('[data-testid=guide-step-rotate]').count(), 0, 'no "turn the tile" where one turn fits');
  // 3. a knight
  assert.ok((await stepText(page, 'knight')).includes(text(c, lang, 'guide.knight', { none: c['act.nofigure'], confirm: c['act.confirm'] })));
  await shot(page, `guided-knight-${tag}.png`);
  assert.ok(await chooseRole(page, c['role.knight']), 'a knight spot');
  await page.waitForSelector('[data-testid=guide]:not(.hidden) [data-testid=guide-step-knight]', { state: 'detached' });
  await confirm(page);
  // 4. what the completed city scored: 2 tiles, 4 points
  const city = await stepText(page, 'scored');
  assert.ok(city.includes(before1(text(c, lang, 'guide.city', { n: 4 }))), city);
  assert.ok(city.includes(text(c, lang, 'guide.city', { n: 4 }).split('{name}')[1]), city);
  await shot(page, `guided-city-${tag}.png`);
  await page.click('[data-testid=guide-next]');
  // 5. a road (the second tile), with a robber on it
  assert.equal(await waitTurnOrEnd(page), 'mine');
  assert.ok((await stepText(page, 'robber')).includes(c['guide.road']));
  await putTile(page, touch);
  // the turn tip, once a square offers more than one turn
  if (await turnsHere(page) > 1) {
    assert.ok((await stepText(page, 'rotate')).includes(c['guide.rotate']));
    await page.click('[data-testid=rotr]');
  } else assert.equal(await page.locator('[data-testid=guide-step-rotate]').count(), 0);
  await chooseRole(page, c['role.robber']);
  await confirm(page);
  // 6. a cloister (the third), with a monk
  assert.equal(await waitTurnOrEnd(page), 'mine');
  assert.ok((await stepText(page, 'monk')).includes(c['guide.cloister']));
  await putTile(page, touch);
  assert.ok(await chooseRole(page, c['role.monk']), 'a monk spot');
  await confirm(page);
  // 7. a farmer, once a field spot is offered
  let farmer = false;
  while (await waitTurnOrEnd(page) === 'mine') {
    if (await page.locator('[data-testid=discard]').count()) { const n = await logLength(page); await page.click('[data-testid=discard]'); await page.waitForFunction((k) => document.querySelectorAll('[data-testid=log] li').length > k, n); continue; }
    await putTile(page, touch);
    if (!farmer && await page.locator('[data-testid=guide-step-farmer]').count()) {
      assert.ok((await page.textContent('[data-testid=guide-step-farmer]')).includes(c['guide.farmer']));
      await shot(page, `guided-farmer-${tag}.png`);
      farmer = await chooseRole(page, c['role.farmer']);
      assert.ok(farmer, 'a farmer spot');
    }
    await confirm(page);
  }
  assert.ok(farmer, 'the farmer tip came');
  // 8. the end: how the fields were scored
  const fin = await stepText(page, 'final');
  assert.ok(fin.includes(c['guide.final']), fin);
  assert.equal(await page.locator('[data-testid=guide-farms], [data-testid=guide-step-final] :text("' + c['guide.final.none'] + '")').count() >= 1, true);
  assert.equal(await page.locator('[data-testid=guide-again]').getAttribute('href'), '/?guide');
  await shot(page, `guided-final-${tag}.png`);
  // the last tip sits below the final scores, covering none of them
  const boxes = await page.evaluate(() => {
    const r = (q) => { const b = document.querySelector(q)?.getBoundingClientRect(); return b && { l: b.left, t: b.top, r: b.right, b: b.bottom }; };
    return { tip: r('[data-testid=guide]'), scores: [...document.querySelectorAll('[data-testid=final] .final-table, [data-testid=winners]')].map((e) => { const b = e.getBoundingClientRect(); return { l: b.left, t: b.top, r: b.right, b: b.bottom }; }) };
  });
  assert.ok(boxes.scores.length >= 2, 'the final scores show');
  for (const s of boxes.scores) assert.ok(boxes.tip.t >= s.b - 1 || boxes.tip.b <= s.t + 1 || boxes.tip.l >= s.r - 1 || boxes.tip.r <= s.l + 1, `the tip ${JSON.stringify(boxes.tip)} covers the scores ${JSON.stringify(s)}`);
  const m = await page.evaluate(() => ({ sw: document.documentElement.scrollWidth, iw: innerWidth }));
  assert.ok(m.sw <= m.iw, `${m.sw} px wide on ${m.iw}`);
  assert.equal(await page.evaluate(() => window.carcView.table.status), 'over');
  // offered once: back in the lobby there is no offer, the link stays
  await page.goto(server.url + '/');
  await ready(page);
  assert.equal(await page.locator('[data-testid=guide-offer]').count(), 0);
  assert.equal(await page.locator('[data-testid=guide-link]').count(), 1);
  // the guided game (a private table) is among the finished games, to replay
  await page.waitForSelector(`[data-testid=finished-games] .trow[data-id="${id}"] [data-testid=replay-${id}]`);
  assert.deepEqual(page.errors, []);
}

test('a new visitor at 1280x800 takes the guided game and plays it to the end by its tips', async () => {
  const page = await newPage(browser);
  await playGuided(page, { lang: 'en', touch: false, tag: '1280' });
  await page.context().close();
});

test('the guided game on a phone (390x844, touch) in Finnish', async () => {
  const page = await newPage(browser, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
  await page.addInitScript(() => { if (!localStorage.getItem('carc.lang')) localStorage.setItem('carc.lang', 'fi'); });
  await playGuided(page, { lang: 'fi', touch: true, tag: '390' });
  await page.context().close();
});

test('"No thanks" is remembered; the guide can be skipped at any tip and the game goes on', async () => {
  const de = catalogue('de');
  const page = await newPage(browser, { locale: 'de-DE' });
  await page.goto(server.url + '/');
  await ready(page);
  await page.waitForSelector('[data-testid=guide-offer]');
  assert.equal(await page.textContent('[data-testid=guide-no]'), de['guide.offer.no']);
  await page.click('[data-testid=guide-no]');
  assert.equal(await page.locator('[data-testid=guide-offer]').count(), 0);
  await page.reload();
  await ready(page);
  assert.equal(await page.locator('[data-testid=guide-offer]').count(), 0, 'not offered again');
  // the link starts it all the same, in German
  assert.equal(await page.textContent('[data-testid=guide-link]'), de['guide.link']);
  await page.click('[data-testid=guide-link]');
  await page.waitForURL(/\?table=[0-9a-f]{16}$/);
  await ready(page);
  assert.ok((await stepText(page, 'place')).includes(de['guide.place']));
  assert.equal(await page.textContent('[data-testid=guide-next]'), de['guide.next']);
  // out of order: the tile goes elsewhere than the tip shows, with no figure; nothing waits
  await putTile(page, false);
  await stepText(page, 'rotate');
  await page.click('[data-testid=guide-skip]');
  assert.equal(await page.locator('[data-testid=guide]').count(), 0, 'the guide is gone');
  await confirm(page);
  assert.equal(await waitTurnOrEnd(page), 'mine');
  await page.reload();
  await ready(page);
  assert.equal(await waitTurnOrEnd(page), 'mine');
  assert.equal(await page.locator('[data-testid=guide]:not(.hidden)').count(), 0, 'skipped stays skipped');
  // and the help page links to it too
  await page.goto(server.url + '/help/de.html');
  assert.equal(await page.getAttribute('[data-testid=help-guide]', 'href'), '/?guide');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
