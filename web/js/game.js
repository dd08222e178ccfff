// The table screen: the board with everything around it. One class serves a
// live game (WebSocket, placing tiles, deciding any other step) and a replay
// (stepping through the log). It keeps no rule: what a decision would do,
// what a feature is and who holds it are the engine's views (views.js), the
// names of kinds the engine's vocabulary (vocab.js), and a step of a kind it
// has no drawing of is played through the generic decision (its options'
// words are the engine's).
import { api, seats, Live } from './api.js';
import { AnalysisPanel } from './analysis.js';
import { BoardView } from './board.js';
import { Motion } from './motion.js';
import { mountSocial, BUBBLE } from './chat.js';
import { SeatWindows } from './windows.js';
import { mountInvite } from './friends.js';
import { badge, figureIcon, figurePose } from './colors.js';
import { roleName, putText, eventText, eventShown, finalGroups, withHolders } from './story.js';
import { ScoreTrack } from './track.js';
import { t, tOr, esc, listJoin } from './i18n.js';
import { seatColors, serverColours, seatName } from './players.js';
import { names, tileStep, entryStep } from './vocab.js';
import { EngineViews } from './views.js';
import { sound } from './sound.js';
import { ClockView } from './clock.js';
import { NAME_BYTES, fitName } from './names.js';
import { toast, copyText, inviteUrl, optionsSummary } from './ui.js';
import { Guide } from './guide.js';
import { mountTraining } from './training.js';
import { requeueAfterVoid, poolChoice } from './quickmatch.js';
import { BoardDecision, onBoard, targetOf } from './decide.js';
import { pnp } from './passplay.js';

const html = (s) => { const d = document.createElement('template'); d.innerHTML = s.trim(); return d.content.firstElementChild; };
// a log entry whose decision put a tile on the board (docs/protocol.md, "Log entry")
const placedTile = (e) => Number.isInteger(e?.x) && Number.isInteger(e?.y);
// whether the figures on the board after a step (`after`, the move
// message's) hold one that was not among those before it
const figureKey = (f) => `${f.player}/${f.kind}/${f.x}/${f.y}/${f.at}`;
const newFigure = (before, after) => {
  const had = new Set((before || []).map(figureKey));
  return (after || []).some((f) => !had.has(figureKey(f)));
};
// How the placing hint tells of a feature, by kind (the engine's names):
// what scores its surroundings has no size in tiles worth telling, a field
// no open sides.
const TELLS = { cloister: { tiles: false }, garden: { tiles: false }, field: { open: false } };

export class GameView {
  constructor(root, tiles, tableId, { replay = false } = {}) {
    this.root = root; this.tiles = tiles; this.id = tableId; this.replay = replay;
    this.table = null; this.game = null; this.you = null;
    this.sel = this.freshSel();
    this.step = 0; this.playing = null;
    // the engine's views over this table's connection (a replay opens one of its own)
    this.views = new EngineViews(() => this.live || this.viewLive);
    this.stepTexts = new Map(); // a decision's JSON -> the engine's words for it
    this.node = html(`
<div class="game${replay ? ' replay' : ''}">
  <div class="board-wrap">
    <div class="board" data-testid="board"></div>
    <div class="board-tools">
      <button class="tool" data-act="zoomin" data-i18n-title="board.zoomin" aria-label="+">+</button>
      <button class="tool" data-act="zoomout" data-i18n-title="board.zoomout" aria-label="-">−</button>
      <button class="tool" data-act="fit" data-i18n-title="board.fit" data-testid="fit">⤢</button>
      <button class="tool track-toggle" data-act="track" data-i18n-title="track.toggle" data-testid="track-toggle" aria-pressed="true"><svg viewBox="0 0 20 20" width="20" height="20" aria-hidden="true"><rect x="2" y="2" width="16" height="16" fill="none" stroke="currentColor" stroke-width="3" stroke-dasharray="3 1.5"/></svg></button>
    </div>
    <div class="track" data-testid="track" aria-hidden="true"></div>
    <div class="conn hidden" role="status"></div>
    <div class="waiting hidden"></div>
    <div class="final-box hidden" data-testid="final"></div>
  </div>
  <aside class="side">
    <button class="mini-scores" data-act="sheet" data-testid="mini-scores" aria-expanded="false"></button>
    <!-- two columns at 1180 px and wider (app.css): the turn on the left, the
         players, the log and the chat on the right, each always in view; one
         column (display: contents) on narrower screens -->
    <div class="side-col side-play">
    <section class="turn-card">
      <div class="turn-line" data-testid="turn-line" aria-live="polite"></div>
      <div class="hand hidden">
        <button class="rot" data-act="rotl" data-i18n-title="hand.rotl" data-testid="rotl">⟲</button>
        <div class="hand-tile" data-testid="hand-tile"></div>
        <button class="rot" data-act="rotr" data-i18n-title="hand.rotr" data-testid="rotr">⟳</button>
      </div>
      <div class="actions"></div>
      <div class="replay-bar hidden"></div>
      <button class="linkish tiles-left" data-act="tilesleft" data-testid="tiles-left"></button>
      <div class="tiles-view hidden"></div>
    </section>
    <section class="analysis hidden" data-testid="analysis"></section>
    <section class="table-info"></section>
    </div>
    <div class="side-col side-talk">
    <section class="players" data-testid="players"></section>
    <section class="log-wrap"><h3 data-i18n="log.title"></h3><ol class="log" data-testid="log"></ol></section>
    </div>
  </aside>
</div>`);
    root.replaceChildren(this.node);
    this.$ = (s) => this.node.querySelector(s);
    this.clock = new ClockView(this.$('.turn-card'), { resign: () => this.live?.send({ type: 'resign' }) });
    this.board = new BoardView(this.$('.board'), tiles);
    this.board.onSquare = (x, y) => this.clickSquare(x, y);
    this.board.onSpot = (i) => this.clickSpot(i);
    this.board.onSpotHover = (i) => this.previewSpot(i);
    this.motion = new Motion(this.board, this.node); // each step's motion (motion.js)
    this.track = new ScoreTrack(this.$('.track'));
    this.setTrack(localStorage.getItem('carc.track') !== '0');
    this.node.addEventListener('focusin', (e) => { const b = e.target.closest?.('.spot-btn'); if (b) this.previewSpot(Number(b.dataset.i)); });
    this.node.addEventListener('focusout', (e) => { if (e.target.closest?.('.spot-btn')) this.previewSpot(null); });
    this.node.addEventListener('pointerover', (e) => { const b = e.target.closest?.('.spot-btn'); if (b) this.previewSpot(Number(b.dataset.i)); });
    this.node.addEventListener('pointerout', (e) => { if (e.target.closest?.('.spot-btn')) this.previewSpot(null); });
    this.node.addEventListener('keydown', (e) => { const l = e.target.closest?.('[data-mark]'); if (l && (e.key === 'Enter' || e.key === ' ')) { e.preventDefault(); this.markLine(l); } });
    this.narrow = matchMedia('(max-width: 640px)');
    this.narrowHandler = () => this.renderFinal();
    this.narrow.addEventListener?.('change', this.narrowHandler);
    // no keyboard hints on a touch screen
    const touch = matchMedia('(pointer: coarse)').matches || (navigator.maxTouchPoints > 0 && !matchMedia('(pointer: fine)').matches);
    this.node.classList.toggle('touch', touch);
    this.touch = touch;
    this.node.addEventListener('click', (e) => this.onClick(e));
    this.keyHandler = (e) => this.onKey(e);
    document.addEventListener('keydown', this.keyHandler);
    this.langHandler = () => this.renderAll();
    window.addEventListener('langchange', this.langHandler);
    this.windows = new SeatWindows(this); // which window holds the seat (windows.js)
    this.social = mountSocial(this); // chat, rematch, notifications, pass-and-play (chat.js)
    this.training = mountTraining(this); // undo against bots, a figure's feature (training.js)
    this.start();
  }

  destroy() {
    this.guide?.destroy();
    this.analysis?.destroy();
    this.training?.destroy();
    this.clock.destroy();
    this.social?.destroy();
    this.windows?.destroy();
    this.live?.close();
    this.viewLive?.close();
    clearTimeout(this.playing);
    this.motion.destroy();
    document.removeEventListener('keydown', this.keyHandler);
    window.removeEventListener('langchange', this.langHandler);
    this.narrow.removeEventListener?.('change', this.narrowHandler);
    this.board.destroy();
  }

  freshSel() { this.deciding = null; return { rot: this.sel?.rot ?? 0, pending: null, kind: null, meeple: null, recall: false, sending: false }; }

  // the pieces of no player as the engine's view gives them (Princess &
  // Dragon: the dragon, the fairy, the dragon's movement; absent otherwise)
  pieces(g = this.game) { return g ? { dragon: g.dragon ?? null, fairy: g.fairy ?? null, move: g.dragon_move ?? null } : null; }

  async start() {
    if (this.replay) { await this.startReplay(); return; }
    const held = seats.get(this.id);
    this.token = held?.token || null;
    this.live = new Live(this.id, this.token, {
      onMessage: (m) => this.onMessage(m),
      onStatus: (s) => this.onConn(s),
    });
  }

