// The layout check (issue 29, items 5 and 6): at 1280x800, 1920x1080 and
// 390x844 (touch), in the four languages, on the lobby (its form opened
// wide: the most seats, pass-and-play), the table during a turn (a tile put
// down, the figure buttons, the undo bar, a clock, four players), the final
// scores, the account page and the help: no text cut where no ellipsis is
// meant, no control over another or out of the window, the log's newest
// line, the chat's input, the turn line and the players in the window
// during play (on the phone: in the sheet its strip opens), and no console
// error. Also: the chat's unread mark, on the phone and in one column.
//
// Cheap by design (aim: < 90 s on an unloaded 2-core machine): one test a
// size, one browser, one page for the desktop sizes (resized) and one for
// the phone (touch is a context's property), the language changed by a
// reload; the tables are made once through the API and looked at in every
// size and language.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, newPage, openPage, ready, api, sleep, waitState, shot, catalogue, inView, textTrouble, switchLang, LANGS, PHONE } from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// (1024x700: the side panel in one column under 1180 px, which scrolls: the
// log and the chat are below the turn there, with the chat's unread mark,
// so only nothing cut and no control over another are asked of it)
const SIZES = [['1280x800', { width: 1280, height: 800 }], ['1920x1080', { width: 1920, height: 1080 }], ['1024x700', { width: 1024, height: 700 }], ['390x844', null]];
const ONE_COLUMN = '1024x700';
const EXP = ['inns-cathedrals', 'traders-builders', 'abbot'];

// Our turns through the API (the first legal placement, no figure), waiting for the bots between.
async function playApi(t, turns) {
  for (let k = 0; k < turns; k++) {
    let st;
    for (let i = 0; i < 400; i++) {
      st = await api(`/api/tables/${t.id}/state`, null, t.token);
      if (st.game.next.over || st.game.next.to_move === t.seat) break;
      await sleep(25);
    }
    const n = st.game.next;
    if (n.over) return;
    const p = n.legal.discard ? { discard: true } : (({ x, y, rot }) => ({ x, y, rot, meeple: null }))(n.legal.placements[0]);
    await api(`/api/tables/${t.id}/move`, { ...p, turn: n.turn }, t.token);
  }
}

// A page that records console errors (a failed request is one too) beside script errors.
async function page(ctx) {
  const p = await newPage(browser, ctx);
  p.console = [];
  p.on('console', (m) => { if (m.type() === 'error') p.console.push(`${m.text()} ${m.location()?.url || ''}`); });
  return p;
}

