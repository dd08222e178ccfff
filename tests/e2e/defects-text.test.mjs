// Issue 22, defect 7: text on the table screen shows whole in the four
// languages at 1280x800 and 390x844: no name cut with an ellipsis or a
// clamp ("Schwarzer Bot…", the bot tag as "B…"), no word broken across two
// lines ("Kaupung|it"), no item whose lines do not start at its left edge
// (the marked turns in German). The player list and the clock of a live
// six-seat game, the final table of a finished one, the analysis' list of
// marked turns. (Apart from defects.test.mjs: a file of the runner has
// 180 s in all.)
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BASE, launch, newPage, ready, shot, catalogue, textTrouble, switchLang, api, LANGS, DESK, PHONE, SIZES, sleep, openPage, waitState } from './lib.mjs';

const cat = Object.fromEntries(LANGS.map((l) => [l, catalogue(l)]));
let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

const NAMES = { seats: [{ colour: 'blue' }, { bot: 'random', colour: 'black' }, { bot: 'easy', colour: 'yellow' }, { bot: 'random', colour: 'green' }, { bot: 'easy', colour: 'pink' }, { bot: 'random', colour: 'red' }] };
const EXP = ['inns-cathedrals', 'traders-builders', 'abbot'];

test('the player list and the clock cut no name and no tag, and split no word, in four languages at both sizes', async () => {
  const t = await api('/api/tables', { players: 6, name: 'Marja-Liisa Korhonen', ...NAMES, expansions: EXP, clock: { mode: 'turn', move_s: 86400 } });
  for (const [size, ctx] of SIZES) {
    const page = await openPage(browser, `/?table=${t.id}`, { seat: t, ctx });
    await page.waitForSelector('.game.mine');
    if (size === '390x844') {
      await page.locator('[data-testid=mini-scores]').tap();
      await page.waitForSelector('[data-testid=players]', { state: 'visible' });
    }
    for (const lang of LANGS) {
      await switchLang(page, lang);
      const bad = await textTrouble(page, '[data-testid=players], [data-testid=clock]');
      assert.deepEqual(bad, [], `${lang} ${size}`);
      // the bot tag in full, inside its row
      const tag = await page.$eval('[data-testid=player-1] .tag', (n) => ({ t: n.textContent, r: n.getBoundingClientRect().right, li: n.closest('li').getBoundingClientRect().right }));
      assert.equal(tag.t, cat[lang]['players.bot']);
      assert.ok(tag.r <= tag.li + 0.5, `${lang} ${size}: the tag inside its row`);
      if (lang === 'fi') await shot(page, `defect7-players-${size}.png`);
    }
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('the final table splits no word and cuts no name, in four languages at both sizes', async () => {
  const t = await api('/api/tables', { players: 6, ...NAMES, seats: NAMES.seats.map((s, i) => (i ? s : { bot: 'easy', colour: 'blue' })), expansions: EXP, seed: 4242, bot_delay_ms: 0 });
  await waitState(t.id, (s) => s.game.next.over, 60000);
  for (const [size, ctx] of SIZES) {
    const page = await openPage(browser, `/?table=${t.id}`, { ctx });
    await page.waitForSelector('[data-testid=final]:not(.hidden) .final-table', { timeout: 30000 });
    for (const lang of LANGS) {
      await switchLang(page, lang);
      await page.waitForSelector('[data-testid=final]:not(.hidden) .final-table');
      const bad = await textTrouble(page, '[data-testid=final] .card');
      assert.deepEqual(bad, [], `final table, ${lang} ${size}`);
      // every player's name whole somewhere in the box
      const names = await page.evaluate(() => [...Array(6).keys()].map((i) => window.carcView.name(i)));
      const text = await page.textContent('[data-testid=final] .card');
      for (const n of names) assert.ok(text.includes(n), `${lang} ${size}: "${n}" whole in the final box`);
      if (lang === 'fi') await shot(page, `defect7-final-${size}.png`);
    }
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});

test('the analysis\' marked turns: no ragged lines, no word split, in four languages at both sizes', async () => {
  // two bots with long names in German ("Schwarzer Bot (zufällig)"), the base game
  const t = await api('/api/tables', { players: 2, seats: [{ bot: 'random', colour: 'black' }, { bot: 'random', colour: 'yellow' }], seed: 77, bot_delay_ms: 0 });
  await waitState(t.id, (s) => s.game.next.over, 60000);
  await api(`/api/tables/${t.id}/analysis`, {});
  for (let i = 0; i < 400; i++) {
    const a = await api(`/api/tables/${t.id}/analysis`);
    if (a.status === 'done') break;
    await sleep(250);
  }
  for (const [size, ctx] of SIZES) {
    const page = await openPage(browser, `/?replay=${t.id}`, { ctx });
    await page.waitForSelector('[data-testid=an-worst]');
    for (const lang of LANGS) {
      await switchLang(page, lang);
      await page.waitForSelector('[data-testid=an-worst]');
      const bad = await textTrouble(page, '[data-testid=an-worst]', { ragged: '[data-testid=an-worst] button' });
      assert.deepEqual(bad, [], `marked turns, ${lang} ${size}`);
      if (lang === 'de') await shot(page, `defect7-marked-${size}.png`);
    }
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});
