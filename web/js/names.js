// Player names as the server takes them: 1 to 63 bytes of UTF-8 (the store
// keeps 64 with the terminating zero: STORE_NAME_SIZE in src/server/storage/store.h),
// no control characters. A form's maxlength counts UTF-16 units, not bytes,
// so a name of 40 "ä" (80 bytes) would pass it and be refused; fitName cuts
// what is typed to what the server takes, at a whole character (a grapheme:
// an emoji of several code points stays whole or goes whole).

export const NAME_BYTES = 63;

const enc = new TextEncoder();
export const utf8Length = (s) => enc.encode(String(s ?? '')).length;

function graphemes(s) {
  if (typeof Intl !== 'undefined' && Intl.Segmenter) {
    return [...new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(s)].map((g) => g.segment);
  }
  return [...s]; // code points
}

// {name, cut}: the longest start of s (control characters taken out) that
// fits in max bytes; cut: it had to be shortened.
export function fitName(s, max = NAME_BYTES) {
  const clean = String(s ?? '').replace(/[\u0000-\u001f\u007f]/g, ''); // eslint-disable-line no-control-regex
  if (utf8Length(clean) <= max) return { name: clean, cut: false };
  let out = '', n = 0;
  for (const g of graphemes(clean)) {
    const b = utf8Length(g);
    if (n + b > max) break;
    out += g; n += b;
  }
  return { name: out, cut: true };
}