// Everything wrong with the screen as laid out now, as a list of lines.
// Left out on purpose: the board's SVG (tiles, squares and figures reach past
// the board's edge and are panned into view), anything inside a list that
// scrolls (its lines are meant to leave its box), text inputs (a long value,
// like the invitation link, scrolls in its field), and what is covered by an
// overlay (the final scores over the board's buttons): what a person cannot
// reach is not judged as a control.
function trouble({ table }) {
  const out = [];
  const shown = (el) => {
    if (!el.getClientRects().length) return false;
    const st = getComputedStyle(el);
    if (st.visibility === 'hidden' || Number(st.opacity) === 0) return false;
    const r = el.getBoundingClientRect();
    return r.width >= 2 && r.height >= 2;
  };
  const scrolls = (a) => { const s = getComputedStyle(a); return /(auto|scroll)/.test(s.overflowY + s.overflowX); };
  const inScroller = (el) => { for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) if (scrolls(a)) return a; return null; };
  const name = (el) => `${el.tagName.toLowerCase()}${el.dataset.testid ? `[${el.dataset.testid}]` : el.className && typeof el.className === 'string' ? `.${el.className.trim().split(/\s+/).join('.')}` : ''} "${(el.textContent || el.value || el.getAttribute('aria-label') || '').trim().replace(/\s+/g, ' ').slice(0, 40)}"`;
  const doc = document.documentElement;
  if (doc.scrollWidth > doc.clientWidth + 1) out.push(`the page scrolls sideways: ${doc.scrollWidth} > ${doc.clientWidth}`);
  // 1. text cut: a box that clips its content sideways without an ellipsis,
  // a control whose text runs out of it, a select whose chosen words do not fit
  const canvas = document.createElement('canvas').getContext('2d');
  // every element shown, outside SVG (a hidden or SVG subtree is skipped whole)
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_ELEMENT, {
    acceptNode: (n) => (n.namespaceURI === 'http://www.w3.org/2000/svg' || getComputedStyle(n).display === 'none' ? NodeFilter.FILTER_REJECT : NodeFilter.FILTER_ACCEPT),
  });
  for (let el = walk.nextNode(); el; el = walk.nextNode()) {
    const tag = el.tagName;
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'OPTION' || tag === 'SCRIPT' || tag === 'STYLE') continue;
    if (el.scrollWidth <= el.clientWidth + 1 && tag !== 'SELECT') continue; // the common case, cheap
    if (!shown(el)) continue;
    const st = getComputedStyle(el);
    if (tag === 'SELECT') {
      const txt = el.selectedOptions[0]?.textContent || '';
      canvas.font = `${st.fontWeight} ${st.fontSize} ${st.fontFamily}`;
      const room = el.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight) - 16; // the arrow
      if (canvas.measureText(txt).width > room + 1) out.push(`cut select: ${name(el)} "${txt}" ${Math.round(canvas.measureText(txt).width)} > ${Math.round(room)}`);
      continue;
    }
    if (!el.textContent.trim()) continue;
    if (st.textOverflow === 'ellipsis') continue; // meant: the whole text is in its title
    if (st.overflowX !== 'visible' && !scrolls(el)) out.push(`cut: ${name(el)} ${el.scrollWidth} > ${el.clientWidth}`);
    else if (st.overflowX !== 'visible') out.push(`scrolls sideways: ${name(el)} ${el.scrollWidth} > ${el.clientWidth}`);
    else if (tag === 'BUTTON' || tag === 'LABEL' || el.classList.contains('button')) out.push(`text out of its box: ${name(el)} ${el.scrollWidth} > ${el.clientWidth}`);
    else if (el.classList.contains('card')) out.push(`runs out of its card: ${name(el)} ${el.scrollWidth} > ${el.clientWidth}`);
  }
  // 2. the controls a person can reach: inside the window, none over another
  const hit = (el, r) => {
    const x = Math.min(Math.max(r.left + r.width / 2, 0), innerWidth - 1), y = Math.min(Math.max(r.top + r.height / 2, 0), innerHeight - 1);
    const top = document.elementFromPoint(x, y);
    return top && (top === el || el.contains(top) || top.contains(el) || top.closest('label')?.contains(el));
  };
  const ctrls = [];
  for (const el of document.querySelectorAll('button, input, select, a, textarea, summary')) {
    if (el.closest('svg') || !shown(el)) continue;
    const r = el.getBoundingClientRect();
    const sc = inScroller(el);
    if (sc) {
      // in a scrolling list: judged only where the list shows it
      const b = sc.getBoundingClientRect();
      if (r.bottom <= b.top || r.top >= b.bottom) continue;
    }
    if (r.left < -1 || r.right > innerWidth + 1) { out.push(`out of the window sideways: ${name(el)} ${Math.round(r.left)}..${Math.round(r.right)} of ${innerWidth}`); continue; }
    if (table && !sc && (r.top < -1 || r.bottom > innerHeight + 1)) { out.push(`out of the window: ${name(el)} ${Math.round(r.top)}..${Math.round(r.bottom)} of ${innerHeight}`); continue; }
    if (r.bottom < 0 || r.top > innerHeight) continue; // below the fold of a page that scrolls: not on screen to collide
    if (!hit(el, r)) continue; // under an overlay
    ctrls.push([el, r]);
  }
  // a bar that stays put (sticky, fixed: the lobby's "Create table", the
  // phone's confirm row) covers what scrolls under it: meant, not judged
  const pinned = (el) => { for (let a = el; a && a !== document.body; a = a.parentElement) { const p = getComputedStyle(a).position; if (p === 'sticky' || p === 'fixed') return a; } return null; };
  for (let i = 0; i < ctrls.length; i++) {
    for (let j = i + 1; j < ctrls.length; j++) {
      const [a, ra] = ctrls[i], [b, rb] = ctrls[j];
      if (!(ra.right > rb.left + 1 && rb.right > ra.left + 1 && ra.bottom > rb.top + 1 && rb.bottom > ra.top + 1)) continue;
      if (a.contains(b) || b.contains(a) || pinned(a) !== pinned(b)) continue;
      // a link wrapped over two lines has a box over both: its line boxes count
      let w = 0, h = 0;
      for (const x of a.getClientRects()) {
        for (const y of b.getClientRects()) {
          const ww = Math.min(x.right, y.right) - Math.max(x.left, y.left), hh = Math.min(x.bottom, y.bottom) - Math.max(x.top, y.top);
          if (ww > 1 && hh > 1) { w = ww; h = hh; }
        }
      }
      if (w > 1 && h > 1) out.push(`overlap: ${name(a)} and ${name(b)} (${Math.round(w)}x${Math.round(h)})`);
    }
  }
  return out;
}

