"""carc - a Python binding of libcarc, the Carcassonne rules engine.

Standard library only: the engine is reached through ctypes over the shared
library libcarc.so (build it with ``make`` at the repository root; see
docs/python.md).

A small example::

    import random, carc

    g = carc.Game(players=3, expansions=["inns-cathedrals"], seed=7)
    while not g.over:
        move = random.choice(g.legal_moves())
        g.apply(move)
    print(g.scores(), g.scores_by_kind())
    text = g.record()                      # carc-record-1 JSON
    again = carc.Game.replay(text)         # checked turn by turn
    assert again.scores() == g.scores()

Where the library comes from (the first that exists wins):

1. the environment variable ``CARC_LIB`` (a path to libcarc.so; if it is
   set, it must name a loadable file);
2. ``build/release/libcarc.so`` under the repository root (the folder above
   this file's folder);
3. the system's library path (``ctypes.util.find_library("carc")``).

:func:`load_library` may also be called with an explicit path before any
other use. The library is loaded on first use, so importing this module
never fails because the library is missing; the first call that needs it
raises :class:`LibraryNotFound` with instructions.

Games live in ctypes buffers of ``carc_game_size()`` bytes: the C struct is
opaque here (its layout is never mirrored), so this module keeps working
when the engine's state changes shape. Only the small plain structs of the
public API are mirrored: ``carc_rules`` and the scoring events
(``carc_event``/``carc_events``).

Moves are 32-bit integers (see :class:`Move` for the bit layout); every
function that takes a move accepts a :class:`Move` or a plain ``int``.

A :class:`Game` is not safe to use from two threads at once, but different
games may be used from different threads (the engine keeps no mutable
globals and ctypes releases the GIL during calls).
"""

import ctypes
import ctypes.util
import json
import os
import threading

__all__ = [
    "CarcError", "ArgumentError", "IllegalMove", "GameOverError", "RecordError",
    "LibraryNotFound", "load_library", "library_path",
    "Move", "Event", "Game", "Tile", "Segment",
    "tile_names", "tile_type", "tile_name", "tile", "port_name", "port_parse",
    "rules_pile", "start_tile",
    "FIGURES", "FEATURES", "SCORE_KINDS", "FARM_SCORINGS", "EXPANSIONS", "GOODS",
    "TILE_SETS", "MAX_PLAYERS", "MAX_MOVES", "MOVE_DISCARD", "MOVE_RECALL",
    "MOVE_NONE", "SEG_NONE", "PORT_CENTRE", "PORT_INNER",
]

# ---- constants (from include/carc.h) -----------------------------------------

MAX_PLAYERS = 6
"""Most players a game can have (6 only with an Inns & Cathedrals option)."""
MAX_SEGS = 10
"""Most segments on one tile."""
MAX_TILES = 128
"""Most tiles on the board, the start tile included."""
MAX_FRONTIER = 264
"""Most empty squares next to the board."""
MAX_MOVES = 4096
"""An upper bound on the legal moves for one tile."""
MAX_PLACEMENTS = MAX_FRONTIER * 4
"""An upper bound on the placements of one tile."""
MAX_EVENTS = 64
"""Most scoring events one move can report."""
TILE_TYPES = 88
"""Number of tile types the engine knows."""
PORT_CENTRE = 12
"""Port "C": the cloister or garden in the middle of a tile."""
PORT_INNER = 13
"""Port "I": a field that touches no edge."""
ERRMSG_SIZE = 160
"""Size of the engine's error message buffers."""

MOVE_DISCARD = 0x80000000
"""The move that sets aside a tile that fits nowhere."""
MOVE_RECALL = 0x08000000
"""Bit of a move that takes the abbot back instead of placing a figure."""
MOVE_NONE = 0xFFFFFFFF
"""No move."""
SEG_NONE = 15
"""The segment field of a move that puts no figure."""

FIGURES = ("follower", "big", "builder", "pig", "abbot")
"""Figure names, indexed by the engine's carc_figure values."""
FEATURES = ("city", "road", "field", "cloister", "garden", "river")
"""Feature (segment) kind names, indexed by carc_feature_kind."""
SCORE_KINDS = ("road", "city", "cloister", "farm", "garden", "goods")
"""Score kind names, indexed by carc_score_kind (the keys of records)."""
FARM_SCORINGS = ("international", "city-once", "first-edition")
"""Farm scoring editions, indexed by carc_farm_scoring."""
EXPANSIONS = ("river", "inns-cathedrals", "inns-cathedrals-tiles",
              "traders-builders", "abbot")
"""Expansion names; the i-th is bit 1 << i of carc_rules.expansions."""
GOODS = (None, "wine", "grain", "cloth")
"""Goods names, indexed by carc_goods (0 is none)."""
TILE_SETS = ("base", "river", "inns-cathedrals", "traders-builders")
"""Tile set names, indexed by carc_tileset."""

SEGF_SHIELD = 0x01
"""Segment flag: a city segment with a shield (pennant)."""
SEGF_INN = 0x02
"""Segment flag: a road segment with an inn."""
SEGF_CATHEDRAL = 0x04
"""Segment flag: a city segment with a cathedral."""

# carc_status
OK = 0
ERR_ARG = 1
ERR_GAME_OVER = 2
ERR_ILLEGAL = 3
ERR_PARSE = 4
ERR_RECORD = 5
ERR_NOMEM = 6
STATUS_NAMES = ("ok", "bad argument", "game over", "illegal move",
                "parse error", "record error", "out of memory")
"""Short names of the engine's status codes."""


# ---- errors ----------------------------------------------------------------------

class CarcError(Exception):
    """An error reported by the engine.

    ``status`` is the engine's carc_status code (see ``STATUS_NAMES``) and
    ``message`` its message (``str(e)`` is the message too).
    """

    def __init__(self, message, status=None):
        """Sets the fields; see the class docstring."""
        super().__init__(message)
        self.message = message
        self.status = status


class ArgumentError(CarcError, ValueError):
    """A bad argument: bad rules, a bad custom pile, a tile that cannot be
    drawn now (CARC_ERR_ARG)."""


class IllegalMove(CarcError):
    """A move that breaks a rule (CARC_ERR_ILLEGAL); the game is unchanged.

    ``move`` holds the offending move (a :class:`Move`).
    """

    def __init__(self, message, status=ERR_ILLEGAL, move=None):
        """Sets the fields; see the class docstring."""
        super().__init__(message, status)
        self.move = move


class GameOverError(IllegalMove):
    """A move was made after the end of the game (CARC_ERR_GAME_OVER)."""


class RecordError(CarcError):
    """A record could not be read (CARC_ERR_PARSE: not JSON or not of the
    format) or is wrong (CARC_ERR_RECORD); the message names the turn, the
    key and what was expected."""


