"""carc - a Python binding of libcarc, the Carcassonne rules engine.

Standard library only: the engine is reached through ctypes over the shared
library libcarc.so (build it with ``make`` at the repository root; see
docs/python.md).

A small example::

    import random, carc

    g = carc.Game(players=3, expansions=["inns-cathedrals"], seed=7)
    while not g.over:
        move = random.choice(g.legal_moves())   # a decision of the current step
        g.apply(move)
    print(g.scores(), g.scores_by_kind())
    text = g.record()                      # carc-record-1 JSON
    again = carc.Game.replay(text)         # checked step by step
    assert again.scores() == g.scores()

Where the library comes from (the first that exists wins):

1. the environment variable ``CARC_LIB`` (a path to libcarc.so; if it is
   set, it must name a loadable file);
2. ``build/release/libcarc.so`` under the repository root (the folder above
   this file's folder);
3. the system's library path (``ctypes.util.find_library("carc")``).

:func:`load_library` may also be called with an explicit path before any
other use. The library is loaded on first use, so ``import carc`` never
fails because the library is missing; the first call that needs it raises
:class:`LibraryNotFound` with instructions. (The name lists below, such as
``carc.FIGURES``, are asked of the engine, so reading one loads the library;
so does ``from carc import *``.)

The engine is the one source of every rule and name, and this module keeps
no copy of its layouts:

- Games live in ctypes buffers of ``carc_game_size()`` bytes; the C struct
  is opaque here.
- Every name (figures, features, scoring kinds, goods, tile sets, steps,
  expansions, farm-scoring editions, ports, tiles) comes from the engine's
  ``carc_vocabulary_json()``, read once; every capacity from
  ``carc_limit()``; the tiles from ``carc_tiles_json()``.
- A decision (:class:`Move`) is the engine's number; what it means is read
  from the engine's JSON of it (``carc_move_json``) and its words
  (``carc_move_text``), and decisions are built from JSON through the
  engine's one reader (``carc_move_parse``). Python never packs or unpacks
  the tile step's bits.
- Rules are given to the engine as a rules JSON (``carc_rules_from_json``)
  and read back from the engine's record of the game. The ``carc_rules``
  the engine fills is passed on as opaque bytes: ``carc_rules_size()`` when
  the library has it, else 256 bytes (the struct is 20 today); no field of
  it is read or written here.
- Scoring events, figures and features are read from the engine's JSON
  views (``carc_view_step``, ``carc_view_json``, ``carc_view_feature``);
  ``carc_apply``'s events buffer is ``carc_events_size()`` raw bytes.

No struct of the engine is mirrored: step k of a game is read through
``carc_step_get``'s out-parameters (:meth:`Game.step`).

The numbers mirrored are the API's named constants: its buffer bounds
(CARC_MAX_PLAYERS, ...), status codes, the view parts' bits, the
carc_limit and enum indices it documents, ``CARC_MOVE_DISCARD`` (the whole
value of the set-aside decision) and ``CARC_MOVE_NONE``.

A :class:`Game` is not safe to use from two threads at once, but different
games may be used from different threads (the engine keeps no mutable
globals and ctypes releases the GIL during calls).
"""

import copy as _copy
import ctypes
import ctypes.util
import json
import operator
import os
import threading

__all__ = [
    "CarcError", "ArgumentError", "IllegalMove", "GameOverError", "RecordError",
    "LibraryNotFound", "load_library", "library_path",
    "Move", "Event", "Step", "Game", "Tile", "Segment",
    "tile_names", "tile_type", "tile_name", "tile", "port_name", "port_parse",
    "rules_pile", "start_tile", "vocabulary", "tiles_json", "limit",
    "FIGURES", "FEATURES", "SCORE_KINDS", "FARM_SCORINGS", "EXPANSIONS", "GOODS",
    "TILE_SETS", "STEPS", "PORTS", "FIGURE_WORDS", "SYMBOLS", "TILE_TYPES", "MAX_TILES",
    "MAX_STEPS", "MAX_FIGURES", "MAX_FEATURE_IDS",
    "MAX_PLAYERS", "MAX_MOVES", "MOVE_DISCARD", "MOVE_NONE", "PORT_CENTRE", "PORT_INNER",
]

# ---- named constants of the C API (include/carc.h) ---------------------------------

MAX_PLAYERS = 6
"""Most players a game can have (CARC_MAX_PLAYERS)."""
MAX_SEGS = 10
"""Most segments on one tile (CARC_MAX_SEGS)."""
MAX_MOVES = 4096
"""An upper bound on the legal decisions of one step (CARC_MAX_MOVES)."""
PORT_CENTRE = 12
"""Port "C": the cloister or garden in the middle of a tile."""
PORT_INNER = 13
"""Port "I": a field that touches no edge."""
ERRMSG_SIZE = 160
"""Size of the engine's error message buffers (CARC_ERRMSG_SIZE)."""

MOVE_DISCARD = 0x80000000
"""The tile step's decision that sets aside a tile that fits nowhere
(CARC_MOVE_DISCARD)."""
MOVE_NONE = 0xFFFFFFFF
"""No decision (CARC_MOVE_NONE)."""

SEGF_SHIELD = 0x01
"""Segment flag: a city segment with a shield (CARC_SEGF_SHIELD)."""
SEGF_INN = 0x02
"""Segment flag: a road segment with an inn (CARC_SEGF_INN)."""
SEGF_CATHEDRAL = 0x04
"""Segment flag: a city segment with a cathedral (CARC_SEGF_CATHEDRAL)."""
SEGF_PRINCESS = 0x08
"""Segment flag: the princess's city segment (Princess & Dragon,
CARC_SEGF_PRINCESS)."""

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
"""Short names of the engine's status codes (for messages)."""

# indices the API documents: carc_limit_kind, CARC_STEP_TILE, and the enum
# values that index the name lists (carc_figure, carc_feature_kind, carc_goods)
_LIMIT_BOARD_TILES, _LIMIT_STEPS, _LIMIT_FIGURES, _LIMIT_FEATURE_IDS, \
    _LIMIT_TILE_TYPES, _LIMIT_MOVES = range(6)
_STEP_TILE = 0
_FIG_PIG = 3
_FEAT_CLOISTER = 3
_FEAT_GARDEN = 4
_GOODS_NONE = 0
_SYM_NONE = 0

# parts of carc_view_json (CARC_VIEW_*), by the key each adds
_VIEW_PARTS = {"board": 0x01, "figures": 0x02, "supply": 0x04, "scores": 0x08,
               "turn": 0x10, "final": 0x20}
_VIEW_ALL = 0x3F

