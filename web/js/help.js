// The help pages (web/help/<lang>.html): their text is the page itself; this
// adds what depends on the game: the options of the table named by ?table=ID,
// and the tiles of each expansion, drawn from the engine's definitions. A
// page names no tile set: a section about an expansion (id exp-<name>) shows
// the tiles of the engine's set of that name (GET /api/vocabulary), one
// marked data-garden every garden copy. A tile is told in the engine's words
// (tiles.js, describeTile: "a city cap with a shield"), never by its code.
import { setLanguage, t } from './i18n.js';
import { TileSet } from './tiles.js';
import { loadVocabulary } from './vocab.js';
import { optionsSummary } from './ui.js';

async function main() {
  await setLanguage(document.documentElement.lang);
  const id = new URLSearchParams(location.search).get('table');
  const box = document.getElementById('this-game');
  if (id && box) {
    try {
      const r = await fetch(`/api/tables/${id}`);
      const tb = await r.json();
      if (!r.ok) throw new Error(tb?.error?.message || r.status);
      const o = tb.options;
      const links = [];
      links.push(o.farmers === false ? 'no-farmers' : `farm-${o.farm_scoring}`);
      if (o.small_city) links.push('small-city');
      // an expansion's section, or the one of the expansion it is a variant of
      // ("x-tiles" is told in the section of "x")
      const sections = [...document.querySelectorAll('section[id^="exp-"]')].map((s) => s.id.slice(4));
      for (const e of o.expansions || []) {
        const s = sections.find((x) => x === e) || sections.find((x) => e.startsWith(`${x}-`));
        if (s) links.push(`exp-${s}`);
      }
      box.innerHTML = `<h2>${t('help.thisgame')}</h2><ul>${optionsSummary(o).map((s) => `<li>${s}</li>`).join('')}</ul><p>${links.map((l) => `<a href="#${l}">${document.getElementById(l)?.querySelector('h3')?.textContent || l}</a>`).join(' · ')}</p>`;
      box.hidden = false;
      for (const l of links) document.getElementById(l)?.classList.add('in-game');
    } catch { box.hidden = true; }
  }
  try {
    const [tiles, names] = await Promise.all([TileSet.load(), loadVocabulary()]);
    for (const el of document.querySelectorAll('[data-tiles]')) {
      const set = (el.closest('section')?.id || '').replace(/^exp-/, '');
      const shown = el.dataset.garden ? (x) => !!x.garden_of : (x) => names.tile_sets.includes(set) && x.set === set;
      el.innerHTML = tiles.data.tiles.filter(shown)
        .map((x) => `<figure data-tile="${x.name}">${tiles.svg(x.name, 0, 56)}<figcaption>${tiles.name(x.name)} ×${x.count}</figcaption></figure>`).join('');
    }
  } catch { /* pictures are a bonus */ }
  document.body.dataset.ready = '1';
}
main();