const spent = {};
let mark = 0;
async function check(p, what, { table = false } = {}) {
  const t = Date.now();
  await p.evaluate(() => document.fonts.ready);
  const bad = await p.evaluate(trouble, { table });
  const k = what.split(' ').pop();
  spent[k] = (spent[k] || 0) + Date.now() - t;
  spent[`${k}:total`] = (spent[`${k}:total`] || 0) + Date.now() - (mark || t);
  mark = Date.now();
  return bad.map((s) => `${what}: ${s}`);
}

// the pieces of the table during play that must be in the window
async function playInView(p, what, phone) {
  const out = [];
  if (phone) {
    // the phone shows the board and the turn; the players, the log and the chat are one tap away
    await p.locator('[data-testid=mini-scores]').tap();
    await p.waitForSelector('[data-testid=log]', { state: 'visible' });
  }
  for (const sel of ['[data-testid=log] > li:last-child', '[data-testid=chat-input]', '[data-testid=players]', ...(phone ? [] : ['[data-testid=turn-line]', '[data-testid=confirm]'])]) {
    const r = await inView(p, sel);
    if (r !== 'ok') out.push(`${what}: ${sel} ${r}`);
  }
  if (phone) await p.locator('[data-testid=mini-scores]').tap();
  return out;
}

// the tables every size looks at, made once: two during play (one person,
// three bots, three expansions, moves made: a log), one in training (the
// undo bar), one with a clock (the clock's card: a table has one or the
// other), each shown in two languages; and a finished one (the final
// scores). One page for the desktop sizes and one for the phone, each of
// an account (its page is one of the screens; a guest's first visit asks
// /api/me and gets 401, which the browser logs: another item of issue 29).
let tables = null;
const pages = {};
async function fixtures() {
  if (tables) return tables;
  const seats4 = [{}, { bot: 'random' }, { bot: 'random' }, { bot: 'random' }];
  const training = await api('/api/tables', { name: 'Alice', seats: seats4, expansions: EXP, seed: 29, bot_delay_ms: 0 });
  const clocked = await api('/api/tables', { name: 'Alice', seats: seats4, expansions: EXP, seed: 30, bot_delay_ms: 0, clock: { mode: 'turn', move_s: 86400 } });
  const done = await api('/api/tables', { name: 'Alice', seats: [{}, { bot: 'random' }], expansions: EXP, tiles: { U: 2, E: 2, V: 2 }, seed: 7, bot_delay_ms: 0 });
  for (const t of [training, clocked]) {
    await playApi(t, 5);
    await waitState(t.id, (s) => s.game.next.to_move === 0);
  }
  await playApi(done, 10);
  await waitState(done.id, (s) => s.game.next.over);
  tables = { training, clocked, done };
  return tables;
}
async function pageFor(kind) {
  if (pages[kind]) return pages[kind];
  const { training, clocked, done } = await fixtures();
  const p = await page(kind === 'phone' ? PHONE : { viewport: { width: 1280, height: 800 } });
  await p.goto(BASE + '/');
  await ready(p);
  const st = await p.evaluate(async (n) => (await fetch('/api/account/register', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ name: n, password: 'correct horse' }) })).status, `Lay${kind}${Date.now().toString(36).slice(-4)}`);
  assert.equal(st, 201);
  await p.evaluate((ts) => {
    localStorage.setItem('carc.seats', JSON.stringify(Object.fromEntries(ts.map((x) => [x.id, { seat: 0, token: x.token, at: Date.now() }]))));
  }, [training, clocked, done]);
  p.console.length = 0;
  pages[kind] = p;
  return p;
}
after(async () => { for (const p of Object.values(pages)) await p.context().close(); });

