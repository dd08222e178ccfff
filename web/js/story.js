// The log in words: tile names, the figure's role ("a knight"), what a turn
// scored (which feature, its size, who held it, the points) and the final
// scoring grouped per feature. Pure text building: game.js puts it on screen.
import { t, listJoin } from './i18n.js';

// What a figure of `kind` on a feature of `feature` is called: a follower
// is a knight in a city, a robber on a road, a monk in a cloister, a farmer
// in a field.
const ROLE_OF = { city: 'knight', road: 'robber', cloister: 'monk', field: 'farmer', garden: 'abbot' };
export function roleOf(kind, feature) {
  if (kind === 'builder' || kind === 'pig' || kind === 'abbot') return kind;
  return ROLE_OF[feature] || 'knight';
}
export function roleName(kind, feature) {
  const r = t(`role.${roleOf(kind, feature)}`);
  return kind === 'big' ? t('role.big', { role: r }) : r;
}

// "4 tiles, 1 shield, cathedral"
export function sizeText(ev) {
  const parts = [t('n.tiles', { n: ev.tiles })];
  if (ev.shields) parts.push(t('n.shields', { n: ev.shields }));
  if (ev.cathedral) parts.push(t('sz.cathedral'));
  if (ev.inn) parts.push(t('sz.inn'));
  return parts.join(', ');
}

// "Red 10, Blue 10 (tie)"; who(i) gives a player's name as HTML. An
// unfinished inn road or cathedral city scores nothing: then whose robbers
// or knights got nothing, when `ev.held` (game.js) says who held it.
export function pointsText(ev, who) {
  const got = ev.points.map((p, i) => [i, p]).filter(([, p]) => p > 0).sort((a, b) => b[1] - a[1]);
  if (!got.length && ev.held?.length) return t(`log.nothing.${ev.kind === 'road' ? 'robber' : 'knight'}`, { names: listJoin(ev.held.map(who)) });
  if (!got.length) return t('log.nobody');
  const s = got.map(([i, p]) => `${who(i)} <b class="pts">${p}</b>`).join(', ');
  return got.length > 1 && got[0][1] === got[1][1] ? `${s} ${t('log.tie')}` : s;
}

// One scoring line: "Red completed the city (4 tiles, 1 shield): Red 10",
// or in the final scoring "Farm next to 3 completed cities: Red 9, Blue 9 (tie)".
export function eventText(ev, mover, who) {
  const key = `${ev.final ? 'fin' : 'ev'}.${ev.kind}`;
  return t(key, { name: who(mover), size: sizeText(ev), n: ev.cities ?? 0, good: ev.good ? t(`goods.${ev.good}`) : '', points: pointsText(ev, who) });
}

// Whether a scoring event is worth a line: someone scored, or an unfinished
// inn road or cathedral city scored nothing because of it.
export const eventShown = (ev) => Math.max(...ev.points) > 0 || (ev.final && (ev.inn || ev.cathedral));

const ORDER = ['city', 'road', 'cloister', 'garden', 'farm', 'goods'];
// The final scoring's events, grouped per kind, the biggest first.
export function finalGroups(events) {
  return events.filter((e) => e.final && eventShown(e))
    .sort((a, b) => ORDER.indexOf(a.kind) - ORDER.indexOf(b.kind) || Math.max(...b.points) - Math.max(...a.points));
}
