// The log in words: tile names, the figure's role ("a knight"), what a turn
// scored (which feature, its size, who held it, the points) and the final
// scoring grouped per feature. Pure text building: game.js puts it on screen.
// Kinds are the engine's names (vocab.js); the words for them are keyed
// tables here, and a kind without words gets a plain one.
import { t, tOr, listJoin } from './i18n.js';
import { names } from './vocab.js';

// What a figure is called: a piece of its own name (role.<kind>), or after
// the feature it stands on: a knight in a city, a robber on a road, a monk in
// a cloister, a farmer in a field. `as`: a follower of another size, called
// by the role with its own words (role.big: "knight (big follower)").
const NAMED = { builder: true, pig: true, abbot: true };
const ROLE_OF = { city: 'knight', road: 'robber', cloister: 'monk', field: 'farmer' };
const SIZED = { big: true };
export function roleOf(kind, feature) {
  if (NAMED[kind]) return kind;
  return ROLE_OF[feature] || 'knight';
}
export function roleName(kind, feature) {
  const r = tOr(`role.${roleOf(kind, feature)}`, kind);
  return SIZED[kind] ? t(`role.${kind}`, { role: r }) : r;
}
// The log's words for a figure put on a tile ("and put a knight on it").
export function putText(kind, feature) {
  const role = roleOf(kind, feature);
  return SIZED[kind] ? t(`log.put.${kind}`, { role: t(`role.${ROLE_OF[feature] || 'knight'}`) }) : tOr(`log.put.${role}`, t('log.put.knight'));
}

// "4 tiles, 1 shield, cathedral"
export function sizeText(ev) {
  const parts = [t('n.tiles', { n: ev.tiles })];
  if (ev.shields) parts.push(t('n.shields', { n: ev.shields }));
  if (ev.cathedral) parts.push(t('sz.cathedral'));
  if (ev.inn) parts.push(t('sz.inn'));
  return parts.join(', ');
}

// whose figures got nothing from an unfinished inn road or cathedral city
const NOTHING_FOR = { road: 'robber', city: 'knight' };

// "Red 10, Blue 10 (tie)"; who(i) gives a player's name as HTML. An
// unfinished inn road or cathedral city scores nothing: then whose robbers
// or knights got nothing, when `ev.held` (game.js) says who held it.
export function pointsText(ev, who) {
  const got = ev.points.map((p, i) => [i, p]).filter(([, p]) => p > 0).sort((a, b) => b[1] - a[1]);
  if (!got.length && ev.held?.length) return t(`log.nothing.${NOTHING_FOR[ev.kind] || 'knight'}`, { names: listJoin(ev.held.map(who)) });
  if (!got.length) return t('log.nobody');
  const s = got.map(([i, p]) => `${who(i)} <b class="pts">${p}</b>`).join(', ');
  return got.length > 1 && got[0][1] === got[1][1] ? `${s} ${t('log.tie')}` : s;
}

// One scoring line: "Red completed the city (4 tiles, 1 shield): Red 10",
// or in the final scoring "Farm next to 3 completed cities: Red 9, Blue 9 (tie)".
export function eventText(ev, mover, who) {
  const key = `${ev.final ? 'fin' : 'ev'}.${ev.kind}`;
  const vars = { name: who(mover), size: sizeText(ev), n: ev.cities ?? 0, good: ev.good ? tOr(`goods.${ev.good}`, ev.good) : '', points: pointsText(ev, who) };
  // a kind of score without words of its own: its name and the points
  return tOr(key, `${ev.kind}: ${vars.points}`, vars);
}

// Whether a scoring event is worth a line: someone scored, or an unfinished
// inn road or cathedral city scored nothing because of it.
export const eventShown = (ev) => !!ev.points && (Math.max(...ev.points) > 0 || (ev.final && (ev.inn || ev.cathedral)));

// The final scoring's events, grouped per kind in the engine's order of
// score kinds, the biggest first. Scoring events only (figures going home
// are events too: docs/protocol.md "Log entry").
export function finalGroups(events) {
  const order = names.score_kinds;
  return events.filter((e) => e.final && e.points && eventShown(e))
    .sort((a, b) => order.indexOf(a.kind) - order.indexOf(b.kind) || Math.max(...b.points) - Math.max(...a.points));
}

// Who held each scored feature, read from the events: the figures a scoring
// sent home follow its event (docs/protocol.md "Log entry"). Returns the
// events with `held` (players, each once) on the scoring ones.
export function withHolders(events) {
  const out = [];
  let last = null;
  for (const ev of events || []) {
    if (ev.returned !== undefined) {
      if (last && !last.held.includes(ev.player)) last.held.push(ev.player);
      continue;
    }
    last = { ...ev, held: [] };
    out.push(last);
  }
  return out;
}
