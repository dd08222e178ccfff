// Player colours, each with a mark so that colours are told apart without
// seeing colour (colour-blind players, grey-scale screens), and the figures.

export const PALETTE = [
  { id: 'blue', hex: '#2f6fd6', ink: '#fff', mark: 'circle' },
  { id: 'red', hex: '#d63a2e', ink: '#fff', mark: 'triangle' },
  { id: 'yellow', hex: '#f3c614', ink: '#222', mark: 'square' },
  { id: 'black', hex: '#2a2a2a', ink: '#fff', mark: 'diamond' },
  { id: 'green', hex: '#1f9a4a', ink: '#fff', mark: 'star' },
  { id: 'pink', hex: '#e46fb4', ink: '#222', mark: 'cross' },
];
export const colorById = (id) => PALETTE.find((c) => c.id === id) || null;

const MARKS = {
  circle: '<circle r="3.2"/>',
  triangle: '<path d="M0 -3.8L3.6 2.8H-3.6Z"/>',
  square: '<rect x="-3" y="-3" width="6" height="6"/>',
  diamond: '<path d="M0 -4L3.6 0L0 4L-3.6 0Z"/>',
  star: '<path d="M0 -4.2L1.2 -1.3L4.2 -1.3L1.8 .6L2.7 3.6L0 1.8L-2.7 3.6L-1.8 .6L-4.2 -1.3L-1.2 -1.3Z"/>',
  cross: '<path d="M-1.2 -4H1.2V-1.2H4V1.2H1.2V4H-1.2V1.2H-4V-1.2H-1.2Z"/>',
};
export const markSvg = (c) => `<g fill="${c.ink}">${MARKS[c.mark]}</g>`;

// A small badge: colour disc with the mark, for names in lists and logs.
export function badge(c, size = 16) {
  return `<svg class="badge" viewBox="-6 -6 12 12" width="${size}" height="${size}" aria-hidden="true"><circle r="5.6" fill="${c.hex}" stroke="rgba(0,0,0,.5)" stroke-width=".8"/>${markSvg(c)}</svg>`;
}

const MEEPLE = 'M0 -12C3.5 -12 5 -9.5 5 -7.5C5 -5.8 4.2 -4.8 3.6 -4.2C6 -3.6 11 -2.2 11.5 0C12 2 9.5 2.4 6.5 1.6C6.5 3 9 9 10 11.5C10.4 12.4 9.8 12.8 9 12.8L3 12.8C2 12.8 1.3 11 0 8.5C-1.3 11 -2 12.8 -3 12.8L-9 12.8C-9.8 12.8 -10.4 12.4 -10 11.5C-9 9 -6.5 3 -6.5 1.6C-9.5 2.4 -12 2 -11.5 0C-11 -2.2 -6 -3.6 -3.6 -4.2C-4.2 -4.8 -5 -5.8 -5 -7.5C-5 -9.5 -3.5 -12 0 -12Z';
const ABBOT = 'M0 -12C4.5 -12 6 -8 4.6 -4.5C7.5 1 10 7 10.5 12.8H-10.5C-10 7 -7.5 1 -4.6 -4.5C-6 -8 -4.5 -12 0 -12Z';
const BUILDER = 'M-4 -13H4L5 -9H7V-7H4.6C5.5 -5.5 5 -4 3.8 -3.4C7 -2 8 2 7 12.8H1.5L0 6L-1.5 12.8H-7C-8 2 -7 -2 -3.8 -3.4C-5 -4 -5.5 -5.5 -4.6 -7H-7V-9H-5Z';
const PIG = 'M-11 2C-11 -5 -5 -8 1 -8C5 -8 8 -6 9.5 -3L12.5 -3.5V2.5L10 2.5C9 6 6 8 3 8.5V11.5H0V8.7C-2 8.7 -4 8.4 -5 8V11.5H-8V6.5C-10 5 -11 4 -11 2ZM4 -8L6 -12L7.5 -7Z';

// How each kind of figure is drawn, keyed by the engine's name (a kind not
// here is drawn as a follower): its outline, size and where its colour mark
// sits; the special pieces carry a white sign of their own, so that they are
// told from a follower at a glance (the builder's hat, the abbot's hood, the
// pig's ear and eye); dx: where it stands beside a follower's spot; upright:
// it stays standing on a field, where a follower lies down as a farmer.
const LOOKS = {
  big: { scale: 1.35 },
  abbot: { path: ABBOT, markAt: [0, 3], scale: 1.12, sign: '<path d="M0 -11.5C3.6 -11.5 4.8 -8.2 3.7 -5.4L0 -3.2L-3.7 -5.4C-4.8 -8.2 -3.6 -11.5 0 -11.5Z" fill="#fff" stroke="#1d1d1d" stroke-width=".9"/>' },
  builder: { path: BUILDER, markAt: [0, 2], scale: 1.15, dx: -10, sign: '<path d="M-4 -13H4L5 -9H-5Z" fill="#fff" stroke="#1d1d1d" stroke-width=".9"/>' },
  pig: { path: PIG, markAt: [0, 0], scale: 1.1, dx: 10, upright: true, sign: '<path d="M4 -8L6 -12L7.5 -7Z" fill="#fff"/><circle cx="7.6" cy="-3" r="1.5" fill="#fff" stroke="#1d1d1d" stroke-width=".6"/><rect x="10.5" y="-2.8" width="2.4" height="4.6" rx="1" fill="#f6b2c8" stroke="#1d1d1d" stroke-width=".6"/>' },
};
const look = (kind) => ({ path: MEEPLE, markAt: [0, 2.5], scale: 1, dx: 0, sign: '', upright: false, ...(LOOKS[kind] || {}) });
// Features on which a figure lies down (a follower in a field is a farmer).
const LYING_ON = { field: true };

