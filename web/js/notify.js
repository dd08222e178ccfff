// "Your turn" when the tab is hidden: a browser notification, off unless
// the player switches it on (the bell in the header). The browser is asked
// for permission only then, never before. The tab title and the sound are
// game.js's (they work without this).
import { t } from './i18n.js';

const KEY = 'carc.notify';
const supported = () => typeof window !== 'undefined' && 'Notification' in window;

export const notify = {
  get on() { return supported() && localStorage.getItem(KEY) === 'on' && Notification.permission === 'granted'; },
  get wanted() { return localStorage.getItem(KEY) === 'on'; },
  // switches it on (asking the browser) or off; resolves to the new state
  async toggle() {
    if (this.wanted) { localStorage.setItem(KEY, 'off'); return false; }
    if (!supported()) return false;
    let p = Notification.permission;
    if (p === 'default') { try { p = await Notification.requestPermission(); } catch { p = 'denied'; } }
    localStorage.setItem(KEY, p === 'granted' ? 'on' : 'off');
    return p === 'granted';
  },
  denied() { return supported() && Notification.permission === 'denied'; },
  // the turn came to this browser's seat at table `id`
  yourTurn(id) {
    if (!this.on || !document.hidden) return;
    try {
      const n = new Notification(t('notify.title'), { body: t('notify.body', { id }), tag: `carc-${id}`, icon: '/favicon.svg' });
      n.onclick = () => { window.focus(); n.close(); };
    } catch { /* some browsers only notify from a service worker */ }
  },
};

// The header's bell: paints itself, toggles on click.
export function mountBell(button) {
  const paint = () => {
    const on = notify.wanted && notify.on;
    button.innerHTML = `<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><path d="M12 3a6 6 0 0 0-6 6v4l-2 3h16l-2-3V9a6 6 0 0 0-6-6zM10 19a2 2 0 0 0 4 0" fill="${on ? 'currentColor' : 'none'}" stroke="currentColor" stroke-width="1.8"/>${on ? '' : '<path d="M4 4l16 16" stroke="currentColor" stroke-width="1.8"/>'}</svg>`;
    button.setAttribute('aria-pressed', String(on));
    button.title = t(on ? 'notify.on' : notify.denied() ? 'notify.denied' : 'notify.off');
    button.setAttribute('aria-label', button.title);
  };
  button.addEventListener('click', async () => { await notify.toggle(); paint(); });
  window.addEventListener('langchange', paint);
  paint();
}
