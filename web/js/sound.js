// Sound: short cues for what happens at the table, synthesised here with
// the Web Audio API from oscillators, a noise buffer, envelopes and filters
// (no sound files). On by default; the header's mute button turns it off and
// the choice is kept (localStorage `carc.sound`: "off" is muted, anything
// else is on, so a browser that chose "on" before stays on).
//
// Browsers let a page make sound only after a gesture: nothing plays before
// the first pointerdown or keydown, and the AudioContext is made (or
// resumed) inside that event. A cue asked for before it is dropped, not
// queued: a burst of old news on the first click helps nobody.
//
// What to play is decided by the caller from what the server sent (game.js:
// the move's log entry and next turn; clock.js: the clock); this file knows
// no rule, only how each cue sounds.
//
// window.__carcSound is a test hook that only counts: `asked` every cue
// asked for, `played` those that were played (on, after the first gesture).
// Both keep their last HOOK_KEEP names.
const KEY = 'carc.sound';
const HOOK_KEEP = 200;
// cues asked for at once (a move: tile, figure, points, your turn) follow
// each other GAP seconds apart; a cue never waits more than MAX_WAIT behind
// the ones before it (a fast bot's moves overlap rather than lag)
const GAP = 0.09;
const MAX_WAIT = 0.45;

let ctx = null;
let unlocked = false, nextAt = 0;

const hook = (typeof window !== 'undefined') ? (window.__carcSound = { asked: [], played: [] }) : { asked: [], played: [] };
const note = (list, name) => { list.push(name); if (list.length > HOOK_KEEP) list.shift(); };

// The master chain of context `c`: a gain and a soft compressor so that
// cues that overlap do not clip, and half a second of white noise shared by
// every noisy cue. The building blocks below play into S, the live
// context's chain (renderCue points S at an offline one for a moment).
function chain(c) {
  const comp = c.createDynamicsCompressor();
  comp.threshold.value = -18; comp.ratio.value = 4;
  const g = c.createGain();
  g.gain.value = 0.6;
  g.connect(comp).connect(c.destination);
  const noise = c.createBuffer(1, Math.floor(c.sampleRate * 0.5), c.sampleRate);
  const d = noise.getChannelData(0);
  for (let i = 0; i < d.length; i++) d[i] = Math.random() * 2 - 1;
  return { c, out: g, noise };
}
let S = null;

// The live context, made on demand, inside a gesture the first time; null
// when the browser has no Web Audio.
function audio() {
  if (ctx) {
    if (ctx.state === 'suspended') ctx.resume().catch(() => {});
    return ctx;
  }
  const AC = window.AudioContext || window.webkitAudioContext;
  if (!AC) return null;
  try {
    ctx = new AC();
    S = chain(ctx);
    if (ctx.state === 'suspended') ctx.resume().catch(() => {});
  } catch { ctx = null; }
  return ctx;
}

// The first gesture unlocks sound; later ones wake a context the browser
// suspended (a phone that took the audio away).
function onGesture() {
  unlocked = true;
  if (sound.on) audio();
}
if (typeof window !== 'undefined') {
  window.addEventListener('pointerdown', onGesture, true);
  window.addEventListener('keydown', onGesture, true);
}

// --- building blocks (times in seconds on the context's clock) -----------

// A gain that rises to `peak` in `attack` and falls away over `decay`.
function envelope(t0, peak, attack, decay) {
  const g = S.c.createGain();
  g.gain.setValueAtTime(0.0001, t0);
  g.gain.linearRampToValueAtTime(peak, t0 + attack);
  g.gain.exponentialRampToValueAtTime(0.0001, t0 + attack + decay);
  return g;
}

// One oscillator note; `glide` is the frequency it slides to (a drop makes
// a knock sound hollow); `filter` an optional lowpass cut-off.
function tone(t0, freq, { type = 'sine', peak = 0.2, attack = 0.004, decay = 0.2, glide = 0, filter = 0 } = {}) {
  const o = S.c.createOscillator();
  o.type = type;
  o.frequency.setValueAtTime(freq, t0);
  if (glide) o.frequency.exponentialRampToValueAtTime(glide, t0 + attack + decay);
  const g = envelope(t0, peak, attack, decay);
  let node = o;
  if (filter) {
    const f = S.c.createBiquadFilter();
    f.type = 'lowpass'; f.frequency.value = filter;
    node = node.connect(f);
  }
  node.connect(g).connect(S.out);
  o.start(t0);
  o.stop(t0 + attack + decay + 0.02);
}

