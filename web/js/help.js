// The help pages (web/help/<lang>.html): their text is the page itself; this
// adds what depends on the game: the options of the table named by ?table=ID,
// and the tiles of each expansion, drawn from the engine's definitions.
import { setLanguage, t } from './i18n.js';
import { TileSet } from './tiles.js';
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
      links.push(o.farmers === false ? 'no-farmers' : `farm-${o.farm_scoring || 'international'}`);
      if (o.small_city) links.push('small-city');
      for (const e of o.expansions || []) links.push(`exp-${e === 'inns-cathedrals-tiles' ? 'inns-cathedrals' : e}`);
      box.innerHTML = `<h2>${t('help.thisgame')}</h2><ul>${optionsSummary(o).map((s) => `<li>${s}</li>`).join('')}</ul><p>${links.map((l) => `<a href="#${l}">${document.getElementById(l)?.querySelector('h3')?.textContent || l}</a>`).join(' · ')}</p>`;
      box.hidden = false;
      for (const l of links) document.getElementById(l)?.classList.add('in-game');
    } catch { box.hidden = true; }
  }
  try {
    const tiles = await TileSet.load();
    for (const el of document.querySelectorAll('[data-tiles]')) {
      const set = el.dataset.tiles;
      const gardens = !!el.dataset.garden;
      el.innerHTML = tiles.data.tiles.filter((x) => x.set === set && (gardens ? !!x.garden_of : true))
        .map((x) => `<figure>${tiles.svg(x.name, 0, 56)}<figcaption>${x.name} ×${x.count}</figcaption></figure>`).join('');
    }
  } catch { /* pictures are a bonus */ }
  document.body.dataset.ready = '1';
}
main();