  // A new token for the seat whose token the server replaced (the error m
  // said bad_token); a guest's seat, or one the account no longer holds,
  // is only told.
  async reclaim(m) {
    const old = this.token;
    this.reclaimed = old; this.reclaiming = true;
    let tok = null;
    try { tok = await (await import('./account.js')).reclaimSeat(this.id, old); } catch { tok = null; }
    this.reclaiming = false;
    if (!tok || this.token !== old) {
      if (!tok) toast(tOr('err.bad_token', m.message || m.code), 'error', 'err.bad_token');
      return;
    }
    this.token = tok;
    this.live.token = tok;
    this.live.send({ type: 'auth', token: tok });
  }

  // --- messages -----------------------------------------------------------
  onConn(status) {
    const c = this.$('.conn');
    this.connected = status === 'open';
    if (status === 'open') { c.classList.add('hidden'); if (this.wasDown) toast(t('conn.back')); this.wasDown = false; this.views.flush(); return; }
    if (status === 'closed' && this.game) { this.wasDown = true; c.textContent = t('conn.lost'); c.classList.remove('hidden'); }
  }

  onMessage(m) {
    if (this.views.onMessage(m)) return; // a preview or feature view asked for
    switch (m.type) {
      case 'state':
        this.table = m.table; this.game = m.game;
        this.you = m.you ? m.you.seat : null;
        this.sel = this.freshSel();
        this.views.clear();
        this.learnTexts(m.game?.next);
        this.renderAll(true);
        break;
      case 'move': this.applyMove(m); break;
      case 'table': {
        const was = this.table?.status;
        this.table = m.table;
        if (was !== m.table.status && m.table.status !== 'open') this.live.send({ type: 'state' });
        // a game ended by the table (a resignation, time): the game-over cue
        if (was === 'playing' && m.table.status === 'over') this.soundEnd();
        this.renderPlayers(); this.renderWaiting(); this.renderInfo();
        // the rating comes with the finished table's description, after the
        // last move drew the final scores: filled in where it stands (the
        // card is not drawn again: a card closed stays closed)
        const rl = this.$('.final-box [data-testid="final-rating"]');
        if (rl) { const h = this.ratingLine(); rl.innerHTML = h; rl.classList.toggle('hidden', !h); }
        break;
      }
      case 'joined':
        seats.set(this.id, m.seat, m.token);
        this.token = m.token;
        this.live.token = m.token;
        break;
      case 'error':
        this.sel.sending = false;
        if (m.code === 'bad_token' && this.token && (this.reclaiming || this.reclaimed !== this.token)) {
          // the token this browser held was replaced (the account's password
          // was changed, or the account recovered): the account claims its
          // seat again, and only a seat it cannot get back is an error
          if (!this.reclaiming) this.reclaim(m);
          break;
        }
        if (m.code === 'stale_turn' || m.code === 'not_your_turn') this.live.send({ type: 'state' });
        toast(tOr(`err.${m.code}`, m.message || m.code), 'error', `err.${m.code}`);
        this.renderTurn();
        break;
      default: break;
    }
    this.clock.update(m, this.you);
    this.windows?.onMessage(m);
    this.social?.onMessage(m);
    this.training?.onMessage(m);
  }

  applyMove(m) {
    const g = this.game;
    if (!g) return;
    const e = m.entry;
    if (e.step !== g.next.step) { this.live.send({ type: 'state' }); return; }
    this.views.clear();
    // the step's place on the motion's timeline (null: no motion), and
    // where the tile comes from (the hand, before the page shows the next turn)
    const wait = this.motion.slot();
    const from = placedTile(e) && wait !== null ? this.motion.source(e.player, this.myTurn()) : null;
    const figsBefore = g.figures;
    let tileNode = null;
    if (placedTile(e)) {
      const tile = { x: e.x, y: e.y, tile: e.tile, rot: e.rot, player: e.player };
      g.board.push(tile);
      tileNode = this.board.addTile(tile);
      this.board.setLast(tile);
      this.board.ensureVisible(e.x, e.y);
    }
    g.log.push(e);
    // the cues of this step, from what the server sent: a tile laid, a
    // figure set (the entry's figure, or a figure on the board that was not
    // there before: a step other than the tile step may place one); played
    // below, when the motion shows them
    const cueTile = placedTile(e), cueFigure = !!(e.meeple || newFigure(g.figures, m.figures));
    g.figures = m.figures; g.supply = m.supply; g.by_kind = m.by_kind;
    if (m.goods) g.goods = m.goods;
    // where the dragon and the fairy stood (they move from there: motion.js)
    const beastsBefore = { dragon: g.dragon, fairy: g.fairy };
    // the dragon's movement is absent from the view when it does not move
    g.dragon = m.dragon; g.fairy = m.fairy; g.dragon_move = m.dragon_move;
    const wasMine = this.myTurn();
    g.next = m.next;
    this.learnTexts(m.next);
    this.sel = this.freshSel();
    this.guide?.onMove(e);
    // the figures going home are copied where they stood before the board
    // loses them; the figures new on the board are set down
    const home = wait === null ? [] : this.homeCopies(e, figsBefore);
    const made = this.board.setFigures(g.figures, (p) => this.colors[p]);
    const newFigs = figsBefore ? made.filter((n) => !figsBefore.some((f) => figureKey(f) === figureKey(n.dataset))) : [];
    this.board.setPieces(this.pieces());
    this.renderTurn(); this.renderPlayers(); this.appendLog(e); this.renderTilesLeft();
    // the step's motion, after the side panel shows where things go
    const at = this.motion.step({ e, tileNode, from, newFigs, home, scores: this.scores(e), wait });
    this.motion.beasts(beastsBefore, wait);
    // the cues as the motion shows them: the tile as it lands, the figure
    // as it is set down (without motion, at once)
    const lag = at === null ? 0 : Math.max(0, at - performance.now());
    if (cueTile) sound.play('tile', lag);
    if (cueFigure) sound.play('figure', lag + 150);
    this.flashEvents(e, at);
    if (g.next.over) { this.renderFinal(); this.soundEnd(); }
    else if (this.myTurn() && !wasMine) sound.play('turn', lag);
  }

  // The game-over cue, once a table: the last move and the table's status
  // both tell of the end.
  soundEnd() {
    if (this.endSounded) return;
    this.endSounded = true;
    sound.play('end');
  }

  // What a step scored, outlined on the board: each scored feature's parts
  // are the engine's (a feature view: a scored feature does not grow after).
  // at: when the step's motion lands (performance.now() time; null: no
  // motion): the outline waits for it, and each label travels to its
  // scorer's place (motion.js). One label per score event.
  flashEvents(e, at = null) {
    let shown = 0;
    const scored = this.scores(e);
    for (const ev of e.events || []) {
      if (ev.x === undefined || ev.final || !ev.points) continue;
      const best = Math.max(...ev.points);
      const who = ev.points.indexOf(best);
      const nth = shown++;
      this.views.feature(ev.x, ev.y, ev.at).then((f) => {
        const delay = at === null ? 0 : Math.max(0, at - performance.now());
        const onLabel = at === null ? null : (node, cx, cy) => this.motion.label(node, cx, cy, best > 0 ? who : null, at);
        this.board.flash(f.parts, f.kind, best > 0 ? `+${best}` : '', best > 0 ? this.colors[who] : null, nth, { delay, step: e.step, onLabel });
      }).catch(() => { /* no outline: the log line says it */ });
    }
    if (scored) sound.play('score', at === null ? 0 : Math.max(0, at - performance.now()));
  }
  // whether a step's entry scored points (a non-final event with points)
  scores(e) { return (e?.events || []).some((ev) => ev.x !== undefined && !ev.final && ev.points && Math.max(...ev.points) > 0); }
  // Copies of the figures a step's entry sent home (its "returned"
  // events, with where they stood), drawn where they stood for their way
  // home: [{player, kind, node, cx, cy, fresh}]; fresh: set down by this
  // very step (not among the figures `before` it), so it drops first.
  homeCopies(e, before) {
    const out = [];
    for (const ev of e.events || []) {
      if (ev.returned === undefined) continue;
      const f = { player: ev.player, kind: ev.returned, x: ev.x, y: ev.y, at: ev.at };
      const c = this.board.figureCopy(f, (p) => this.colors[p]);
      if (!c) continue;
      const fresh = !(before || []).some((b) => figureKey(b) === figureKey(f));
      c.node.dataset.fresh = fresh ? '1' : '0';
      out.push({ player: ev.player, kind: ev.returned, ...c, fresh });
    }
    return out;
  }

  // The engine's words for the decisions of a step (its options' "text"),
  // kept for the log's lines of steps the client has no words of its own for.
  learnTexts(n) {
    for (const o of n?.legal?.options || []) {
      const { text, ...d } = o;
      if (text) this.stepTexts.set(JSON.stringify(d), text);
    }
  }
  // A logged decision of step kind `kind` in words: the engine's when seen,
  // else its name and value.
  stepText(e, kind) {
    const d = { [kind]: e[kind] };
    return this.stepTexts.get(JSON.stringify(d)) || t('log.step.plain', { step: kind, value: JSON.stringify(e[kind]) });
  }