# the keys of a tile step's decision in the engine's JSON (carc_move_json),
# to take a past decision out of a record's turn
_TILE_DECISION_KEYS = ("x", "y", "rot", "meeple", "abbot_recalled", "discarded")


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
    drawn now (CARC_ERR_ARG), or a decision's JSON the engine cannot read
    (CARC_ERR_PARSE)."""


class IllegalMove(CarcError):
    """A decision that breaks a rule (CARC_ERR_ILLEGAL); the game is unchanged.

    ``move`` holds the offending decision as a :class:`Move` when it was
    given as a number, else None; ``decision`` the JSON object when it was
    given as JSON, else None.
    """

    def __init__(self, message, status=ERR_ILLEGAL, move=None, decision=None):
        """Sets the fields; see the class docstring."""
        super().__init__(message, status)
        self.move = move
        self.decision = decision


class GameOverError(IllegalMove):
    """A decision was made after the end of the game (CARC_ERR_GAME_OVER)."""


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
_cache = {}  # what the loaded library said once: names, limits, tiles

_HOW_TO_BUILD = (
    "build it with `make` at the repository root (it makes "
    "build/release/libcarc.so; it needs a C11 compiler and libjansson-dev), "
    "or set CARC_LIB to the path of a libcarc.so, or install it "
    "(`make install`)")


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
    c_int, c_uint, c_char_p, size_t = ctypes.c_int, ctypes.c_uint, ctypes.c_char_p, ctypes.c_size_t
    vp, u32, u64 = ctypes.c_void_p, ctypes.c_uint32, ctypes.c_uint64
    ip = ctypes.POINTER(c_int)
    u32p = ctypes.POINTER(u32)
    sigs = {
        # malloc'd texts are kept as raw pointers (vp) to free them
        "carc_vocabulary_json": (vp, []),
        "carc_tiles_json": (vp, []),
        "carc_limit": (c_int, [c_int]),
        "carc_rules_from_json": (c_int, [c_char_p, size_t, vp, ip, ip, c_char_p]),
        "carc_tile_parse": (c_int, [c_char_p]),
        "carc_tile_edges": (None, [c_int, c_int, c_char_p]),
        "carc_tile_port_segment": (c_int, [c_int, c_int, c_int]),
        "carc_tile_segment_port": (c_int, [c_int, c_int, c_int]),
        "carc_game_init": (c_int, [vp, vp, u64, ip, c_int, c_char_p]),
        "carc_game_size": (size_t, []),
        "carc_events_size": (size_t, []),
        "carc_game_copy": (None, [vp, vp]),
        "carc_game_seed": (u64, [vp]),
        "carc_game_pile": (c_int, [vp, ip]),
        "carc_game_over": (c_int, [vp]),
        "carc_to_move": (c_int, [vp]),
        "carc_step_kind": (c_int, [vp]),
        "carc_turn_player": (c_int, [vp]),
        "carc_current_tile": (c_int, [vp]),
        "carc_tiles_left": (c_int, [vp]),
        "carc_tiles_left_of": (c_int, [vp, c_int]),
        "carc_tile_drawable": (c_int, [vp, c_int]),
        "carc_supply": (c_int, [vp, c_int, c_int]),
        "carc_goods_held": (c_int, [vp, c_int, c_int]),
        "carc_bonus_turn": (c_int, [vp]),
        "carc_dragon_tile": (c_int, [vp]),
        "carc_fairy_tile": (c_int, [vp, ip]),
        "carc_dragon_visited": (c_int, [vp, ip]),
        "carc_tile_symbol": (c_int, [c_int]),
        "carc_game_scores": (None, [vp, ip]),
        "carc_game_turn_scores": (None, [vp, ip]),
        "carc_score_by_kind": (c_int, [vp, c_int, c_int]),
        "carc_game_hash": (u64, [vp]),
        "carc_placements": (c_int, [vp, u32p, c_int]),
        "carc_figure_options": (c_int, [vp, u32, u32p, c_int]),
        "carc_legal_moves": (c_int, [vp, u32p, c_int]),
        "carc_check_move": (c_int, [vp, u32, c_char_p]),
        "carc_apply_unchecked": (None, [vp, u32, vp]),
        "carc_apply": (c_int, [vp, u32, vp, c_char_p]),
        "carc_move_json": (vp, [vp, u32]),
        "carc_move_parse": (c_int, [vp, c_char_p, size_t, u32p, c_char_p]),
        "carc_move_text": (None, [vp, u32, c_char_p, size_t]),
        "carc_set_current_tile": (c_int, [vp, c_int]),
        "carc_shuffle_rest": (None, [vp, u64]),
        "carc_tile_at": (c_int, [vp, c_int, c_int]),
        "carc_game_check": (c_int, [vp, c_char_p]),
        "carc_board_tiles": (c_int, [vp]),
        "carc_board_tile": (c_int, [vp, c_int, ip, ip, ip, ip, ip]),
        "carc_players": (c_int, [vp]),
        "carc_turns_played": (c_int, [vp]),
        "carc_turn_played": (u32, [vp, c_int, ip, ip]),
        "carc_steps_played": (c_int, [vp]),
        "carc_step_get": (c_int, [vp, c_int, ctypes.POINTER(c_int), ctypes.POINTER(c_int),
                                  ctypes.POINTER(c_int), ctypes.POINTER(c_int),
                                  ctypes.POINTER(ctypes.c_uint32)]),
        "carc_tile_segments": (c_int, [c_int]),
        "carc_feature_id": (c_int, [vp, c_int, c_int]),
        "carc_feature_find": (c_int, [vp, c_int]),
        "carc_field_cities": (c_int, [vp, c_int, ctypes.POINTER(ctypes.c_uint16), c_int]),
        "carc_view_json": (vp, [vp, c_uint]),
        "carc_view_step": (vp, [vp, vp]),
        "carc_view_preview": (vp, [vp, u32, c_char_p]),
        "carc_view_feature": (vp, [vp, c_int, c_int, c_int, c_char_p]),
        "carc_record_write": (vp, [vp, c_char_p]),
        "carc_record_replay": (c_int, [c_char_p, size_t, vp, c_char_p, size_t]),
    }
    for name, (res, args) in sigs.items():
        f = getattr(lib, name)
        f.restype = res
        f.argtypes = args
    # not in every build: the size of carc_rules (see the module docstring)
    if hasattr(lib, "carc_rules_size"):
        lib.carc_rules_size.restype = size_t
        lib.carc_rules_size.argtypes = []


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
            _cache.clear()
            _tile_cache.clear()
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


def _take_text(ptr, what):
    """The text of a malloc'd C string from the library, freed; MemoryError
    when the library returned NULL (out of memory)."""
    if not ptr:
        raise MemoryError("%s failed (out of memory)" % what)
    try:
        return ctypes.string_at(ptr).decode("utf-8")
    finally:
        _free(ptr)


def _take_json(ptr, what):
    """:func:`_take_text` parsed as JSON."""
    return json.loads(_take_text(ptr, what))


_tls = threading.local()


class _Scratch:
    """Per-thread buffers for the calls that fill one: a decision list, an
    error message, a decision's words and a carc_events (raw bytes)."""

    def __init__(self):
        lib = _L()
        self.moves = (ctypes.c_uint32 * limit(_LIMIT_MOVES))()
        self.err = ctypes.create_string_buffer(ERRMSG_SIZE)
        self.text = ctypes.create_string_buffer(160)
        self.events = ctypes.create_string_buffer(lib.carc_events_size())
        self.lib = lib


def _scratch():
    """This thread's :class:`_Scratch` (remade when another library was
    loaded since)."""
    s = getattr(_tls, "s", None)
    if s is None or s.lib is not _L():
        s = _tls.s = _Scratch()
    return s


def _msg(buf, fallback):
    """The message in an error buffer, or fallback when it is empty."""
    m = buf.value.decode("utf-8", "replace")
    return m if m else fallback


# ---- what the engine says once: names, limits, tiles ---------------------------------

def _vocab():
    """The engine's name lists (carc_vocabulary_json) as tuples, read once."""
    v = _cache.get("vocab")
    if v is None:
        raw = _take_json(_L().carc_vocabulary_json(), "carc_vocabulary_json")
        v = {k: tuple(names) for k, names in raw.items()}
        v["_tile_index"] = {n: i for i, n in enumerate(v["tiles"])}
        _cache["vocab"] = v
    return v


def vocabulary():
    """Every name list of the engine (carc_vocabulary_json) as a dict of
    lists: figures, features, score_kinds, goods, tile_sets, steps,
    expansions, farm_scoring, ports, tiles, figure_words."""
    return {k: list(v) for k, v in _vocab().items() if not k.startswith("_")}


def limit(what):
    """One of the engine's capacities (carc_limit), by its index (0 board
    tiles, 1 steps, 2 figures, 3 feature ids, 4 tile types, 5 decisions of
    one step)."""
    key = ("limit", int(what))
    n = _cache.get(key)
    if n is None:
        n = _cache[key] = _L().carc_limit(int(what))
    return n


def tiles_json():
    """The engine's description of every tile type (carc_tiles_json,
    docs/tiles.md) as a dict; a new copy each call."""
    return _copy.deepcopy(_tiles_data())


def _tiles_data():
    t = _cache.get("tiles")
    if t is None:
        t = _cache["tiles"] = _take_json(_L().carc_tiles_json(), "carc_tiles_json")
    return t


