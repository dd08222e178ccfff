// Start-up: language, the header, and which screen the address asks for:
//   /                 lobby
//   /?table=ID        a table (play if this browser holds a seat, else join or watch)
//   /?replay=ID       step through a game
//   /?leaderboard     the players by rating; /?player=NAME a player's profile
//   /?mygames         the games this browser (or account) plays, "your turn" first
//   /?guide           makes a guided first game (guide.js) and opens it
//   /?account         the account page: password, recovery codes, download, delete
import { LANGS, pickLanguage, setLanguage, currentLanguage, t } from './i18n.js';
import { TileSet } from './tiles.js';
import { loadVocabulary } from './vocab.js';
import { sound } from './sound.js';
import { mountBell } from './notify.js';

// On a narrow screen (CSS: max-width 820px) the header's links, account,
// bell, sound and language fold into a menu that opens under the bar, so the
// bar keeps its 48 px and nothing runs off the screen.
function mountMenu(header) {
  const nav = header.querySelector('nav');
  nav.id = 'top-nav';
  const b = Object.assign(document.createElement('button'), { type: 'button', className: 'menu-toggle icon' });
  b.dataset.testid = 'menu';
  b.setAttribute('aria-controls', nav.id);
  b.innerHTML = '<svg viewBox="0 0 24 24" width="22" height="22" aria-hidden="true"><path d="M3 6h18M3 12h18M3 18h18" stroke="currentColor" stroke-width="2.4" stroke-linecap="round"/></svg>';
  const paint = () => { b.title = t('nav.menu'); b.setAttribute('aria-label', b.title); b.setAttribute('aria-expanded', String(header.classList.contains('menu-open'))); };
  const close = () => { header.classList.remove('menu-open'); paint(); };
  b.addEventListener('click', () => { header.classList.toggle('menu-open'); paint(); });
  // a click outside closes it (not one on a control the click itself replaced: account.js redraws)
  document.addEventListener('click', (e) => { if (e.target.isConnected && !header.contains(e.target)) close(); });
  document.addEventListener('keydown', (e) => { if (e.key === 'Escape' && header.classList.contains('menu-open')) { close(); b.focus(); } });
  window.addEventListener('langchange', paint);
  header.append(b);
  paint();
}

async function main() {
  await setLanguage(pickLanguage());
  const header = document.querySelector('.top');
  const langSel = header.querySelector('.lang');
  langSel.innerHTML = LANGS.map((l) => `<option value="${l.code}">${l.name}</option>`).join('');
  langSel.value = currentLanguage();
  langSel.addEventListener('change', () => setLanguage(langSel.value, true));
  const snd = header.querySelector('.sound');
  // the mute button: its name stays "Mute sounds", pressed while muted; the
  // tip says what it is now and what a click does
  snd.dataset.testid = 'sound';
  const paintSound = () => {
    snd.innerHTML = `<svg viewBox="0 0 24 24" width="20" height="20" aria-hidden="true"><path d="M3 9h4l5-4v14l-5-4H3z" fill="currentColor"/>${sound.on ? '<path d="M16 8q3 4 0 8M19 5q5 7 0 14" stroke="currentColor" stroke-width="2" fill="none"/>' : '<path d="M16 9l6 6M22 9l-6 6" stroke="currentColor" stroke-width="2"/>'}</svg>`;
    snd.setAttribute('aria-pressed', String(!sound.on));
    snd.setAttribute('aria-label', t('sound.mute'));
    snd.title = t(sound.on ? 'sound.on' : 'sound.off');
  };
  // sound back on: a figure's tock, so the player hears that it is
  snd.addEventListener('click', () => { sound.on = !sound.on; paintSound(); if (sound.on) sound.play('figure'); });
  // the bell (turn notifications, notify.js) and the link to "my games"
  const bell = Object.assign(document.createElement('button'), { type: 'button', className: 'notify icon' });
  bell.dataset.testid = 'notify';
  snd.after(bell);
  mountBell(bell);
  const mine = Object.assign(document.createElement('a'), { href: '/?mygames', className: 'mygames' });
  mine.dataset.i18n = 'nav.mygames'; mine.dataset.testid = 'nav-mygames'; mine.textContent = t('nav.mygames');
  header.querySelector('nav').prepend(mine);
  const help = header.querySelector('.help');
  const q = new URLSearchParams(location.search);
  const id = q.get('table') || q.get('replay');
  const paintHelp = () => { help.href = `/help/${currentLanguage()}.html${id ? `?table=${id}` : ''}`; };
  window.addEventListener('langchange', () => { paintSound(); paintHelp(); langSel.value = currentLanguage(); });
  paintSound(); paintHelp();

  const root = document.querySelector('main');
  const account = await import('./account.js');
  account.mountAccount(header.querySelector('nav'));
  mountMenu(header);
  try {
    if (q.has('leaderboard')) {
      const { LeaderboardView } = await import('./leaderboard.js');
      window.carcView = new LeaderboardView(root);
    } else if (q.has('player')) {
      const { ProfileView } = await import('./profile.js');
      window.carcView = new ProfileView(root, q.get('player'));
    } else if (q.get('table') || q.get('replay')) {
      document.body.classList.add('at-table');
      if (q.get('table')) await account.claimSeat(q.get('table')); // the seat follows the account
      // the tiles and the engine's names first: the table draws and words nothing else
      const [{ GameView }, tiles] = await Promise.all([import('./game.js'), TileSet.load(), loadVocabulary()]);
      window.carcView = new GameView(root, tiles, id, { replay: q.has('replay') });
    } else if (q.has('guide')) {
      await account.currentAccount();
      const { startGuided } = await import('./guide.js');
      await startGuided(localStorage.getItem('carc.name') || '');
      return; // the page goes to the new table
    } else if (q.has('account')) {
      window.carcView = new account.AccountView(root);
    } else if (q.has('mygames')) {
      const { MyGamesView } = await import('./mygames.js');
      window.carcView = new MyGamesView(root);
    } else {
      await account.currentAccount(); // a logged-in player's name in the lobby's form
      await loadVocabulary().catch(() => {}); // the form's example of a pile
      const { LobbyView } = await import('./lobby.js');
      window.carcView = new LobbyView(root);
    }
    // a view that loads its data marks the page ready once the first of it is shown
    await window.carcView?.loaded?.catch(() => {});
  } catch (e) {
    root.innerHTML = `<div class="card error"><p>${t('err.load')}</p><pre>${String(e.message || e)}</pre></div>`;
  }
  document.body.dataset.ready = '1';
}
main();
