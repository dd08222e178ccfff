#!/usr/bin/env python3
"""Plays a random game of Carcassonne with the carc binding and prints it.

Usage: python3 python/example_random_game.py [SEED [RECORD_PATH]]

SEED (default 1) seeds both the draw order and the random choices, so a
seed always gives the same game. Each step (one player's decision: placing
the tile, and whatever further steps the rules give) prints one line: the
turn number, the player, the tile, the decision in the engine's words, and
the scores when they change. The final scores (total and by kind)
follow. With RECORD_PATH the game's carc-record-1 record is written there
(replay it with ``carc.Game.load(path)`` or ``carc replay``).

The library is found as the carc module says (CARC_LIB, else
build/release/libcarc.so at the repository root, else the system).
"""
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import carc  # noqa: E402


def describe(move):
    """One decision in a few words: the engine's (carc_move_text)."""
    return move.text


def main(argv):
    """Plays one game; returns the exit status."""
    if len(argv) > 3 or (len(argv) > 1 and argv[1] in ("-h", "--help")):
        print(__doc__.strip())
        return 0 if len(argv) > 1 and argv[1] in ("-h", "--help") else 2
    try:
        seed = int(argv[1]) if len(argv) > 1 else 1
    except ValueError:
        print("seed must be an integer, not %r" % argv[1], file=sys.stderr)
        return 2
    path = argv[2] if len(argv) > 2 else None

    try:
        game = carc.Game(players=2, seed=seed)
    except carc.LibraryNotFound as e:
        print(e, file=sys.stderr)
        return 1
    rng = random.Random(seed)
    last = game.scores()
    while not game.over:
        # the tile step (kind 0) starts a turn; a later step belongs to it
        turn = game.turns_played + (1 if game.step_kind_index == 0 else 0)
        player, tile = game.to_move, game.current_tile
        move = rng.choice(game.legal_moves())
        game.apply(move)
        line = "%3d  P%d  %-4s %s" % (turn, player, tile, describe(move))
        now = game.turn_scores()
        if now != last:
            line += "   scores %s" % now
            last = now
        print(line)

    print("final scores:", " ".join("P%d %d" % (p, s) for p, s in enumerate(game.scores())))
    for p, kinds in enumerate(game.scores_by_kind()):
        print("  P%d: %s" % (p, ", ".join("%s %d" % (k, v) for k, v in kinds.items() if v)))
    if path:
        game.save(path, extra={"bots": ["random", "random"]})
        print("record written to", path)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