// How a figure of `kind` stands on a feature of kind `feature`: lying down
// or not, and its offset from the feature's spot (tile units).
export function figurePose(kind, feature) {
  const l = look(kind);
  return { lying: !!LYING_ON[feature] && !l.upright, dx: l.dx };
}

// A figure drawn at (x, y) in tile units, `lying` for a farmer. Marked with
// the colour's symbol.
export function figureSvg(kind, c, x, y, { lying = false, cls = '', boost = 1 } = {}) {
  const l = look(kind);
  const down = lying && !l.upright;
  const rot = down ? ' rotate(-90)' : '';
  return `<g class="figure ${cls}" transform="translate(${x.toFixed(1)} ${y.toFixed(1)}) scale(${(l.scale * boost).toFixed(2)})${rot}">` +
    `<path d="${l.path}" transform="translate(0 1.2)" fill="rgba(0,0,0,.35)"/>` +
    `<path d="${l.path}" fill="${c.hex}" stroke="${c.id === 'black' ? '#eee' : '#1d1d1d'}" stroke-width="1.3" stroke-linejoin="round"/>` + l.sign +
    `<g transform="translate(${l.markAt[0]} ${l.markAt[1]})${down ? ' rotate(90)' : ''}">${markSvg(c)}</g></g>`;
}

// A figure alone in a little svg (supply counts, buttons).
export function figureIcon(kind, c, size = 18) {
  return `<svg class="fig-icon" viewBox="-14 -15 28 29" width="${size}" height="${size}" aria-hidden="true">${figureSvg(kind, c, 0, 0)}</svg>`;
}

// The pieces of no player (Princess & Dragon): the dragon, seen from the
// side, red with a lighter wing and a white outline so that it reads on any
// tile; the fairy, small, with pale wings and a star. Drawn at (x, y) in tile
// units, `boost` times larger when the view is far out (as the figures).
const DRAGON_PARTS = '<path d="M-10 6Q-22 14 -28 4L-33 6L-29 -1L-26 3Q-21 9 -12 1Z"/><ellipse cx="0" cy="4" rx="14" ry="8.5"/><path d="M8 0Q13 -8 14 -14L22 -16L28 -13L22 -9.5L18 -10Q17 -3 12 6Z"/><path d="M15 -14L13 -21L18.5 -15Z"/><path d="M-8 10L-10 17L-5.5 17L-4 11ZM5 10L5 17L9.5 17L9 10Z"/>';
export function dragonSvg(x, y, boost = 1) {
  return `<g class="dragon-fig" transform="translate(${x.toFixed(1)} ${y.toFixed(1)}) scale(${(1.15 * boost).toFixed(2)})">` +
    `<g fill="#fff" stroke="#fff" stroke-width="5" stroke-linejoin="round" opacity=".85">${DRAGON_PARTS}<path d="M-6 -1L-2 -26L4 -16L10 -24L10 -2Z"/></g>` +
    `<g fill="#b3261e" stroke="#3d0d08" stroke-width="1.4" stroke-linejoin="round">${DRAGON_PARTS}</g>` +
    '<path d="M-6 -1L-2 -26L4 -16L10 -24L10 -2Z" fill="#e0683c" stroke="#3d0d08" stroke-width="1.4" stroke-linejoin="round"/>' +
    '<path d="M-2 -2L-1.5 -20M4 -2L4 -15M8 -2L9.5 -21" stroke="#7a1d12" stroke-width="1"/>' +
    '<path d="M-8 6Q0 11 9 6" stroke="#f2b66b" stroke-width="2.2" fill="none" stroke-linecap="round"/>' +
    '<circle cx="21" cy="-13" r="1.5" fill="#ffe45c" stroke="#3d0d08" stroke-width=".6"/></g>';
}
export function fairySvg(x, y, boost = 1) {
  return `<g class="fairy-fig" transform="translate(${x.toFixed(1)} ${y.toFixed(1)}) scale(${(1.1 * boost).toFixed(2)})">` +
    '<circle r="11" fill="#fff" opacity=".55"/>' +
    '<ellipse cx="-4.5" cy="-3" rx="4.5" ry="7" fill="#cfeaff" stroke="#2f6aa8" stroke-width="1" transform="rotate(-30 -4.5 -3)"/>' +
    '<ellipse cx="4.5" cy="-3" rx="4.5" ry="7" fill="#cfeaff" stroke="#2f6aa8" stroke-width="1" transform="rotate(30 4.5 -3)"/>' +
    '<path d="M-4 9L-1.6 -2H1.6L4 9Z" fill="#b58cf0" stroke="#3d2366" stroke-width="1" stroke-linejoin="round"/>' +
    '<circle cy="-4.6" r="2.6" fill="#f6d3b5" stroke="#3d2366" stroke-width=".8"/>' +
    '<path d="M2 0L7 -6" stroke="#6b4e08" stroke-width="1"/><path d="M7 -9L7.8 -7L10 -6.6L7.8 -5.8L7 -3.6L6.2 -5.8L4 -6.6L6.2 -7Z" fill="#ffd93b" stroke="#6b4e08" stroke-width=".5"/></g>';
}