# module attributes asked of the engine on first use (PEP 562)
# (the keys of carc_vocabulary_json, by the attribute each is)
_LAZY_NAMES = {v: k for k, v in {
    "figures": "FIGURES", "features": "FEATURES", "score_kinds": "SCORE_KINDS",
    "goods": "GOODS", "tile_sets": "TILE_SETS", "steps": "STEPS", "expansions": "EXPANSIONS",
    "farm_scoring": "FARM_SCORINGS", "ports": "PORTS", "figure_words": "FIGURE_WORDS",
    "symbols": "SYMBOLS"}.items()}
_LAZY_LIMITS = {"MAX_TILES": _LIMIT_BOARD_TILES, "MAX_STEPS": _LIMIT_STEPS,
                "MAX_FIGURES": _LIMIT_FIGURES, "MAX_FEATURE_IDS": _LIMIT_FEATURE_IDS,
                "TILE_TYPES": _LIMIT_TILE_TYPES}


def __getattr__(name):
    """The engine's name lists (FIGURES, FEATURES, SCORE_KINDS, GOODS,
    TILE_SETS, STEPS, EXPANSIONS, FARM_SCORINGS, PORTS, FIGURE_WORDS,
    SYMBOLS: tuples
    indexed as the engine's enums) and capacities (MAX_TILES, MAX_STEPS,
    MAX_FIGURES, MAX_FEATURE_IDS, TILE_TYPES), asked of the engine."""
    if name in _LAZY_NAMES:
        return _vocab()[_LAZY_NAMES[name]]
    if name in _LAZY_LIMITS:
        return limit(_LAZY_LIMITS[name])
    raise AttributeError("module %r has no attribute %r" % (__name__, name))


# ---- names --------------------------------------------------------------------------

def tile_names():
    """Names of all tile types, indexed by type (0 .. TILE_TYPES-1)."""
    return list(_vocab()["tiles"])


def tile_type(name):
    """The type number of a tile name ("A".."X", "r1", "ic6", "tb14", "Eg",
    ...); an int is returned as it is after a range check. Raises
    ValueError for an unknown name."""
    n = limit(_LIMIT_TILE_TYPES)
    if isinstance(name, int) and not isinstance(name, bool):
        if 0 <= name < n:
            return name
        raise ValueError("tile type %d out of range 0..%d" % (name, n - 1))
    t = _vocab()["_tile_index"].get(str(name))
    if t is None:
        raise ValueError("unknown tile %r" % (name,))
    return t


def tile_name(t):
    """The name of a tile type number (a name is returned as it is after a
    check)."""
    return _vocab()["tiles"][tile_type(t)]


def port_name(port):
    """Name of a port: "N0".."W2" for 0..11, "C" for PORT_CENTRE, "I" for
    PORT_INNER; None for a number that is no port."""
    ports = _vocab()["ports"]
    p = int(port)
    return ports[p] if 0 <= p < len(ports) else None


def port_parse(name):
    """Port number of a name ("N0".."W2", "C", "I"); raises ValueError if
    unknown."""
    try:
        return _vocab()["ports"].index(str(name))
    except ValueError:
        raise ValueError("unknown port %r (one of %s)"
                         % (name, ", ".join(_vocab()["ports"]))) from None


def _rules_json(players=2, farm_scoring=None, small_city=None, farmers=None,
                expansions=(), pile=None):
    """The rules JSON text of Python arguments; what is None is left to the
    engine's default. Raises ValueError for a farm scoring number or a pile
    tile that is not one."""
    r = {"players": int(players)}
    if farmers is not None:
        r["farmers"] = bool(farmers)
    if small_city is not None:
        r["small_city"] = bool(small_city)
    if farm_scoring is not None:
        if isinstance(farm_scoring, str):
            r["farm_scoring"] = farm_scoring
        else:
            fs = _vocab()["farm_scoring"]
            i = int(farm_scoring)
            if not 0 <= i < len(fs):
                raise ValueError("farm scoring %d out of range 0..%d" % (i, len(fs) - 1))
            r["farm_scoring"] = fs[i]
    if isinstance(expansions, str):
        expansions = [e for e in expansions.replace(",", " ").split() if e]
    r["expansions"] = [str(e) for e in expansions or ()]
    if pile is not None:
        counts = {}
        for name, n in dict(pile).items():
            k = tile_name(name)
            counts[k] = counts.get(k, 0) + int(n)
        r["tiles"] = counts
    return json.dumps(r)


