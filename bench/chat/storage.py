"""What a finished game with chat costs in storage: a two-player base game
(71 turns, HTTP moves) with 50 chat lines of 40 characters, then the
database VACUUMed and measured with SQLite's dbstat (payload bytes and pages
per table). Run: CARC=build/release/carc python3 bench/chat/storage.py
"""
import os, sys, sqlite3, shutil, tempfile
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'py'))
from carcserver import Server, first_legal
d = tempfile.mkdtemp(prefix='carc-measure-')
db = os.path.join(d, 'm.sqlite')
srv = Server(db, extra=['--chat-rate', '0'])
try:
    c = srv.create(name='Alice', seats=[{}, {}], seed=42)
    tid = c['id']; toks = {0: c['token'], 1: srv.join(tid, 'Bob')['token']}
    w = srv.ws(tid, toks[0])
    w.recv_type(['state'])
    lines = 0
    for turn in range(200):
        st = srv.state(tid); nxt = st['game']['next']
        if nxt.get('over'): break
        code, r, _ = srv.post('/api/tables/%s/move' % tid, dict(first_legal(nxt), turn=nxt['turn']), token=toks[nxt['to_move']])
        assert code == 200, r
        if lines < 50:
            w.send({'type': 'chat', 'text': ('line %02d: nice move, that city is mine now!' % lines)[:40]})
            w.recv_type(['chat']); lines += 1
    assert srv.state(tid)['game']['next'].get('over')
    w.close()
finally:
    srv.stop()
con = sqlite3.connect(db)
con.execute('VACUUM')
rows = con.execute("SELECT name, sum(pgsize), count(*), sum(payload), sum(unused) FROM dbstat GROUP BY name ORDER BY 2 DESC").fetchall()
chat_payload = con.execute("SELECT count(*), sum(length(CAST(text AS BLOB)) + length(name) + length(game_id) + 8 + 8 + 1) FROM chat").fetchone()
moves = con.execute("SELECT count(*), sum(length(entry)) FROM moves").fetchone()
print('turns', moves[0], 'move entry bytes', moves[1])
print('chat lines, payload bytes', chat_payload)
for r in rows: print(r)
print('file bytes after VACUUM', os.path.getsize(db))
con.execute('DELETE FROM chat'); con.commit(); con.execute('VACUUM')
print('file bytes after VACUUM without the chat', os.path.getsize(db))
shutil.rmtree(d)
