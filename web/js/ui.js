// Small shared pieces of the interface.
import { t, tOr, esc } from './i18n.js';

// A message in the corner. The same message (or the same `key`, e.g. an
// error code) while it is still shown is not shown twice: its time starts again.
export function toast(msg, kind = 'info', key = msg) {
  let box = document.querySelector('.toasts');
  if (!box) { box = document.createElement('div'); box.className = 'toasts'; box.setAttribute('role', 'status'); document.body.appendChild(box); }
  let n = [...box.children].find((c) => c.dataset.key === `${kind}:${key}`);
  if (!n) {
    n = document.createElement('div');
    n.className = `toast ${kind}`;
    n.dataset.key = `${kind}:${key}`;
    box.appendChild(n);
  }
  n.textContent = msg;
  clearTimeout(n.timer);
  n.timer = setTimeout(() => n.remove(), kind === 'error' ? 6000 : 3000);
}

export async function copyText(s) {
  try { await navigator.clipboard.writeText(s); return true; } catch {
    const ta = document.createElement('textarea');
    ta.value = s; document.body.appendChild(ta); ta.select();
    let ok = false;
    try { ok = document.execCommand('copy'); } catch { ok = false; }
    ta.remove();
    return ok;
  }
}

// The invite link: the server's /?table=ID; with the seat colours chosen here
// when the server does not keep them (colors null: it does).
export function inviteUrl(id, colors) {
  const c = colors && colors.length ? `&colours=${colors.map((x) => x.id).join(',')}` : '';
  return `${location.origin}/?table=${id}${c}`;
}

const EXP_KEYS = { river: 'exp.river', 'inns-cathedrals': 'exp.ic', 'inns-cathedrals-tiles': 'exp.ictiles', 'traders-builders': 'exp.tb', abbot: 'exp.abbot', 'princess-dragon': 'exp.pd' };
export const expName = (e) => (EXP_KEYS[e] ? t(EXP_KEYS[e]) : e);
export const expHelp = (e) => (EXP_KEYS[e] ? t(`${EXP_KEYS[e]}.help`) : '');

// A time on the clock: "0:30", "1:05:00", "1d 00:00".
export function fmtTime(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const d = Math.floor(s / 86400), h = Math.floor((s % 86400) / 3600), m = Math.floor((s % 3600) / 60), x = s % 60;
  const two = (n) => String(n).padStart(2, '0');
  if (d) return `${d}d ${two(h)}:${two(m)}`;
  if (h) return `${h}:${two(m)}:${two(x)}`;
  return `${m}:${two(x)}`;
}

// A table's clock in words ("0:30 a move + 1:00 reserve"), from the table
// option (move_s, reserve_s) or the live clock (move_ms, reserve_ms); ''
// without one.
export function clockText(c) {
  if (!c || !c.mode || c.mode === 'none') return '';
  const move = c.move_ms ?? (c.move_s || 0) * 1000, reserve = c.reserve_ms ?? (c.reserve_s || 0) * 1000;
  if (c.mode === 'turn') return t('clock.rule_turn', { move: turnTime(move) });
  return t('clock.rule', { move: fmtTime(move), reserve: fmtTime(reserve) });
}

// A turn-based game's time for a move in words ("1 day", "3 days", "12
// hours"), not as a countdown ("1d 00:00"); a time of no whole hours
// (the server takes any second from 1 hour to 30 days) as the countdown.
export function turnTime(ms) {
  const s = Math.round(ms / 1000);
  if (s > 0 && s % 86400 === 0) return t('clock.days', { n: s / 86400 });
  if (s > 0 && s % 3600 === 0) return t('clock.hours', { n: s / 3600 });
  return fmtTime(ms);
}

// One line per table option, in words.
export function optionsSummary(o) {
  const out = [];
  out.push(t('opt.players.n', { n: o.players }));
  if (o.farmers === false) out.push(t('opt.nofarmers'));
  else if (o.farm_scoring) out.push(`${t('opt.farm')}: ${tOr(`farm.${o.farm_scoring}`, o.farm_scoring)}`);
  if (o.small_city) out.push(t('opt.smallcity'));
  out.push(o.expansions?.length ? `${t('opt.expansions')}: ${o.expansions.map(expName).join(', ')}` : t('opt.noexp'));
  if (o.tiles && Object.keys(o.tiles).length) out.push(t('opt.pile.n', { n: Object.values(o.tiles).reduce((a, b) => a + b, 0) }));
  if (clockText(o.clock)) out.push(`${t('opt.clock')}: ${clockText(o.clock)}`);
  if (o.private) out.push(t('opt.private'));
  if (o.tutorial) out.push(t('opt.tutorial'));
  if (o.rated === false) out.push(t('opt.unrated'));
  if (o.pass_and_play) out.push(t('opt.pnp'));
  if (o.spectator_chat) out.push(t('opt.spectatorchat'));
  return out.map(esc);
}
