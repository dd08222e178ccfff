// Frame times of the board (issue 29, item 3; not part of `make test`):
// a phone-sized page (390x844, touch) with a finished game of every
// expansion (bots only, about 150 tiles), measured with the browser's
// performance timeline: requestAnimationFrame deltas while the board is
// panned by dragging, and while the last step's motion plays again (its
// tile travels and drops, its points travel); Chromium's own counters
// (CDP Performance.getMetrics: layouts and style recalculations) beside
// them. Prints a table and, with --json FILE, writes the figures.
//
//   node tests/e2e/frames.mjs                      (build/release/carc)
//   CARC_BIN=/path/to/carc node tests/e2e/frames.mjs --json frames.json
//
// It starts a `carc serve` of its own (temporary database, the web/ of
// this tree). Headless Chromium without a GPU draws in software on the
// CPU: the figures are an upper bound of a phone's, not a phone's.
import { chromium } from 'playwright-core';
import { CHROMIUM_BIN } from './chromium.mjs';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const CARC = path.resolve(ROOT, process.env.CARC_BIN || 'build/release/carc');
const jsonOut = process.argv.includes('--json') ? process.argv[process.argv.indexOf('--json') + 1] : null;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function serve(db) {
  const p = spawn(CARC, ['serve', '--host', '127.0.0.1', '--port', '0', '--db', db, '--web', path.join(ROOT, 'web'), '--bot-delay', '0'], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let out = '';
    const on = (d) => { out += d; const m = /http:\/\/127\.0\.0\.1:\d+/.exec(out); if (m) resolve({ proc: p, url: m[0] }); };
    p.stdout.on('data', on); p.stderr.on('data', on);
    p.on('exit', () => reject(new Error(`server exited: ${out}`)));
  });
}

// median, 95th percentile, frames dropped (a delta of k frame periods
// dropped k - 1) of rAF deltas in ms
function stats(d) {
  const s = [...d].sort((a, b) => a - b);
  const q = (p) => s[Math.min(s.length - 1, Math.floor(p * s.length))];
  const period = 1000 / 60;
  const dropped = d.reduce((n, x) => n + Math.max(0, Math.round(x / period) - 1), 0);
  return { frames: d.length, median: +q(0.5).toFixed(1), p95: +q(0.95).toFixed(1), max: +s[s.length - 1].toFixed(1), dropped, fps: +(1000 * d.length / d.reduce((a, b) => a + b, 0)).toFixed(1) };
}

// Chromium's counters between two Performance.getMetrics: layouts and style
// recalculations, and the main thread's busy time per frame (ms; script,
// layout and style included, painting on other threads not): what the page
// costs, less dependent on how busy the machine is than the frame times
function counters(s, m0, m1) {
  s.layouts = m1.LayoutCount - m0.LayoutCount;
  s.styles = m1.RecalcStyleCount - m0.RecalcStyleCount;
  s.mainPerFrame = +((m1.TaskDuration - m0.TaskDuration) * 1000 / s.frames).toFixed(2);
}