  // The result once the game is over: played to its end (next.final), or
  // ended by a resignation (the table's clock.ended; the scores as they stood,
  // docs/protocol.md "Resigning"). null while it goes on.
  result() {
    const g = this.game, n = g?.next;
    if (!n) return null;
    if (n.over) return n.final ? { ...n.final, resigned: null } : null;
    const e = this.table?.clock?.ended;
    if (this.table?.status !== 'over' || !e || e.reason !== 'resigned') return null;
    const scores = n.scores || g.log[g.log.length - 1]?.scores || Array(this.table.options.players).fill(0);
    return { winners: e.winners || [], scores, by_kind: g.by_kind || scores.map(() => ({})), resigned: e.seat ?? null };
  }

  // A quick match voided because a seat did not make its first move in time
  // (the table's clock.ended, reason "no_show"; docs/protocol.md "Quick
  // match"): nobody won, nothing was rated. null otherwise.
  voided() {
    const e = this.table?.clock?.ended;
    return this.table?.status === 'over' && e?.reason === 'no_show' ? e : null;
  }

  // Who came to a void quick match goes back to the queue, first in line:
  // the lobby joins again (quickmatch.js), the server keeps the place.
  requeue(v) {
    const choice = poolChoice(this.table.options?.match);
    if (this.requeued || this.replay || this.you === null || this.you === v.seat || !choice) return;
    this.requeued = true;
    requeueAfterVoid(choice, this.name(v.seat));
    setTimeout(() => location.assign('/'), 2500);
  }

  // (a window whose seat is open in another one does not play: windows.js)
  myTurn() { const n = this.game?.next; return !!n && !n.over && this.you !== null && n.to_move === this.you && !this.replay && !this.elsewhere && this.table?.status === 'playing'; }

  // --- rendering ----------------------------------------------------------
  renderAll(refit = false) {
    if (!this.table) return;
    this.colors = seatColors(this.table);
    // the guided first game (guide.js): tips for the person at a tutorial table
    if (!this.guide && !this.replay && this.table.options?.tutorial && this.you !== null) this.guide = new Guide(this);
    if (this.game) {
      if (this.replay) { this.motion.finish(); this.renderStep(refit); } else {
        // a state that shows the board as drawn (the game's end, a table
        // message) lets the last step's motion play on; else it is drawn anew
        if (!this.board.sameBoard(this.game.board)) { this.motion.finish(); this.board.setBoard(this.game.board); }
        const last = this.game.board.length > 1 ? this.game.board[this.game.board.length - 1] : null;
        this.board.setLast(last);
        this.board.setFigures(this.game.figures, (p) => this.colors[p]);
        this.board.setPieces(this.pieces());
        if (refit) this.board.fit();
      }
    }
    this.renderTurn(); this.renderPlayers(); this.renderLog(); this.renderTilesLeft();
    this.renderWaiting(); this.renderInfo(); this.renderFinal(); this.renderReplayBar();
    this.node.querySelectorAll('[data-i18n-title]').forEach((n) => { n.title = t(n.dataset.i18nTitle); n.setAttribute('aria-label', n.title); });
    this.node.querySelectorAll('[data-i18n]').forEach((n) => { n.textContent = t(n.dataset.i18n); });
    this.analysis?.render();
  }

  name(i) { return seatName(this.table, i, this.colors); }
  // the colours travel in the link only when the server does not keep them
  invite() { return inviteUrl(this.id, serverColours(this.table) ? null : this.colors); }
  who(i) { return `<span class="who">${badge(this.colors[i], 14)} ${esc(this.name(i))}</span>`; }

  // placements grouped by square: Map "x,y" -> [{rot, meeples, abbot_recall}]
  groups() {
    const m = new Map();
    for (const p of this.game?.next?.legal?.placements || []) {
      const k = `${p.x},${p.y}`;
      if (!m.has(k)) m.set(k, []);
      m.get(k).push(p);
    }
    return m;
  }
  fittingRots() { return [...new Set((this.game?.next?.legal?.placements || []).map((p) => p.rot))].sort(); }
  placement() {
    const p = this.sel.pending;
    if (!p) return null;
    return (this.game.next.legal.placements || []).find((q) => q.x === p.x && q.y === p.y && q.rot === p.rot) || null;
  }

  renderTurn() { this.drawTurn(); this.guide?.update(); }
  drawTurn() {
    const n = this.game?.next;
    const line = this.$('.turn-line'), hand = this.$('.hand'), act = this.$('.actions');
    hand.classList.add('hidden'); act.replaceChildren();
    this.board.setCandidates(new Map(), 0); this.board.setPending(null); this.board.setSpots([], null); this.board.setEaten(null);
    this.board.hoverTile = null;
    if (this.previewing) { this.board.mark(null); this.previewing = false; }
    if (!this.sel.pending && this.board.saved) { this.board.unzoom(); if (!this.board.userMoved) this.board.fit(); }
    this.renderMini();
    this.training?.render();
    this.node.classList.toggle('mine', this.myTurn());
    // a tab in the background shows whose turn it is in its title
    document.title = `${this.myTurn() ? `▶ ${t('turn.yours')} · ` : ''}carc · ${this.replay ? t('replay.title') : t('game.title')}`;
    if (!n || this.replay) { line.innerHTML = this.replay ? this.replayLine() : ''; return; }
    if (this.table.status === 'open') { line.textContent = t('turn.waiting'); return; }
    const v = this.voided();
    if (v) {
      // who came is told it goes back to the queue; the others why it ended
      const came = this.you !== null && this.you !== v.seat && this.table.options?.match;
      line.innerHTML = `<span data-testid="void-line">${t(came ? 'match.void.line' : 'clock.no_show', { name: this.who(v.seat) })}</span>`;
      this.requeue(v);
      return;
    }
    const res = this.result();
    if (res) {
      const w = res.winners;
      line.innerHTML = (res.resigned !== null ? `<span class="resigned-line" data-testid="resigned-line">${t('clock.resigned', { name: this.who(res.resigned) })}</span> ` : '')
        + (w.length > 1 ? t('final.shared', { names: listJoin(w.map((i) => this.who(i))) }) : t('final.winner', { name: w.length ? this.who(w[0]) : '?' }));
      act.innerHTML = `<div class="row"><button data-act="showfinal" data-testid="show-final">${t('final.title')}</button><a class="button" href="/?replay=${this.id}">${t('info.replay')}</a></div>`;
      return;
    }
    const mine = this.myTurn();
    if (n.step_kind !== tileStep()) { this.drawDecision(n, mine); return; }
    line.innerHTML = mine ? `<strong class="your-turn">${t('turn.yours')}</strong>`
      : this.elsewhere && n.to_move === this.you ? `<span data-testid="turn-elsewhere">${t('window.turn')}</span>`
      : t(n.bonus ? 'turn.other.bonus' : 'turn.other', { name: this.who(n.to_move) });
    hand.classList.remove('hidden');
    // a turn starts with the tile turned to a rotation that fits somewhere, so
    // the squares the hint calls yellow (fitting this rotation) are there
    if (mine && !this.sel.pending) {
      const fits = this.fittingRots();
      if (fits.length && !fits.includes(this.sel.rot)) this.sel.rot = fits[0];
    }
    const rot = this.sel.pending ? this.sel.pending.rot : this.sel.rot;
    this.$('.hand-tile').innerHTML = this.tiles.svg(n.tile, mine ? rot : 0, mine ? 132 : 84) + `<div class="hand-name" data-tile="${esc(n.tile)}">${esc(this.tiles.name(n.tile))}</div>`;
    hand.querySelectorAll('.rot').forEach((b) => { b.disabled = !mine || !!n.legal?.discard; b.classList.toggle('hidden', !mine); });
    if (!mine) { act.innerHTML = `<p class="hint">${n.bonus ? t('hint.bonus') : ''}</p>`; return; }
    if (n.legal?.discard) {
      act.innerHTML = `<p class="hint">${t('hint.discard')}</p><button class="primary" data-act="discard" data-testid="discard">${t('act.discard')}</button>`;
      return;
    }
    const groups = this.groups();
    this.board.hoverTile = n.tile;
    const cands = new Map([...groups].map(([k, ps]) => [k, ps.map((p) => p.rot)]));
    const fresh = this.board.candidates.size === 0;
    this.board.setCandidates(cands, rot);
    if (fresh && !this.board.userMoved) this.board.fit();
    if (!this.sel.pending) {
      act.innerHTML = `<p class="hint">${t('hint.place', { n: groups.size })}</p><p class="keys">${t('hint.keys')}</p>`;
      return;
    }
    const p = this.sel.pending;
    this.board.setPending({ x: p.x, y: p.y, tile: n.tile, rot: p.rot });
    const pl = this.placement();
    const meeples = pl?.meeples || [];
    const kinds = names.figures.filter((k) => meeples.some((m) => m.kind === k));
    if (!kinds.includes(this.sel.kind)) this.sel.kind = kinds[0] || null;
    const list = this.spotList();
    this.board.setSpots(list, this.colors[this.you]);
    // figure spots big enough to touch: zoom into the placed tile while choosing
    if (list.length) this.board.zoomToTile(p.x, p.y, this.touch || this.narrow.matches ? 170 : 120);
    let h = '';
    if (kinds.length > 1) {
      h += `<div class="kinds" role="radiogroup">${kinds.map((k) => `<button class="kind${k === this.sel.kind ? ' on' : ''}" data-act="kind" data-kind="${k}" role="radio" aria-checked="${k === this.sel.kind}" data-testid="kind-${k}">${figureIcon(k, this.colors[this.you], 20)} ${tOr(`fig.${k}`, k)}</button>`).join('')}</div>`;
    }
    const left = this.game.supply?.[this.you] || {};
    const noneLeft = !meeples.length && names.figures.every((k) => !left[k]);
    h += `<p class="hint" data-testid="figure-hint">${meeples.length ? t('hint.figure') : noneLeft ? t('hint.nofollowers') : t('hint.nofigure')}</p>`;
    if (list.length) {
      h += `<div class="spots-list">${list.map((s, i) => `<button class="spot-btn${s.selected ? ' on' : ''}" data-act="spot" data-i="${i}" data-testid="spot-${i}" data-at="${s.at}" data-kind="${s.kind}" title="${esc(s.label)}">${i + 1} · ${esc(s.role)}</button>`).join('')}</div>`;
      h += '<p class="preview-info" data-testid="preview-info" aria-live="polite"></p>';
    }
    const none = !this.sel.meeple && !this.sel.recall;
    h += `<div class="row"><button class="${none ? 'on' : ''}" data-act="nofig" data-testid="no-follower">${t('act.nofigure')}</button>`;
    if (pl?.abbot_recall) h += `<button class="${this.sel.recall ? 'on' : ''}" data-act="recall" data-testid="recall">${t('act.recall')}</button>`;
    h += '</div>';
    h += `<div class="row"><button class="primary" data-act="confirm" data-testid="confirm" ${this.sel.sending ? 'disabled' : ''}>${t('act.confirm')} ⏎</button><button data-act="takeback" data-testid="takeback">${t('act.takeback')}</button></div>`;
    act.innerHTML = h;
    if (this.sel.meeple) this.previewSpot(null);
  }

