// Figures that read at a glance (issue 29, item 2): each kind of figure is a
// drawing of its own (the follower, the big follower 1.4 times as large and
// marked, the builder, the pig, the abbot, the dragon, the fairy), a farmer
// lies down (in the drawing and in the placing preview on the board), the
// six player colours stay apart under simulated colour blindness (and keep
// six different marks), the supply shows each kind at a size a player tells
// apart, and the score track's markers are 16 px or more and stand side by
// side on equal and near scores, each in line with its square, at 1280x800
// and at 390x844. Writes palette-cvd.txt (the colour distances) and
// figures-*.png to the artifacts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { api, ART, BASE, DESK, PHONE, launch, newPage, ready, shot } from './lib.mjs';

// one lobby page for the drawings and the colours
let browser, lobby;
before(async () => {
  browser = await launch();
  lobby = await newPage(browser, DESK);
  await lobby.goto(BASE + '/');
  await ready(lobby);
});
after(async () => { await browser?.close(); });

const KINDS = ['follower', 'big', 'builder', 'pig', 'abbot'];

// Every figure drawn alone, 4 screen px to a tile unit, with its outline,
// its screen box and (for a lying farmer) the same; the dragon and fairy.
async function drawAll(page) {
  return page.evaluate(async (kinds) => {
    const m = await import('/js/colors.js');
    const svg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
    svg.setAttribute('viewBox', '0 0 400 100');
    svg.setAttribute('width', '1600');
    svg.setAttribute('height', '400');
    svg.style.cssText = 'position:fixed;left:0;top:0;z-index:99;background:#8cbf4f';
    document.body.append(svg);
    const box = (html) => {
      svg.innerHTML = html;
      const r = svg.firstElementChild.getBoundingClientRect();
      return { w: r.width, h: r.height, html: svg.innerHTML };
    };
    const c = m.PALETTE[0];
    const out = {};
    for (const k of kinds) {
      const s = box(m.figureSvg(k, c, 50, 50));
      const outline = svg.querySelector(`path[fill="${c.hex}"]`).getAttribute('d');
      out[k] = { ...s, outline, look: svg.firstElementChild.dataset.look, lying: box(m.figureSvg(k, c, 50, 50, { lying: true })) };
    }
    out.dragon = box(m.dragonSvg(50, 50));
    out.fairy = box(m.fairySvg(50, 50));
    svg.remove();
    const poses = { followerField: m.figurePose('follower', 'field'), bigField: m.figurePose('big', 'field'), pigField: m.figurePose('pig', 'field'), followerCity: m.figurePose('follower', 'city'), followerRoad: m.figurePose('follower', 'road') };
    return { out, poses, palette: m.PALETTE };
  }, KINDS);
}

test('each kind of figure is its own drawing; the big follower is 1.4 times a follower; a farmer lies down', async () => {
  const page = lobby;
  const { out, poses } = await drawAll(page);
  const f = out.follower;
  assert.ok(f.h > 90 && f.h < 120, `a follower is about a quarter of a tile tall: ${f.h}px of 400`);
  // different outlines (the big follower is the follower's, larger)
  const outlines = ['follower', 'builder', 'pig', 'abbot'].map((k) => out[k].outline);
  assert.equal(new Set(outlines).size, 4, 'follower, builder, pig and abbot have outlines of their own');
  // each drawn as itself (a kind without a drawing of its own would be drawn plainly, as a follower)
  for (const k of KINDS) assert.equal(out[k].look, k === 'follower' ? 'plain' : k, `${k} drawn as itself`);
  // sizes and proportions that tell them apart
  assert.ok(out.big.w >= 1.3 * f.w && out.big.h >= 1.3 * f.h, `big follower ${out.big.w}x${out.big.h} vs follower ${f.w}x${f.h}`);
  assert.notEqual(out.big.html.split('stroke="#fff"').length, f.html.split('stroke="#fff"').length, 'the big follower carries a mark of its own');
  assert.ok(out.builder.h >= 1.1 * f.h, `the builder is taller: ${out.builder.h} vs ${f.h}`);
  assert.ok(out.pig.w > 1.15 * out.pig.h, `the pig is long and low: ${out.pig.w}x${out.pig.h}`);
  assert.ok(out.abbot.h > out.abbot.w, 'the abbot stands in his robe');
  assert.ok(out.dragon.w * out.dragon.h > 3 * f.w * f.h, `the dragon is large: ${out.dragon.w}x${out.dragon.h}`);
  assert.ok(out.fairy.h < 0.9 * f.h, `the fairy is small: ${out.fairy.w}x${out.fairy.h}`);
  assert.ok(!out.dragon.html.includes('#2448b8') && !out.fairy.html.includes('#2448b8'), 'the dragon and the fairy are in no player\'s colour');
  // lying down: a farmer on a field (the big follower too), never the pig
  assert.deepEqual([poses.followerField.lying, poses.bigField.lying, poses.pigField.lying, poses.followerCity.lying, poses.followerRoad.lying], [true, true, false, false, false]);
  // a follower stands taller than wide; turned on its back, it is wider than tall
  for (const k of ['follower', 'big']) {
    assert.ok(out[k].h > 1.1 * out[k].w, `a standing ${k} is taller than wide: ${out[k].w}x${out[k].h}`);
    assert.ok(out[k].lying.w > 1.05 * out[k].lying.h, `a lying ${k} is wider than tall: ${out[k].lying.w}x${out[k].lying.h}`);
  }
  assert.deepEqual(page.errors, []);
});

