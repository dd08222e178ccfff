// `make screenshots` (not part of `make test`): pictures of one fixed
// mid-game position at 1280x800, 1920x1080 and 390x844 (touch), written to
// docs/img/ for people to look at (docs/web.md "Screenshots"); nothing is
// compared. Run through tests/e2e/run.sh (E2E_SCRIPT=screenshots.mjs), which
// starts the server from this checkout's web/ folder.
//
// The position: a seeded table of one person and three medium bots with
// Inns & Cathedrals and Traders & Builders; the person's first twelve turns
// are the first legal placement, with a follower on its first spot when the
// engine offers one; then, on the person's turn, the tile is put on the
// first square where it fits and its first figure spot chosen (the hand, the
// figure buttons and the confirm button show), one chat line is sent, and
// the board is fitted to its box.
// The same seed and moves give the same board while the engine and its
// bots play the same.
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, launch, openPage, api, sleep, waitState, PHONE } from './lib.mjs';

const OUT = path.join(ROOT, 'docs/img');
const TURNS = 12;
const SHOTS = [
  ['table-1280x800.png', { viewport: { width: 1280, height: 800 } }],
  ['table-1920x1080.png', { viewport: { width: 1920, height: 1080 } }],
  ['table-390x844.png', PHONE],
];

async function playApi(t, turns) {
  for (let k = 0; k < turns; k++) {
    let st;
    for (let i = 0; i < 600; i++) {
      st = await api(`/api/tables/${t.id}/state`, null, t.token);
      if (st.game.next.over || st.game.next.to_move === t.seat) break;
      await sleep(25);
    }
    const n = st.game.next;
    if (n.over) throw new Error('the game ended before the position');
    let p;
    if (n.legal.discard) p = { discard: true };
    else {
      const pl = n.legal.placements[0];
      p = { x: pl.x, y: pl.y, rot: pl.rot, meeple: k % 3 === 0 && pl.meeples?.length ? pl.meeples[0] : null };
    }
    await api(`/api/tables/${t.id}/move`, { ...p, turn: n.turn }, t.token);
  }
}

fs.mkdirSync(OUT, { recursive: true });
const t = await api('/api/tables', {
  name: 'Alice', seed: 2029, bot_delay_ms: 0,
  seats: [{ colour: 'blue' }, { bot: 'medium', colour: 'red' }, { bot: 'medium', colour: 'yellow' }, { bot: 'medium', colour: 'green' }],
  expansions: ['inns-cathedrals', 'traders-builders'],
});
await playApi(t, TURNS);
await waitState(t.id, (s) => s.game.next.to_move === t.seat);
const browser = await launch();
let chatted = false;
try {
  for (const [file, ctx] of SHOTS) {
    const page = await openPage(browser, `/?table=${t.id}`, { seat: t, ctx });
    await page.waitForSelector('.game.mine');
    if (!chatted) {
      // one line in the chat (the side shows it at the desktop sizes)
      await page.click('[data-testid=phrase-gl]', { force: true }).catch(() => {});
      await page.waitForSelector('[data-testid=chat-text]', { state: 'attached' }).catch(() => {});
      chatted = true;
    }
    const cand = page.locator('.layer-cands .cand:not(.other)');
    await (ctx.hasTouch ? cand.first().tap() : cand.first().click());
    await page.waitForSelector('[data-testid=confirm]');
    const spot = page.locator('.spot-btn');
    if (await spot.count()) await (ctx.hasTouch ? spot.first().tap() : spot.first().click());
    await page.click('[data-testid=fit]'); // the whole board in view
    await sleep(400); // the fonts and the board's last drawing
    await page.screenshot({ path: path.join(OUT, file) });
    if (page.errors.length) throw new Error(`${file}: ${page.errors.join('; ')}`);
    console.log(`screenshots: docs/img/${file}`);
    await page.context().close();
  }
} finally {
  await browser.close();
}