  // A step of any kind but the tile step: whose decision it is (it may be
  // another player than the turn's), and for the one who decides a button
  // per option, in the engine's words (next.legal.options).
  drawDecision(n, mine) {
    const line = this.$('.turn-line'), act = this.$('.actions');
    // the one who decides is told so, and in whose turn when it is another's
    const yours = n.to_move === n.turn_player ? t('turn.yours') : t('turn.decides.you', { player: this.who(n.turn_player) });
    line.innerHTML = mine ? `<strong class="your-turn">${yours}</strong>`
      : this.elsewhere && n.to_move === this.you ? `<span data-testid="turn-elsewhere">${t('window.turn')}</span>`
      : t('turn.decides', { name: this.who(n.to_move) });
    line.dataset.toMove = n.to_move;
    const opts = n.legal?.options || [];
    if (!mine) {
      act.innerHTML = n.to_move !== n.turn_player ? `<p class="hint" data-testid="decision-other">${t('hint.decision.other', { name: this.who(n.to_move), player: this.who(n.turn_player) })}</p>` : '';
      return;
    }
    // options that name squares or places of the board are chosen there (decide.js)
    if (onBoard(opts)) {
      if (this.deciding?.step !== n.step) this.deciding = new BoardDecision(this, n.step);
      this.deciding.draw(n);
      return;
    }
    act.innerHTML = `<h4 class="decision-head" data-testid="decision-head">${t('decision.title')}</h4>`
      + `<div class="decision row" role="group" aria-label="${esc(t('decision.title'))}" data-testid="decision">${opts.map((o, i) => `<button data-act="decide" data-i="${i}" data-testid="decision-${i}"${this.sel.sending ? ' disabled' : ''}>${this.touch ? '' : `<kbd>${i + 1}</kbd> `}${esc(o.text)}</button>`).join('')}</div>`;
  }
  decide(i) {
    const n = this.game?.next, o = n?.legal?.options?.[i];
    if (!o || !this.myTurn() || this.sel.sending) return;
    const { text, ...decision } = o;
    this.send({ type: 'move', ...decision, turn: n.turn, step: n.step });
  }

  // spots of the chosen figure kind on the pending tile
  spotList() {
    const pl = this.placement(), p = this.sel.pending;
    if (!pl) return [];
    const n = this.game.next;
    const out = [];
    const seen = new Set();
    for (const m of pl.meeples) {
      const kind = m.kind;
      if (kind !== this.sel.kind) continue;
      const seg = this.tiles.segmentAt(n.tile, p.rot, m.at);
      if (!seg || seen.has(seg.index)) continue;
      seen.add(seg.index);
      const sel = this.sel.meeple && this.sel.meeple.kind === kind && this.sel.meeple.at === m.at;
      const feature = seg.kind;
      const spot = this.tiles.spotAt(n.tile, p.rot, m.at);
      const pos = [spot[0] + figurePose(kind, feature).dx, spot[1]];
      const role = roleName(kind, feature);
      out.push({ x: p.x, y: p.y, at: m.at, kind, pos, selected: sel, feature, role, label: t('spot.label', { role, feature: tOr(`feat.${feature}`, feature) }) });
    }
    return out;
  }

  clickSquare(x, y) {
    if (!this.myTurn() || this.sel.sending) return;
    if (this.deciding) { this.deciding.square(x, y); return; }
    const rots = (this.groups().get(`${x},${y}`) || []).map((p) => p.rot);
    if (!rots.length) return;
    if (this.sel.pending && this.sel.pending.x === x && this.sel.pending.y === y) { this.rotate(1); return; }
    const rot = rots.includes(this.sel.rot) ? this.sel.rot : rots[0];
    this.sel.pending = { x, y, rot }; this.sel.rot = rot; this.sel.meeple = null; this.sel.recall = false;
    this.board.preview(null);
    this.renderTurn();
  }
  clickSpot(i) {
    if (this.deciding) { this.deciding.spot(i); return; }
    const s = this.spotList()[i];
    if (!s) return;
    this.sel.meeple = s.selected ? null : { kind: s.kind, at: s.at };
    this.sel.recall = false;
    this.renderTurn();
  }
  rotate(d) {
    if (!this.myTurn()) return;
    const p = this.sel.pending;
    const rots = p ? (this.groups().get(`${p.x},${p.y}`) || []).map((q) => q.rot) : this.fittingRots();
    if (!rots.length) return;
    const cur = p ? p.rot : this.sel.rot;
    let r = cur;
    for (let i = 0; i < 4; i++) { r = (r + d + 4) % 4; if (rots.includes(r)) break; }
    if (p) { p.rot = r; this.sel.meeple = null; this.sel.recall = false; }
    this.sel.rot = r;
    this.guide?.noteRotate();
    this.renderTurn();
  }
  takeBack() { if (this.sel.pending) { this.sel.pending = null; this.sel.meeple = null; this.sel.recall = false; this.renderTurn(); } }
  confirm() {
    const p = this.sel.pending, n = this.game?.next;
    if (!p || !this.myTurn() || this.sel.sending) return;
    const move = { type: 'move', x: p.x, y: p.y, rot: p.rot, meeple: this.sel.meeple, turn: n.turn, step: n.step };
    if (this.sel.recall) { move.meeple = null; move.abbot_recalled = true; }
    this.send(move);
  }
  discard() { if (this.myTurn()) this.send({ type: 'move', discard: true, turn: this.game.next.turn, step: this.game.next.step }); }
  send(move) {
    this.sel.sending = true;
    this.renderTurn();
    if (!this.live.send(move)) {
      // no live connection right now: the HTTP API takes the same move
      const body = { ...move }; delete body.type;
      api.move(this.id, body, this.token).catch((e) => {
        this.sel.sending = false; toast(e.message, 'error'); this.renderTurn();
      });
    }
  }

  onClick(e) {
    const l = e.target.closest('[data-mark]');
    if (l && !e.target.closest('a, button')) { this.markLine(l); return; }
    const b = e.target.closest('[data-act]');
    if (!b || b.disabled) return;
    const a = b.dataset.act;
    const acts = {
      zoomin: () => this.board.zoomBy(1.25), zoomout: () => this.board.zoomBy(0.8), fit: () => this.board.fit(),
      rotl: () => this.rotate(-1), rotr: () => this.rotate(1),
      kind: () => { if (this.deciding) { this.deciding.kind = b.dataset.kind; this.deciding.chosen = null; this.deciding.eaten = null; } this.sel.kind = b.dataset.kind; this.sel.meeple = null; this.renderTurn(); },
      choose: () => this.deciding?.choose(Number(b.dataset.i)),
      confirmchoice: () => this.deciding?.confirm(),
      unchoose: () => { if (this.deciding) { this.deciding.chosen = null; this.deciding.eaten = null; this.renderTurn(); } },
      spot: () => this.clickSpot(Number(b.dataset.i)),
      nofig: () => { this.sel.meeple = null; this.sel.recall = false; this.renderTurn(); },
      recall: () => { this.sel.recall = !this.sel.recall; this.sel.meeple = null; this.renderTurn(); },
      confirm: () => this.confirm(), takeback: () => this.takeBack(), discard: () => this.discard(),
      decide: () => this.decide(Number(b.dataset.i)),
      tilesleft: () => this.$('.tiles-view').classList.toggle('hidden'),
      track: () => this.setTrack(!this.trackOn, true),
      sheet: () => { const open = this.node.classList.toggle('sheet-open'); b.setAttribute('aria-expanded', String(open)); if (open) this.scrollLog(); },
      copy: () => copyText(this.invite()).then(() => toast(t('invite.copied'))),
      join: () => this.join(),
      closefinal: () => this.$('.final-box').classList.add('hidden'),
      showfinal: () => this.$('.final-box').classList.remove('hidden'),
      first: () => this.goStep(0), prev: () => this.goStep(this.step - 1), next: () => this.goStep(this.step + 1),
      last: () => this.goStep(this.game.log.length), play: () => this.togglePlay(),
    };
    acts[a]?.();
  }