for (const [size, vp] of SIZES) {
  test(`${size}, four languages: lobby, table during a turn, final scores, account, help: nothing cut, no control over another or out of the window, ${size === ONE_COLUMN ? '' : 'the log and the chat in view during play, '}no console error`, async () => {
    const { training, clocked, done } = await fixtures();
    const t0 = Date.now();
    for (const k of Object.keys(spent)) delete spent[k];
    const p = await pageFor(vp ? 'desk' : 'phone');
    if (vp) await p.setViewportSize(vp);
    const problems = [];
    // Each screen is loaded once and looked at in the four languages, the
    // language switched in the page as the header's choice does (every
    // screen draws itself again): a load per language took about half of
    // this test's time. The table during play is loaded twice (in training
    // for English and German, with a clock for Finnish and Slovenian),
    // each help page once (a page per language).
    const open = async (url, lang) => {
      await p.evaluate((l) => localStorage.setItem('carc.lang', l), lang);
      await p.goto(url);
      await ready(p);
    };
    const inLang = async (lang) => {
      if (await p.evaluate(() => document.documentElement.lang) !== lang) await switchLang(p, lang);
    };
    const consoleSeen = (at) => {
      for (const e of [...p.errors, ...p.console]) problems.push(`${at}: console: ${e}`);
      p.errors.length = 0; p.console.length = 0;
    };
    // the lobby, its form wide open: the most seats, pass-and-play ("Jemand an diesem Bildschirm")
    await open(BASE + '/', LANGS[0]);
    // (opened by its property: on the phone a click on it was refused when
    // its scrolling left it under the pinned "Create table" bar)
    await p.$eval('details.advanced', (d) => { d.open = true; });
    // (ticked by a DOM click, as the fold above is opened: on the phone the
    // pinned "Create table" bar covered it wherever the page's scrolling left it)
    await p.$eval('[data-testid=pass-and-play]', (c) => { if (!c.checked) c.click(); });
    assert.ok(await p.isChecked('[data-testid=pass-and-play]'));
    await p.selectOption('#f-players', await p.$eval('#f-players', (n) => n.options[n.options.length - 1].value));
    await p.selectOption('[data-testid=who-1]', 'friend');
    for (const lang of LANGS) {
      const at = `${size} ${lang}`;
      await inLang(lang);
      problems.push(...await check(p, `${at} lobby`));
      // a seat's six colour circles: in two rows of three at the most (seen: one a line)
      for (const n of await p.$$eval('.swatches', (ns) => ns.map((x) => new Set([...x.children].map((c) => Math.round(c.getBoundingClientRect().top))).size))) {
        if (n > 2) problems.push(`${at} lobby: a seat's colours in ${n} rows`);
      }
    }
    consoleSeen(`${size} lobby`);
    // the table during my turn: the tile put down, the figure buttons shown
    for (const [play, langs] of [[training, ['en', 'de']], [clocked, ['fi', 'sl']]]) {
      await open(`${BASE}/?table=${play.id}`, langs[0]);
      await p.waitForSelector('.game.mine');
      const cand = p.locator('.layer-cands .cand:not(.other)');
      await (vp ? cand.first().click() : cand.first().tap());
      await p.waitForSelector('[data-testid=confirm]');
      await p.waitForSelector(play === training ? '[data-testid=undo-bar]:not(.hidden)' : '[data-testid=clock]:not(.hidden)');
      for (const lang of langs) {
        const at = `${size} ${lang}`;
        await inLang(lang);
        problems.push(...await check(p, `${at} table`, { table: true }));
        // words whole in the side (no word broken over two lines: lib.mjs)
        problems.push(...(await textTrouble(p, '.side')).map((x) => `${at} table: ${x}`));
        if (size !== ONE_COLUMN) problems.push(...await playInView(p, `${at} table`, !vp));
        if (lang === 'de') await shot(p, `layout-table-${size}-${lang}.png`);
      }
      consoleSeen(`${size} table`);
    }
    // the final scores
    await open(`${BASE}/?table=${done.id}`, LANGS[0]);
    await p.waitForSelector('[data-testid=final]:not(.hidden) [data-testid=winners]');
    for (const lang of LANGS) {
      const at = `${size} ${lang}`;
      await inLang(lang);
      problems.push(...await check(p, `${at} final`, { table: true }));
      problems.push(...(await textTrouble(p, '[data-testid=final] .card')).map((x) => `${at} final: ${x}`));
      if (lang === 'fi') await shot(p, `layout-final-${size}-${lang}.png`);
    }
    consoleSeen(`${size} final`);
    // the account page and the help (pages of one column at most 860 px
    // wide: .account-page 40rem, help.css 860px)
    {
      await open(`${BASE}/?account`, LANGS[0]);
      for (const lang of LANGS) {
        await inLang(lang);
        problems.push(...await check(p, `${size} ${lang} account`));
      }
      for (const lang of LANGS) {
        await open(`${BASE}/help/${lang}.html`, lang); // ready: the tiles drawn
        problems.push(...await check(p, `${size} ${lang} help`));
      }
      consoleSeen(`${size} account, help`);
    }
    console.log(`# layout ${size}: ${LANGS.length * 5} screens in ${((Date.now() - t0) / 1000).toFixed(1)} s; checking them (ms): ${JSON.stringify(spent)}`);
    assert.deepEqual([...new Set(problems)], []);
  });
}

