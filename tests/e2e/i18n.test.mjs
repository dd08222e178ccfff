// Languages: the browser's language picks the catalogue, the switch changes
// it and is kept; every catalogue has every key; the help pages exist.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { ROOT, BASE, launch, newPage, ready, catalogue, shot, LANGS } from './lib.mjs';

let browser;
before(async () => { browser = await launch(); });
after(async () => { await browser?.close(); });

test('every catalogue has the same keys, and every key the code uses', () => {
  const en = catalogue('en');
  for (const l of LANGS) {
    const c = catalogue(l);
    assert.deepEqual(Object.keys(c).sort(), Object.keys(en).sort(), `${l}.json has the keys of en.json`);
    for (const [k, v] of Object.entries(c)) assert.ok(typeof v === 'string' && v.trim(), `${l}: ${k} is empty`);
  }
  const src = fs.readdirSync(path.join(ROOT, 'web/js')).map((f) => fs.readFileSync(path.join(ROOT, 'web/js', f), 'utf8')).join('\n');
  const html = fs.readFileSync(path.join(ROOT, 'web/index.html'), 'utf8');
  const used = new Set([...src.matchAll(/\bt\('([a-z][\w.-]*)'/g)].map((m) => m[1]));
  for (const m of (src + html).matchAll(/data-i18n(?:-title|-aria|-placeholder)?="([a-z][\w.-]*)"/g)) used.add(m[1]);
  for (const k of used) assert.ok(k in en, `en.json lacks "${k}"`);
});

test('the browser language is picked, the switch changes it and is kept', async () => {
  const de = catalogue('de'), fi = catalogue('fi');
  const page = await newPage(browser, { locale: 'de-DE' });
  await page.goto(BASE + '/');
  await ready(page);
  assert.equal(await page.textContent('[data-testid=create]'), de['create.button']);
  assert.equal(await page.getAttribute('html', 'lang'), 'de');
  await page.selectOption('[data-testid=lang]', 'fi');
  await page.waitForFunction((s) => document.querySelector('[data-testid=create]').textContent === s, fi['create.button']);
  await page.reload();
  await ready(page);
  assert.equal(await page.textContent('[data-testid=create]'), fi['create.button']);
  await shot(page, 'lobby-fi.png');
  assert.equal(await page.getAttribute('.top .help', 'href'), '/help/fi.html');
  assert.deepEqual(page.errors, []);
  await page.context().close();
});

test('a help page in each language', async () => {
  const page = await newPage(browser);
  for (const l of LANGS) {
    const r = await page.goto(`${BASE}/help/${l}.html`);
    assert.equal(r.status(), 200);
    assert.equal(await page.getAttribute('html', 'lang'), l);
    for (const id of ['farm-international', 'farm-city-once', 'farm-first-edition', 'exp-river', 'exp-inns-cathedrals', 'exp-traders-builders', 'exp-abbot', 'exp-princess-dragon']) {
      assert.equal(await page.locator(`#${id}`).count(), 1, `${l}: section #${id}`);
    }
  }
  assert.deepEqual(page.errors, []);
  await page.context().close();
});