  onKey(e) {
    if (e.target.closest('input, textarea, select')) return;
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const k = e.key;
    if (this.replay) {
      if (k === 'ArrowRight') this.goStep(this.step + 1);
      else if (k === 'ArrowLeft') this.goStep(this.step - 1);
      else if (k === 'Home') this.goStep(0);
      else if (k === 'End') this.goStep(this.game.log.length);
      else if (k === ' ') this.togglePlay();
      else if (k === 'f') this.board.fit();
      else return;
      e.preventDefault();
      return;
    }
    if (k === 'f' || k === 'F') this.board.fit();
    else if (k === '+' || k === '=') this.board.zoomBy(1.25);
    else if (k === '-') this.board.zoomBy(0.8);
    else if (!this.myTurn()) return;
    else if (this.game.next.step_kind !== tileStep()) {
      // a decision of another kind of step: 1..9 pick its options (on the
      // board: choose them, Enter confirms)
      if (this.deciding) { if (!this.deciding.key(k)) return; } else if (/^[1-9]$/.test(k)) this.decide(Number(k) - 1); else return;
    } else if (k === 'r' || k === 'R') this.rotate(e.shiftKey ? -1 : 1);
    else if (k === 'e' || k === 'E') this.rotate(-1);
    else if (k === 'Enter') this.confirm();
    else if (k === 'Escape' || k === 'Backspace') this.takeBack();
    else if (k === 'n' || k === 'N') { this.sel.meeple = null; this.sel.recall = false; this.renderTurn(); }
    else if (k === 'ArrowRight' || k === 'ArrowLeft' || k === ']' || k === '[') {
      // walk through the squares where the tile fits
      const keys = [...this.groups().keys()];
      if (!keys.length) return;
      const p = this.sel.pending;
      let i = p ? keys.indexOf(`${p.x},${p.y}`) : -1;
      i = (i + ((k === '[' || k === 'ArrowLeft') ? -1 : 1) + keys.length) % keys.length;
      const [x, y] = keys[i].split(',').map(Number);
      this.sel.pending = null;
      this.clickSquare(x, y);
      this.board.ensureVisible(x, y);
    } else if (/^[1-9]$/.test(k)) this.clickSpot(Number(k) - 1);
    else return;
    e.preventDefault();
  }

  // The seat marked "(you)": the seat this browser plays; in pass-and-play,
  // where this screen holds every person's seat, the one whose turn it is
  // (the last mover has handed the screen over)
  meSeat() {
    const n = this.game?.next;
    if (this.table?.options?.pass_and_play && this.table.status === 'playing' && n && !n.over && !this.replay) {
      const held = pnp.get(this.id);
      if (held && held[n.to_move] !== undefined) return n.to_move;
    }
    return this.you;
  }
  renderPlayers() {
    const box = this.$('.players');
    if (!this.table) return;
    const n = this.table.options.players;
    const g = this.game;
    const scores = this.currentScores();
    const supply = this.replay ? this.stepSupply() : g?.supply || [];
    const goods = this.replay ? (this.atEnd() ? g?.goods : null) : g?.goods;
    const me = this.meSeat();
    let h = `<h3>${t('players.title')}</h3><ul>`;
    for (let i = 0; i < n; i++) {
      const s = this.table.seats[i] || {};
      const active = g?.next && !g.next.over && g.next.to_move === i && this.table.status === 'playing' && !this.replay;
      const figs = supply[i] || {};
      const figHtml = names.figures.filter((k) => figs[k] !== undefined).map((k) => `<span class="fig" data-kind="${k}" data-n="${figs[k]}" title="${tOr(`fig.${k}`, k)}">${figureIcon(k, this.colors[i], 22)}<span class="n">${figs[k]}</span></span>`).join('');
      const gd = goods?.[i] ? Object.entries(goods[i]).filter(([, v]) => v > 0).map(([k, v]) => `<span class="good ${k}" title="${tOr(`goods.${k}`, k)}">${tOr(`goods.${k}`, k)} ${v}</span>`).join('') : '';
      // pass-and-play: every person sits at the one screen, present while it is connected
      const shared = !!this.table.options?.pass_and_play && s.kind === 'human' && this.table.seats.some((x) => x.kind === 'human' && x.online);
      const online = s.kind === 'bot' || s.online || shared;
      h += `<li class="player${active ? ' active' : ''}${i === me ? ' me' : ''}" data-testid="player-${i}" data-colour="${this.colors[i].id}">
        <span class="turn-arrow" aria-hidden="true">${active ? '▶' : ''}</span>
        ${badge(this.colors[i], 20)}
        <span class="pname">${esc(this.name(i))}${i === me ? ` <em data-testid="you-${i}">(${t('players.you')})</em>` : ''}${s.kind === 'bot' ? ' <span class="tag">' + t('players.bot') + '</span>' : ''}${s.account ? ` <span class="acct" data-testid="account-${i}" title="${t('players.account')}" aria-label="${t('players.account')}">✓</span>` : ''}
          <span class="dot ${online ? 'on' : 'off'}" title="${online ? t('players.online') : t('players.offline')}${shared ? ` · ${t('opt.pnp')}` : ''}"></span></span>
        <span class="score" data-testid="score-${i}">${scores[i] ?? 0}</span>
        <span class="figs">${figHtml}${gd}</span>
      </li>`;
    }
    box.innerHTML = h + '</ul>';
    this.renderMini();
    this.track.render(scores, this.colors, [...Array(n).keys()].map((i) => this.name(i)));
  }
  currentScores() {
    const g = this.game;
    return (this.replay ? this.stepScores() : (g?.next?.over && g.next.final ? g.next.final.scores : g?.next?.scores)) || [];
  }
  // the phone's score strip: every player's score, a tap opens players and log
  renderMini() {
    const b = this.$('.mini-scores');
    if (!this.table || !this.colors) return;
    const sc = this.currentScores();
    const n = this.table.options.players;
    b.innerHTML = [...Array(n).keys()].map((i) => `<span class="ms${this.game?.next?.to_move === i && !this.game.next.over && this.table.status === 'playing' && !this.replay ? ' active' : ''}">${badge(this.colors[i], 14)}<b>${sc[i] ?? 0}</b></span>`).join('') + (this.chatUnread ? `<span class="ms-chat" data-testid="mini-unread" title="${esc(t('chat.unread', { n: this.chatUnread }))}">${BUBBLE} ${this.chatUnread}</span>` : '')
      + `<span class="ms-more">${t('sheet.more')}</span>`;
    b.title = t('sheet.toggle');
  }
  setTrack(on, save = false) {
    this.trackOn = on;
    this.node.classList.toggle('track-on', on);
    this.$('.track-toggle').setAttribute('aria-pressed', String(on));
    if (save) { try { localStorage.setItem('carc.track', on ? '1' : '0'); } catch { /* private mode */ } }
    this.board.apply();
  }

  // hovering or focusing a figure spot: the feature it would join, marked across
  // tiles, with its size, whether it is open, who is on it and its worth: the
  // engine's preview of the placement (one per square and rotation, kept)
  previewSpot(i) {
    const info = this.$('.preview-info');
    // with no spot under the pointer, the chosen one's feature (touch screens have no hover)
    if ((i === null || i === undefined) && this.sel.pending && this.sel.meeple) {
      const chosen = this.spotList().findIndex((x) => x.selected);
      if (chosen >= 0) i = chosen;
    }
    const ask = this.previewAsk = {};
    if (i === null || i === undefined || i < 0) {
      if (this.previewing) { this.board.mark(null); this.previewing = false; }
      if (info) { info.textContent = ''; delete info.dataset.kind; }
      return;
    }
    const s = this.spotList()[i];
    const n = this.game?.next, p = this.sel.pending;
    if (!s || !p) return;
    this.views.preview(n.step, { x: p.x, y: p.y, rot: p.rot, meeple: null }).then((pv) => {
      if (this.previewAsk !== ask || this.sel.pending !== p) return; // the pointer moved on
      const f = (pv.meeples || []).find((o) => o.kind === s.kind && o.at === s.at)?.feature;
      if (!f) return;
      this.board.mark(f.parts || [], f.kind, { pending: { x: p.x, y: p.y, tile: n.tile, rot: p.rot }, cls: 'preview' });
      this.previewing = true;
      const box = this.$('.preview-info');
      if (!box) return;
      box.innerHTML = this.previewText(s, f);
      // what is shown, for tests and assistive tools: the engine's numbers
      Object.assign(box.dataset, { kind: f.kind, tiles: f.tiles, value: f.value, done: f.done, holders: f.holders.join(','), at: s.at, figure: s.kind });
    }).catch(() => { /* no preview (the budget, a move meanwhile): no hint */ });
  }
  // A feature as the engine tells it, in words: its size and state, what it
  // is worth now or at the end, and who is on it (the players' weights).
  featureBits(f) {
    const tells = TELLS[f.kind] || {};
    const bits = [];
    if (tells.tiles !== false) bits.push(t('n.tiles', { n: f.tiles }));
    if (f.shields) bits.push(t('n.shields', { n: f.shields }));
    if (f.inn) bits.push(t('sz.inn'));
    if (f.cathedral) bits.push(t('sz.cathedral'));
    if (f.done) bits.push(t('pv.closed'));
    else if (f.open > 0 && tells.open !== false) bits.push(t('pv.open'));
    return bits;
  }
  previewText(s, f) {
    const bits = this.featureBits(f);
    bits.push(t(f.done ? 'pv.value.now' : 'pv.value.end', { n: f.value }));
    const held = (f.holders || []).map((w, pl) => [pl, w]).filter(([, w]) => w > 0);
    bits.push(held.length ? t('pv.held', { names: held.map(([pl, w]) => `${this.who(pl)} (${w})`).join(', ') }) : t('pv.free'));
    return `<strong>${esc(s.role)}</strong> · ${tOr(`feat.${f.kind}`, f.kind)}: ${bits.join(' · ')}`;
  }