def _rules_bytes():
    """Room for one carc_rules, as opaque bytes aligned like a double."""
    lib = _L()
    n = lib.carc_rules_size() if hasattr(lib, "carc_rules_size") else 256
    return (ctypes.c_uint64 * ((n + 7) // 8))()


def rules_pile(players=2, expansions=(), **rules):
    """The standard pile of a rule set as {tile name: count} (start tile not
    included). Takes the same rule arguments as :class:`Game`."""
    g = Game(players=players, expansions=expansions, **rules)
    counts = (ctypes.c_int * limit(_LIMIT_TILE_TYPES))()
    _L().carc_game_pile(g, counts)
    names = _vocab()["tiles"]
    return {names[t]: n for t, n in enumerate(counts) if n}


def start_tile(expansions=(), **rules):
    """Name of the start tile of a rule set ("D", or the spring with the
    River)."""
    g = Game(expansions=expansions, **rules)
    t = ctypes.c_int()
    _L().carc_board_tile(g, 0, ctypes.byref(t), None, None, None, None)
    return tile_name(t.value)


# ---- tiles --------------------------------------------------------------------------

class Segment:
    """One segment of a tile type, as drawn at rotation 0.

    Attributes: ``index``; ``kind`` (its index in FEATURES) and
    ``kind_name`` (the engine's feature name); ``ports`` (the edge port
    numbers 0..11 it touches at rotation 0, sorted; none for a cloister,
    garden or inner field); ``port`` (the port that names it in records at
    rotation 0, a number) and ``port_name``; ``shield``, ``inn``,
    ``cathedral``, ``princess`` (bools) and ``flags`` (the same as SEGF_*
    bits);
    ``goods`` (None or a name of GOODS); ``cities`` (for a field: the
    indexes of the city segments of the tile it touches).
    """

    __slots__ = ("tile", "index", "kind", "kind_name", "ports", "port", "port_name",
                 "flags", "shield", "inn", "cathedral", "princess", "goods", "cities")

    def __repr__(self):
        """A short description for people."""
        extra = [n for n in ("shield", "inn", "cathedral", "princess") if getattr(self, n)]
        if self.goods:
            extra.append(self.goods)
        return "Segment(%s #%d %s at %s%s)" % (
            self.tile, self.index, self.kind_name, self.port_name,
            (", " + ", ".join(extra)) if extra else "")


class Tile:
    """What the engine knows of one tile type (read-only), from its
    carc_tiles_json.

    Build one with :func:`tile` (``carc.tile("D")``). Attributes: ``type``
    (number), ``name``, ``set`` (name of its tile set, see TILE_SETS),
    ``box_count`` (copies in its box), ``garden_twin`` (for an Abbot garden
    copy the plain twin's name, else None), ``note`` (a line for people),
    ``segments`` (a list of :class:`Segment`), ``symbol`` (Princess &
    Dragon: a name of SYMBOLS such as the volcano's, None for a tile
    without one).
    """

    def __init__(self, t):
        """Reads what the engine knows of tile type (or name) t."""
        lib = _L()
        t = tile_type(t)
        d = _tiles_data()["tiles"][t]
        self.type = t
        self.name = d["name"]
        self.set = d["set"]
        self.box_count = d["count"]
        self.garden_twin = d.get("garden_of")
        self.note = d.get("note") or ""
        sym = lib.carc_tile_symbol(t)
        self.symbol = None if sym == _SYM_NONE else _vocab()["symbols"][sym]
        features = _vocab()["features"]
        self.segments = []
        for s in d["segments"]:
            sg = Segment()
            sg.tile = self.name
            sg.index = s["index"]
            sg.kind_name = s["kind"]
            sg.kind = features.index(sg.kind_name)
            sg.ports = sorted(p for p in (port_parse(n) for n in s["ports"])
                              if p not in (PORT_CENTRE, PORT_INNER))
            sg.port = lib.carc_tile_segment_port(t, 0, sg.index)
            sg.port_name = port_name(sg.port)
            sg.shield = bool(s.get("shield"))
            sg.inn = bool(s.get("inn"))
            sg.cathedral = bool(s.get("cathedral"))
            sg.princess = bool(s.get("princess"))
            sg.flags = ((SEGF_SHIELD if sg.shield else 0) | (SEGF_INN if sg.inn else 0)
                        | (SEGF_CATHEDRAL if sg.cathedral else 0)
                        | (SEGF_PRINCESS if sg.princess else 0))
            sg.goods = s.get("goods")
            sg.cities = list(s.get("cities", ()))
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
        for p in range(len(_vocab()["ports"])):
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


# ---- decisions ----------------------------------------------------------------------

class Move(int):
    """A decision: the engine's number for it, with what it means.

    A Move compares and hashes as its integer, so plain ints and Moves mix
    freely. What the number means depends on the step it is made in, and
    only the engine knows: a Move that a :class:`Game` gives (its legal
    decisions, :meth:`Game.move`, :meth:`Game.parse_move`, the history)
    carries the engine's JSON of it (:attr:`json`), its words (:attr:`text`,
    for decisions of the current step), its step's kind (:attr:`step`) and
    the turn's tile (:attr:`tile`), and the fields below are read from that
    JSON. ``Move(number)`` made by hand knows only the number: its fields
    are None until :meth:`Game.as_move` asks the engine.

    Tile step fields: x, y, rot, is_discard, recall, figure_name, figure,
    port_name, port, segment, has_figure, placement.
    """

    def __new__(cls, value, tile=None, step=None, json=None, text=None):
        """A Move of an int value (taken as 32 bits) and, optionally, the
        turn's tile, the kind of its step (an index in STEPS), the engine's
        JSON of it (a dict) and its words."""
        m = super().__new__(cls, int(value) & 0xFFFFFFFF)
        m.tile = None if tile is None else tile_type(tile)
        m._step = step
        m._json = json
        m._jtext = None
        m._text = text
        m._placement = None
        m._listing = None
        return m

    @classmethod
    def _listed(cls, value, tile_, step, jtext, text, listing):
        """A Move the engine listed now: its JSON text (parsed on first use)
        and words, and the list it came in (where its placement is)."""
        m = int.__new__(cls, value)
        m.tile = tile_
        m._step = step
        m._json = None
        m._jtext = jtext
        m._text = text
        m._placement = None
        m._listing = listing
        return m

    def _j(self):
        """The engine's JSON of the decision as a dict (not a copy), None
        when not known."""
        if self._json is None and self._jtext is not None:
            self._json = json.loads(self._jtext)
        return self._json

    @classmethod
    def discard(cls, tile=None):
        """The tile step's decision that sets the tile aside (when it fits
        nowhere): CARC_MOVE_DISCARD."""
        return cls(MOVE_DISCARD, tile, _STEP_TILE)

    @property
    def step(self):
        """The name of the kind of step the decision belongs to ("tile" or
        another of STEPS), None when not known."""
        return None if self._step is None else _vocab()["steps"][self._step]

    @property
    def json(self):
        """The engine's JSON of the decision as a dict (a copy), None when
        not known: in the tile step {"x", "y", "rot", "meeple": null or
        {"kind", "at"}} (with "abbot_recalled": true for a recall) or
        {"discarded": true}; in another step the keys of that kind."""
        j = self._j()
        return None if j is None else _copy.deepcopy(j)

    @property
    def text(self):
        """The decision in a few words, the engine's (carc_move_text), for a
        decision listed or read for the current step; None otherwise."""
        return self._text

    def _tile_json(self):
        """The JSON when this is a tile step's decision, else None."""
        return self._j() if self._step == _STEP_TILE else None

    @property
    def is_discard(self):
        """True for the tile step's set-aside decision."""
        j = self._tile_json()
        if j is not None:
            return bool(j.get("discarded"))
        return self._step in (None, _STEP_TILE) and int(self) == MOVE_DISCARD

    def _place(self, key):
        j = self._tile_json()
        return None if j is None or j.get("discarded") else j.get(key)

    @property
    def x(self):
        """Column of the square (None for a discard or another step)."""
        return self._place("x")

    @property
    def y(self):
        """Row of the square, y grows south (None for a discard or another
        step)."""
        return self._place("y")

    @property
    def rot(self):
        """Clockwise quarter turns 0..3 (None for a discard or another step)."""
        return self._place("rot")

    def _meeple(self):
        return self._place("meeple") or None

    @property
    def figure_name(self):
        """The name of the figure put on the tile (one of FIGURES), None if
        none."""
        m = self._meeple()
        return None if m is None else m.get("kind", _vocab()["figures"][0])

    @property
    def figure(self):
        """The figure put on the tile as its index in FIGURES, None if none."""
        f = self.figure_name
        return None if f is None else _vocab()["figures"].index(f)

    @property
    def has_figure(self):
        """True when the decision puts a figure on the tile."""
        return self._meeple() is not None

    @property
    def port_name(self):
        """The port naming the figure's segment as the tile lies ("N0".."W2",
        "C", "I"), as records do; None with no figure."""
        m = self._meeple()
        return None if m is None else m.get("at")

    @property
    def port(self):
        """:attr:`port_name` as a port number, or None."""
        p = self.port_name
        return None if p is None else port_parse(p)

    @property
    def segment(self):
        """Segment index (of the tile type as drawn) that gets the figure,
        None when no figure is placed or the tile is not known."""
        p = self.port_name
        if p is None or self.tile is None:
            return None
        return tile(self.tile).port_segment(p, self.rot)

    @property
    def recall(self):
        """True when the decision takes the abbot back (Abbot) instead of
        placing a figure."""
        return bool(self._place("abbot_recalled"))

    @property
    def placement(self):
        """The same placement with no figure (and no recall), as a Move:
        the decision itself when it places none; None when not known."""
        if self._tile_json() is None:
            return None
        if self.is_discard or not (self.has_figure or self.recall):
            return self
        if self._placement is None and self._listing is not None:
            key = (self.x, self.y, self.rot)
            for m in self._listing:
                if m._tile_json() is not None and (m.x, m.y, m.rot) == key \
                        and not (m.has_figure or m.recall or m.is_discard):
                    self._placement = m
                    break
        return self._placement

    def port_for(self, tile_):
        """The port number naming the figure's segment if this decision
        placed tile ``tile_`` (a name or type) instead; None with no figure."""
        s = self.segment
        if s is None:
            return None
        return _L().carc_tile_segment_port(tile_type(tile_), self.rot, s)

    @property
    def tile_name(self):
        """Name of the turn's tile, None if not known."""
        return None if self.tile is None else tile_name(self.tile)

    def __str__(self):
        """The decision in the engine's words, after the tile's name in the
        tile step ("D (1,0) rot 3 follower E1")."""
        words = self._text
        if words is None and self._j() is not None:
            words = json.dumps(self._j(), sort_keys=True)
        if words is None:
            return "decision %d" % int(self)
        if self._step == _STEP_TILE and self.tile is not None:
            return "%s %s" % (self.tile_name, words)
        return words

    def __repr__(self):
        """A short description for people."""
        return "Move(0x%08x: %s)" % (int(self), self)

    def __reduce__(self):
        """Pickles the number and what is known of it."""
        pl = self.placement
        return (_move_restore, (int(self), self.tile, self._step, self._j(), self._text,
                                None if pl is None or pl is self else int(pl)))


def _move_restore(value, tile_, step, js, text, placement):
    """Unpickles a :class:`Move`."""
    m = Move(value, tile_, step, js, text)
    if placement is not None:
        pj = {k: v for k, v in js.items() if k in ("x", "y", "rot")}
        pj["meeple"] = None
        m._placement = Move(placement, tile_, step, pj)
    return m


def _move_int(m):
    """A decision argument as an unsigned 32-bit int."""
    if isinstance(m, bool):
        raise TypeError("a decision is an int, a carc.Move or its JSON (a dict), not %r" % (m,))
    try:
        m = operator.index(m)
    except TypeError:
        raise TypeError("a decision is an int, a carc.Move or its JSON (a dict), not %r"
                        % (m,)) from None
    if not 0 <= m <= 0xFFFFFFFF:
        raise ValueError("decision 0x%x is not a 32-bit value" % m)
    return m


def _is_json_decision(m):
    """True for a decision given as JSON: a dict, or its text."""
    return isinstance(m, (dict, str, bytes))


# ---- what a step did ----------------------------------------------------------------

class Event:
    """What a step did besides its decision, from the engine's log entry of
    the step (carc_view_step), as :meth:`Game.apply` reports it.

    ``type`` is "scored" (points) or "returned" (a figure went back to its
    owner). Attributes: ``final`` (True in the final scoring); ``x``, ``y``,
    ``at`` (where on the board: a square and a port as the tile lies, None
    for a goods majority), ``tile`` and ``seg`` (that square's board tile
    index and the segment index of its type). Scored: ``kind`` (an index in
    SCORE_KINDS) and ``kind_name``, ``tiles`` (tiles of the feature; for a
    cloister 1 + the tiles around), ``points`` (a list, what each player
    got), ``good`` (the goods of a goods majority). Returned: ``figure``
    (a name of FIGURES) and ``player``. ``data`` is the engine's dict.
    """

    __slots__ = ("type", "kind", "kind_name", "final", "tiles", "points", "figure", "player",
                 "x", "y", "at", "tile", "seg", "good", "data")

    def __repr__(self):
        """A short description for people."""
        if self.type == "returned":
            return "Event(%s%s of player %d returned)" % (
                "final " if self.final else "", self.figure, self.player)
        return "Event(%s%s, %d tiles, points=%s)" % (
            "final " if self.final else "", self.kind_name, self.tiles, self.points)


def _event(g, d):
    """An :class:`Event` of one entry of a log entry's "events"."""
    e = Event()
    e.data = d
    e.final = bool(d.get("final"))
    e.x, e.y, e.at = d.get("x"), d.get("y"), d.get("at")
    e.tile = e.seg = None
    if e.x is not None and e.at is not None:
        e.tile, e.seg = g._segment_at(e.x, e.y, e.at)
    e.good = d.get("good")
    if "returned" in d:
        e.type = "returned"
        e.figure = d["returned"]
        e.player = d.get("player")
        e.kind = e.kind_name = None
        e.tiles = 0
        e.points = [0] * g.players
    else:
        e.type = "scored"
        e.kind_name = d["kind"]
        e.kind = _vocab()["score_kinds"].index(e.kind_name)
        e.tiles = d.get("tiles", 0)
        e.points = list(d["points"])
        e.figure = e.player = None
    return e


class Step:
    """One step played: ``index`` (0 = the first), ``kind`` (a name of
    STEPS), ``player`` (who decided), ``turn`` (0-based), ``tile`` (the
    turn's tile name) and ``move`` (the decision, a :class:`Move` with its
    JSON from the engine's record)."""

    __slots__ = ("index", "kind", "player", "turn", "tile", "move")

    def __eq__(self, other):
        """Steps are equal when every field is."""
        return isinstance(other, Step) and all(
            getattr(self, a) == getattr(other, a) for a in Step.__slots__) \
            and other.move.json == self.move.json

    def __hash__(self):
        """Hashes as its fields."""
        return hash((self.index, self.kind, self.player, self.turn, int(self.move)))

    def __repr__(self):
        """A short description for people."""
        return "Step(%d: turn %d, %s step of player %d, tile %s, %s)" % (
            self.index, self.turn, self.kind, self.player, self.tile, self.move)


# ---- games --------------------------------------------------------------------------

class Game:
    """One game, held in a ctypes buffer of carc_game_size() bytes.

    ``Game(players=2, farm_scoring=None, small_city=None, farmers=None,
    expansions=(), seed=0, pile=None)``:

    - ``farm_scoring``: a name of FARM_SCORINGS (or its index);
    - ``small_city``, ``farmers``: bools;
    - ``expansions``: a list of names of EXPANSIONS (a comma- or
      space-separated string works too);
    - ``seed``: fixes the draw order (an int, taken modulo 2**64);
    - ``pile``: a custom pile as {tile name: count} (start tile not included);
      None means the rule set's standard pile.

    A rule left None is the engine's default (farmers, international farm
    scoring, no small-city rule). The rules go to the engine as a rules JSON
    (carc_rules_from_json): an unknown name or rules or a pile the engine
    refuses raise :class:`ArgumentError` (a ValueError) with its message.

    A turn is a sequence of steps and a step is one player's decision: the
    turn starts with the tile step (:attr:`turn_player` places
    :attr:`current_tile`), and the rules may add further steps. In every
    step the player :attr:`to_move` picks one of :meth:`legal_moves` and
    :meth:`apply` makes it. After the last tile the final scoring is done
    and :attr:`over` is true.
    """

    def __init__(self, players=2, farm_scoring=None, small_city=None, farmers=None,
                 expansions=(), seed=0, pile=None):
        """Sets up a new game in a fresh buffer; see the class docstring."""
        text = _rules_json(players, farm_scoring, small_city, farmers, expansions, pile)
        self._buf = self._alloc()
        self._setup(text.encode(), int(seed) & 0xFFFFFFFFFFFFFFFF)

    def _setup(self, rules_text, seed):
        """Sets up the game from a rules JSON text and a seed."""
        lib = _L()
        rules = _rules_bytes()
        n = limit(_LIMIT_TILE_TYPES)
        counts = (ctypes.c_int * n)()
        have = ctypes.c_int(0)
        err = ctypes.create_string_buffer(ERRMSG_SIZE)
        st = lib.carc_rules_from_json(rules_text, len(rules_text), rules, counts,
                                      ctypes.byref(have), err)
        if st == OK:
            st = lib.carc_game_init(self._buf, rules, seed, counts if have.value else None,
                                    n, err)
        if st != OK:
            raise ArgumentError(_msg(err, "cannot set up the game (status %d)" % st), st)
        self._read_rules()

    def _read_rules(self):
        """Reads the rules back from the engine's record of the game (a
        fresh game's record is short)."""
        rr = json.loads(self._raw_record())["rules"]
        self._rules = {k: v for k, v in rr.items() if k != "tiles"}
        self._players = _L().carc_players(self._buf)
        self._entry = None
        self._steps_cache = None

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
        g._entry = None
        g._steps_cache = None
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
        g._rules = _copy.deepcopy(self._rules)
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
        self._entry = None
        self._steps_cache = None

    # -- the rules

    @property
    def rules(self):
        """The rules as the engine's record writes them: a dict with
        players, farmers, farm_scoring, small_city and expansions (a list
        of names)."""
        return _copy.deepcopy(self._rules)

    @property
    def players(self):
        """Number of players."""
        return self._players

    @property
    def seed(self):
        """The seed the game was dealt from."""
        return _L().carc_game_seed(self._buf)

    # -- asking the state

    @property
    def over(self):
        """True once the game has ended (final scoring done)."""
        return bool(_L().carc_game_over(self._buf))

    def game_over(self):
        """True once the game has ended (the same as :attr:`over`)."""
        return self.over

    @property
    def step_kind(self):
        """The kind of the current step, the engine's name ("tile" or
        another of STEPS); None when the game is over."""
        k = _L().carc_step_kind(self._buf)
        return None if k < 0 else _vocab()["steps"][k]

    @property
    def to_move(self):
        """The player whose decision the current step is, 0..players-1."""
        return _L().carc_to_move(self._buf)

    @property
    def turn_player(self):
        """The player whose turn it is (who drew the tile): :attr:`to_move`
        in the tile step, maybe another in later steps."""
        return _L().carc_turn_player(self._buf)

    @property
    def steps_played(self):
        """Steps (decisions) made so far."""
        return _L().carc_steps_played(self._buf)

    @property
    def turns_played(self):
        """Turns played so far (tiles drawn and placed or set aside)."""
        return _L().carc_turns_played(self._buf)

    @property
    def current_tile_type(self):
        """Type number of the turn's tile, None at the end."""
        t = _L().carc_current_tile(self._buf)
        return None if t < 0 else t

    @property
    def current_tile(self):
        """Name of the turn's tile, None at the end."""
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
        names = _vocab()["tiles"]
        out = {}
        for t in range(limit(_LIMIT_TILE_TYPES)):
            n = lib.carc_tiles_left_of(self._buf, t)
            if n:
                out[names[t]] = n
        return out

    def drawable_tiles(self):
        """{tile name: count} of the tiles that may be drawn now (what
        :meth:`set_current_tile` accepts): the tiles left, restricted by the
        River's draw order when it applies; {} outside a tile step. For
        chance nodes in search."""
        lib = _L()
        if lib.carc_step_kind(self._buf) != _STEP_TILE:
            return {}
        names = _vocab()["tiles"]
        out = {}
        for t in range(limit(_LIMIT_TILE_TYPES)):
            n = lib.carc_tiles_left_of(self._buf, t)
            if n and lib.carc_tile_drawable(self._buf, t):
                out[names[t]] = n
        return out

    def supply(self, player=None):
        """Figures left in a player's supply as {figure name: count}
        (``player`` defaults to the player to move)."""
        lib = _L()
        p = self.to_move if player is None else int(player)
        return {f: lib.carc_supply(self._buf, p, i) for i, f in enumerate(_vocab()["figures"])}

    def supplies(self):
        """:meth:`supply` of every player, as a list."""
        return [self.supply(p) for p in range(self._players)]

    def goods(self, player=None):
        """Goods tokens a player holds (Traders & Builders) as {name: count}
        (``player`` defaults to the player to move)."""
        lib = _L()
        p = self.to_move if player is None else int(player)
        return {k: lib.carc_goods_held(self._buf, p, i)
                for i, k in enumerate(_vocab()["goods"]) if i != _GOODS_NONE}

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
        """Points of one player of one kind (a name of SCORE_KINDS or its
        index)."""
        k = _vocab()["score_kinds"].index(kind) if isinstance(kind, str) else int(kind)
        return _L().carc_score_by_kind(self._buf, int(player), k)

    def scores_by_kind(self):
        """Points so far by kind: a list with one {kind name: points} per
        player, over all of SCORE_KINDS."""
        lib = _L()
        kinds = _vocab()["score_kinds"]
        return [{name: lib.carc_score_by_kind(self._buf, p, k) for k, name in enumerate(kinds)}
                for p in range(self._players)]

    # -- Princess & Dragon's pieces

    def _square(self, i):
        """{"x", "y"} of board tile i."""
        x, y = ctypes.c_int(), ctypes.c_int()
        _L().carc_board_tile(self._buf, i, None, ctypes.byref(x), ctypes.byref(y), None, None)
        return {"x": x.value, "y": y.value}

    @property
    def dragon(self):
        """Princess & Dragon: the dragon's square as {"x", "y"}, None while
        it is not in play (carc_dragon_tile)."""
        t = _L().carc_dragon_tile(self._buf)
        return None if t < 0 else self._square(t)

    @property
    def fairy(self):
        """Princess & Dragon: the fairy as {"x", "y", "at"} ("at" the port
        of the follower it stands next to, None when it stands alone), None
        before it is first moved (carc_fairy_tile)."""
        fig = ctypes.c_int()
        t = _L().carc_fairy_tile(self._buf, ctypes.byref(fig))
        if t < 0:
            return None
        out = self._square(t)
        out["at"] = None
        if fig.value >= 0:  # an index of the figures as the engine lists them
            out["at"] = self.view("figures")["figures"][fig.value]["at"]
        return out

    @property
    def dragon_path(self):
        """Princess & Dragon: the squares the dragon has visited in the
        movement under way, its start first, as {"x", "y"} dicts; [] when
        it is not moving (carc_dragon_visited)."""
        tiles = (ctypes.c_int * 8)()
        n = _L().carc_dragon_visited(self._buf, tiles)
        return [self._square(tiles[k]) for k in range(n)]

    @property
    def hash(self):
        """The engine's 64-bit hash of the position."""
        return _L().carc_game_hash(self._buf)

    def position_hash(self):
        """The engine's 64-bit hash of the position (as :attr:`hash`)."""
        return self.hash

    # -- the engine's views

    def view(self, *parts):
        """The engine's JSON view of the position (carc_view_json) as a
        dict, with the parts named (any of "board", "figures", "supply",
        "scores", "turn", "final"; none: all of them). docs/protocol.md
        ("The engine's views") tells their forms."""
        bits = 0
        for p in parts:
            if p not in _VIEW_PARTS:
                raise ValueError("unknown view part %r (one of %s)"
                                 % (p, ", ".join(_VIEW_PARTS)))
            bits |= _VIEW_PARTS[p]
        return _take_json(_L().carc_view_json(self._buf, bits or _VIEW_ALL), "carc_view_json")

    def preview(self, move):
        """What a decision of the current step would do, without making it
        (carc_view_preview), as a dict: for a placement of the tile step,
        the feature each of its figure options would join and what the tile
        completes and scores at once. Raises :class:`IllegalMove` for a
        decision that is not legal."""
        if _is_json_decision(move):
            move = self.parse_move(move)
        m = _move_int(move)
        err = _scratch().err
        err.value = b""
        p = _L().carc_view_preview(self._buf, m, err)
        if not p:
            raise IllegalMove(_msg(err, "no preview of decision %d" % m), ERR_ILLEGAL,
                              self._bare(m))
        return _take_json(p, "carc_view_preview")

    def feature_view(self, x, y, at):
        """The engine's view of the feature at port ``at`` (a name or
        number, as the tile lies) of the board tile at (x, y)
        (carc_view_feature): its kind, the squares and ports it covers,
        open sides, shields, done, value, holders and figures. ValueError
        when there is no such feature."""
        port = port_parse(at) if isinstance(at, str) else int(at)
        err = _scratch().err
        err.value = b""
        p = _L().carc_view_feature(self._buf, int(x), int(y), port, err)
        if not p:
            raise ValueError(_msg(err, "no feature at (%d, %d) %s" % (x, y, at)))
        return _take_json(p, "carc_view_feature")

    # -- the board

    def tile_at(self, x, y):
        """Index into the board's tiles of the tile at (x, y) (0 is the start
        tile, then in order of placement), None if the square is empty."""
        i = _L().carc_tile_at(self._buf, int(x), int(y))
        return None if i < 0 else i

    def _segment_at(self, x, y, at):
        """(board tile index, segment index of its type) of port ``at`` of
        the tile at (x, y); (None, None) when there is none."""
        lib = _L()
        i = lib.carc_tile_at(self._buf, int(x), int(y))
        if i < 0:
            return None, None
        t, rot = ctypes.c_int(), ctypes.c_int()
        lib.carc_board_tile(self._buf, i, ctypes.byref(t), None, None, ctypes.byref(rot), None)
        port = port_parse(at) if isinstance(at, str) else int(at)
        s = lib.carc_tile_port_segment(t.value, rot.value, port)
        return i, (None if s < 0 else s)

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
        :meth:`feature`). From the engine's view."""
        out = []
        for f in self.view("figures")["figures"]:
            out.append({"player": f["player"], "figure": f["kind"],
                        "tile": self.tile_at(f["x"], f["y"]), "x": f["x"], "y": f["y"],
                        "at": f["at"], "feature": self.feature_id(f["x"], f["y"], f["at"])})
        return out

    # -- features

    def feature_id(self, x, y, at):
        """The id of the feature at port `at` (a name such as "N1" or "C",
        as the tile lies on the board) of the tile at (x, y). Ids stay
        good: a later position maps an old id with :meth:`feature_find`.
        Raises ValueError if the square is empty or has nothing there."""
        i, seg = self._segment_at(x, y, at)
        if i is None:
            raise ValueError("no tile at (%d, %d)" % (x, y))
        if seg is None:
            raise ValueError("the tile at (%d, %d) has no feature at %s" % (x, y, at))
        return _L().carc_feature_id(self._buf, i, seg)

    def feature_find(self, fid):
        """The id now of a feature whose id was fid in an earlier position."""
        r = _L().carc_feature_find(self._buf, int(fid))
        if r < 0:
            raise ValueError("no feature %r" % (fid,))
        return r

    def _feature_place(self, root):
        """A square and port of the feature whose id is root, (x, y, port);
        the API gives the feature view by place, so the board is searched."""
        lib = _L()
        t, x, y, rot = ctypes.c_int(), ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        for i in range(lib.carc_board_tiles(self._buf)):
            lib.carc_board_tile(self._buf, i, ctypes.byref(t), ctypes.byref(x),
                                ctypes.byref(y), ctypes.byref(rot), None)
            for s in range(lib.carc_tile_segments(t.value)):
                if lib.carc_feature_find(self._buf,
                                         lib.carc_feature_id(self._buf, i, s)) == root:
                    return x.value, y.value, lib.carc_tile_segment_port(t.value, rot.value, s)
        raise ValueError("no feature %r" % (root,))

    def _feature_dict(self, root, x, y, port):
        """The :meth:`feature` dict of the feature root, from the engine's
        view of it at (x, y, port)."""
        v = self.feature_view(x, y, port)
        np_ = self._players
        figs = v.get("figures", [])
        pig = _vocab()["figures"][_FIG_PIG]
        d = {"id": root, "kind": v["kind"], "open": v["open"], "tiles": v["tiles"],
             "shields": v["shields"], "inn": bool(v.get("inn")),
             "cathedral": bool(v.get("cathedral")), "done": bool(v["done"]),
             "value": v["value"], "weight": list(v["holders"]),
             "figures": [sum(1 for f in figs if f["player"] == p) for p in range(np_)],
             "pigs": sorted({f["player"] for f in figs if f["kind"] == pig})}
        kinds = _vocab()["features"]
        if v["kind"] in (kinds[_FEAT_CLOISTER], kinds[_FEAT_GARDEN]):
            # the tiles around its square (the view does not say it yet)
            d["neighbours"] = sum(1 for dx in (-1, 0, 1) for dy in (-1, 0, 1)
                                  if (dx or dy) and self.tile_at(x + dx, y + dy) is not None)
        return d

    def feature(self, fid):
        """A feature as a dict: id, kind (a name of FEATURES), open sides,
        tiles, shields, inn, cathedral, done (a road or city completed),
        value (what it scores now), weight and figures (lists by player),
        pigs (players with a pig on it), and for a cloister or garden its
        neighbours (0..8). From the engine's view of the feature."""
        root = self.feature_find(fid)
        x, y, port = self._feature_place(root)
        return self._feature_dict(root, x, y, port)

    def held_features(self):
        """The features with figures on them (see :meth:`feature`), in the
        order of their first figure."""
        out, seen = [], set()
        for f in self.view("figures")["figures"]:
            root = self.feature_find(self.feature_id(f["x"], f["y"], f["at"]))
            if root not in seen:
                seen.add(root)
                out.append(self._feature_dict(root, f["x"], f["y"], f["at"]))
        return out

    def field_cities(self, fid):
        """The ids of the cities the field fid borders (completed or not)."""
        n = limit(_LIMIT_FEATURE_IDS)
        buf = (ctypes.c_uint16 * n)()
        k = _L().carc_field_cities(self._buf, int(fid), buf, n)
        return list(buf[:k])

    # -- the steps played

    def _record_steps(self):
        """The decisions of every step played, in order, as the engine's
        record writes them (a list of JSON dicts): the keys of a turn's tile
        step, then its later steps without their "player". Cached for the
        position."""
        key = (self.steps_played, self.hash)
        if self._steps_cache is not None and self._steps_cache[0] == key:
            return self._steps_cache[1]
        out = []
        for t in json.loads(self._raw_record()).get("turns", []):
            out.append({k: t[k] for k in _TILE_DECISION_KEYS if k in t})
            for s in t.get("steps", ()):
                out.append({k: v for k, v in s.items() if k != "player"})
        self._steps_cache = (key, out)
        return out

    def step(self, k):
        """Step k of the steps played (0 = the first; negative counts from
        the end) as a :class:`Step`. Its decision's JSON is read from the
        engine's record, so not cheap for many steps: see :meth:`steps`."""
        n = self.steps_played
        k = int(k)
        if k < 0:
            k += n
        if not 0 <= k < n:
            raise IndexError("step %d out of range (%d played)" % (k, n))
        return self._step(k, self._record_steps())

    def steps(self):
        """Every step played, as :class:`Step` objects."""
        rec = self._record_steps()
        return [self._step(k, rec) for k in range(self.steps_played)]

    def _step(self, k, rec):
        """Step k as a :class:`Step`, its decision's JSON rec[k]."""
        kind, player, turn, tile = (ctypes.c_int(), ctypes.c_int(), ctypes.c_int(),
                                    ctypes.c_int())
        move = ctypes.c_uint32()
        if _L().carc_step_get(self._buf, k, ctypes.byref(kind), ctypes.byref(player),
                              ctypes.byref(turn), ctypes.byref(tile), ctypes.byref(move)) < 0:
            raise IndexError("step %d out of range" % k)
        s = Step()
        s.index = k
        s.kind = _vocab()["steps"][kind.value]
        s.player = player.value
        s.turn = turn.value
        s.tile = tile_name(tile.value)
        # (its placement is not known: the engine tells the JSON of a past
        # decision only through the record, and no number but the one played)
        s.move = Move(move.value, tile.value, kind.value, rec[k])
        return s

    def history(self):
        """The turns played, as (Move, player) pairs: each turn's tile step
        decision; the Move knows its tile and JSON. (Every step:
        :meth:`steps`.)"""
        return [(s.move, s.player) for s in self.steps() if s.move._step == _STEP_TILE]

    @property
    def last_entry(self):
        """The engine's log entry of the last step (carc_view_step) as a
        dict: turn, step, player, tile, the decision's keys, goods taken,
        scores and "events". The events are there when the step was made
        through this object with ``events`` asked for; otherwise the list
        is empty. None before the first step."""
        n = self.steps_played
        if self._entry is not None and self._entry[0] == (n, self.hash):
            return _copy.deepcopy(self._entry[1])
        p = _L().carc_view_step(self._buf, None)
        return None if not p else _take_json(p, "carc_view_step")

    # -- decisions

    def _bare(self, m):
        """A Move of a number not known to be legal now: no JSON."""
        k = _L().carc_step_kind(self._buf)
        return Move(m, self.current_tile_type, None if k < 0 else k)

    def _describe(self, ms, placements=None):
        """Moves of legal decisions of the current step, with the engine's
        JSON and words. A tile step decision with a figure finds its
        placement among the Moves of the same list, or else in
        ``placements`` (a list of the placement Moves)."""
        lib = _L()
        g = self._buf
        k = lib.carc_step_kind(g)
        if k < 0:
            return []
        t = lib.carc_current_tile(g)
        sc = _scratch()
        text, mjson, mtext, take = sc.text, lib.carc_move_json, lib.carc_move_text, _take_text
        out = []
        listing = out if placements is None else []
        for m in ms:
            jt = take(mjson(g, m), "carc_move_json")
            mtext(g, m, text, len(text))
            out.append(Move._listed(m, t, k, jt, text.value.decode("utf-8", "replace"),
                                    listing))
        if placements is not None:
            listing[:] = out + list(placements)
        return out

    def _placements_of(self, moves):
        """The placements of the current tile step for the figure options
        among moves whose placement is not among them: parsed from the
        JSON of their square and rotation."""
        out = []
        for mv in moves:
            if (mv.has_figure or mv.recall) and mv.placement is None:
                out.append(self.parse_move({"x": mv.x, "y": mv.y, "rot": mv.rot,
                                            "meeple": None}))
        return out

    def placements(self):
        """Placements of the current tile (no figure), distinct rotations
        only, as Moves; [the set-aside decision] when it fits nowhere; []
        at the end or in another step."""
        sc = _scratch()
        n = _L().carc_placements(self._buf, sc.moves, len(sc.moves))
        return self._describe(sc.moves[:n])

    def figure_options(self, placement):
        """Figure options of one placement of the tile step, as Moves with
        the figure set (not including "no figure"); [] for a decision that
        is not a legal placement now."""
        sc = _scratch()
        p = _move_int(placement)
        if not self.is_legal(p):
            return []
        n = _L().carc_figure_options(self._buf, p, sc.moves, len(sc.moves))
        return self._describe(sc.moves[:n], self._describe([p]))

    def legal_moves(self):
        """Every legal decision of the current step as Moves (in the tile
        step: each placement without a figure and with each figure
        option); [] at the end."""
        sc = _scratch()
        n = _L().carc_legal_moves(self._buf, sc.moves, len(sc.moves))
        return self._describe(sc.moves[:n])

    def legal_move_ints(self):
        """Every legal decision as plain ints (faster than :meth:`legal_moves`)."""
        sc = _scratch()
        n = _L().carc_legal_moves(self._buf, sc.moves, len(sc.moves))
        return sc.moves[:n]

    @property
    def step_kind_index(self):
        """The kind of the current step as its index in STEPS (0 is the tile
        step), -1 when the game is over."""
        return _L().carc_step_kind(self._buf)

    def parse_move(self, decision):
        """The Move of a decision of the current step given as JSON (a dict,
        or its text), read by the engine (carc_move_parse; other keys are
        left alone). Raises :class:`IllegalMove` when it is no legal
        decision now, :class:`GameOverError` after the end and
        :class:`ArgumentError` when the engine cannot read it (a key
        missing or of the wrong type)."""
        if isinstance(decision, dict):
            text = json.dumps(decision).encode()
        elif isinstance(decision, str):
            text = decision.encode()
        elif isinstance(decision, bytes):
            text = decision
        else:
            raise TypeError("a decision's JSON is a dict, str or bytes, not %r" % (decision,))
        m = ctypes.c_uint32()
        err = _scratch().err
        err.value = b""
        st = _L().carc_move_parse(self._buf, text, len(text), ctypes.byref(m), err)
        if st == OK:
            return self._one(m.value)
        msg = _msg(err, STATUS_NAMES[st] if 0 <= st < len(STATUS_NAMES) else "bad decision")
        if st == ERR_GAME_OVER:
            raise GameOverError(msg, st, decision=decision)
        if st == ERR_ILLEGAL:
            raise IllegalMove(msg, st, decision=decision)
        raise ArgumentError(msg, st)

    def as_move(self, m):
        """The Move of a decision number of the current step, with its
        JSON and words from the engine; raises :class:`IllegalMove` when it
        is not legal now."""
        m = _move_int(m)
        msg = self.check(m)
        if msg is not None:
            if self.over:
                raise GameOverError(msg, ERR_GAME_OVER, self._bare(m))
            raise IllegalMove(msg, ERR_ILLEGAL, self._bare(m))
        return self._one(m)

    def _one(self, m):
        """The Move of one legal decision of the current step, its placement
        found when it has a figure."""
        mv = self._describe([m])[0]
        if mv._tile_json() is not None and (mv.has_figure or mv.recall):
            mv._placement = self._placements_of([mv])[0]
        return mv

    def move(self, x, y, rot, at=None, figure=None, recall=False, segment=None):
        """The tile step's decision placing the current tile at (x, y) with
        rotation rot, and a figure on port ``at`` (a name like "E1", "C",
        "I" or a port number, as the tile lies once rotated) or on segment
        index ``segment`` of the tile type as drawn; neither: no figure.
        ``figure`` is a name of FIGURES (None: the plain follower).
        ``recall`` takes the abbot back. Read by the engine from the
        decision's JSON: raises :class:`IllegalMove` when it is not legal
        now (and :class:`ArgumentError` for a name the engine does not
        know)."""
        d = {"x": int(x), "y": int(y), "rot": int(rot), "meeple": None}
        t = self.current_tile_type
        if t is None:
            raise GameOverError("the game is over", ERR_GAME_OVER)
        if segment is not None:
            at = tile(t).segment_port(int(segment), int(rot) & 3)
            if at < 0:
                raise ValueError("tile %s has no segment %d" % (tile_name(t), segment))
        if at is not None:
            meeple = {"at": port_name(at) if not isinstance(at, str) else at}
            if figure is not None:
                meeple["kind"] = figure if isinstance(figure, str) \
                    else _vocab()["figures"][int(figure)]
            d["meeple"] = meeple
        if recall:
            d["abbot_recalled"] = True
        return self.parse_move(d)

    def check(self, move):
        """None if the decision (a Move, an int or its JSON) is legal now,
        else the engine's message saying why not."""
        if _is_json_decision(move):
            try:
                self.parse_move(move)
            except CarcError as e:
                return e.message
            return None
        err = _scratch().err
        err.value = b""
        st = _L().carc_check_move(self._buf, _move_int(move), err)
        return None if st == OK else _msg(err, STATUS_NAMES[st] if st < len(STATUS_NAMES)
                                          else "illegal")

    def is_legal(self, move):
        """True if the decision is legal now."""
        return self.check(move) is None

    def _events(self, sc, events):
        """The events of the step just made (in sc.events), read from the
        engine's log entry of it; kept as :attr:`last_entry`."""
        entry = _take_json(_L().carc_view_step(self._buf, sc.events), "carc_view_step")
        self._entry = ((self.steps_played, self.hash), entry)
        evs = [_event(self, d) for d in entry.get("events", ())]
        if events != "all":
            evs = [e for e in evs if e.type == "scored"]
        return evs

    def apply(self, move, events=False):
        """Checks and makes a decision of the current step: a Move, an int,
        or its JSON (a dict or text, read by the engine). Raises
        :class:`IllegalMove` (or :class:`GameOverError`) with the engine's
        message when it breaks a rule; the game is then unchanged. With
        events=True returns the scoring events of the step (and of the final
        scoring when it ends the game) as a list of :class:`Event`; with
        events="all" the figures that went home too; else None."""
        if _is_json_decision(move):
            move = self.parse_move(move)
        m = _move_int(move)
        sc = _scratch()
        sc.err.value = b""
        st = _L().carc_apply(self._buf, m, sc.events if events else None, sc.err)
        if st != OK:
            mv = self._bare(m)
            if st == ERR_GAME_OVER:
                raise GameOverError(_msg(sc.err, "the game is over"), st, mv)
            raise IllegalMove(_msg(sc.err, "illegal decision %s" % mv), st, mv)
        return self._events(sc, events) if events else None

    def apply_unchecked(self, move, events=False):
        """Makes a decision without checking it, for search. It must be one
        that :meth:`placements`, :meth:`figure_options` or
        :meth:`legal_moves` gave for this very state: anything else corrupts
        the game. (Only the end of the game is guarded: GameOverError.)"""
        lib = _L()
        if lib.carc_game_over(self._buf):
            raise GameOverError("the game is over", ERR_GAME_OVER)
        sc = _scratch()
        lib.carc_apply_unchecked(self._buf, _move_int(move), sc.events if events else None)
        return self._events(sc, events) if events else None

    # -- chance

    def set_current_tile(self, name):
        """Makes ``name`` (a tile name or type) the tile drawn now; the rest of
        the draw order is kept otherwise. Raises :class:`ArgumentError` if that
        tile is not left, may not be drawn now (River order) or the current
        step is not a tile step."""
        t = tile_type(name)
        lib = _L()
        if lib.carc_set_current_tile(self._buf, t) != OK:
            if self.over:
                why = "the game is over"
            elif lib.carc_step_kind(self._buf) != _STEP_TILE:
                why = "the current step is a %s step, not a tile step" % self.step_kind
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
        return _take_text(_L().carc_record_write(self._buf, extra), "carc_record_write")

    def save(self, path, extra=None):
        """Writes :meth:`record` to a file."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.record(extra))

    @classmethod
    def replay(cls, text):
        """A Game from a carc-record-1 text (str or bytes), played through the
        engine with every step checked. Raises :class:`RecordError` with the
        engine's message (naming the turn and key) when the record is not
        valid."""
        if isinstance(text, str):
            text = text.encode("utf-8")
        g = cls._blank()
        err = ctypes.create_string_buffer(512)
        st = _L().carc_record_replay(text, len(text), g._buf, err, len(err))
        if st != OK:
            raise RecordError(_msg(err, "bad record (status %d)" % st), st)
        g._read_rules()
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
        return "<carc.Game %d players, %s step of player %d (tile %s), %d tiles left, " \
               "scores %s>" % (self._players, self.step_kind, self.to_move, self.current_tile,
                               self.tiles_left, self.scores())