class LibraryNotFound(OSError):
    """libcarc.so could not be found or loaded."""


# ---- the library --------------------------------------------------------------------

_REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_lib = None
_lib_path = None
_lib_lock = threading.Lock()

_HOW_TO_BUILD = (
    "build it with `make` at the repository root (it makes "
    "build/release/libcarc.so; it needs a C11 compiler and libjansson-dev), "
    "or set CARC_LIB to the path of a libcarc.so, or install it "
    "(`make install`)")


class _Rules(ctypes.Structure):
    """Mirror of carc_rules (4 ints and an unsigned)."""
    _fields_ = [("players", ctypes.c_int),
                ("farmers", ctypes.c_int),
                ("farm_scoring", ctypes.c_int),
                ("small_city", ctypes.c_int),
                ("expansions", ctypes.c_uint)]


class _Event(ctypes.Structure):
    """Mirror of carc_event."""
    _fields_ = [("kind", ctypes.c_uint8),
                ("final", ctypes.c_uint8),
                ("tiles", ctypes.c_uint8),
                ("tile", ctypes.c_uint8),
                ("seg", ctypes.c_uint8),
                ("pad", ctypes.c_uint8 * 3),
                ("points", ctypes.c_int16 * MAX_PLAYERS)]


class _Events(ctypes.Structure):
    """Mirror of carc_events."""
    _fields_ = [("n", ctypes.c_int),
                ("ev", _Event * MAX_EVENTS)]


class _FeatureInfo(ctypes.Structure):
    """Mirror of carc_feature_info."""
    _fields_ = [("id", ctypes.c_uint16),
                ("kind", ctypes.c_uint8),
                ("open", ctypes.c_uint8),
                ("tiles", ctypes.c_uint8),
                ("shields", ctypes.c_uint8),
                ("flags", ctypes.c_uint8),
                ("done", ctypes.c_uint8),
                ("neighbours", ctypes.c_uint8),
                ("pigs", ctypes.c_uint8),
                ("weight", ctypes.c_uint8 * MAX_PLAYERS),
                ("figures", ctypes.c_uint8 * MAX_PLAYERS)]


class _FigureInfo(ctypes.Structure):
    """Mirror of carc_figure_info."""
    _fields_ = [("owner", ctypes.c_int),
                ("kind", ctypes.c_int),
                ("tile", ctypes.c_int),
                ("seg", ctypes.c_int)]


def _candidates():
    """Paths to try, in order, as (path, where it came from)."""
    env = os.environ.get("CARC_LIB")
    if env:
        return [(env, "CARC_LIB")]
    out = [(os.path.join(_REPO, "build", "release", "libcarc.so"), "the repository build")]
    found = ctypes.util.find_library("carc")
    if found:
        out.append((found, "the system"))
    return out