  // a log line clicked: its tile or scored feature marked on the board (the
  // feature's parts from the engine: a scored feature does not grow after)
  markLine(l) {
    const x = Number(l.dataset.x), y = Number(l.dataset.y);
    if (!this.board.placed.has(`${x},${y}`)) return;
    const show = (parts, kind) => {
      this.board.mark(parts, kind);
      this.board.ensureVisible(x, y);
      this.node.querySelectorAll('.log .marked').forEach((m) => m.classList.remove('marked'));
      l.classList.add('marked');
    };
    if (l.dataset.mark === 'tile') show([{ x, y }], 'tile');
    else this.views.feature(x, y, l.dataset.at).then((f) => show(f.parts, f.kind)).catch(() => {});
  }

  logEntryHtml(e) {
    const kind = entryStep(e);
    const tile = `<span class="tname">${esc(this.tiles.name(e.tile))}</span>`;
    let h;
    if (kind !== tileStep()) h = this.decisionLine(e, kind);
    else if (e.discarded) h = t('log.discard', { name: this.who(e.player), tile });
    else {
      h = t('log.place', { name: this.who(e.player), tile });
      if (e.meeple) h += ' ' + putText(e.meeple.kind, this.tiles.segmentAt(e.tile, e.rot, e.meeple.at)?.kind);
      if (e.abbot_recalled) h += ' ' + t('log.recall');
      if (e.bonus) h += ' ' + t('log.bonus');
      if (e.goods) h += ' ' + t('log.goods', { goods: listJoin(Object.entries(e.goods).map(([k, v]) => `${v} ${tOr(`goods.${k}`, k)}`)) });
    }
    // a person's move the takeover bot made (docs/protocol.md "Log entry"):
    // marked, so that it does not read as the player's own
    if (e.takeover) h += ` <em class="takeover" data-testid="log-takeover">(${t(this.seatLeft(e.player) ? 'log.takeover.left' : 'log.takeover')})</em>`;
    const tg = kind !== tileStep() ? targetOf({ [kind]: e[kind] }) : null;
    const at = placedTile(e) ? e : tg && tg.word === undefined ? tg : null;
    const mark = at ? ` data-mark="tile" data-x="${at.x}" data-y="${at.y}" tabindex="0" role="button"` : '';
    const events = withHolders(e.events);
    let evs = '';
    for (const ev of events) if (!ev.final && eventShown(ev)) evs += this.evHtml(ev, e.player);
    let out = `<li data-turn="${e.turn}" data-step="${e.step}" data-kind="${esc(kind)}" data-tile="${esc(e.tile)}"><span class="tn">${e.turn + 1}</span> <span class="what"${mark}>${h}</span>${evs}</li>`;
    const fin = finalGroups(events);
    if (fin.length) out += `<li class="final-scoring" data-testid="log-final"><h4>${t('fin.title')}</h4>${fin.map((ev) => this.evHtml(ev, e.player)).join('')}</li>`;
    return out;
  }
  // whether the takeover bot plays seat i because the player gave it up
  // (resigned, or any takeover at a table without a clock), not because
  // its time ran out
  seatLeft(i) {
    const c = this.clock?.clock || this.table?.clock;
    return !c || c.mode === 'none' || !!c.seats?.[i]?.resigned;
  }
  // A decision of a step other than the tile step in words: the catalogue's
  // line for the decision's keys (log.<keys>: the square's tile, the role of
  // the figure it names, whose figures went home), else the engine's words.
  decisionLine(e, kind) {
    const who = this.who(e.player);
    const tg = targetOf({ [kind]: e[kind] });
    const key = tg ? `log.${[...tg.path, ...(tg.word !== undefined ? [tg.word] : [])].join('.')}` : '';
    const plain = t('log.decision', { name: who, text: esc(this.stepText(e, kind)) });
    if (!key || tOr(key, '') === '') return plain;
    const tile = tg.word === undefined ? (this.game.board || []).find((b) => b.x === tg.x && b.y === tg.y) : null;
    const feature = tile && tg.at ? this.tiles.segmentAt(tile.tile, tile.rot, tg.at)?.kind : null;
    const home = (e.events || []).filter((ev) => ev.returned !== undefined);
    const list = listJoin(home.map((ev) => t('decide.whose', { name: this.who(ev.player), role: esc(roleName(ev.returned, this.featureAt(ev))) })));
    let h = t(key, { name: who, tile: tile ? `<span class="tname">${esc(this.tiles.name(tile.tile))}</span>` : '', role: tg.at ? esc(roleName(tg.kind || this.figureKindAt(tg) || names.figures[0], feature)) : '', list });
    if (home.length && tOr(`${key}.home`, '') !== '') h += ' ' + t(`${key}.home`, { list });
    return h;
  }
  featureAt(p) {
    const b = (this.game.board || []).find((q) => q.x === p.x && q.y === p.y);
    return b && p.at ? this.tiles.segmentAt(b.tile, b.rot, p.at)?.kind : undefined;
  }
  figureKindAt(p) { return (this.game.figures || []).find((f) => f.x === p.x && f.y === p.y && f.at === p.at)?.kind; }
  evHtml(ev, mover) {
    const best = Math.max(...ev.points);
    const c = best > 0 ? this.colors[ev.points.indexOf(best)].hex : '#999';
    const m = ev.x !== undefined ? ` data-mark="feature" data-x="${ev.x}" data-y="${ev.y}" data-at="${ev.at}" data-kind="${ev.kind}" tabindex="0" role="button"` : '';
    return `<div class="ev${ev.final ? ' final' : ''}" data-kind="${ev.kind}" style="--pc:${c}"${m}>${eventText(ev, mover, (i) => this.who(i))}</div>`;
  }
  // the tile the game starts from (the board's first tile, placed by no one)
  startTiles() {
    const b = this.game.board;
    const s = b.filter((x) => x.player === null || x.player === undefined).slice(0, 1);
    return s.length ? s : [b[0]];
  }
  renderLog() {
    const ol = this.$('.log');
    const entries = this.replay ? this.game?.log.slice(0, this.step) || [] : this.game?.log || [];
    ol.innerHTML = entries.map((e) => this.logEntryHtml(e)).join('');
    this.scrollLog();
  }
  appendLog(e) {
    const ol = this.$('.log');
    ol.insertAdjacentHTML('beforeend', this.logEntryHtml(e));
    this.scrollLog();
  }
  scrollLog() {
    const ol = this.$('.log');
    ol.scrollTop = ol.scrollHeight;
    requestAnimationFrame(() => { ol.scrollTop = ol.scrollHeight; });
  }

  renderTilesLeft() {
    const b = this.$('.tiles-left'), v = this.$('.tiles-view');
    const n = this.game?.next;
    if (!n || this.replay || this.result() || this.table?.status === 'over') { b.classList.add('hidden'); v.classList.add('hidden'); return; }
    b.classList.remove('hidden');
    b.textContent = t('tiles.left', { n: n.tiles_left ?? 0 });
    const by = n.tiles_left_by_kind || {};
    const names = Object.keys(by).filter((k) => by[k] > 0).sort((a, b2) => a.localeCompare(b2, 'en', { numeric: true }));
    v.innerHTML = names.length ? `<p class="hint">${t('tiles.hint')}</p><div class="tile-grid">${names.map((k) => `<figure title="${esc(this.tiles.name(k))}">${this.tiles.svg(k, 0, 44)}<figcaption>${by[k]}</figcaption></figure>`).join('')}</div>` : `<p class="hint">${t('tiles.none')}</p>`;
  }