// Colour vision deficiency simulated with the matrices of Machado, Oliveira
// and Fernandes (2009) at full severity, applied to linear RGB; distances
// in CIELAB (1976) under D65.
const CVD = {
  normal: [1, 0, 0, 0, 1, 0, 0, 0, 1],
  protanopia: [0.152286, 1.052583, -0.204868, 0.114503, 0.786281, 0.099216, -0.003882, -0.048116, 1.051998],
  deuteranopia: [0.367322, 0.860646, -0.227968, 0.280085, 0.672501, 0.047413, -0.011820, 0.042940, 0.968881],
  tritanopia: [1.255528, -0.076749, -0.178779, -0.078411, 0.930809, 0.147602, 0.004733, 0.691367, 0.303900],
};
const toLinear = (v) => (v <= 0.04045 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
function simulate(hex, m) {
  const [r, g, b] = [1, 3, 5].map((i) => toLinear(parseInt(hex.slice(i, i + 2), 16) / 255));
  return [m[0] * r + m[1] * g + m[2] * b, m[3] * r + m[4] * g + m[5] * b, m[6] * r + m[7] * g + m[8] * b].map((v) => Math.min(1, Math.max(0, v)));
}
function lab([r, g, b]) {
  const x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047, y = 0.2126 * r + 0.7152 * g + 0.0722 * b, z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883;
  const f = (v) => (v > 216 / 24389 ? Math.cbrt(v) : (24389 / 27 * v + 16) / 116);
  return [116 * f(y) - 16, 500 * (f(x) - f(y)), 200 * (f(y) - f(z))];
}

test('the six colours stay apart for the colour blind (simulated), and each has a mark of its own', async () => {
  const { palette } = await drawAll(lobby);
  assert.equal(palette.length, 6);
  assert.equal(new Set(palette.map((c) => c.mark)).size, 6, 'six different marks');
  const lines = ['vision        closest pairs (CIELAB distance, lightness difference)   lightness L* of each colour'];
  let worst = Infinity, worstAt = '';
  for (const [name, m] of Object.entries(CVD)) {
    const L = palette.map((c) => lab(simulate(c.hex, m)));
    const pairs = [];
    for (let i = 0; i < 6; i++) {
      for (let j = i + 1; j < 6; j++) {
        const d = Math.hypot(L[i][0] - L[j][0], L[i][1] - L[j][1], L[i][2] - L[j][2]);
        pairs.push({ d, dl: Math.abs(L[i][0] - L[j][0]), at: `${palette[i].id}/${palette[j].id}` });
        if (d < worst) { worst = d; worstAt = `${name} ${palette[i].id}/${palette[j].id}`; }
      }
    }
    pairs.sort((a, b) => a.d - b.d);
    lines.push(`${name.padEnd(13)} ${pairs.slice(0, 3).map((p) => `${p.at} ${p.d.toFixed(1)} (${p.dl.toFixed(1)})`).join(', ').padEnd(64)} ${palette.map((c, i) => `${c.id} ${L[i][0].toFixed(0)}`).join(', ')}`);
  }
  lines.push(`smallest distance: ${worst.toFixed(1)} (${worstAt})`);
  fs.writeFileSync(path.join(ART, 'palette-cvd.txt'), lines.join('\n') + '\n');
  // 25 in CIELAB: two colours a person tells apart at a glance, not only side by side
  assert.ok(worst >= 25, `two colours come too near: ${worstAt} at ${worst.toFixed(1)}`);
});

test('markers spread along a line: a group centred where it wants to be, groups that meet merge', async () => {
  const got = await lobby.evaluate(async () => {
    const { spread } = await import('/js/track.js');
    return [spread([0, 0, 0, 10], 5), spread([0, 0, 2], 4), spread([0, 20], 4)];
  });
  // three on 0: -5, 0, 5; the one on 10 is just clear of them
  assert.deepEqual(got[0], [-5, 0, 5, 10]);
  // two on 0 and one on 2 meet: one group of three round their mean
  assert.deepEqual(got[1].map((v) => +v.toFixed(3)), [-3.333, 0.667, 4.667]);
  assert.deepEqual(got[2], [0, 20], 'markers far apart stay where they are');
});

// The markers' screen boxes on the track: [{p, cell, x, y, w, h}]
const markerBoxes = (page) => page.$$eval('[data-testid=track] .marker', (ms) => ms.map((m) => {
  const r = m.querySelector('svg').getBoundingClientRect();
  return { p: Number(m.dataset.p), cell: Number(m.closest('[data-cell]').dataset.cell), x: r.left, y: r.top, w: r.width, h: r.height };
}));
function assertApart(boxes, label) {
  for (const b of boxes) {
    assert.ok(b.h >= 16 && b.w >= 14, `${label}: marker ${b.p} is ${b.w.toFixed(1)}x${b.h.toFixed(1)} px`);
  }
  for (let i = 0; i < boxes.length; i++) {
    for (let j = i + 1; j < boxes.length; j++) {
      const a = boxes[i], b = boxes[j];
      const overlap = Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x) > 0.5 && Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y) > 0.5;
      assert.ok(!overlap, `${label}: markers ${a.p} and ${b.p} overlap: ${JSON.stringify([a, b])}`);
    }
  }
}

