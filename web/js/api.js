// The server's HTTP API and the live WebSocket connection (docs/protocol.md).

export class ApiError extends Error {
  constructor(status, code, message) { super(message || code); this.status = status; this.code = code; }
}

async function call(method, path, body, token) {
  const headers = {};
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  if (token) headers['X-Carc-Token'] = token;
  let r;
  try {
    r = await fetch(path, { method, headers, body: body === undefined ? undefined : (typeof body === 'string' ? body : JSON.stringify(body)) });
  } catch (e) {
    throw new ApiError(0, 'network', e.message);
  }
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch { data = null; }
  if (!r.ok) {
    const err = data && data.error ? data.error : { code: 'http', message: `HTTP ${r.status}` };
    throw new ApiError(r.status, err.code, err.message);
  }
  return data;
}

export const api = {
  options: () => call('GET', '/api/options'),
  tables: (status) => call('GET', '/api/tables' + (status ? `?status=${status}` : '')),
  // finished games from the server's store, newest first; `before`: the last id of the page before
  finished: (before, limit) => call('GET', `/api/tables?status=over${limit ? `&limit=${limit}` : ''}${before ? `&before=${encodeURIComponent(before)}` : ''}`),
  table: (id) => call('GET', `/api/tables/${id}`),
  create: (opts) => call('POST', '/api/tables', opts),
  join: (id, name, seat) => call('POST', `/api/tables/${id}/join`, seat === undefined ? { name } : { name, seat }),
  state: (id, token) => call('GET', `/api/tables/${id}/state`, undefined, token),
  move: (id, move, token) => call('POST', `/api/tables/${id}/move`, move, token),
  // training against bots: take back `moves` of the seat's own moves
  undo: (id, moves, token) => call('POST', `/api/tables/${id}/undo`, { moves }, token),
  record: (id) => call('GET', `/api/tables/${id}/record`),
  upload: (text) => call('POST', '/api/records', text),
  recordUrl: (id) => `/api/tables/${id}/record`,
  // a finished game's analysis: what the server has (GET), or asked for (POST)
  analysis: (id) => call('GET', `/api/tables/${id}/analysis`),
  analyse: (id) => call('POST', `/api/tables/${id}/analysis`),
};

// Seats this browser holds: table id -> {seat, token}. Kept so that a reload
// or a dropped connection finds its seat again.
const SEATS = 'carc.seats';
export const seats = {
  all() { try { return JSON.parse(localStorage.getItem(SEATS) || '{}'); } catch { return {}; } },
  get(id) { return this.all()[id] || null; },
  set(id, seat, token) {
    const a = this.all();
    a[id] = { seat, token, at: Date.now() };
    // keep the 50 most recent
    const keys = Object.keys(a).sort((x, y) => a[y].at - a[x].at).slice(0, 50);
    localStorage.setItem(SEATS, JSON.stringify(Object.fromEntries(keys.map((k) => [k, a[k]]))));
  },
};

// The heartbeat of a live connection: a ping every pingMs; a ping with no
// answer (the pong, or any other message) within answerMs, or a handshake
// not done within pingMs + answerMs, gives the connection up, and a new one
// is made at once (a frozen server, or a proxy holding a dead connection
// open, is noticed within pingMs + answerMs; behind the shipped nginx site,
// docs/nginx/, the new one is on another process within 5 s). retryMs: the
// pause before the next try when a connection fails, doubling up to
// maxRetryMs. tests/py/test_pg_nginx.py reads these numbers.
export const LIVE = { pingMs: 1500, answerMs: 1000, retryMs: 500, maxRetryMs: 8000 };

// Live connection to one table. Reconnects by itself with a growing pause,
// and at once when the browser comes back online or the tab is shown again.
// Callbacks: onMessage(msg), onStatus('open'|'closed'|'connecting').
// The seat's token never goes in the URL (the server refuses that: URLs end
// up in logs). The table's cookie carries it on the handshake; when the
// first state says we hold no seat though we have a token (the cookie is
// gone), the token follows in an auth message.
export class Live {
  constructor(tableId, token, { onMessage, onStatus }) {
    this.id = tableId; this.token = token;
    this.onMessage = onMessage; this.onStatus = onStatus;
    this.delay = LIVE.retryMs; this.closed = false; this.ws = null; this.ref = 0;
    this.kick = () => { if (!this.closed && (!this.ws || this.ws.readyState > 1)) { clearTimeout(this.timer); this.connect(); } };
    window.addEventListener('online', this.kick);
    document.addEventListener('visibilitychange', this.kick);
    this.connect();
  }
  connect() {
    const proto = location.protocol === 'https:' ? 'wss' : 'ws';
    this.onStatus?.('connecting');
    let ws;
    try { ws = new WebSocket(`${proto}://${location.host}/ws/${this.id}`); } catch { this.retry(); return; }
    this.ws = ws;
    let authed = false;
    this.stopBeat();
    this.deadline = setTimeout(() => this.giveUp(ws), LIVE.pingMs + LIVE.answerMs);
    ws.onopen = () => {
      this.delay = LIVE.retryMs;
      this.onStatus?.('open');
      clearTimeout(this.deadline); this.deadline = null;
      this.pinger = setInterval(() => {
        if (this.ws !== ws || !this.send({ type: 'ping' })) return;
        if (!this.deadline) this.deadline = setTimeout(() => this.giveUp(ws), LIVE.answerMs);
      }, LIVE.pingMs);
    };
    ws.onmessage = (ev) => {
      if (this.ws === ws) { clearTimeout(this.deadline); this.deadline = null; }
      let msg;
      try { msg = JSON.parse(ev.data); } catch { return; }
      if (msg.type === 'state' && !msg.you && this.token && !authed && this.ws === ws) {
        authed = true;
        this.send({ type: 'auth', token: this.token });
      }
      this.onMessage?.(msg);
    };
    ws.onclose = () => {
      if (this.ws !== ws) return;
      this.stopBeat();
      this.onStatus?.('closed');
      this.retry();
    };
    ws.onerror = () => { try { ws.close(); } catch { /* closing anyway */ } };
  }
  stopBeat() {
    clearInterval(this.pinger); clearTimeout(this.deadline);
    this.pinger = null; this.deadline = null;
  }
  // No answer in time: the socket is dropped without waiting for its close
  // (a frozen server never answers the close either), and a new one made:
  // at once when the dropped one had been open, else after the pause.
  giveUp(ws) {
    if (this.ws !== ws) return;
    const wasOpen = ws.readyState === 1;
    this.stopBeat();
    this.ws = null;
    ws.onclose = ws.onmessage = ws.onerror = ws.onopen = null;
    try { ws.close(); } catch { /* dropped anyway */ }
    this.onStatus?.('closed');
    if (wasOpen && !this.closed) this.connect(); else this.retry();
  }
  retry() {
    if (this.closed) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => this.connect(), this.delay);
    this.delay = Math.min(this.delay * 2, LIVE.maxRetryMs);
  }
  send(msg) {
    if (!this.ws || this.ws.readyState !== 1) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }
  request(msg) { msg.ref = ++this.ref; return this.send(msg) ? msg.ref : null; }
  close() {
    this.closed = true;
    clearTimeout(this.timer); this.stopBeat();
    window.removeEventListener('online', this.kick);
    document.removeEventListener('visibilitychange', this.kick);
    if (this.ws) { const ws = this.ws; this.ws = null; ws.close(); }
  }
}