  renderWaiting() {
    const w = this.$('.waiting');
    if (!this.table || this.table.status !== 'open' || this.replay) { w.classList.add('hidden'); return; }
    w.classList.remove('hidden');
    const typing = w.querySelector('.join-name');
    const typed = typing ? typing.value : null, focused = typing && document.activeElement === typing;
    const n = this.table.options.players;
    const open = this.table.seats.filter((s) => s.kind === 'open').length;
    let h = `<div class="card"><h2>${t('wait.title')}</h2>`;
    const visitor = this.you === null && open > 0;
    if (visitor) {
      h += `<div class="join"><label>${t('join.name')} <input class="join-name" maxlength="${NAME_BYTES}" value="${esc(fitName(localStorage.getItem('carc.name') || '').name)}" data-testid="join-name" aria-describedby="join-name-cut"></label><button class="primary" data-act="join" data-testid="join">${t('join.button')}</button></div><small id="join-name-cut" class="name-cut${this.joinCut ? '' : ' hidden'}" data-testid="join-name-cut">${t('create.name.cut', { n: NAME_BYTES })}</small><p class="hint">${t('join.watching')}</p>`;
    }
    // a rematch's seats kept for the old game's players (docs/protocol.md,
    // "Rematch"): the table waits for them to accept, not for a link to be sent
    const kept = this.table.seats.map((s, i) => (s.kind === 'human' && s.reserved ? i : -1)).filter((i) => i >= 0);
    if (kept.length) h += `<p data-testid="wait-rematch">${t('wait.rematch', { n: kept.length, names: listJoin(kept.map((i) => `<strong>${esc(this.name(i))}</strong>`)) })}</p>`;
    if (open > 0 || !kept.length) h += `<p>${t(visitor ? 'wait.text.guest' : 'wait.text', { n: open })}</p><div class="invite"><input readonly value="${esc(this.invite())}" data-testid="invite-link" aria-label="${t('invite.label')}"><button data-act="copy" class="primary">${t('invite.copy')}</button></div>`;
    h += '<ul class="seats">';
    for (let i = 0; i < n; i++) h += `<li>${badge(this.colors[i], 16)} ${esc(this.name(i))}${i === this.you ? ` <em>(${t('players.you')})</em>` : ''}</li>`;
    h += '</ul>';
    w.innerHTML = h + '</div>';
    if (this.you !== null && open > 0) mountInvite(w.querySelector('.card'), this.id); // friends.js
    const again = w.querySelector('.join-name');
    if (again && typed !== null) { again.value = typed; if (focused) again.focus(); } else if (again && !typing) again.focus();
    again?.addEventListener('keydown', (e) => { if (e.key === 'Enter') this.join(); });
    // maxlength counts UTF-16 units; fitName holds the name to the server's 63 bytes (as the lobby's form)
    again?.addEventListener('input', () => {
      const { name, cut } = fitName(again.value);
      if (cut) again.value = name;
      this.joinCut = cut;
      w.querySelector('[data-testid=join-name-cut]')?.classList.toggle('hidden', !cut);
    });
  }

  async join() {
    const input = this.$('.join-name');
    const name = fitName((input?.value || '').trim()).name.trim() || t('player.guest');
    localStorage.setItem('carc.name', name);
    try {
      const r = await api.join(this.id, name);
      seats.set(this.id, r.seat, r.token);
      this.token = r.token;
      this.live.token = r.token;
      if (!this.live.send({ type: 'auth', token: r.token })) this.live.kick();
    } catch (e) { toast(tOr(`err.${e.code}`, e.message), 'error'); }
  }

  renderInfo() {
    const box = this.$('.table-info');
    if (!this.table) return;
    const o = this.table.options;
    let h = `<h3>${t('info.title')}</h3><ul class="opts">${optionsSummary(o).map((s) => `<li>${s}</li>`).join('')}</ul>`;
    h += `<p class="links">`;
    if (!this.replay && this.table.status !== 'over') h += `<span class="invite small"><input readonly value="${esc(this.invite())}" data-testid="invite-link" aria-label="${t('invite.label')}"><button data-act="copy">${t('invite.copy')}</button></span>`;
    h += `<a href="/help/${document.documentElement.lang || 'en'}.html?table=${this.id}" target="_blank" rel="noopener">${t('info.help')}</a> · <a href="${api.recordUrl(this.id)}" download="carc-${this.id}.json" data-testid="download">${t('info.download')}</a>`;
    if (!this.replay && this.table.status === 'over') h += ` · <a href="/?replay=${this.id}">${t('info.replay')}</a>`;
    if (this.replay) h += ` · <a href="/?table=${this.id}">${t('info.live')}</a>`;
    box.innerHTML = h + '</p>';
  }

  renderFinal() {
    const box = this.$('.final-box');
    const f = this.result();
    const showIt = f && (!this.replay || this.step === this.game.log.length);
    if (!showIt) { box.classList.add('hidden'); return; }
    const players = this.table.options.players;
    const kinds = names.score_kinds.filter((k) => f.by_kind.some((b) => b[k] !== undefined));
    const w = f.winners || [];
    let h = `<div class="card"><button class="close" data-act="closefinal" aria-label="${t('act.close')}">×</button><h2>${t('final.title')}</h2>`;
    if (f.resigned !== null) h += `<p class="resigned" data-testid="final-resigned">${t('final.resigned', { name: this.who(f.resigned) })}</p>`;
    h += `<p class="winners" data-testid="winners">${w.length > 1 ? t('final.shared', { names: listJoin(w.map((i) => this.who(i))) }) : t('final.winner', { name: this.who(w[0]) })}</p>`;
    const rl = this.ratingLine();
    h += `<p class="rating-line${rl ? '' : ' hidden'}" data-testid="final-rating">${rl}</p>`;
    const order = [...Array(players).keys()].sort((a, b) => f.scores[b] - f.scores[a]);
    const crown = (i) => (w.includes(i) ? ' <span class="crown" aria-hidden="true">★</span>' : '');
    const cell = (i, k) => `<td data-p="${i}" data-k="${k}">${f.by_kind[i][k] ?? 0}</td>`;
    const total = (i) => `<td class="total" data-p="${i}" data-k="total" data-testid="final-score-${i}">${f.scores[i]}</td>`;
    // every column in view: players as rows on a wide screen, as columns on a narrow one
    // (760: the board beside the two columns of a 1280 px window is 700 px)
    const narrow = this.narrow.matches || this.$('.board-wrap').clientWidth < 760;
    if (!narrow) {
      h += `<table class="final-table"><thead><tr><th>${t('final.player')}</th>${kinds.map((k) => `<th title="${tOr(`kind.${k}`, k)}">${tOr(`kind.${k}`, k)}</th>`).join('')}<th>${t('final.total')}</th></tr></thead><tbody>`;
      for (const i of order) h += `<tr class="${w.includes(i) ? 'win' : ''}"><td>${this.who(i)}${crown(i)}</td>${kinds.map((k) => cell(i, k)).join('')}${total(i)}</tr>`;
    } else {
      // a column is too narrow for a name ("Keltainen botti (helppo)"): the names stand
      // whole above the table, each with the colour and mark that heads its column
      h += `<ol class="final-legend" data-testid="final-legend">${order.map((i) => `<li class="${w.includes(i) ? 'win' : ''}" data-p="${i}">${badge(this.colors[i], 16)} <span class="pn">${esc(this.name(i))}</span>${crown(i)}</li>`).join('')}</ol>`;
      h += `<table class="final-table tall"><thead><tr><th></th>${order.map((i) => `<th class="pcol${w.includes(i) ? ' win' : ''}" title="${esc(this.name(i))}" aria-label="${esc(this.name(i))}">${badge(this.colors[i], 16)}${crown(i)}</th>`).join('')}</tr></thead><tbody>`;
      for (const k of kinds) h += `<tr><th scope="row">${tOr(`kind.${k}`, k)}</th>${order.map((i) => cell(i, k)).join('')}</tr>`;
      h += `<tr class="sum"><th scope="row">${t('final.total')}</th>${order.map((i) => total(i)).join('')}</tr>`;
    }
    h += `</tbody></table><p class="links"><a href="${api.recordUrl(this.id)}" download="carc-${this.id}.json">${t('info.download')}</a>`;
    if (!this.replay) h += ` · <a href="/?replay=${this.id}" data-testid="to-replay">${t('info.replay')}</a>`;
    h += ` · <a href="/">${t('nav.lobby')}</a></p></div>`;
    box.innerHTML = h;
    box.classList.remove('hidden');
    this.guide?.update(); // the guided game's last tip goes below these scores
  }

  // One line on the final scores: whether the game counted for the ratings
  // and, if not, why (the finished table's "rating", worked out by the
  // server: docs/protocol.md "Table description"). '' where ratings do not
  // matter: no seat with an account, pass-and-play, a table made unrated or
  // the guided game (the person chose it), or before the server has said.
  ratingLine() {
    const tb = this.table, r = tb?.rating;
    if (!r || tb.options?.pass_and_play || !tb.seats?.some((s) => s.account)) return '';
    if (r.rated) return t('final.rating.rated');
    switch (r.why) {
      case 'unrated_table': case 'tutorial': return '';
      case 'few_moves': {
        const own = r.own_moves || [], min = r.min_moves;
        const short = own.map((n, i) => i).filter((i) => own[i] < min);
        if (short.length === 1) return t('final.rating.few', { name: this.who(short[0]), n: own[short[0]], min });
        return t('final.rating.few.many', { n: min, names: listJoin(short.map((i) => this.who(i))) });
      }
      case 'custom_pile': return t('final.rating.pile');
      case 'guest': return t('final.rating.guest');
      case 'bot_unrated': return t('final.rating.bot');
      default: return t('final.rating.none');
    }
  }