def _declare(lib):
    """Declares argument and result types of every function used."""
    c_int, c_uint, c_char_p = ctypes.c_int, ctypes.c_uint, ctypes.c_char_p
    vp, u32, u64 = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint64
    ip = ctypes.POINTER(c_int)
    up = ctypes.POINTER(c_uint)
    u32p = ctypes.POINTER(u32)
    rp = ctypes.POINTER(_Rules)
    evp = ctypes.POINTER(_Events)
    sigs = {
        "carc_rules_default": (None, [rp]),
        "carc_expansion_name": (c_char_p, [c_uint]),
        "carc_expansion_parse": (c_uint, [c_char_p]),
        "carc_rules_pile": (c_int, [rp, ip]),
        "carc_rules_start_tile": (c_int, [rp]),
        "carc_farm_scoring_name": (c_char_p, [c_int]),
        "carc_farm_scoring_parse": (c_int, [c_char_p]),
        "carc_tile_parse": (c_int, [c_char_p]),
        "carc_tile_name": (c_char_p, [c_int]),
        "carc_tile_box_count": (c_int, [c_int]),
        "carc_tile_set": (c_int, [c_int]),
        "carc_tile_is_garden_copy": (c_int, [c_int, ip]),
        "carc_tile_note": (c_char_p, [c_int]),
        "carc_tile_edges": (None, [c_int, c_int, c_char_p]),
        "carc_tile_segments": (c_int, [c_int]),
        "carc_tile_segment": (c_int, [c_int, c_int, ip, up, up, up]),
        "carc_tile_port_segment": (c_int, [c_int, c_int, c_int]),
        "carc_tile_segment_port": (c_int, [c_int, c_int, c_int]),
        "carc_port_name": (c_char_p, [c_int]),
        "carc_port_parse": (c_int, [c_char_p]),
        "carc_game_init": (c_int, [vp, rp, u64, ip, c_int, c_char_p]),
        "carc_game_size": (ctypes.c_size_t, []),
        "carc_game_copy": (None, [vp, vp]),
        "carc_game_over": (c_int, [vp]),
        "carc_to_move": (c_int, [vp]),
        "carc_current_tile": (c_int, [vp]),
        "carc_tiles_left": (c_int, [vp]),
        "carc_tiles_left_of": (c_int, [vp, c_int]),
        "carc_supply": (c_int, [vp, c_int, c_int]),
        "carc_goods_held": (c_int, [vp, c_int, c_int]),
        "carc_bonus_turn": (c_int, [vp]),
        "carc_game_scores": (None, [vp, ip]),
        "carc_game_turn_scores": (None, [vp, ip]),
        "carc_score_by_kind": (c_int, [vp, c_int, c_int]),
        "carc_game_hash": (u64, [vp]),
        "carc_placements": (c_int, [vp, u32p, c_int]),
        "carc_figure_options": (c_int, [vp, u32, u32p, c_int]),
        "carc_legal_moves": (c_int, [vp, u32p, c_int]),
        "carc_check_move": (c_int, [vp, u32, c_char_p]),
        "carc_apply_unchecked": (None, [vp, u32, evp]),
        "carc_apply": (c_int, [vp, u32, evp, c_char_p]),
        "carc_set_current_tile": (c_int, [vp, c_int]),
        "carc_shuffle_rest": (None, [vp, u64]),
        "carc_tile_at": (c_int, [vp, c_int, c_int]),
        "carc_game_check": (c_int, [vp, c_char_p]),
        "carc_board_tiles": (c_int, [vp]),
        "carc_board_tile": (c_int, [vp, c_int, ip, ip, ip, ip, ip]),
        "carc_board_figures": (c_int, [vp, ctypes.POINTER(_FigureInfo), c_int]),
        "carc_players": (c_int, [vp]),
        "carc_turns_played": (c_int, [vp]),
        "carc_turn_played": (u32, [vp, c_int, ip, ip]),
        "carc_feature_id": (c_int, [vp, c_int, c_int]),
        "carc_feature_find": (c_int, [vp, c_int]),
        "carc_feature_get": (c_int, [vp, c_int, c_int, c_int, ctypes.POINTER(_FeatureInfo)]),
        "carc_held_features": (c_int, [vp, ctypes.POINTER(_FeatureInfo), c_int, c_int]),
        "carc_field_cities": (c_int, [vp, c_int, ctypes.POINTER(ctypes.c_uint16), c_int]),
        # returns a malloc'd string: kept as a raw pointer to free it
        "carc_record_write": (vp, [vp, c_char_p]),
        "carc_record_replay": (c_int, [c_char_p, ctypes.c_size_t, vp, c_char_p,
                                       ctypes.c_size_t]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args


def load_library(path=None):
    """Loads libcarc and returns the ctypes library object.

    With ``path``, loads that file (replacing any library loaded before);
    without, returns the library already loaded or finds it as the module
    docstring says. Raises :class:`LibraryNotFound` with a message telling
    how to build the library when none can be loaded.
    """
    global _lib, _lib_path
    with _lib_lock:
        if path is None and _lib is not None:
            return _lib
        tried = []
        cands = [(path, "the argument")] if path is not None else _candidates()
        for cand, where in cands:
            if where != "the system" and not os.path.exists(cand):
                tried.append("%s (from %s): no such file" % (cand, where))
                continue
            try:
                lib = ctypes.CDLL(cand)
                _declare(lib)
            except (OSError, AttributeError) as e:
                tried.append("%s (from %s): %s" % (cand, where, e))
                continue
            _lib, _lib_path = lib, cand
            return lib
        if not any("the system" in t for t in tried) and path is None \
                and not os.environ.get("CARC_LIB"):
            tried.append("libcarc on the system library path: not found")
        raise LibraryNotFound("libcarc.so was not found; tried:\n  " + "\n  ".join(tried)
                              + "\nTo get it, " + _HOW_TO_BUILD + ".")


def library_path():
    """The path of the loaded library (loading it if needed)."""
    load_library()
    return _lib_path


def _L():
    """The library, loaded on first use."""
    return _lib if _lib is not None else load_library()


_libc = None


def _free(ptr):
    """Frees a pointer malloc'd by the library, with the C library's free."""
    global _libc
    if _libc is None:
        name = ctypes.util.find_library("c")
        libc = ctypes.CDLL(name) if name else ctypes.CDLL(None)
        libc.free.argtypes = [ctypes.c_void_p]
        libc.free.restype = None
        _libc = libc
    _libc.free(ptr)


_tls = threading.local()


def _scratch():
    """Per-thread buffers: a move list of MAX_MOVES and an error buffer."""
    s = getattr(_tls, "s", None)
    if s is None:
        s = ((ctypes.c_uint32 * MAX_MOVES)(), ctypes.create_string_buffer(ERRMSG_SIZE))
        _tls.s = s
    return s


def _s(b):
    """Decodes a C string from the library (None stays None)."""
    return None if b is None else b.decode("utf-8", "replace")


def _msg(buf, fallback):
    """The message in an error buffer, or fallback when it is empty."""
    m = buf.value.decode("utf-8", "replace")
    return m if m else fallback


# ---- names --------------------------------------------------------------------------

def tile_names():
    """Names of all tile types, indexed by type (0 .. TILE_TYPES-1)."""
    lib = _L()
    return [_s(lib.carc_tile_name(t)) for t in range(TILE_TYPES)]


def tile_type(name):
    """The type number of a tile name ("A".."X", "r1", "ic6", "tb14", "Eg",
    ...); an int is returned as it is after a range check. Raises
    ValueError for an unknown name."""
    if isinstance(name, int):
        if 0 <= name < TILE_TYPES:
            return name
        raise ValueError("tile type %d out of range 0..%d" % (name, TILE_TYPES - 1))
    t = _L().carc_tile_parse(str(name).encode())
    if t < 0:
        raise ValueError("unknown tile %r" % (name,))
    return t


def tile_name(t):
    """The name of a tile type number (a name is returned as it is after a
    check)."""
    return _s(_L().carc_tile_name(tile_type(t)))


def port_name(port):
    """Name of a port: "N0".."W2" for 0..11, "C" for PORT_CENTRE, "I" for
    PORT_INNER."""
    return _s(_L().carc_port_name(int(port)))


def port_parse(name):
    """Port number of a name ("N0".."W2", "C", "I"); raises ValueError if
    unknown."""
    p = _L().carc_port_parse(str(name).encode())
    if p < 0:
        raise ValueError("unknown port %r" % (name,))
    return p


def _figure_index(fig):
    """Figure number from a name or number."""
    if isinstance(fig, str):
        try:
            return FIGURES.index(fig)
        except ValueError:
            raise ValueError("unknown figure %r (one of %s)" % (fig, ", ".join(FIGURES))) from None
    f = int(fig)
    if not 0 <= f < len(FIGURES):
        raise ValueError("figure %d out of range" % f)
    return f


def _make_rules(players=2, farm_scoring="international", small_city=False,
                farmers=True, expansions=()):
    """A _Rules from Python arguments (names checked by the engine's
    parsers); raises ValueError for unknown names."""
    lib = _L()
    r = _Rules()
    lib.carc_rules_default(ctypes.byref(r))
    r.players = int(players)
    r.farmers = 1 if farmers else 0
    r.small_city = 1 if small_city else 0
    if isinstance(farm_scoring, str):
        fs = lib.carc_farm_scoring_parse(farm_scoring.encode())
        if fs < 0:
            raise ValueError("unknown farm scoring %r (one of %s)"
                             % (farm_scoring, ", ".join(FARM_SCORINGS)))
        r.farm_scoring = fs
    else:
        r.farm_scoring = int(farm_scoring)
    if isinstance(expansions, str):
        expansions = [e for e in expansions.replace(",", " ").split() if e]
    bits = 0
    for name in expansions or ():
        b = lib.carc_expansion_parse(str(name).encode())
        if not b:
            raise ValueError("unknown expansion %r (one of %s)" % (name, ", ".join(EXPANSIONS)))
        bits |= b
    r.expansions = bits
    return r


def _rules_dict(r):
    """A _Rules as a dict of Python values."""
    return {"players": r.players, "farmers": bool(r.farmers),
            "farm_scoring": FARM_SCORINGS[r.farm_scoring]
            if 0 <= r.farm_scoring < len(FARM_SCORINGS) else r.farm_scoring,
            "small_city": bool(r.small_city),
            "expansions": [EXPANSIONS[i] for i in range(len(EXPANSIONS))
                           if r.expansions >> i & 1]}


def rules_pile(players=2, expansions=(), **rules):
    """The standard pile of a rule set as {tile name: count} (start tile not
    included). Takes the same rule arguments as :class:`Game`."""
    r = _make_rules(players=players, expansions=expansions, **rules)
    counts = (ctypes.c_int * TILE_TYPES)()
    _L().carc_rules_pile(ctypes.byref(r), counts)
    return {tile_name(t): counts[t] for t in range(TILE_TYPES) if counts[t]}


def start_tile(expansions=(), **rules):
    """Name of the start tile of a rule set ("D", or the spring with the
    River)."""
    r = _make_rules(expansions=expansions, **rules)
    return tile_name(_L().carc_rules_start_tile(ctypes.byref(r)))


# ---- tiles --------------------------------------------------------------------------

class Segment:
    """One segment of a tile type, as drawn at rotation 0.

    Attributes: ``index``; ``kind`` (a carc_feature_kind number) and
    ``kind_name`` ("city", "road", "field", "cloister", "garden", "river");
    ``ports`` (the port numbers 0..11 it touches at rotation 0, sorted);
    ``port`` (the port that names it in records at rotation 0, a number) and
    ``port_name``; ``shield``, ``inn``, ``cathedral`` (bools); ``goods`` (None
    or "wine", "grain", "cloth"); ``cities`` (for a field: the indexes of the
    city segments of the tile it touches).
    """

    __slots__ = ("tile", "index", "kind", "kind_name", "ports", "port", "port_name",
                 "flags", "shield", "inn", "cathedral", "goods", "cities")

    def __repr__(self):
        """A short description for people."""
        extra = [n for n in ("shield", "inn", "cathedral") if getattr(self, n)]
        if self.goods:
            extra.append(self.goods)
        return "Segment(%s #%d %s at %s%s)" % (
            self.tile, self.index, self.kind_name, self.port_name,
            (", " + ", ".join(extra)) if extra else "")


class Tile:
    """What the engine knows of one tile type (read-only).

    Build one with :func:`tile` (``carc.tile("D")``). Attributes: ``type``
    (number), ``name``, ``set`` (name of its tile set, see TILE_SETS),
    ``box_count`` (copies in its box), ``garden_twin`` (for an Abbot garden
    copy the plain twin's name, else None), ``note`` (a line for people),
    ``segments`` (a list of :class:`Segment`).
    """

    def __init__(self, t):
        """Reads what the engine knows of tile type (or name) t."""
        lib = _L()
        t = tile_type(t)
        self.type = t
        self.name = _s(lib.carc_tile_name(t))
        s = lib.carc_tile_set(t)
        self.set = TILE_SETS[s] if 0 <= s < len(TILE_SETS) else s
        self.box_count = lib.carc_tile_box_count(t)
        twin = ctypes.c_int(-1)
        self.garden_twin = (_s(lib.carc_tile_name(twin.value))
                            if lib.carc_tile_is_garden_copy(t, ctypes.byref(twin)) else None)
        self.note = _s(lib.carc_tile_note(t))
        self.segments = []
        kind, ports, flags, cities = ctypes.c_int(), ctypes.c_uint(), ctypes.c_uint(), ctypes.c_uint()
        for i in range(lib.carc_tile_segments(t)):
            if lib.carc_tile_segment(t, i, ctypes.byref(kind), ctypes.byref(ports),
                                     ctypes.byref(flags), ctypes.byref(cities)) != 0:
                continue
            sg = Segment()
            sg.tile = self.name
            sg.index = i
            sg.kind = kind.value
            sg.kind_name = FEATURES[kind.value] if 0 <= kind.value < len(FEATURES) else None
            sg.ports = [p for p in range(12) if ports.value >> p & 1]
            sg.port = lib.carc_tile_segment_port(t, 0, i)
            sg.port_name = _s(lib.carc_port_name(sg.port))
            sg.flags = flags.value & 0xFF
            sg.shield = bool(sg.flags & SEGF_SHIELD)
            sg.inn = bool(sg.flags & SEGF_INN)
            sg.cathedral = bool(sg.flags & SEGF_CATHEDRAL)
            g = (flags.value >> 8) & 0xFF
            sg.goods = GOODS[g] if 0 < g < len(GOODS) else None
            sg.cities = [c for c in range(MAX_SEGS) if cities.value >> c & 1]
            self.segments.append(sg)

    def edges(self, rot=0):
        """The four edges N E S W at rotation rot as a 4-letter string: F field,
        R road, C city, W river."""
        buf = ctypes.create_string_buffer(5)
        _L().carc_tile_edges(self.type, int(rot) & 3, buf)
        return buf.value.decode()

    def port_segment(self, port, rot=0):
        """Index of the segment holding a port (number or name) when the tile
        is placed at rotation rot; None if no segment holds it."""
        if isinstance(port, str):
            port = port_parse(port)
        s = _L().carc_tile_port_segment(self.type, int(rot), int(port))
        return None if s < 0 else s

    def segment_port(self, seg, rot=0):
        """The port number that names segment seg at rotation rot (as in
        records: a road, city or river by its lowest middle port, a cloister
        or garden by PORT_CENTRE, else the lowest port)."""
        return _L().carc_tile_segment_port(self.type, int(rot), int(seg))

    def segment_port_name(self, seg, rot=0):
        """The name ("N0".."W2", "C", "I") of :meth:`segment_port`."""
        return port_name(self.segment_port(seg, rot))

    def ports_at(self, rot=0):
        """{port name: segment index} of the tile at rotation rot, for the 12
        edge ports and "C"/"I" where some segment holds them."""
        out = {}
        for p in range(PORT_INNER + 1):
            s = self.port_segment(p, rot)
            if s is not None:
                out[port_name(p)] = s
        return out

    def __repr__(self):
        """A short description for people."""
        return "Tile(%s: %s, %d segments)" % (self.name, self.edges(0), len(self.segments))


_tile_cache = {}


def tile(t):
    """The :class:`Tile` of a tile name or type number (cached)."""
    tt = tile_type(t)
    info = _tile_cache.get(tt)
    if info is None:
        info = _tile_cache[tt] = Tile(tt)
    return info


# ---- moves --------------------------------------------------------------------------

class Move(int):
    """A move: a 32-bit integer, with its fields decoded as properties.

    Bit layout (include/carc.h)::

        31     30..28  27      26..24  23..20  19..18  17..9    8..0
        disc   0       recall  figure  seg     rot     y+256    x+256

    A Move compares and hashes as its integer, so plain ints and Moves mix
    freely. Moves returned by :class:`Game` know the tile they place
    (``tile``, a type number), which :attr:`port` needs to name the figure's
    segment; a Move made by hand may be given one.
    """

    def __new__(cls, value, tile=None):
        """A Move of an int value (taken as 32 bits) and, optionally, the tile it places."""
        m = super().__new__(cls, int(value) & 0xFFFFFFFF)
        m.tile = None if tile is None else tile_type(tile)
        return m

    @classmethod
    def make(cls, x, y, rot, segment=None, figure="follower", tile=None, recall=False):
        """A move placing a tile at (x, y) with rotation rot, and a figure
        (a name or number) on segment index ``segment`` (None: no figure).
        ``recall`` sets the abbot-recall bit (then segment must be None)."""
        x, y, rot = int(x), int(y), int(rot)
        if not (-256 <= x <= 255 and -256 <= y <= 255 and 0 <= rot <= 3):
            raise ValueError("square (%d, %d) rot %d out of range" % (x, y, rot))
        if segment is None:
            seg, fig = SEG_NONE, 0
        else:
            seg, fig = int(segment), _figure_index(figure)
            if not 0 <= seg < SEG_NONE:
                raise ValueError("segment %d out of range" % seg)
        v = (x + 256) | ((y + 256) << 9) | (rot << 18) | (seg << 20) | (fig << 24)
        if recall:
            v |= MOVE_RECALL
        return cls(v, tile)

    @classmethod
    def discard(cls, tile=None):
        """The move that sets the tile aside (when it fits nowhere)."""
        return cls(MOVE_DISCARD, tile)

    @property
    def is_discard(self):
        """True for the set-aside move."""
        return int(self) == MOVE_DISCARD

    @property
    def x(self):
        """Column of the square (None for a discard)."""
        return None if self.is_discard else (int(self) & 0x1FF) - 256

    @property
    def y(self):
        """Row of the square, y grows south (None for a discard)."""
        return None if self.is_discard else ((int(self) >> 9) & 0x1FF) - 256

    @property
    def rot(self):
        """Clockwise quarter turns 0..3 (None for a discard)."""
        return None if self.is_discard else (int(self) >> 18) & 3

    @property
    def seg(self):
        """The raw segment field: a segment index, or SEG_NONE (15)."""
        return (int(self) >> 20) & 15

    @property
    def segment(self):
        """Segment index (of the tile type as drawn) that gets the figure,
        None when no figure is placed."""
        s = self.seg
        return None if self.is_discard or s == SEG_NONE else s

    @property
    def has_figure(self):
        """True when the move puts a figure on the tile."""
        return self.segment is not None

    @property
    def figure(self):
        """Figure number put on the tile (see FIGURES), None if none."""
        return None if self.segment is None else (int(self) >> 24) & 7

    @property
    def figure_name(self):
        """Figure name ("follower", "big", "builder", "pig", "abbot"), None if
        none."""
        f = self.figure
        return None if f is None else (FIGURES[f] if f < len(FIGURES) else str(f))

    @property
    def recall(self):
        """True when the move takes the abbot back (Abbot) instead of placing
        a figure."""
        return not self.is_discard and bool(int(self) & MOVE_RECALL)

    @property
    def placement(self):
        """The same placement with no figure (and no recall)."""
        if self.is_discard:
            return self
        return Move((int(self) & 0xFFFFF) | (SEG_NONE << 20), self.tile)

    def port_for(self, tile_):
        """The port number naming the figure's segment when this move places
        tile ``tile_`` (a name or type); None with no figure."""
        if self.segment is None:
            return None
        return _L().carc_tile_segment_port(tile_type(tile_), self.rot, self.segment)

    @property
    def port(self):
        """The port number naming the figure's segment (as records do), None
        with no figure or when the move does not know its tile."""
        if self.tile is None:
            return None
        return self.port_for(self.tile)

    @property
    def port_name(self):
        """Name of :attr:`port` ("N0".."W2", "C", "I"), or None."""
        p = self.port
        return None if p is None or p < 0 else port_name(p)

    @property
    def tile_name(self):
        """Name of the tile the move places, None if not known."""
        return None if self.tile is None else tile_name(self.tile)

    def __str__(self):
        """The move in a few words: tile, square, rotation, figure@port."""
        if self.is_discard:
            return "discard" + (" " + self.tile_name if self.tile is not None else "")
        s = "%s(%d,%d) r%d" % ((self.tile_name + " ") if self.tile is not None else "",
                              self.x, self.y, self.rot)
        if self.segment is not None:
            where = self.port_name or ("seg %d" % self.segment)
            s += " %s@%s" % (self.figure_name, where)
        if self.recall:
            s += " recall"
        return s

    def __repr__(self):
        """A short description for people."""
        return "Move(0x%08x: %s)" % (int(self), self)

    def __reduce__(self):
        """Pickles the value and the tile."""
        return (Move, (int(self), self.tile))


def _move_int(m):
    """A move argument as an unsigned 32-bit int."""
    if isinstance(m, bool) or not isinstance(m, int):
        try:
            m = int(m)
        except (TypeError, ValueError):
            raise TypeError("a move is an int or a carc.Move, not %r" % (m,)) from None
    if not 0 <= m <= 0xFFFFFFFF:
        raise ValueError("move 0x%x is not a 32-bit value" % m)
    return m


# ---- scoring events -----------------------------------------------------------------

class Event:
    """A scoring event reported by :meth:`Game.apply` (events=True).

    Attributes: ``kind`` (a carc_score_kind number) and ``kind_name``
    ("road", "city", "cloister", "farm", "garden", "goods"); ``final`` (True
    when scored in the final scoring); ``tiles`` (tiles of the feature; for
    a cloister 1 + the tiles around); ``tile`` and ``seg`` (the board index
    of a tile of the feature and its segment index); ``points`` (a list,
    what each player got).
    """

    __slots__ = ("kind", "kind_name", "final", "tiles", "tile", "seg", "points")

    def __repr__(self):
        """A short description for people."""
        return "Event(%s%s, %d tiles, points=%s)" % (
            "final " if self.final else "", self.kind_name, self.tiles, self.points)


def _events(evs, players):
    """Events from a filled _Events."""
    out = []
    for i in range(min(evs.n, MAX_EVENTS)):
        e = evs.ev[i]
        x = Event()
        x.kind = e.kind
        x.kind_name = SCORE_KINDS[e.kind] if e.kind < len(SCORE_KINDS) else str(e.kind)
        x.final = bool(e.final)
        x.tiles = e.tiles
        x.tile = e.tile
        x.seg = e.seg
        x.points = [e.points[p] for p in range(players)]
        out.append(x)
    return out


# ---- games --------------------------------------------------------------------------

class Game:
    """One game, held in a ctypes buffer of carc_game_size() bytes.

    ``Game(players=2, farm_scoring="international", small_city=False,
    farmers=True, expansions=(), seed=0, pile=None)``:

    - ``farm_scoring``: "international", "city-once" or "first-edition";
    - ``expansions``: a list of names among "river", "inns-cathedrals",
      "inns-cathedrals-tiles", "traders-builders", "abbot" (a comma- or
      space-separated string works too);
    - ``seed``: fixes the draw order (an int, taken modulo 2**64);
    - ``pile``: a custom pile as {tile name: count} (start tile not included);
      None means the rule set's standard pile.

    Raises ValueError for an unknown name and :class:`ArgumentError` with
    the engine's message for rules or a pile the engine refuses.

    Each turn the player :attr:`to_move` has one tile (:attr:`current_tile`)
    and picks one of :meth:`legal_moves`; :meth:`apply` plays it. After the
    last tile the final scoring is done and :attr:`over` is true.
    """

    def __init__(self, players=2, farm_scoring="international", small_city=False,
                 farmers=True, expansions=(), seed=0, pile=None):
        """Sets up a new game in a fresh buffer; see the class docstring."""
        lib = _L()
        r = _make_rules(players, farm_scoring, small_city, farmers, expansions)
        self._buf = self._alloc()
        counts = None
        if pile is not None:
            counts = (ctypes.c_int * TILE_TYPES)()
            for name, n in dict(pile).items():
                counts[tile_type(name)] += int(n)
        seed = int(seed) & 0xFFFFFFFFFFFFFFFF
        err = ctypes.create_string_buffer(ERRMSG_SIZE)
        st = lib.carc_game_init(self._buf, ctypes.byref(r), seed, counts,
                                TILE_TYPES if counts is not None else 0, err)
        if st != OK:
            raise ArgumentError(_msg(err, "cannot set up the game (status %d)" % st), st)
        self._players = r.players
        self._rules = _rules_dict(r)
        self._seed = seed

    # -- memory

    @staticmethod
    def _alloc():
        """A zeroed buffer of carc_game_size() bytes, 8-byte aligned."""
        n = _L().carc_game_size()
        return (ctypes.c_uint64 * ((n + 7) // 8))()

    @classmethod
    def _blank(cls):
        """A Game object with a buffer but no game in it yet."""
        g = cls.__new__(cls)
        g._buf = cls._alloc()
        return g

    @property
    def _as_parameter_(self):
        """Lets a Game be passed to a C function as a carc_game pointer."""
        return ctypes.addressof(self._buf)

    def copy(self):
        """A new independent Game with the same state (carc_game_copy)."""
        g = Game._blank()
        _L().carc_game_copy(g._buf, self._buf)
        g._players = self._players
        g._rules = dict(self._rules, expansions=list(self._rules["expansions"]))
        g._seed = self._seed
        return g

    __copy__ = copy

    def __deepcopy__(self, memo):
        """A deep copy is a copy (:meth:`copy`)."""
        return self.copy()

    def copy_from(self, other):
        """Overwrites this game with a copy of ``other`` (no allocation; for
        search loops that reuse one Game)."""
        _L().carc_game_copy(self._buf, other._buf)
        self._players = other._players
        self._rules = other._rules
        self._seed = other._seed

    # -- the rules

    @property
    def rules(self):
        """The rules as a dict: players, farmers, farm_scoring, small_city,
        expansions (a list of names)."""
        return dict(self._rules, expansions=list(self._rules["expansions"]))

    @property
    def players(self):
        """Number of players."""
        return self._players

    @property
    def seed(self):
        """The seed the game was dealt from."""
        return self._seed

    # -- asking the state

    @property
    def over(self):
        """True once the game has ended (final scoring done)."""
        return bool(_L().carc_game_over(self._buf))

    def game_over(self):
        """True once the game has ended (the same as :attr:`over`)."""
        return self.over

    @property
    def to_move(self):
        """The player to move, 0..players-1."""
        return _L().carc_to_move(self._buf)

    @property
    def current_tile_type(self):
        """Type number of the tile to place now, None at the end."""
        t = _L().carc_current_tile(self._buf)
        return None if t < 0 else t

    @property
    def current_tile(self):
        """Name of the tile to place now, None at the end."""
        t = self.current_tile_type
        return None if t is None else tile_name(t)

    @property
    def tiles_left(self):
        """Tiles not drawn yet, the current one included."""
        return _L().carc_tiles_left(self._buf)

    def tiles_left_of(self, name):
        """Tiles of one type (a name or number) not drawn yet, the current
        one included."""
        return _L().carc_tiles_left_of(self._buf, tile_type(name))

    def tiles_left_by_name(self):
        """{tile name: count} of the tiles not drawn yet (current included),
        types with none left omitted."""
        lib = _L()
        out = {}
        for t in range(TILE_TYPES):
            n = lib.carc_tiles_left_of(self._buf, t)
            if n:
                out[tile_name(t)] = n
        return out

    def drawable_tiles(self):
        """{tile name: count} of the tiles that may be drawn now (what
        :meth:`set_current_tile` accepts): the tiles left, restricted by the
        River's draw order when it applies. For chance nodes in search."""
        if self.over:
            return {}
        lib = _L()
        scratch = self.copy()
        out = {}
        for t in range(TILE_TYPES):
            n = lib.carc_tiles_left_of(self._buf, t)
            if n and lib.carc_set_current_tile(scratch._buf, t) == OK:
                out[tile_name(t)] = n
        return out

    def supply(self, player=None):
        """Figures left in a player's supply as {figure name: count}
        (``player`` defaults to the player to move)."""
        lib = _L()
        p = self.to_move if player is None else int(player)
        return {FIGURES[f]: lib.carc_supply(self._buf, p, f) for f in range(len(FIGURES))}

    def supplies(self):
        """:meth:`supply` of every player, as a list."""
        return [self.supply(p) for p in range(self._players)]

    def goods(self, player=None):
        """Goods tokens a player holds (Traders & Builders) as {name: count}
        (``player`` defaults to the player to move)."""
        lib = _L()
        p = self.to_move if player is None else int(player)
        return {GOODS[k]: lib.carc_goods_held(self._buf, p, k) for k in range(1, len(GOODS))}

    @property
    def bonus_turn(self):
        """True when the turn now being played is a builder's extra turn."""
        return bool(_L().carc_bonus_turn(self._buf))

    def scores(self):
        """Score totals so far, one per player (final totals after the end)."""
        a = (ctypes.c_int * MAX_PLAYERS)()
        _L().carc_game_scores(self._buf, a)
        return list(a[:self._players])

    def turn_scores(self):
        """Totals after the last turn's own scoring, before the final
        scoring (what a record's last turn shows)."""
        a = (ctypes.c_int * MAX_PLAYERS)()
        _L().carc_game_turn_scores(self._buf, a)
        return list(a[:self._players])

    def score_by_kind(self, player, kind):
        """Points of one player of one kind (a name of SCORE_KINDS or a
        number)."""
        k = SCORE_KINDS.index(kind) if isinstance(kind, str) else int(kind)
        return _L().carc_score_by_kind(self._buf, int(player), k)

    def scores_by_kind(self):
        """Points so far by kind: a list with one {kind name: points} per
        player, over all of SCORE_KINDS."""
        lib = _L()
        return [{SCORE_KINDS[k]: lib.carc_score_by_kind(self._buf, p, k)
                 for k in range(len(SCORE_KINDS))} for p in range(self._players)]

    @property
    def hash(self):
        """The engine's 64-bit hash of the position."""
        return _L().carc_game_hash(self._buf)

    def position_hash(self):
        """The engine's 64-bit hash of the position (as :attr:`hash`)."""
        return self.hash

    def tile_at(self, x, y):
        """Index into the board's tiles of the tile at (x, y) (0 is the start
        tile, then in order of placement), None if the square is empty."""
        i = _L().carc_tile_at(self._buf, int(x), int(y))
        return None if i < 0 else i

    def board(self):
        """The tiles on the board in order of placement, as dicts with keys
        tile, x, y, rot, player (None for the start tile), meeple (None or
        {"kind", "at"} as placed, even if taken back since). Read from
        :meth:`record`, so not cheap."""
        rec = json.loads(self.record())
        s = rec["start"]
        out = [{"tile": s["tile"], "x": s["x"], "y": s["y"], "rot": s["rot"],
                "player": None, "meeple": None}]
        for t in rec.get("turns", []):
            if t.get("discarded"):
                continue
            out.append({"tile": t["tile"], "x": t["x"], "y": t["y"], "rot": t["rot"],
                        "player": t["player"], "meeple": t.get("meeple")})
        return out

    def figures(self):
        """The figures on the board, as dicts with keys player, figure (a
        name of FIGURES), tile (board index, see :meth:`tile_at`), x, y,
        at (a port name of that tile as it lies) and feature (the id, see
        :meth:`feature`)."""
        lib = _L()
        buf = (_FigureInfo * 64)()
        n = lib.carc_board_figures(self._buf, buf, 64)
        out = []
        for f in buf[:n]:
            t, x, y, rot = (ctypes.c_int() for _ in range(4))
            lib.carc_board_tile(self._buf, f.tile, ctypes.byref(t), ctypes.byref(x),
                                ctypes.byref(y), ctypes.byref(rot), None)
            port = lib.carc_tile_segment_port(t.value, rot.value, f.seg)
            out.append({"player": f.owner, "figure": FIGURES[f.kind], "tile": f.tile,
                        "x": x.value, "y": y.value,
                        "at": _s(lib.carc_port_name(port)) if port >= 0 else None,
                        "feature": lib.carc_feature_id(self._buf, f.tile, f.seg)})
        return out

    def _feature_dict(self, fi):
        np_ = self.players
        kind = FEATURES[fi.kind] if fi.kind < len(FEATURES) else None
        d = {"id": fi.id, "kind": kind, "open": fi.open, "tiles": fi.tiles,
             "shields": fi.shields, "inn": bool(fi.flags & SEGF_INN),
             "cathedral": bool(fi.flags & SEGF_CATHEDRAL), "done": bool(fi.done),
             "weight": list(fi.weight[:np_]), "figures": list(fi.figures[:np_]),
             "pigs": [p for p in range(np_) if fi.pigs >> p & 1]}
        if kind in ("cloister", "garden"):
            d["neighbours"] = fi.neighbours
        return d

    def feature_id(self, x, y, at):
        """The id of the feature at port `at` (a name such as "N1" or "C",
        as the tile lies on the board) of the tile at (x, y). Ids stay
        good: a later position maps an old id with :meth:`feature_find`.
        Raises ValueError if the square is empty or has nothing there."""
        lib = _L()
        i = lib.carc_tile_at(self._buf, int(x), int(y))
        if i < 0:
            raise ValueError("no tile at (%d, %d)" % (x, y))
        t, rot = ctypes.c_int(), ctypes.c_int()
        lib.carc_board_tile(self._buf, i, ctypes.byref(t), None, None, ctypes.byref(rot), None)
        port = port_parse(at) if isinstance(at, str) else int(at)
        seg = lib.carc_tile_port_segment(t.value, rot.value, port)
        if seg < 0:
            raise ValueError("the tile at (%d, %d) has no feature at %s" % (x, y, at))
        return lib.carc_feature_id(self._buf, i, seg)

    def feature_find(self, fid):
        """The id now of a feature whose id was fid in an earlier position."""
        r = _L().carc_feature_find(self._buf, int(fid))
        if r < 0:
            raise ValueError("no feature %r" % (fid,))
        return r

    def feature(self, fid):
        """A feature as a dict: id, kind (a name of FEATURES), open sides,
        tiles, shields, inn, cathedral, done (a road or city completed),
        weight and figures (lists by player), pigs (players with a pig on
        it), and for a cloister or garden its neighbours (0..8)."""
        fi = _FeatureInfo()
        if _L().carc_feature_get(self._buf, int(fid), 1, 1, ctypes.byref(fi)) < 0:
            raise ValueError("no feature %r" % (fid,))
        return self._feature_dict(fi)

    def held_features(self):
        """The features with figures on them (see :meth:`feature`)."""
        buf = (_FeatureInfo * 64)()
        n = _L().carc_held_features(self._buf, buf, 64, 1)
        return [self._feature_dict(fi) for fi in buf[:n]]

    def field_cities(self, fid):
        """The ids of the cities the field fid borders (completed or not)."""
        buf = (ctypes.c_uint16 * 256)()
        n = _L().carc_field_cities(self._buf, int(fid), buf, 256)
        return list(buf[:n])

    def history(self):
        """The turns played, as (Move, player) pairs; the Move knows its tile."""
        lib = _L()
        out = []
        for k in range(lib.carc_turns_played(self._buf)):
            t, p = ctypes.c_int(), ctypes.c_int()
            m = lib.carc_turn_played(self._buf, k, ctypes.byref(t), ctypes.byref(p))
            out.append((Move(m, t.value), p.value))
        return out

    # -- moves

    def _list(self, n, buf, tile_):
        """Moves of the first n entries of buf, knowing their tile."""
        return [Move(buf[i], tile_) for i in range(n)]

    def placements(self):
        """Placements of the current tile (no figure), distinct rotations
        only, as Moves; [Move.discard()] when it fits nowhere, [] at the
        end."""
        buf, _ = _scratch()
        n = _L().carc_placements(self._buf, buf, MAX_MOVES)
        return self._list(n, buf, self.current_tile_type)

    def figure_options(self, placement):
        """Figure options of one placement, as Moves with the figure set
        (not including "no figure")."""
        buf, _ = _scratch()
        n = _L().carc_figure_options(self._buf, _move_int(placement), buf, MAX_MOVES)
        return self._list(n, buf, self.current_tile_type)

    def legal_moves(self):
        """Every legal move as Moves: each placement without a figure and with
        each figure option; [] at the end."""
        buf, _ = _scratch()
        n = _L().carc_legal_moves(self._buf, buf, MAX_MOVES)
        return self._list(n, buf, self.current_tile_type)

    def legal_move_ints(self):
        """Every legal move as plain ints (faster than :meth:`legal_moves`)."""
        buf, _ = _scratch()
        n = _L().carc_legal_moves(self._buf, buf, MAX_MOVES)
        return buf[:n]

    def move(self, x, y, rot, at=None, figure="follower", recall=False):
        """Builds a Move of the current tile: placed at (x, y) with rotation
        rot, and a figure on the segment holding port ``at`` (a name like
        "E1", "C", "I" or a port number, as the tile lies once rotated); at=None
        places no figure. Not checked: see :meth:`check` / :meth:`apply`."""
        t = self.current_tile_type
        if t is None:
            raise GameOverError("the game is over", ERR_GAME_OVER)
        seg = None
        if at is not None:
            seg = tile(t).port_segment(at, int(rot) & 3)
            if seg is None:
                raise ValueError("tile %s at rot %d has no segment at port %r"
                                 % (tile_name(t), rot, at))
        return Move.make(x, y, rot, seg, figure, tile=t, recall=recall)

    def check(self, move):
        """None if the move is legal now, else the engine's message saying
        why not."""
        _, err = _scratch()
        err.value = b""
        st = _L().carc_check_move(self._buf, _move_int(move), err)
        return None if st == OK else _msg(err, STATUS_NAMES[st] if st < len(STATUS_NAMES) else "illegal")

    def is_legal(self, move):
        """True if the move is legal now."""
        return self.check(move) is None

    def apply(self, move, events=False):
        """Checks and plays a move. Raises :class:`IllegalMove` (or
        :class:`GameOverError`) with the engine's message when it breaks a
        rule; the game is then unchanged. With events=True returns the
        scoring events of the move (and of the final scoring when the move
        ends the game) as a list of :class:`Event`, else None."""
        m = _move_int(move)
        _, err = _scratch()
        err.value = b""
        evs = _Events() if events else None
        st = _L().carc_apply(self._buf, m, ctypes.byref(evs) if evs is not None else None, err)
        if st != OK:
            mv = Move(m, self.current_tile_type)
            if st == ERR_GAME_OVER:
                raise GameOverError(_msg(err, "the game is over"), st, mv)
            raise IllegalMove(_msg(err, "illegal move %s" % mv), st, mv)
        return _events(evs, self._players) if events else None

    def apply_unchecked(self, move, events=False):
        """Plays a move without checking it, for search. The move must be one
        that :meth:`placements`, :meth:`figure_options` or
        :meth:`legal_moves` gave for this very state: anything else corrupts
        the game. (Only the end of the game is guarded: GameOverError.)"""
        lib = _L()
        if lib.carc_game_over(self._buf):
            raise GameOverError("the game is over", ERR_GAME_OVER)
        evs = _Events() if events else None
        lib.carc_apply_unchecked(self._buf, _move_int(move),
                                 ctypes.byref(evs) if evs is not None else None)
        return _events(evs, self._players) if events else None

    # -- chance

    def set_current_tile(self, name):
        """Makes ``name`` (a tile name or type) the tile drawn now; the rest of
        the draw order is kept otherwise. Raises :class:`ArgumentError` if that
        tile is not left or may not be drawn now (River order)."""
        t = tile_type(name)
        if _L().carc_set_current_tile(self._buf, t) != OK:
            if self.over:
                why = "the game is over"
            elif not self.tiles_left_of(t):
                why = "no %s is left in the pile" % tile_name(t)
            else:
                why = "%s may not be drawn now (the River's tiles come first)" % tile_name(t)
            raise ArgumentError("cannot draw %s: %s" % (tile_name(t), why), ERR_ARG)

    def shuffle_rest(self, seed):
        """Reshuffles the tiles not drawn yet (the current one included) from
        seed, keeping the River's order: for search over unknown draws."""
        _L().carc_shuffle_rest(self._buf, int(seed) & 0xFFFFFFFFFFFFFFFF)

    # -- checks

    def check_state(self):
        """Recomputes the whole state from scratch and compares it with the
        incremental one (carc_game_check); raises CarcError saying what
        differs."""
        err = ctypes.create_string_buffer(ERRMSG_SIZE)
        st = _L().carc_game_check(self._buf, err)
        if st != OK:
            raise CarcError(_msg(err, "state check failed"), st)

    # -- records

    def record(self, extra=None):
        """The game as a carc-record-1 JSON text. ``extra``: a dict (or JSON
        object text) whose keys are added to the record."""
        if extra is not None and not isinstance(extra, (str, bytes)):
            extra = json.dumps(extra)
        if isinstance(extra, str):
            extra = extra.encode()
        return self._raw_record(extra)

    def _raw_record(self, extra=None):
        """carc_record_write, the C string copied and freed with libc free."""
        p = _L().carc_record_write(self._buf, extra)
        if not p:
            raise MemoryError("carc_record_write failed (out of memory)")
        try:
            return ctypes.string_at(p).decode("utf-8")
        finally:
            _free(p)

    def save(self, path, extra=None):
        """Writes :meth:`record` to a file."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.record(extra))

    @classmethod
    def replay(cls, text):
        """A Game from a carc-record-1 text (str or bytes), played through the
        engine with every turn checked. Raises :class:`RecordError` with the
        engine's message (naming the turn and key) when the record is not
        valid."""
        if isinstance(text, str):
            text = text.encode("utf-8")
        g = cls._blank()
        err = ctypes.create_string_buffer(512)
        st = _L().carc_record_replay(text, len(text), g._buf, err, len(err))
        if st != OK:
            raise RecordError(_msg(err, "bad record (status %d)" % st), st)
        # the C state holds the rules but has no accessor: read them back
        # from the engine's own record of the replayed game
        rec = json.loads(g._raw_record())
        rr = rec["rules"]
        g._players = int(rr["players"])
        g._rules = {"players": g._players, "farmers": bool(rr["farmers"]),
                    "farm_scoring": rr["farm_scoring"],
                    "small_city": bool(rr["small_city"]),
                    "expansions": list(rr["expansions"])}
        g._seed = int(rec["seed"])
        return g

    @classmethod
    def load(cls, path):
        """:meth:`replay` of a record file."""
        with open(path, "rb") as f:
            return cls.replay(f.read())

    # -- misc

    def __repr__(self):
        """A short description for people."""
        if self.over:
            return "<carc.Game %d players, over, scores %s>" % (self._players, self.scores())
        return "<carc.Game %d players, player %d to place %s, %d tiles left, scores %s>" % (
            self._players, self.to_move, self.current_tile, self.tiles_left, self.scores())