test('a table: the supply shows each kind at a size told apart, a farmer lies in the placing preview, the track\'s markers stand side by side', async () => {
  const t = await api('/api/tables', {
    name: 'Ada', players: 4, seats: [{}, { bot: 'easy' }, { bot: 'easy' }, { bot: 'easy' }],
    expansions: ['inns-cathedrals', 'traders-builders', 'abbot'], seed: 5, bot_delay_ms: 60000, tiles: { E: 3, U: 3, V: 3 },
  });
  for (const [size, ctx] of [['1280x800', DESK], ['390x844', PHONE]]) {
    const page = await newPage(browser, ctx);
    await page.addInitScript(([tid, token]) => {
      if (sessionStorage.getItem('init')) return;
      sessionStorage.setItem('init', '1');
      localStorage.setItem('carc.lang', 'en');
      localStorage.setItem('carc.seats', JSON.stringify({ [tid]: { seat: 0, token, at: Date.now() } }));
    }, [t.id, t.token]);
    await page.goto(`${BASE}/?table=${t.id}`);
    await ready(page);
    await page.waitForSelector('.game.mine');

    // the supply: every kind of the table, the big follower visibly bigger
    // (on a phone in the sheet the scores open)
    if (ctx === PHONE) await page.click('[data-testid=mini-scores]');
    // (the sheet shows after the click: measured once it does)
    await page.waitForFunction(() => document.querySelector('[data-testid=player-0] .fig[data-kind] .fig-icon')?.getBoundingClientRect().height > 0);
    const sup = await page.$$eval('[data-testid=player-0] .fig[data-kind]', (fs) => fs.map((f) => {
      const r = f.querySelector('.fig-icon').getBoundingClientRect();
      return { kind: f.dataset.kind, n: Number(f.dataset.n), w: r.width, h: r.height, count: f.querySelector('.n').textContent };
    }));
    assert.deepEqual(sup.map((s) => s.kind), KINDS, `${size}: the supply shows every kind`);
    const by = Object.fromEntries(sup.map((s) => [s.kind, s]));
    assert.ok(by.follower.h >= 20, `${size}: a follower in the supply is ${by.follower.h}px tall`);
    assert.ok(by.big.h >= 1.3 * by.follower.h, `${size}: the big follower ${by.big.h}px vs ${by.follower.h}px`);
    for (const s of sup) assert.ok(s.h >= 18 && s.w >= 18, `${size}: ${s.kind} shown at ${s.w}x${s.h}`);
    assert.equal(by.follower.count, '7', 'with its count');

    if (ctx === PHONE) { await shot(page, 'figures-supply-phone.png'); await page.click('[data-testid=mini-scores]'); }
    // the track at the start: four markers on 0, side by side
    let boxes = await markerBoxes(page);
    assert.equal(boxes.length, 4);
    assert.deepEqual(boxes.map((b) => b.cell), [0, 0, 0, 0], `${size}: every marker on square 0`);
    assertApart(boxes, `${size} at 0`);
    if (size === '1280x800') await shot(page, 'figures-track-start.png');
    // equal and near scores elsewhere on the track, and across its start
    for (const scores of [[12, 12, 13, 14], [49, 0, 0, 1], [24, 25, 25, 26], [60, 10, 110, 10]]) {
      await page.evaluate((s) => { const v = window.carcView; v.track.render(s, v.colors, s.map((_, i) => v.name(i))); }, scores);
      boxes = await markerBoxes(page);
      assert.deepEqual(boxes.sort((a, b) => a.p - b.p).map((b) => b.cell), scores.map((s) => s % 50), `${size}: each marker in its square's element`);
      assertApart(boxes, `${size} at ${scores}`);
      // each stays by its square: in line with it along the track (on a
      // side: within its height; on the top or bottom: within its width)
      const near = await page.$$eval('[data-testid=track] .marker', (ms) => ms.map((m) => {
        const a = m.getBoundingClientRect(), c = m.closest('[data-cell]').getBoundingClientRect(), t = m.closest('[data-testid=track]').getBoundingClientRect();
        const x = a.left + a.width / 2, y = a.top + a.height / 2;
        const side = c.left - t.left < 2 || t.right - c.right < 2, flat = c.top - t.top < 2 || t.bottom - c.bottom < 2;
        return { cell: m.closest('[data-cell]').dataset.cell, d: Math.hypot(x - (c.left + c.width / 2), y - (c.top + c.height / 2)), inLine: side && flat ? true : side ? y >= c.top && y <= c.bottom : x >= c.left && x <= c.right };
      }));
      for (const n of near) {
        assert.ok(n.d < 70, `${size} at ${scores}: a marker ${n.d.toFixed(0)}px from its square ${n.cell}`);
        assert.ok(n.inLine, `${size} at ${scores}: a marker out of line with its square ${n.cell}`);
      }
    }
    if (size === '1280x800') await shot(page, 'figures-track-near.png');

    if (size === '1280x800') {
      // the placing preview: the tile on a square, a follower on its field lies down
      await page.locator('.layer-cands .cand:not(.other)').first().click();
      await page.waitForSelector('[data-testid=confirm]');
      const field = await page.evaluate(() => window.carcView.spotList().findIndex((s) => s.feature === 'field'));
      assert.ok(field >= 0, 'the tile has a field');
      await page.click(`[data-testid=spot-${field}]`);
      const fb = await page.locator('.layer-spots .spot.selected .figure').boundingBox();
      assert.ok(fb.width > 1.05 * fb.height, `the farmer lies in the preview: ${fb.width}x${fb.height}`);
      await shot(page, 'figures-farmer-preview.png');
      const supply = await page.$('.players');
      await supply.screenshot({ path: path.join(ART, 'figures-supply.png') });
    }
    assert.deepEqual(page.errors, []);
    await page.context().close();
  }
});
