// /tiles.html: every tile as the client draws it (?spots shows where figures stand).
// A file of its own, not an inline script: the server's content policy runs
// scripts from files only.
import { TileSet, rotatePoint } from './tiles.js';
const ts = await TileSet.load();
const spots = new URLSearchParams(location.search).has('spots');
const bySet = new Map();
for (const t of ts.data.tiles) { if (!bySet.has(t.set)) bySet.set(t.set, []); bySet.get(t.set).push(t); }
let html = '';
for (const [set, tiles] of bySet) {
  html += `<h2>${set}</h2><div class="grid">`;
  for (const t of tiles) {
    const g = ts.geometry(t.name);
    const extra = spots ? t.segments.map(s => { const p = g.spots[s.index]; return `<circle cx="${p[0]}" cy="${p[1]}" r="4" fill="#fff" stroke="#000"/><text x="${p[0]}" y="${p[1]+2.5}" font-size="7" text-anchor="middle">${s.kind[0]}</text>`; }).join('') : '';
    html += `<figure>${ts.svg(t.name, 0, 120, extra)}<figcaption><b>${t.name}</b> ×${t.count}<br>${t.note}</figcaption></figure>`;
  }
  html += '</div>';
}
document.getElementById('out').innerHTML = html;
document.body.dataset.ready = '1';
