// Strings: one catalogue per language in web/i18n/<lang>.json, keys shared by all.
// t(KEY, {name: 'x'}) fills {name}. The language comes from the saved choice,
// else the browser's languages, else English.

export const LANGS = [
  { code: 'en', name: 'English' },
  { code: 'fi', name: 'Suomi' },
  { code: 'de', name: 'Deutsch' },
  { code: 'sl', name: 'Slovenščina' },
];
const KEY = 'carc.lang';
let lang = 'en';
let cat = {};
let fallback = {};
const cache = new Map();

async function fetchCatalogue(code) {
  if (!cache.has(code)) {
    cache.set(code, fetch(`/i18n/${code}.json`).then((r) => (r.ok ? r.json() : {})).catch(() => ({})));
  }
  return cache.get(code);
}

export function pickLanguage() {
  const saved = localStorage.getItem(KEY);
  if (saved && LANGS.some((l) => l.code === saved)) return saved;
  for (const l of navigator.languages || [navigator.language || 'en']) {
    const code = String(l).toLowerCase().split('-')[0];
    if (LANGS.some((x) => x.code === code)) return code;
  }
  return 'en';
}

export async function setLanguage(code, save = false) {
  if (!LANGS.some((l) => l.code === code)) code = 'en';
  const [c, f] = await Promise.all([fetchCatalogue(code), fetchCatalogue('en')]);
  lang = code; cat = c; fallback = f;
  if (save) localStorage.setItem(KEY, code);
  document.documentElement.lang = code;
  applyI18n(document);
  window.dispatchEvent(new CustomEvent('langchange', { detail: code }));
}

export const currentLanguage = () => lang;

// A value may hold plural forms by the language's plural rules
// (Intl.PluralRules categories), picked by vars.n:
// "one:{n} player|other:{n} players"; Slovenian also has two: and few:.
const PLURAL = /^(zero|one|two|few|many|other):/;
export function plural(s, n) {
  if (!PLURAL.test(s)) return s;
  const forms = {};
  for (const part of s.split('|')) { const m = PLURAL.exec(part); if (m) forms[m[1]] = part.slice(m[0].length); }
  let cat2 = 'other';
  try { cat2 = new Intl.PluralRules(lang).select(Number(n)); } catch { /* an engine without Intl */ }
  return forms[cat2] ?? forms.other ?? Object.values(forms)[0];
}

export function t(key, vars) {
  let s = cat[key] ?? fallback[key];
  if (s === undefined) return key;
  if (vars && vars.n !== undefined) s = plural(s, vars.n);
  if (vars) s = s.replace(/\{(\w+)\}/g, (m, k) => (vars[k] !== undefined ? String(vars[k]) : m));
  return s;
}

// The string for key, or `otherwise` when no catalogue has the key (server
// error codes and bot levels the client does not know yet).
export function tOr(key, otherwise, vars) {
  return (cat[key] ?? fallback[key]) === undefined ? otherwise : t(key, vars);
}

// Elements with a data-i18n attribute (a key) get their text; data-i18n-title / -placeholder / -aria their attributes.
export function applyI18n(root) {
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll('[data-i18n-title]')) el.title = t(el.dataset.i18nTitle);
  for (const el of root.querySelectorAll('[data-i18n-placeholder]')) el.placeholder = t(el.dataset.i18nPlaceholder);
  for (const el of root.querySelectorAll('[data-i18n-aria]')) el.setAttribute('aria-label', t(el.dataset.i18nAria));
}

// "a, b and c" in the current language
export function listJoin(items) {
  if (items.length < 2) return items.join('');
  return items.slice(0, -1).join(', ') + ' ' + t('word.and') + ' ' + items[items.length - 1];
}

export const esc = (s) => String(s ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }[c]));
