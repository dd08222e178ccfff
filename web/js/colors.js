// Player colours, each with a mark so that colours are told apart without
// seeing colour (colour-blind players, grey-scale screens), and the figures:
// the follower, the big follower, the builder, the pig and the abbot in a
// player's colour, the dragon and the fairy of no player, and the score
// track's marker. Every drawing here is the project's own (docs/web.md,
// "Figures").

// The six colours were checked under simulated protanopia, deuteranopia and
// tritanopia (tests/e2e/figures.test.mjs): red is a vermilion and green a
// blue-green of another lightness, so that red and green stay apart for the
// red-green blind, and blue is deep enough to stay apart from green for the
// blue-yellow blind; every pair keeps a CIELAB distance of 25 or more.
export const PALETTE = [
  { id: 'blue', hex: '#2448b8', ink: '#fff', mark: 'circle' },
  { id: 'red', hex: '#dc4512', ink: '#fff', mark: 'triangle' },
  { id: 'yellow', hex: '#f3c614', ink: '#222', mark: 'square' },
  { id: 'black', hex: '#2a2a2a', ink: '#fff', mark: 'diamond' },
  { id: 'green', hex: '#1a8c5a', ink: '#fff', mark: 'star' },
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

// A closed outline, symmetric about x = 0, from its right half: from the top
// (0, y0) down the right side to the bottom middle; each step is [x, y] (a
// straight line) or [x1, y1, x2, y2, x, y] (a cubic curve). The left half is
// the same steps mirrored and walked back up.
function mirrored(y0, steps) {
  const n = (v) => +v.toFixed(2);
  let d = `M0 ${y0}`;
  const from = [[0, y0]];
  for (const s of steps) { d += (s.length === 2 ? 'L' : 'C') + s.map(n).join(' '); from.push(s.slice(-2)); }
  for (let i = steps.length - 1; i >= 0; i--) {
    const s = steps[i], [x, y] = from[i];
    d += s.length === 2 ? `L${n(-x)} ${n(y)}` : `C${n(-s[2])} ${n(s[3])} ${n(-s[0])} ${n(s[1])} ${n(-x)} ${n(y)}`;
  }
  return d + 'Z';
}

// The figures' outlines, about 25 units tall (a tile is 100), centred on the
// spot the engine gives. The follower: the classic meeple, round head, arms
// out, legs apart.
const MEEPLE = mirrored(-12.8, [
  [2.7, -12.8, 4.3, -10.8, 4.3, -8.5], [4.3, -7.1, 3.7, -6, 2.9, -5.3],
  [6.2, -4.7, 9.3, -3.6, 10.3, -1.8], [11, -.4, 10.3, 1, 8.9, 1], [7.9, 1, 6.6, .7, 5.7, .5],
  [6, 4, 7.6, 8.2, 8.8, 10.6], [9.4, 11.8, 8.8, 12.7, 7.7, 12.7], [3.3, 12.7],
  [2.4, 12.7, 1.5, 10.6, 0, 8.2],
]);
// The builder: taller and slimmer than a follower, arms down, in a
// wide-brimmed hat (drawn light, HAT) and with a hammer in his hand.
const BUILDER = mirrored(-16.5, [
  [3, -16.5], [3.5, -12.5], [6.8, -12], [6.8, -10.6], [3.7, -10.4],
  [3.9, -9, 3.6, -7, 2.6, -5.9], [5, -5.5, 6.8, -4.8, 7.4, -3],
  [8.2, -.5, 8.9, 2.2, 9, 4], [9, 5.4, 7.4, 5.6, 7, 4.2], [6.7, 2.4, 6.4, 1, 6, .2],
  [6, 4, 6.5, 9, 7, 11.6], [7.2, 12.6, 6.8, 13.2, 5.8, 13.2], [2.4, 13.2],
  [1.6, 13.2, 1.2, 10, 0, 6.5],
]);
const HAT = 'M-3 -16.5H3L3.5 -12.5L6.8 -12V-10.6L3.7 -10.4H-3.7L-6.8 -10.6V-12L-3.5 -12.5Z';
const HAMMER = '<path d="M8.4 4.4L12.6 -6.8" stroke="#1d1d1d" stroke-width="2.8" stroke-linecap="round"/><path d="M8.4 4.4L12.6 -6.8" stroke="#b8864b" stroke-width="1.3" stroke-linecap="round"/>' +
  '<rect x="-3.6" y="-1.7" width="7.2" height="3.4" rx=".6" transform="translate(12.6 -6.8) rotate(20)" fill="#a7b0ba" stroke="#1d1d1d" stroke-width="1"/>';
// The abbot: a monk in a long robe, its hood up (a dark face in the hood),
// a light cord round the waist.
const ABBOT = mirrored(-14.5, [
  [1.4, -14.5, 5.6, -11.5, 5.8, -7.6], [5.9, -5.8, 5.4, -4.7, 5, -4],
  [6.6, -3.4, 7.6, -2, 7.9, 0], [8.6, 5, 9.8, 9.5, 10.6, 12.2],
  [10.8, 13, 10.2, 13.4, 9.4, 13.3], [5, 12.6, 2.5, 12.9, 0, 13],
]);
const HOOD = '<ellipse cy="-7.4" rx="2.7" ry="3.4" fill="#2b211a"/><path d="M-3.6 -11.2C-1.6 -12.6 1.6 -12.6 3.6 -11.2" stroke="rgba(255,255,255,.55)" stroke-width=".9" fill="none"/>' +
  '<path d="M-7.6 1.2Q0 3.2 7.6 1.2M-4.4 2.2L-5.3 6.8M-5.3 6.8l-.9 .9M-5.3 6.8l.8 1" stroke="#f4efe2" stroke-width="1.3" fill="none" stroke-linecap="round"/>';
// The pig, seen from the side, snout to the right: a round body on four
// short legs, an ear up, a pink snout and a curly tail.
const PIG = 'M-9 -3C-8 -7 -2 -8.5 3 -7.8C6 -7.4 8 -6.4 9.5 -4.5L12.6 -4.3C13.4 -4.2 13.9 -3.4 13.9 -2V.4C13.9 1 13.4 1.3 12.8 1.3C11.5 1.4 10.4 1.8 9.4 2.6' +
  'C8.8 4 7.8 4.8 6.8 5.2V9.8H3.6V6C1 6.4 -2 6.4 -4.8 5.9V9.8H-8V5C-9.8 3.8 -11 1 -9 -3Z';
const PIG_PARTS = '<path d="M4.2 -7.5L6.6 -12L8.6 -6.4Z" fill="currentColor" stroke="#1d1d1d" stroke-width="1" stroke-linejoin="round"/>' +
  '<ellipse cx="13.3" cy="-1.9" rx="1.5" ry="2.7" fill="#f4a6c0" stroke="#1d1d1d" stroke-width=".9"/><circle cx="13.3" cy="-2.8" r=".45" fill="#5a2233"/><circle cx="13.3" cy="-1" r=".45" fill="#5a2233"/>' +
  '<circle cx="9.4" cy="-3.4" r="1.1" fill="#fff" stroke="#1d1d1d" stroke-width=".6"/><circle cx="9.7" cy="-3.4" r=".5" fill="#1d1d1d"/>' +
  '<path d="M-9.3 -2.4C-12.4 -3.4 -13.4 .2 -11.4 .6C-9.8 .9 -9.8 -1.4 -11.2 -1.4" stroke="#1d1d1d" stroke-width="1.1" fill="none" stroke-linecap="round"/>';

// How each kind of figure is drawn, keyed by the engine's name (a kind not
// here is drawn as a follower): its outline, scale and where its colour mark
// sits; box: the drawing's extent [x, y, width, height] at scale 1, shadow
// and outline included (for the icons); under / over: drawn below / above
// the outline (the hammer, the hat, the hood, the pig's face and tail);
// dx: where it stands beside a follower's spot; upright: it stays standing on
// a field, where a follower lies down as a farmer.
const FOLLOWER = { path: MEEPLE, markAt: [0, 2.6], box: [-11.6, -13.5, 23.2, 28.2] };
const LOOKS = {
  // the big follower: the follower at 1.4 times, with a light inner line
  // round it (a follower's count of two)
  big: { scale: 1.4, over: `<path d="${MEEPLE}" transform="translate(0 .3) scale(.74)" fill="none" stroke="#fff" stroke-width="1.5" stroke-linejoin="round" opacity=".9"/>` },
  builder: { path: BUILDER, markAt: [0, 2], dx: -10, box: [-10, -17.2, 27, 32], under: HAMMER, over: `<path d="${HAT}" fill="#f4efe2" stroke="#1d1d1d" stroke-width="1.1" stroke-linejoin="round"/><path d="M-3.3 -13.3H3.3" stroke="currentColor" stroke-width="1.4"/>` },
  abbot: { path: ABBOT, markAt: [.8, 7.4], box: [-11.4, -15.2, 22.8, 30.2], over: HOOD },
  pig: { path: PIG, markAt: [-1.8, -.6], dx: 10, upright: true, box: [-14.2, -12.8, 28.9, 24.3], over: PIG_PARTS },
};
const look = (kind) => ({ ...FOLLOWER, scale: 1, dx: 0, under: '', over: '', upright: false, ...(LOOKS[kind] || {}) });
// Features on which a figure lies down (a follower in a field is a farmer).
const LYING_ON = { field: true };

// How a figure of `kind` stands on a feature of kind `feature`: lying down
// or not, and its offset from the feature's spot (tile units).
export function figurePose(kind, feature) {
  const l = look(kind);
  return { lying: !!LYING_ON[feature] && !l.upright, dx: l.dx };
}

// The box a figure covers [x0, y0, x1, y1] about its feature's spot, in
// tile units, as figureSvg draws it at `boost` (lying turns it a quarter).
export function figureBox(kind, lying = false, boost = 1) {
  const l = look(kind), k = l.scale * boost, [bx, by, bw, bh] = l.box;
  const down = lying && !l.upright;
  // rotate(-90) takes (x, y) to (y, -x)
  const [x0, y0, x1, y1] = down ? [by, -(bx + bw), by + bh, -bx] : [bx, by, bx + bw, by + bh];
  return [l.dx + k * x0, k * y0, l.dx + k * x1, k * y1];
}

// The outline drawn dark, so that a figure reads on grass, city and road
// alike; light round a black figure.
const edge = (c) => (c.id === 'black' ? '#eee' : '#1d1d1d');

// A figure drawn at (x, y) in tile units, `lying` for a farmer (on its back,
// head to the left). Marked with the colour's symbol, kept upright.
export function figureSvg(kind, c, x, y, { lying = false, cls = '', boost = 1 } = {}) {
  const l = look(kind);
  const down = lying && !l.upright;
  const rot = down ? ' rotate(-90)' : '';
  return `<g class="figure ${cls}" data-look="${LOOKS[kind] ? kind : 'plain'}" transform="translate(${x.toFixed(1)} ${y.toFixed(1)}) scale(${(l.scale * boost).toFixed(2)})" color="${c.hex}">` +
    `<g transform="translate(0 1.3)"><path d="${l.path}" transform="${rot}" fill="rgba(0,0,0,.35)"/></g>` +
    `<g transform="${rot}">${l.under}<path d="${l.path}" fill="${c.hex}" stroke="${edge(c)}" stroke-width="1.3" stroke-linejoin="round"/>${l.over}</g>` +
    `<g transform="${down ? `rotate(-90) translate(${l.markAt[0]} ${l.markAt[1]}) rotate(90)` : `translate(${l.markAt[0]} ${l.markAt[1]})`}">${markSvg(c)}</g></g>`;
}

// A figure alone in a little svg (the supply, the figure buttons): `size`
// is a follower's height in pixels; other kinds are drawn to the same scale
// (the big follower 1.4 times as tall, the builder taller, the pig lower and
// longer), so that kinds are told apart by size as on the table.
export function figureIcon(kind, c, size = 18) {
  const l = look(kind);
  const [bx, by, bw, bh] = l.box.map((v) => v * l.scale);
  const px = size / FOLLOWER.box[3];
  const w = Math.round(bw * px), h = Math.round(bh * px);
  return `<svg class="fig-icon" data-look="${LOOKS[kind] ? kind : 'plain'}" viewBox="${bx.toFixed(1)} ${by.toFixed(1)} ${bw.toFixed(1)} ${bh.toFixed(1)}" width="${w}" height="${h}" aria-hidden="true">${figureSvg(kind, c, 0, 0)}</svg>`;
}

// The score track's marker (track.js): a follower `size` pixels tall with a
// large colour mark, standing on its square.
export function markerSvg(c, size = 20) {
  const [bx, by, bw, bh] = FOLLOWER.box;
  return `<svg class="track-fig" viewBox="${bx} ${by} ${bw} ${bh}" width="${Math.round(size * bw / bh)}" height="${size}" aria-hidden="true">` +
    `<path d="${MEEPLE}" fill="${c.hex}" stroke="${edge(c)}" stroke-width="1.6" stroke-linejoin="round"/>` +
    `<g transform="translate(0 2.6) scale(1.5)">${markSvg(c)}</g></svg>`;
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
  return `<g class="fairy-fig" transform="translate(${x.toFixed(1)} ${y.toFixed(1)}) scale(${(.9 * boost).toFixed(2)})">` +
    '<circle r="11" fill="#fff" opacity=".55"/>' +
    '<ellipse cx="-4.5" cy="-3" rx="4.5" ry="7" fill="#cfeaff" stroke="#2f6aa8" stroke-width="1" transform="rotate(-30 -4.5 -3)"/>' +
    '<ellipse cx="4.5" cy="-3" rx="4.5" ry="7" fill="#cfeaff" stroke="#2f6aa8" stroke-width="1" transform="rotate(30 4.5 -3)"/>' +
    '<path d="M-4 9L-1.6 -2H1.6L4 9Z" fill="#b58cf0" stroke="#3d2366" stroke-width="1" stroke-linejoin="round"/>' +
    '<circle cy="-4.6" r="2.6" fill="#f6d3b5" stroke="#3d2366" stroke-width=".8"/>' +
    '<path d="M2 0L7 -6" stroke="#6b4e08" stroke-width="1"/><path d="M7 -9L7.8 -7L10 -6.6L7.8 -5.8L7 -3.6L6.2 -5.8L4 -6.6L6.2 -7Z" fill="#ffd93b" stroke="#6b4e08" stroke-width=".5"/></g>';
}
