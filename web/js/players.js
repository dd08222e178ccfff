// Who sits where: names and colours (with marks). The figures a player has
// are the engine's (the state's and each log entry's "supply").
import { PALETTE, colorById } from './colors.js';
import { t, tOr } from './i18n.js';

// The colours the server keeps for a table's seats (one each, all different),
// or null when it sent none (a server from before it kept them).
export function serverColours(table) {
  const n = table?.options?.players || table?.seats?.length || 0;
  const out = (table?.seats || []).slice(0, n).map((s) => colorById(s?.colour));
  return n && out.length === n && out.every(Boolean) && new Set(out).size === n ? out : null;
}

// Colours of a table's seats: the server's, else the ones chosen when the
// table was made here or passed in the invite link, else in order.
export function seatColors(table) {
  const kept = serverColours(table);
  if (kept) return kept;
  const n = table?.options?.players || table?.seats?.length || 2;
  let chosen = [];
  try {
    const q = new URLSearchParams(location.search).get('colours');
    if (q) chosen = q.split(',');
    else chosen = JSON.parse(localStorage.getItem(`carc.colours.${table.id}`) || '[]');
  } catch { chosen = []; }
  const out = [];
  for (let i = 0; i < n; i++) {
    const s = table?.seats?.[i];
    let c = colorById(s?.colour || s?.color) || colorById(chosen[i]);
    if (!c || out.includes(c)) c = PALETTE.find((p) => !out.includes(p) && !chosen.slice(i + 1).includes(p.id)) || PALETTE[i % PALETTE.length];
    out.push(c);
  }
  return out;
}

export function rememberColors(id, ids) {
  try { localStorage.setItem(`carc.colours.${id}`, JSON.stringify(ids)); } catch { /* private mode */ }
}

// The name the server gives the seats of a deleted account (docs/server.md,
// "Deleting an account"), shown in the reader's language.
export const DELETED_NAME = '(deleted player)';
export const personName = (n) => (n === DELETED_NAME ? t('keep.anon') : n);

// Bots are named by their colour and level ("Red bot (medium)"): two bots of one level stay apart.
export function seatName(table, i, colors = seatColors(table)) {
  const s = table?.seats?.[i];
  if (!s) return t('player.n', { n: i + 1 });
  if (s.kind === 'open') return t('seat.open');
  if (s.kind === 'bot') {
    const level = tOr(`bot.${s.level}`, s.level);
    return t('bot.name', { colour: t(`cname.${colors[i].id}`), level });
  }
  return personName(s.name) || t('player.n', { n: i + 1 });
}
