// The painted tiles (issue 29, item 1): every tile of every expansion draws
// what its segments say (cities in walls, roads, water, cloisters and the
// symbols a player must see), no figure spot covers a symbol, the symbols
// stay legible at whole-board zoom, and the help pages tell tiles in words,
// never by the engine's code. Screenshots of a finished every-expansion board
// at three zooms go to the artifacts (art-board-far/mid/near.png) for a
// person to judge.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { api, BASE, LANGS, catalogue, launch, newPage, shot, waitState } from './lib.mjs';

// a page that draws every tile at once (the tiles page, a help page, a
// finished board) takes
// a few seconds on a busy machine: its ready mark is waited for longer
const readyAll = (page) => page.waitForFunction(() => document.body.dataset.ready === '1', null, { timeout: 60000 });

let browser, tiles;
before(async () => { browser = await launch(); tiles = (await api('/api/tiles')).tiles; });
after(async () => { await browser?.close(); });

// what a tile's definition says must be seen on it: [selector, how many]
// (the drawing's own words: tiles.js DRAWN_AS, a city is drawn "walled")
function expected(def) {
  const segs = def.segments, n = (f) => segs.filter(f).length;
  const want = [
    ['[data-art=walled]', n((s) => s.kind === 'city')],
    ['[data-art=path]', n((s) => s.kind === 'road')],
    ['[data-art=water]', n((s) => s.kind === 'river')],
    ['[data-art=abbey]', n((s) => s.kind === 'cloister')],
    ['[data-icon=flowers]', n((s) => s.kind === 'garden')],
    ['[data-icon=shield]', n((s) => s.shield)],
    ['[data-icon=cathedral]', n((s) => s.cathedral)],
    ['[data-icon=inn]', n((s) => s.inn)],
  ];
  for (const g of ['wine', 'grain', 'cloth']) want.push([`[data-icon=${g}]`, n((s) => s.goods === g)]);
  if (def.symbol) want.push([`[data-icon=${def.symbol}]`, 1]);
  return want;
}