// A burst of filtered noise: the body of a knock or a click.
function noise(t0, { type = 'bandpass', freq = 1500, q = 1, peak = 0.3, attack = 0.002, decay = 0.06 } = {}) {
  const s = S.c.createBufferSource();
  s.buffer = S.noise;
  const f = S.c.createBiquadFilter();
  f.type = type; f.frequency.value = freq; f.Q.value = q;
  s.connect(f).connect(envelope(t0, peak, attack, decay)).connect(S.out);
  const off = Math.random() * 0.3; // another stretch of the noise each time
  s.start(t0, off, attack + decay + 0.02);
}

// A soft bell: a sine with two quieter partials that fade sooner, so the
// strike is bright and the tail round.
function bell(t0, freq, peak = 0.16, decay = 0.4) {
  tone(t0, freq, { peak, attack: 0.005, decay });
  tone(t0, freq * 2, { peak: peak * 0.35, attack: 0.003, decay: decay * 0.5 });
  tone(t0, freq * 3.01, { peak: peak * 0.12, attack: 0.002, decay: decay * 0.25 });
}

// --- the cues: each under 0.6 s -----------------------------------------
const CUES = {
  // a tile laid: a wooden clack, a narrow band of noise with a short low thump
  tile(t) {
    noise(t, { freq: 1900, q: 2.5, peak: 1.4, decay: 0.05 });
    noise(t, { type: 'lowpass', freq: 600, q: 0.7, peak: 0.7, decay: 0.07 });
    tone(t, 190, { peak: 0.45, attack: 0.002, decay: 0.08, glide: 110 });
  },
  // a figure set: a softer, higher tock
  figure(t) {
    tone(t, 620, { peak: 0.5, attack: 0.003, decay: 0.09, glide: 430 });
    noise(t, { freq: 3200, q: 4, peak: 0.4, decay: 0.025 });
  },
  // points: a rising three-note chime
  score(t) {
    bell(t, 1047, 0.17, 0.22);
    bell(t + 0.08, 1319, 0.17, 0.22);
    bell(t + 0.16, 1568, 0.2, 0.38);
  },
  // your turn: a gentle two-note bell, a fourth up
  turn(t) {
    bell(t, 784, 0.2, 0.3);
    bell(t + 0.13, 1047, 0.22, 0.42);
  },
  // time running low: three quick ticks, the last one higher
  low(t) {
    for (let i = 0; i < 3; i++) {
      noise(t + i * 0.16, { type: 'highpass', freq: 2500, q: 0.7, peak: 0.16, decay: 0.03 });
      tone(t + i * 0.16, i === 2 ? 1320 : 990, { type: 'square', peak: 0.05, attack: 0.002, decay: 0.05, filter: 3000 });
    }
  },
  // game over: a short cadence, a dominant chord resolving to the tonic
  end(t) {
    for (const f of [392, 494, 587]) tone(t, f, { type: 'triangle', peak: 0.09, attack: 0.01, decay: 0.2, filter: 2400 });
    for (const f of [523, 659, 784]) tone(t + 0.18, f, { type: 'triangle', peak: 0.09, attack: 0.01, decay: 0.38, filter: 2400 });
    bell(t + 0.18, 1047, 0.06, 0.38);
  },
};

export const sound = {
  get on() { return localStorage.getItem(KEY) !== 'off'; },
  set on(v) {
    localStorage.setItem(KEY, v ? 'on' : 'off');
    // muting cuts a cue still sounding; the context wakes with the next one
    if (!v && ctx) ctx.suspend().catch(() => {});
    if (v && unlocked) audio();
  },
  // Plays cue `name` (a key of CUES) unless muted or before the first
  // gesture; `delayMs` later (0..3000: a cue sounds as the motion it goes
  // with shows, motion.js).
  play(name, delayMs = 0) {
    note(hook.asked, name);
    if (!this.on || !unlocked || !CUES[name]) return;
    if (!audio()) return;
    try {
      const now = ctx.currentTime + 0.01 + Math.min(3000, Math.max(0, delayMs || 0)) / 1000;
      const at = Math.min(Math.max(now, nextAt), now + MAX_WAIT);
      nextAt = at + GAP;
      CUES[name](at);
      note(hook.played, name);
    } catch { /* no audio */ }
  },
};

// For tests: cue `name` rendered offline (no speaker, no gesture needed);
// resolves to its samples' peak and how long it is audible (seconds until
// the last sample above -60 dB). The live context is left alone.
export async function renderCue(name) {
  const rate = 22050;
  const off = new OfflineAudioContext(1, rate, rate);
  const live = S;
  S = chain(off);
  try { CUES[name](0); } finally { S = live; }
  const d = (await off.startRendering()).getChannelData(0);
  let peak = 0, last = 0;
  for (let i = 0; i < d.length; i++) {
    const a = Math.abs(d[i]);
    if (a > peak) peak = a;
    if (a > 0.001) last = i;
  }
  return { peak, seconds: last / rate };
}
