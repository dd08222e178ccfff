// The smaller things players tripped over (issue 29, item 5): each test
// opens the screen where a player found the trouble and checks what they
// should have read or been able to do.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, newPage, openPage, ready, api, catalogue, shot, playTurn, register, SIZES, waitState } from './lib.mjs';

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

test('recovery codes: each in its own box, none over another, and one click copies them all', async () => {
  for (const [size, ctx] of SIZES) {
    const page = await newPage(browser, { ...ctx, permissions: ['clipboard-read', 'clipboard-write'] });
    await page.goto(BASE + '/');
    await ready(page);
    if (await page.locator('[data-testid=menu]').isVisible()) {
      await page.click('[data-testid=menu]');
      await page.waitForSelector('.top.menu-open nav');
    }
    await page.click('[data-testid=login-open]');
    await page.fill('[data-testid=acc-name]', `Codes ${size.slice(0, 3)}${Date.now().toString(36).slice(-5)}`);
    await page.fill('[data-testid=acc-password]', 'correct horse');
    await page.click('[data-testid=register]');
    await page.waitForSelector('[data-testid=recovery-codes]');
    const bad = await page.$$eval('[data-testid=recovery-codes] li', (lis) => {
      const out = [];
      const box = (el) => el.getBoundingClientRect();
      const card = box(document.querySelector('.codes-card'));
      const rs = lis.map((li) => ({ li: box(li), code: box(li.querySelector('code')), text: li.textContent }));
      for (const r of rs) {
        if (r.code.left < r.li.left - 0.5 || r.code.right > r.li.right + 0.5) out.push(`${r.text}: the code (${Math.round(r.code.width)} px) is wider than its place (${Math.round(r.li.width)} px)`);
        if (r.li.left < card.left || r.li.right > card.right) out.push(`${r.text}: outside the card`);
      }
      for (let i = 0; i < rs.length; i++) {
        for (let j = i + 1; j < rs.length; j++) {
          const a = rs[i].code, b = rs[j].code, c = rs[j].li;
          const meets = (x, y) => x.left < y.right - 0.5 && y.left < x.right - 0.5 && x.top < y.bottom - 0.5 && y.top < x.bottom - 0.5;
          if (meets(a, b) || meets(a, c) || meets(rs[i].li, c)) out.push(`${rs[i].text} and ${rs[j].text} overlap`);
        }
      }
      return out;
    });
    assert.deepEqual(bad, [], `${size}: ${bad.join('; ')}`);
    await shot(page, `fixes-codes-${size}.png`);
    const codes = await page.$$eval('[data-testid=recovery-codes] code', (cs) => cs.map((c) => c.textContent));
    assert.equal(await page.textContent('[data-testid=codes-copy]'), en['keep.codes.copy']);
    await page.click('[data-testid=codes-copy]');
    await page.waitForFunction((s) => document.querySelector('.codes-note').textContent === s, en['keep.codes.copied']);
    assert.equal((await page.evaluate(() => navigator.clipboard.readText())).trim(), codes.join('\n'));
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('the settings for trying things out (bot pause, seed, custom pile) are under "Advanced", closed', async () => {
  const page = await openPage(browser, '/');
  await page.click('details.advanced summary');
  // "More options" open: what players choose shows, the developer settings do not
  await page.waitForSelector('[data-testid=pass-and-play]', { state: 'visible' });
  for (const sel of ['[data-testid=bot-delay]', '[name=seed]', '[data-testid=pile]']) {
    assert.equal(await page.locator(sel).isVisible(), false, `${sel} is folded away`);
  }
  const shown = (await page.$$eval('details.advanced label', (ls) => ls.filter((l) => l.checkVisibility()).map((l) => l.textContent))).join(' | ');
  for (const k of ['opt.botdelay', 'opt.seed', 'opt.pile']) assert.ok(!shown.includes(en[k]), `"${en[k]}" is not shown: ${shown}`);
  assert.equal(await page.textContent('details.dev summary'), en['create.dev']);
  await page.click('details.dev summary');
  for (const sel of ['[data-testid=bot-delay]', '[name=seed]', '[data-testid=pile]']) assert.ok(await page.locator(sel).isVisible(), `${sel} shows under Advanced`);
  // a choice that draws the form again keeps both folds open
  await page.check('[data-testid=pass-and-play]');
  await page.waitForSelector('[data-testid=bot-delay]', { state: 'visible' });
  await page.uncheck('[data-testid=pass-and-play]');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('pass-and-play: "(you)" is on the seat whose turn it is, not on the last mover', async () => {
  const tb = await api('/api/tables', { name: 'Ann', pass_and_play: true, seats: [{}, { name: 'Ben' }], tiles: { U: 3, E: 2, V: 2 }, seed: 9 });
  const page = await openPage(browser, `/?table=${tb.id}`, { seat: tb, pnp: tb });
  const you = `(${en['players.you']})`;
  const marked = async () => {
    const out = [];
    for (let i = 0; i < 2; i++) if ((await page.textContent(`[data-testid=player-${i}] .pname`)).includes(you)) out.push(i);
    return out;
  };
  await page.waitForSelector('.game.mine');
  assert.deepEqual(await marked(), [0], 'Ann moves first: (you) on Ann');
  await playTurn(page, { follower: false, rotate: false });
  await page.locator('[data-testid=handover]:not(.hidden)').waitFor();
  assert.match(await page.textContent('[data-testid=handover]'), /Ben/);
  await page.waitForFunction((y) => document.querySelector('[data-testid=player-1] .pname').textContent.includes(y), you, { timeout: 5000 }).catch(() => {});
  assert.deepEqual(await marked(), [1], 'handed over to Ben: (you) on Ben');
  await shot(page, 'fixes-pnp-you.png');
  await page.click('[data-testid=handover-ready]');
  await page.waitForSelector('.game.mine');
  assert.deepEqual(await marked(), [1], 'Ben at the screen: (you) on Ben');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
test('"Invite" beside a friend online makes a table for two and invites them to it', async () => {
  const sfx = Date.now().toString(36).slice(-5);
  const [na, nb] = [`Inviter ${sfx}`, `Guest ${sfx}`];
  const alice = await newPage(browser), bob = await newPage(browser);
  await register(alice, na);
  await register(bob, nb);
  const post = (page, path, body) => page.evaluate(async ([p, b]) => (await fetch(p, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(b) })).status, [path, body]);
  assert.equal(await post(alice, '/api/friends/request', { name: nb }), 200);
  assert.equal(await post(bob, '/api/friends/accept', { name: na }), 200);
  // Bob is in the lobby (online); Alice sees him there with "Invite"
  await bob.goto(BASE + '/');
  await ready(bob);
  await alice.goto(BASE + '/');
  await ready(alice);
  const row = alice.locator(`[data-testid=friend][data-name="${nb}"][data-state=online]`);
  await row.waitFor();
  const btn = row.getByRole('button', { name: en['friends.invite.button'], exact: true });
  assert.equal(await btn.count(), 1, `an "${en['friends.invite.button']}" beside ${nb}: ${await row.textContent()}`);
  await shot(alice, 'fixes-friend-invite.png');
  await btn.click();
  await alice.waitForURL(/\?table=[0-9a-f]{16}/);
  await ready(alice);
  const id = new URL(alice.url()).searchParams.get('table');
  const info = await api(`/api/tables/${id}`);
  assert.equal(info.status, 'open');
  assert.deepEqual(info.seats.map((s) => s.kind), ['human', 'open']);
  const invites = await bob.evaluate(async () => (await (await fetch('/api/friends')).json()).invites);
  assert.ok(invites.some((v) => v.table === id && v.from.name === na), JSON.stringify(invites));
  await alice.waitForSelector('.waiting:not(.hidden)');
  assert.deepEqual(alice.errors, []);
  assert.deepEqual(bob.errors, []);
  await alice.context().close();
  await bob.context().close();
});

test("a guest's first visit logs no error in the console, and no request fails", async () => {
  const page = await newPage(browser);
  const console = [], failed = [];
  page.on('console', (m) => { if (m.type() === 'error') console.push(m.text()); });
  page.on('response', (r) => { if (r.status() >= 400) failed.push(`${r.status()} ${r.url()}`); });
  for (const p of ['/', '/?mygames', '/?account', '/?leaderboard', '/help/en.html']) {
    await page.goto(BASE + p);
    await ready(page);
    await page.waitForLoadState('networkidle');
  }
  // a table a guest watches
  const tb = await api('/api/tables', { players: 2, name: 'Bot', seats: [{ bot: 'random' }, { bot: 'random' }], bot_delay_ms: 0 });
  await page.goto(`${BASE}/?table=${tb.id}`);
  await ready(page);
  await page.waitForLoadState('networkidle');
  assert.deepEqual(failed, []);
  assert.deepEqual(console, []);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a replay frames the board as it grows: the start tile large and centred at turn 0, every tile in view at the end', async () => {
  const tb = await api('/api/tables', { players: 2, name: 'Bot', seats: [{ bot: 'random' }, { bot: 'random' }], bot_delay_ms: 0 });
  const st = await waitState(tb.id, (s) => s.table.status === 'over', 60000);
  const page = await openPage(browser, `/?replay=${tb.id}`);
  // the tiles' boxes on screen and the board's visible box
  const frame = () => page.evaluate(() => {
    const wrap = document.querySelector('.board-svg').getBoundingClientRect();
    const tiles = [...document.querySelectorAll('.layer-tiles > *')].map((e) => e.getBoundingClientRect()).filter((r) => r.width > 0);
    return { wrap: { l: wrap.left, t: wrap.top, r: wrap.right, b: wrap.bottom }, tiles: tiles.map((r) => ({ l: r.left, t: r.top, r: r.right, b: r.bottom, w: r.width })) };
  });
  await page.waitForSelector('.layer-tiles > *'); // the replay's state comes after the page is ready
  await page.waitForTimeout(300);
  const at0 = await frame();
  assert.equal(at0.tiles.length, 1, 'turn 0: the start tile');
  const t0 = at0.tiles[0];
  assert.ok(t0.w >= 80, `the start tile is drawn ${t0.w} px wide`);
  const mid = (a, b) => (a + b) / 2;
  assert.ok(Math.abs(mid(t0.l, t0.r) - mid(at0.wrap.l, at0.wrap.r)) < 40 && Math.abs(mid(t0.t, t0.b) - mid(at0.wrap.t, at0.wrap.b)) < 40, `centred: ${JSON.stringify(at0)}`);
  await page.keyboard.press('End');
  await page.waitForFunction((n) => window.carcView.step === n, st.game.log.length);
  const end = await frame();
  assert.ok(end.tiles.length > 20, `${end.tiles.length} tiles at the end`);
  for (const r of end.tiles) assert.ok(r.l >= end.wrap.l - 1 && r.r <= end.wrap.r + 1 && r.t >= end.wrap.t - 1 && r.b <= end.wrap.b + 1, `a tile out of view: ${JSON.stringify(r)} in ${JSON.stringify(end.wrap)}`);
  assert.ok(end.tiles[0].w < t0.w, 'framed again as the board grew');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