test('every tile draws its features and symbols, and no figure spot covers a symbol', async () => {
  const page = await newPage(browser);
  await page.goto(`${BASE}/tiles.html`);
  await readyAll(page);
  assert.equal(await page.locator('figure[data-tile]').count(), tiles.length);
  const want = tiles.map((def) => [def.name, expected(def)]);
  const seen = await page.evaluate((list) => list.map(([name, sels]) => {
    const svg = document.querySelector(`figure[data-tile="${name}"] svg`);
    return [name, sels.map(([sel]) => [sel, svg.querySelectorAll(sel).length])];
  }), want);
  assert.deepEqual(seen, want);
  // a city wall wherever a city does not fill its tile
  const walls = await page.locator('figure[data-tile="E"] [data-art=wall]').count();
  assert.ok(walls >= 1, 'a city cap has a wall');
  // a follower at each segment's spot (as the board draws it, lying in a
  // field) and the boxes of the symbols on that tile: none overlaps
  const bad = await page.evaluate(async () => {
    const { TileSet } = await import('/js/tiles.js');
    const { figureSvg, figurePose } = await import('/js/colors.js');
    const ts = await TileSet.load();
    const colour = { hex: '#d33', ink: '#fff', id: 'red', mark: 'circle' };
    const out = [];
    for (const fig of document.querySelectorAll('figure[data-tile]')) {
      const name = fig.dataset.tile, svg = fig.querySelector('svg'), g = ts.geometry(name);
      // the garden is where the abbot stands, and on one tile (tb8g) its
      // small meadow has no room for both it and a farmer lying beside it:
      // gardens are left out here (docs/web.md, "Tile art")
      const icons = [...svg.querySelectorAll('[data-icon]')].filter((n) => n.dataset.icon !== 'flowers').map((n) => [n.dataset.icon, n.getBoundingClientRect()]);
      for (const s of ts.defs.get(name).segments) {
        const [x, y] = g.spots[s.index];
        const { lying, dx } = figurePose('follower', s.kind);
        const holder = document.createElementNS('http://www.w3.org/2000/svg', 'g');
        holder.innerHTML = figureSvg('follower', colour, x + dx, y, { lying });
        svg.appendChild(holder);
        const f = holder.getBoundingClientRect();
        holder.remove();
        for (const [k, r] of icons) {
          const ox = Math.min(f.right, r.right) - Math.max(f.left, r.left), oy = Math.min(f.bottom, r.bottom) - Math.max(f.top, r.top);
          if (ox > 1 && oy > 1) out.push(`${name}: the ${s.kind} figure covers the ${k} by ${ox.toFixed(1)}x${oy.toFixed(1)} px`);
        }
      }
    }
    // the trees stand where the tile's name puts them: the same on a second drawing
    const again = await TileSet.load();
    for (const d of ts.data.tiles) if (again.geometry(d.name).svg !== ts.geometry(d.name).svg) out.push(`${d.name}: drawn differently twice`);
    return out;
  });
  assert.deepEqual(bad, []);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('at every zoom, and zoomed out where figures and symbols are drawn larger, no figure hides a symbol or leaves its tile', async () => {
  const page = await newPage(browser);
  await page.goto(`${BASE}/tiles.html`);
  await readyAll(page);
  // every tile at each turn, drawn as the board draws it at the mid and far
  // levels; each kind of figure that can stand on each segment, placed and
  // sized as the board places it there (board.js placeFigure), at the
  // largest boost of that level; the drawn boxes compared
  const out = await page.evaluate(async () => {
    const { TileSet, rotatePort } = await import('/js/tiles.js');
    const { figureSvg, figurePose, figureBox } = await import('/js/colors.js');
    const ts = await TileSet.load();
    const colour = { hex: '#d33', ink: '#fff', id: 'red', mark: 'circle' };
    const kinds = { city: ['follower', 'big', 'builder'], road: ['follower', 'big', 'builder'], field: ['follower', 'big', 'pig'], cloister: ['follower', 'abbot'], garden: ['abbot'] };
    const box = document.createElement('div');
    document.body.appendChild(box);
    const bad = [];
    let n = 0, smaller = 0, over = 0, corner = 0;
    for (const [lod, boost] of [['near', 1], ['mid', 1.3], ['far', 1.9]]) {
      for (const d of ts.data.tiles) {
        // the turns matter where a symbol grows from an edge; a tile without one at one turn
        const turns = ts.symbolBoxes(d.name, 0, lod).length ? 4 : 1;
        for (let rot = 0; rot < turns; rot++) {
          box.innerHTML = ts.svg(d.name, rot, 200, '', lod);
          const svg = box.firstChild, r0 = svg.getBoundingClientRect(), u = r0.width / 100;
          const icons = [...svg.querySelectorAll('[data-icon]')].map((k) => [k.dataset.icon, k.getBoundingClientRect()]);
          for (const sg of d.segments) {
            // the board port of this segment's first port after the turn
            const port = rotatePort(sg.ports[0], rot);
            for (const kind of kinds[sg.kind] || []) {
              const { lying, dx } = figurePose(kind, sg.kind);
              const [x, y, b] = ts.placeFigure(d.name, rot, port, (bb) => figureBox(kind, lying, bb), boost, lod, `${kind}/${lying}`);
              n++;
              if (b < boost) smaller++;
              const g = document.createElementNS('http://www.w3.org/2000/svg', 'g');
              g.innerHTML = figureSvg(kind, colour, x + dx, y, { lying, boost: b });
              svg.appendChild(g);
              const f = g.getBoundingClientRect();
              g.remove();
              const where = `${d.name} turned ${rot} at ${lod}: the ${kind} on the ${sg.kind}`;
              // clear of every symbol's box, or where there is no room for
              // that, over a corner of one (tiles.js SYMBOL_SHOWN: a fifth of
              // its box as estimated; a quarter as measured here)
              let touch = false;
              for (const [k, r] of icons) {
                if (k === 'flowers' && sg.kind === 'garden') continue; // the abbot stands in the garden
                const ox = Math.min(f.right, r.right) - Math.max(f.left, r.left), oy = Math.min(f.bottom, r.bottom) - Math.max(f.top, r.top);
                if (ox <= u || oy <= u) continue;
                touch = true;
                const share = (ox * oy) / (r.width * r.height);
                if (share > 0.25) bad.push(`${where} covers ${Math.round(share * 100)}% of the ${k} (${(ox / u).toFixed(1)}x${(oy / u).toFixed(1)} tile units)`);
              }
              if (touch) corner++;
              // over its tile's edge by at most 8 tile units (tiles.js OVERHANG)
              const off = Math.max(r0.left - f.left, r0.top - f.top, f.right - r0.right, f.bottom - r0.bottom) / u;
              if (off > 9) bad.push(`${where} leaves its tile by ${off.toFixed(1)} tile units`);
              if (off > 1) over++;
            }
          }
        }
      }
    }
    box.remove();
    return { bad, n, smaller, over, corner };
  });
  console.log(`# ${out.n} figures placed, ${out.smaller} drawn smaller than the zoom's size , ${out.over} over their tile's edge and ${out.corner} over a corner of a symbol to keep clear`);
  assert.ok(out.n > 1000, `figures placed: ${out.n}`);
  assert.deepEqual(out.bad.slice(0, 40), [], `${out.bad.length} figures cover a symbol or leave their tile`);
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('at whole-board zoom shields, goods, inns, cathedrals, gardens and symbols are drawn at least 12 px, fine texture hidden', async () => {
  const t = await api('/api/tables', {
    players: 2, seats: [{ bot: 'random' }, { bot: 'random' }], bot_delay_ms: 0, seed: 29,
    expansions: ['river', 'inns-cathedrals', 'traders-builders', 'abbot', 'princess-dragon'],
  });
  await waitState(t.id, (s) => s.game.next.over, 60000);
  const page = await newPage(browser);
  await page.goto(`${BASE}/?table=${t.id}`);
  await readyAll(page);
  await page.waitForSelector('.layer-tiles use');
  // the final scores closed: the board is what is looked at
  await page.waitForSelector('[data-testid=final]:not(.hidden)');
  await page.click('[data-testid=final] [data-act=closefinal]');
  const zoom = (s) => page.evaluate((sc) => {
    const b = window.carcView.board;
    const [w, h] = b.size();
    b.zoomAt(sc / b.scale, w / 2, h / 2);
    return b.svg.dataset.lod;
  }, s);
  // a tile 48 px wide, as a long game's whole board is seen
  assert.equal(await zoom(0.48), 'far');
  // The board draws each tile as a <use> of a definition (no box of its own
  // for the parts inside); a copy of every tile with a symbol is set into the
  // board's view for a moment, under the same CSS and zoom, and measured.
  const names = tiles.filter((d) => expected(d).some(([sel, k]) => k > 0 && sel.startsWith('[data-icon'))).map((d) => d.name);
  const sizes = await page.evaluate((list) => {
    const b = window.carcView.board, out = [];
    for (const name of list) {
      const id = b.define(name, 0);
      const copy = document.getElementById(id).cloneNode(true);
      copy.removeAttribute('id');
      b.layers.float.appendChild(copy);
      for (const n of copy.querySelectorAll('[data-icon]')) {
        const r = n.getBoundingClientRect();
        out.push({ name, icon: n.dataset.icon, w: r.width, h: r.height });
      }
      const fine = [...copy.querySelectorAll('.art-fine')].filter((n) => getComputedStyle(n).display !== 'none').length;
      if (fine) out.push({ name, icon: 'fine texture shown', w: 0, h: 0 });
      copy.remove();
    }
    return out;
  }, names);
  assert.ok(sizes.length >= names.length);
  const small = sizes.filter((s) => Math.min(s.w, s.h) < 12).map((s) => `${s.name} ${s.icon}: ${s.w.toFixed(1)}x${s.h.toFixed(1)} px`);
  assert.deepEqual(small, []);
  // and on the board itself (its <use> copies, which no test can open): the
  // blue of a shield on a placed tile with no figure, counted in a
  // screenshot of that square, is the area of a shield drawn 1.75x (about
  // 90 px at 48 px a tile; drawn plain, about 30)
  const sq = await page.evaluate(() => {
    const b = window.carcView.board, figs = new Set((b.figs || []).map((f) => `${f.x},${f.y}`));
    for (const [k, p] of b.placed) {
      if (figs.has(k) || p.rot % 2) continue;
      if (!b.tiles.geometry(p.tile).icons.some((ic) => ic.kind === 'shield')) continue;
      const [x0, y0] = b.clientPoint(p.x, p.y), [x1, y1] = b.clientPoint(p.x + 1, p.y + 1);
      return { tile: p.tile, x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
    }
    return null;
  });
  assert.ok(sq, 'a placed tile with a shield and no figure');
  const png = (await page.screenshot({ clip: { x: sq.x, y: sq.y, width: sq.width, height: sq.height } })).toString('base64');
  const blue = await page.evaluate(async (b64) => {
    const bytes = Uint8Array.from(atob(b64), (ch) => ch.charCodeAt(0));
    const img = await createImageBitmap(new Blob([bytes], { type: 'image/png' }));
    const c = new OffscreenCanvas(img.width, img.height), x = c.getContext('2d');
    x.drawImage(img, 0, 0);
    const d = x.getImageData(0, 0, img.width, img.height).data;
    let n = 0;
    for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - 0x2d) + Math.abs(d[i + 1] - 0x4f) + Math.abs(d[i + 2] - 0xa3) < 40) n++;
    return n;
  }, png);
  assert.ok(blue >= 60, `the shield of ${sq.tile} on the board covers ${blue} px of blue at the far view`);
  await shot(page, 'art-board-far.png');
  assert.equal(await zoom(0.8), 'mid');
  await shot(page, 'art-board-mid.png');
  assert.equal(await zoom(1.6), 'near');
  await shot(page, 'art-board-near.png');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('the help pages tell every tile in words, in four languages, never by its code', async () => {
  const codes = tiles.map((d) => d.name);
  const word = new RegExp(`(^|[^\\p{L}\\p{N}])(${codes.map((c) => c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|')})(?=$|[^\\p{L}\\p{N}])`, 'u');
  const page = await newPage(browser);
  for (const lang of LANGS) {
    const cat = catalogue(lang);
    await page.goto(`${BASE}/help/${lang}.html`);
    await readyAll(page);
    const figs = await page.$$eval('[data-tiles] figure', (fs) => fs.map((f) => ({
      tile: f.dataset.tile, caption: f.querySelector('figcaption').textContent, label: f.querySelector('svg').getAttribute('aria-label'),
    })));
    assert.ok(figs.length >= 50, `${lang}: the expansions' tiles are shown (${figs.length})`);
    for (const f of figs) {
      assert.doesNotMatch(f.caption, word, `${lang}: a tile code in "${f.caption}"`);
      assert.doesNotMatch(f.label, word, `${lang}: a tile code in the picture's label "${f.label}"`);
      // the words are the description players see elsewhere, in this language
      const def = tiles.find((d) => d.name === f.tile);
      if (def.segments.some((s) => s.shield)) assert.ok(f.caption.includes(cat['tn.x.shield']), `${lang} ${f.tile}: "${f.caption}" tells of the shield`);
      if (def.segments.some((s) => s.inn)) assert.ok(f.caption.includes(cat['tn.x.inn']), `${lang} ${f.tile}: "${f.caption}" tells of the inn`);
      if (def.symbol) assert.ok(f.caption.includes(cat[`tn.x.${def.symbol}`]), `${lang} ${f.tile}: "${f.caption}" tells of the ${def.symbol}`);
    }
    // nothing on the page reads as a code either (the whole main text)
    const text = await page.textContent('main');
    assert.doesNotMatch(text.replace(/[×x]\d+/g, ''), /\b(?:ic|tb|pd|r)\d+g?\b/, `${lang}: no tile code in the page`);
  }
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