const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'carc-frames-'));
const { proc, url } = await serve(path.join(tmp, 'db.sqlite'));
const browser = await chromium.launch({ executablePath: CHROMIUM_BIN, headless: true, args: ['--no-sandbox', '--disable-gpu'] });
try {
  const api = async (p, b) => (await fetch(url + p, b ? { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(b) } : {})).json();
  const opts = await api('/api/options');
  // (inns-cathedrals-tiles is the tiles of inns-cathedrals alone: one of the two)
  const expansions = opts.expansions.map((x) => x.name).filter((n) => n !== 'inns-cathedrals-tiles');
  // four bots, every expansion, played to the end on the server
  const t = await api('/api/tables', { seats: [{ bot: 'random' }, { bot: 'random' }, { bot: 'easy' }, { bot: 'easy' }], expansions, seed: 29, bot_delay_ms: 0 });
  if (!t.id) throw new Error(`the table: ${JSON.stringify(t)}`);
  let st;
  for (let i = 0; i < 600; i++) { st = await api(`/api/tables/${t.id}/state`); if (st.game?.next?.over) break; await sleep(200); }
  if (!st.game?.next?.over) throw new Error('the bots did not finish');
  const tiles = st.game.board.length;

  const ctx = await browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, reducedMotion: 'no-preference' });
  const page = await ctx.newPage();
  await page.goto(`${url}/?table=${t.id}`);
  await page.waitForFunction(() => document.body.dataset.ready === '1' && document.querySelectorAll('.layer-tiles use').length > 0);
  await page.waitForSelector('[data-testid=final]:not(.hidden)');
  await page.click('[data-act=closefinal]');
  await sleep(1000);
  const cdp = await ctx.newCDPSession(page);
  await cdp.send('Performance.enable');
  const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));

  // rAF deltas until stop() (in the page)
  const record = () => page.evaluate(() => { window.__d = []; let last = 0; window.__on = true; const f = (ts) => { if (last) window.__d.push(ts - last); last = ts; if (window.__on) requestAnimationFrame(f); }; requestAnimationFrame(f); });
  const stop = () => page.evaluate(() => { window.__on = false; return window.__d; });

  // 1. panning: a slow drag back and forth across the board, 2 s
  const box = await page.locator('[data-testid=board]').boundingBox();
  const cx = box.x + box.width / 2, cy = box.y + box.height / 2;
  let m0 = await metrics();
  await record();
  await page.mouse.move(cx, cy);
  await page.mouse.down();
  for (let i = 0; i < 120; i++) {
    const a = (i / 120) * Math.PI * 2;
    await page.mouse.move(cx + Math.sin(a) * 120, cy + Math.sin(a * 2) * 80);
    await sleep(16);
  }
  await page.mouse.up();
  const pan = stats(await stop());
  let m1 = await metrics();
  counters(pan, m0, m1);

  // 2. a tile drops: the last tile step's motion played again on the
  // finished board (from its player's row or the hand, its points to the
  // score), as a move message would start it
  await page.click('[data-testid=fit]');
  await sleep(500);
  m0 = await metrics();
  await record();
  await page.evaluate(() => {
    const v = window.carcView;
    const e = [...v.game.log].reverse().find((x) => Number.isInteger(x.x));
    const tileNode = v.board.tileAt(e.x, e.y);
    const at = v.motion.step({ e, tileNode, from: v.motion.source(e.player, false), newFigs: [], home: [], scores: v.scores(e), wait: 0 });
    v.flashEvents(e, at);
  });
  await sleep(2600);
  const drop = stats(await stop());
  m1 = await metrics();
  counters(drop, m0, m1);

  const out = { viewport: '390x844 touch', tiles, figures: st.game.figures.length, expansions, chromium: browser.version(), cpus: os.cpus().length, load: os.loadavg().map((x) => +x.toFixed(2)), pan, drop };
  console.log(`board: ${tiles} tiles, every expansion (${expansions.join(', ')}); Chromium ${out.chromium}, headless, no GPU; load ${out.load.join(' ')} on ${out.cpus} CPUs`);
  console.log('what          frames  median ms  p95 ms  max ms  dropped  fps   layouts  style recalcs  main thread ms/frame');
  for (const [k, s] of [['pan (drag)', pan], ['tile drop', drop]]) {
    console.log(`${k.padEnd(13)} ${String(s.frames).padStart(6)}  ${String(s.median).padStart(9)}  ${String(s.p95).padStart(6)}  ${String(s.max).padStart(6)}  ${String(s.dropped).padStart(7)}  ${String(s.fps).padStart(4)}  ${String(s.layouts).padStart(7)}  ${String(s.styles).padStart(13)}  ${String(s.mainPerFrame).padStart(20)}`);
  }
  if (jsonOut) fs.writeFileSync(jsonOut, JSON.stringify(out, null, 2) + '\n');
  await page.screenshot({ path: path.join(tmp, 'frames.png') });
  console.log(`screenshot: ${path.join(tmp, 'frames.png')}`);
} finally {
  await browser.close();
  proc.kill();
}