  // --- replay ---------------------------------------------------------------
  async startReplay() {
    try {
      const st = await api.state(this.id);
      this.table = st.table; this.game = st.game;
      this.start0 = this.startTiles();
      this.learnTexts(st.game.next);
      // a connection of its own, watching, for the engine's views (views.js)
      this.viewLive = new Live(this.id, null, {
        onMessage: (m) => this.views.onMessage(m),
        onStatus: (s) => { if (s === 'open') this.views.flush(); },
      });
      const q = Number(new URLSearchParams(location.search).get('step'));
      this.step = Number.isFinite(q) && q > 0 ? Math.min(q, st.game.log.length) : 0;
      this.renderAll(true);
      // every finished game: played to its end, or ended by a resignation
      // (the table is over, the engine's game is not)
      if (st.game.next?.over || st.table.status === 'over') this.analysis = new AnalysisPanel(this, this.$('.analysis'));
    } catch (e) {
      this.root.innerHTML = `<div class="card error"><h2>${t('replay.title')}</h2><p>${esc(e.message)}</p><a href="/">${t('nav.lobby')}</a></div>`;
    }
  }
  // board and figures after `step` steps, read from the log: each entry
  // says what its decision put on the board (a tile, a figure on it) and
  // which figures went home (its "returned" events, with where they stood)
  simulate(step) {
    const log = this.game.log;
    const board = [...this.start0];
    const map = new Map(board.map((b) => [`${b.x},${b.y}`, b]));
    const figs = [];
    // the pieces of no player (Princess & Dragon): where each log entry
    // says they stand after its step (dragon_at, fairy_at); a figure a
    // decision put elsewhere than on its tile (the magic portal) from the
    // decision's place
    let pieces = null;
    for (let i = 0; i < step; i++) {
      const e = log[i];
      const kind = entryStep(e);
      const tg = kind !== tileStep() ? targetOf({ [kind]: e[kind] }) : null;
      if (tg && tg.word === undefined && tg.kind && tg.at) {
        const b = map.get(`${tg.x},${tg.y}`);
        figs.push({ player: e.player, kind: tg.kind, x: tg.x, y: tg.y, at: tg.at, feature: b ? this.tiles.segmentAt(b.tile, b.rot, tg.at)?.kind : undefined });
      }
      if ('dragon_at' in e) pieces = { dragon: e.dragon_at, fairy: e.fairy_at ?? null, move: null };
      if (placedTile(e)) {
        const tile = { x: e.x, y: e.y, tile: e.tile, rot: e.rot, player: e.player };
        board.push(tile); map.set(`${e.x},${e.y}`, tile);
        if (e.meeple) {
          const seg = this.tiles.segmentAt(e.tile, e.rot, e.meeple.at);
          figs.push({ player: e.player, kind: e.meeple.kind, x: e.x, y: e.y, at: e.meeple.at, feature: seg?.kind });
        }
      }
      for (const ev of e.events || []) {
        if (ev.returned === undefined) continue;
        const k = figs.findIndex((f) => f.player === ev.player && f.kind === ev.returned && f.x === ev.x && f.y === ev.y && f.at === ev.at);
        if (k >= 0) figs.splice(k, 1);
      }
    }
    return { board, map, figs, pieces };
  }
  stepScores() {
    const n = this.table.options.players;
    if (!this.game) return Array(n).fill(0);
    if (this.step === this.game.log.length && this.game.next.over && this.game.next.final) return this.game.next.final.scores;
    return this.step ? this.game.log[this.step - 1].scores : Array(n).fill(0);
  }
  atEnd() { return this.step === this.game.log.length && this.game.next?.over; }
  // the figures each player had in supply after `step` steps: the log
  // entry's (the engine's count after the step); before the first step,
  // every figure a player owns (in supply now or on the board now)
  stepSupply() {
    if (this.step > 0) return this.game.log[this.step - 1].supply || [];
    return (this.game.supply || []).map((s, p) => {
      const all = { ...s };
      for (const f of this.game.figures || []) if (f.player === p && all[f.kind] !== undefined) all[f.kind]++;
      return all;
    });
  }
  // (returns the figure nodes new on the board)
  renderStep(refit) {
    this.sim = this.simulate(this.step);
    this.board.setBoard(this.sim.board);
    const lastE = this.step ? this.game.log[this.step - 1] : null;
    this.board.setLast(placedTile(lastE) ? lastE : null);
    const made = this.board.setFigures(this.atEnd() && this.game.figures ? this.game.figures : this.sim.figs, (p) => this.colors[p]);
    this.board.setPieces(this.atEnd() ? this.pieces() : this.sim.pieces);
    // the view frames the board as it stands at this step, as it grows (a
    // view the person zoomed or dragged stays theirs until "fit")
    if (refit || !this.board.userMoved) this.board.fit();
    return made;
  }
  goStep(k) {
    if (!this.game) return;
    const n = this.game.log.length;
    k = Math.max(0, Math.min(n, k));
    const forward = k === this.step + 1;
    // one step forward moves as in a live game (from the replay's tile
    // box, which shows the tile turned as laid), after what still plays;
    // any other jump shows at once
    if (!forward) this.motion.finish();
    const prevFigs = this.sim?.figs || [];
    const e = forward ? this.game.log[k - 1] : null;
    const wait = forward ? this.motion.slot() : null;
    const from = placedTile(e) && wait !== null ? this.motion.source(e.player, true) : null;
    this.step = k;
    const made = this.renderStep(false);
    const home = forward && wait !== null ? this.homeCopies(e, prevFigs) : [];
    this.renderTurn(); this.renderPlayers(); this.renderLog(); this.renderFinal(); this.renderReplayBar();
    if (forward) {
      const tileNode = placedTile(e) ? this.board.tileAt(e.x, e.y) : null;
      const at = this.motion.step({ e, tileNode, from, newFigs: made, home, scores: this.scores(e), wait });
      this.flashEvents(e, at);
    }
    this.analysis?.onStep(k);
    if (k === n) this.stopPlay();
  }
  togglePlay() {
    if (this.playing) { this.stopPlay(); return; }
    if (this.step >= this.game.log.length) this.goStep(0);
    // a step every 0.9 s, or once the last one's motion has played
    // (its points arrived), whichever is later
    const next = () => Math.max(900, this.motion.until - performance.now());
    const tick = () => {
      this.goStep(this.step + 1);
      if (this.playing) this.playing = setTimeout(tick, next());
    };
    this.playing = setTimeout(tick, 900);
    this.renderReplayBar();
  }
  stopPlay() { clearTimeout(this.playing); this.playing = null; this.renderReplayBar(); }
  // "turn k of n": the turn of the step shown (a turn may hold several steps:
  // the slider goes by steps, the words by turns)
  replayLine() {
    const log = this.game?.log || [];
    const turnOf = (i) => (i > 0 ? log[i - 1].turn + 1 : 0);
    return `<strong>${t('replay.title')}</strong> · <span data-testid="replay-step" data-step="${this.step}">${t('replay.step', { k: turnOf(this.step), n: turnOf(log.length) })}</span>`;
  }
  renderReplayBar() {
    const bar = this.$('.replay-bar');
    if (!this.replay || !this.game) { bar.classList.add('hidden'); return; }
    bar.classList.remove('hidden');
    const n = this.game.log.length;
    const icon = (d) => `<svg viewBox="0 0 16 16" width="16" height="16" aria-hidden="true"><path d="${d}" fill="currentColor"/></svg>`;
    const I = { first: 'M3 2h2v12H3zM14 2v12L6 8z', prev: 'M12 2v12L4 8z', next: 'M4 2v12l8-6z', last: 'M11 2h2v12h-2zM2 2v12l8-6z', play: 'M4 2v12l10-6z', pause: 'M3 2h4v12H3zM9 2h4v12H9z' };
    bar.innerHTML = `<div class="row"><button data-act="first" aria-label="${t('replay.first')}" title="${t('replay.first')}">${icon(I.first)}</button><button data-act="prev" aria-label="${t('replay.prev')}" title="${t('replay.prev')}" data-testid="replay-prev">${icon(I.prev)}</button><button data-act="play" class="primary" data-testid="replay-play">${icon(this.playing ? I.pause : I.play)} ${this.playing ? t('replay.pause') : t('replay.play')}</button><button data-act="next" aria-label="${t('replay.next')}" title="${t('replay.next')}" data-testid="replay-next">${icon(I.next)}</button><button data-act="last" aria-label="${t('replay.last')}" title="${t('replay.last')}" data-testid="replay-last">${icon(I.last)}</button></div>
      <input type="range" min="0" max="${n}" value="${this.step}" class="replay-range" aria-label="${t('replay.slider')}" data-testid="replay-range">
      <p class="keys">${t('replay.keys')}</p>`;
    bar.querySelector('input').addEventListener('input', (e) => this.goStep(Number(e.target.value)));
    this.$('.turn-line').innerHTML = this.replayLine();
    // the tile box: the tile of the last turn shown, or while the analysis
    // shows a mistake (the position before it) that turn's own tile
    const sel = this.analysis?.selected;
    const se = sel ? this.game.log[sel - 1] : null;
    const le = se || (this.step ? this.game.log[this.step - 1] : null);
    const hand = this.$('.hand');
    if (le) {
      hand.classList.remove('hidden');
      hand.querySelectorAll('.rot').forEach((b) => b.classList.add('hidden'));
      const label = se ? t('an.hand', { k: le.turn + 1, name: this.who(le.player), tile: esc(this.tiles.name(le.tile)) }) : `${this.who(le.player)}: ${esc(this.tiles.name(le.tile))}`;
      const box = this.$('.hand-tile');
      box.innerHTML = this.tiles.svg(le.tile, le.rot || 0, 84) + `<div class="hand-name">${label}</div>`;
      box.dataset.tile = le.tile;
      box.dataset.turn = se ? sel : this.step;
    } else hand.classList.add('hidden');
  }
}
