// The smaller things players tripped over (issue 29, item 5): each test
// opens the screen where a player found the trouble and checks what they
// should have read or been able to do.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, newPage, openPage, ready, api, catalogue, shot, playTurn, SIZES } from './lib.mjs';

const en = catalogue('en'), de = catalogue('de'), fi = catalogue('fi');
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

// a plural form of a catalogue value, as i18n.js picks it for English, German and Finnish
const form = (s, n) => {
  const forms = Object.fromEntries(s.split('|').map((p) => p.split(/:(.*)/s).slice(0, 2)));
  return (n === 1 ? forms.one : forms.other).replace('{n}', n);
};

test('a move the bot made for a person whose time ran out is marked as such in the log', async () => {
  // Alice never moves: after 3 s the takeover bot places her tile
  const tb = await api('/api/tables', {
    players: 2, name: 'Alice', seats: [{}, { bot: 'random' }], bot_delay_ms: 0,
    clock: { mode: 'realtime', move_s: 3, reserve_s: 0, max_timeouts: 5, takeover: 'random' },
  });
  const page = await openPage(browser, `/?table=${tb.id}`, { seat: tb });
  await page.waitForFunction(() => document.querySelectorAll('[data-testid=log] li').length >= 2, null, { timeout: 30000 });
  const first = page.locator('[data-testid=log] li').first();
  assert.match(await first.textContent(), /Alice/);
  assert.equal(await first.locator('[data-testid=log-takeover]').count(), 1, `the timed-out move is marked: "${await first.textContent()}"`);
  assert.equal((await first.locator('[data-testid=log-takeover]').textContent()).replace(/[()]/g, ''), en['log.takeover']);
  // the bot seat's own move is not
  assert.equal(await page.locator('[data-testid=log] li').nth(1).locator('[data-testid=log-takeover]').count(), 0);
  await shot(page, 'fixes-takeover-log.png');
  assert.deepEqual(page.errors, []);
  await page.context().close();
  // read from the stored state too, in another language
  const p2 = await openPage(browser, `/?table=${tb.id}`, { lang: 'de' });
  await p2.waitForSelector('[data-testid=log] li [data-testid=log-takeover]');
  assert.equal((await p2.locator('[data-testid=log] li').first().locator('[data-testid=log-takeover]').textContent()).replace(/[()]/g, ''), de['log.takeover']);
  assert.deepEqual(p2.errors, []);
  await p2.context().close();
});

test('a turn-based clock reads in days or hours a move, in the lobby and at the table', async () => {
  const page = await openPage(browser, '/');
  const opt = (v) => page.locator(`[data-testid=clock-preset] option[value=${v}]`).textContent();
  assert.doesNotMatch(await opt('tb-1d'), /\d+d \d\d:\d\d/, 'no "1d 00:00"');
  assert.equal(await opt('tb-1d'), en['clock.rule_turn'].replace('{move}', form(en['clock.days'], 1)));
  assert.equal(await opt('tb-3d'), en['clock.rule_turn'].replace('{move}', form(en['clock.days'], 3)));
  await page.context().close();
  // a 12-hour table: its information and its clock say "12 hours", here in Finnish
  const tb = await api('/api/tables', { players: 2, name: 'Alice', seats: [{}, { bot: 'random' }], clock: { mode: 'turn', move_s: 12 * 3600 } });
  const p = await openPage(browser, `/?table=${tb.id}`, { seat: tb, lang: 'fi' });
  const words = fi['clock.rule_turn'].replace('{move}', form(fi['clock.hours'], 12));
  await p.waitForFunction((w) => document.querySelector('.table-info .opts')?.textContent.includes(w), words);
  await p.waitForFunction((w) => document.querySelector('[data-testid=clock] .clock-note')?.textContent === w, words);
  assert.doesNotMatch(await p.textContent('.table-info .opts'), /12:00:00/);
  assert.deepEqual(p.errors, []);
  await p.context().close();
});

test('a rematch waiting for the other player says so, not "0 seats still open"', async () => {
  // Alice and Ann (guests) play a one-tile game; Alice asks for the rematch
  const tb = await api('/api/tables', { players: 2, name: 'Alice', seats: [{}, {}], tiles: { U: 1 } });
  const ann = await api(`/api/tables/${tb.id}/join`, { name: 'Ann' });
  const page = await openPage(browser, `/?table=${tb.id}`, { seat: tb });
  await page.waitForSelector('.game.mine');
  await playTurn(page, { follower: false });
  await page.waitForFunction(() => !document.querySelector('[data-testid=final]').classList.contains('hidden'));
  await page.context().close();
  const re = await api(`/api/tables/${tb.id}/rematch`, { token: tb.token }, tb.token);
  assert.ok(ann.token);
  const p = await openPage(browser, `/?table=${re.id}`, { seat: { id: re.id, seat: re.seat, token: re.token } });
  await p.waitForSelector('.waiting:not(.hidden)');
  const text = await p.textContent('.waiting');
  assert.doesNotMatch(text, new RegExp(form(en['wait.text'], 0).split('.')[0]), `no "0 seats still open": ${text}`);
  assert.equal(await p.textContent('[data-testid=wait-rematch]'), en['wait.rematch'].replace('{names}', 'Ann'));
  await shot(p, 'fixes-rematch-waiting.png');
  assert.deepEqual(p.errors, []);
  await p.context().close();
});
