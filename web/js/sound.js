// Sound: off unless the player turns it on (the choice is kept). A few
// short tones made with WebAudio, no sound files.
const KEY = 'carc.sound';
let ctx = null;
const TONES = { turn: [[660, 0.09], [880, 0.12]], score: [[523, 0.08], [659, 0.08], [784, 0.14]], end: [[392, 0.15], [523, 0.15], [659, 0.3]], low: [[988, 0.08], [0, 0.06], [988, 0.08]] };

export const sound = {
  get on() { return localStorage.getItem(KEY) === 'on'; },
  set on(v) { localStorage.setItem(KEY, v ? 'on' : 'off'); },
  play(name) {
    if (!this.on) return;
    try {
      ctx = ctx || new AudioContext();
      let at = ctx.currentTime;
      for (const [f, d] of TONES[name] || []) {
        const o = ctx.createOscillator(), g = ctx.createGain();
        o.frequency.value = f; o.type = 'triangle';
        g.gain.setValueAtTime(0.12, at); g.gain.exponentialRampToValueAtTime(0.001, at + d);
        o.connect(g).connect(ctx.destination);
        o.start(at); o.stop(at + d);
        at += d * 0.9;
      }
    } catch { /* no audio */ }
  },
};