test('a chat line out of sight gets an unread mark (the phone\'s score strip; the bottom of the side in one column), gone once the chat is seen; at 1280x800 the chat is in view and needs none', async () => {
  const en = catalogue('en');
  const t = await api('/api/tables', { name: 'Alice', seats: [{}, { bot: 'random' }], bot_delay_ms: 0, spectator_chat: true, seed: 3 });
  // a spectator writes (spectator_chat), from a desktop window
  const spec = await page({ viewport: { width: 1280, height: 800 } });
  await spec.goto(`${BASE}/?table=${t.id}`);
  await ready(spec);
  const say = async (text) => { await spec.fill('[data-testid=chat-input]', text); await spec.press('[data-testid=chat-input]', 'Enter'); };
  const lineShown = (p, text) => p.waitForFunction((x) => [...document.querySelectorAll('[data-testid=chat-text]')].some((n) => n.textContent === x), text);

  // the phone: the chat is in the sheet; the strip counts what came
  const phone = await openPage(browser, `/?table=${t.id}`, { seat: t, ctx: PHONE });
  await phone.waitForSelector('.game.mine');
  assert.equal(await phone.locator('[data-testid=mini-unread]').count(), 0, 'no mark before a line');
  await say('one');
  await lineShown(phone, 'one');
  await phone.waitForSelector('[data-testid=mini-unread]');
  assert.equal((await phone.textContent('[data-testid=mini-unread]')).trim(), '1');
  await say('two');
  await phone.waitForFunction(() => document.querySelector('[data-testid=mini-unread]')?.textContent.trim() === '2');
  assert.equal(await phone.getAttribute('[data-testid=mini-unread]', 'title'), en['chat.unread'].split('|')[1].replace('other:', '').replace('{n}', '2'));
  await shot(phone, 'layout-unread-phone.png');
  await phone.locator('[data-testid=mini-scores]').tap();
  await phone.waitForSelector('[data-testid=mini-unread]', { state: 'detached' });
  assert.equal(await inView(phone, '[data-testid=chat-lines] li:last-child'), 'ok', 'the sheet shows the newest line');
  assert.equal(await inView(phone, '[data-testid=chat-input]'), 'ok');
  assert.deepEqual(phone.errors, []);
  await phone.context().close();

  // one column (1000x600): the chat below the log, out of sight; the mark at the side's bottom brings it
  const mid = await openPage(browser, `/?table=${t.id}`, { seat: t, ctx: { viewport: { width: 1000, height: 600 } } });
  await mid.waitForSelector('.game.mine');
  assert.equal(await mid.$eval('[data-testid=chat-lines]', (n) => n.getBoundingClientRect().top > innerHeight), true, 'the chat starts below the window');
  await say('three');
  await lineShown(mid, 'three');
  await mid.waitForSelector('[data-testid=chat-unread]:not(.hidden)');
  assert.equal((await mid.textContent('[data-testid=chat-unread]')).trim(), `${en['chat.unread'].split('|')[0].replace('one:', '').replace('{n}', '1')}`);
  assert.equal(await inView(mid, '[data-testid=chat-unread]'), 'ok', 'the mark is in the window');
  await shot(mid, 'layout-unread-column.png');
  await mid.click('[data-testid=chat-unread]');
  await mid.waitForSelector('[data-testid=chat-unread].hidden', { state: 'attached' });
  assert.equal(await inView(mid, '[data-testid=chat-lines] li:last-child'), 'ok', 'the chat scrolled into the side');
  assert.deepEqual(mid.errors, []);
  await mid.context().close();

  // 1280x800: two columns, the chat always in view: the line shows, no mark
  const desk = await openPage(browser, `/?table=${t.id}`, { seat: t, ctx: { viewport: { width: 1280, height: 800 } } });
  await desk.waitForSelector('.game.mine');
  await say('four');
  await lineShown(desk, 'four');
  await sleep(200);
  assert.equal(await inView(desk, '[data-testid=chat-lines] li:last-child'), 'ok');
  assert.equal(await desk.locator('[data-testid=chat-unread]:not(.hidden)').count(), 0);
  assert.deepEqual([...desk.errors, ...spec.errors], []);
  await desk.context().close();
  await spec.context().close();
});
