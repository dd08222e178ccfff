// /tiles.html: every tile as the client draws it, with the engine's code,
// note and the description players see. ?spots shows where figures stand and
// the box each icon keeps clear; ?lod=far|mid|near draws every tile at that
// level of detail; ?lang= the language of the descriptions.
// A file of its own, not an inline script: the server's content policy runs
// scripts from files only.
import { TileSet } from './tiles.js';
import { setLanguage } from './i18n.js';
const q = new URLSearchParams(location.search);
await setLanguage(q.get('lang') || 'en');
const ts = await TileSet.load();
const spots = q.has('spots');
const lod = q.get('lod');
const bySet = new Map();
for (const t of ts.data.tiles) { if (!bySet.has(t.set)) bySet.set(t.set, []); bySet.get(t.set).push(t); }
let html = '';
for (const [set, tiles] of bySet) {
  html += `<h2>${set}</h2><div class="grid">`;
  for (const t of tiles) {
    const g = ts.geometry(t.name);
    let extra = '';
    if (spots) {
      extra += g.icons.map((ic) => `<circle cx="${ic.at[0]}" cy="${ic.at[1]}" r="${ic.r}" fill="none" stroke="#f0f" stroke-dasharray="2 2"/>`).join('');
      extra += t.segments.map((s) => { const p = g.spots[s.index]; return `<circle cx="${p[0]}" cy="${p[1]}" r="4" fill="#fff" stroke="#000"/><text x="${p[0]}" y="${p[1] + 2.5}" font-size="7" text-anchor="middle">${s.kind[0]}</text>`; }).join('');
    }
    html += `<figure data-tile="${t.name}">${ts.svg(t.name, 0, 120, extra, lod)}<figcaption>${ts.name(t.name)}<br><small><b>${t.name}</b> ×${t.count}: ${t.note}</small></figcaption></figure>`;
  }
  html += '</div>';
}
document.getElementById('out').innerHTML = html;
document.body.dataset.ready = '1';
