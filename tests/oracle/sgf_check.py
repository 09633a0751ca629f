#!/usr/bin/env python3
"""Check gamefs's SGF files with sgfmill, an independent SGF reader.

Usage: sgf_check.py EXPECTATIONS.json

The JSON is a list of {"path", "black": [[row, col]...], "white": [...], "to_play": "b"|"w",
"id": "hash-tiebreak-P", "scores": [[program, score, confidence]...]}, rows counted from the
top as gamefs does. For every file sgfmill must parse it without complaint and find the same
stones, player, id and scores; serialising it again and re-parsing must give the same.
Prints one line per problem and exits 1 if there was any.
"""
import json
import sys

from sgfmill import sgf, sgf_grammar


def read(data):
    game = sgf.Sgf_game.from_bytes(data)
    root = game.get_root()
    assert game.get_size() == 9, "size"
    assert game.get_charset() == "UTF-8", game.get_charset()
    black, white, empty = root.get_setup_stones()
    # sgfmill counts rows from the bottom.
    black = sorted([8 - r, c] for r, c in black)
    white = sorted([8 - r, c] for r, c in white)
    scores = []
    if root.has_property("GFSC"):
        for raw in root.get_raw_list("GFSC"):
            program, rest = sgf_grammar.parse_compose(raw)
            score, confidence = sgf_grammar.simpletext_value(rest).decode("utf-8").split("/")
            name = sgf_grammar.simpletext_value(program).decode("utf-8")
            scores.append([name, int(score), int(confidence)])
    comment = root.get("C")
    return {
        "black": black,
        "white": white,
        "to_play": root.get("PL"),
        "id": root.get_raw("GFID").decode("ascii"),
        "scores": sorted(scores),
        "comment_has_id": root.get_raw("GFID").decode("ascii") in comment,
        "comment_scores": all(
            f"{p}: score {s}, confidence {c}" in comment for p, s, c in scores
        ),
        "ap": root.get("AP"),
    }


def main():
    expectations = json.load(open(sys.argv[1], encoding="utf-8"))
    problems = 0
    for e in expectations:
        path = e["path"]
        try:
            data = open(path, "rb").read()
            got = read(data)
            again = read(sgf.Sgf_game.from_bytes(data).serialise())
        except Exception as ex:  # noqa: BLE001 - report every failure
            print(f"{path}: sgfmill refused it: {ex!r}")
            problems += 1
            continue
        want = {
            "black": sorted(e["black"]),
            "white": sorted(e["white"]),
            "to_play": e["to_play"],
            "id": e["id"],
            "scores": sorted(e["scores"]),
        }
        for key, value in want.items():
            if got[key] != value:
                print(f"{path}: {key}: sgfmill reads {got[key]!r}, expected {value!r}")
                problems += 1
        if not (got["comment_has_id"] and got["comment_scores"]):
            print(f"{path}: the comment does not show the id and every score")
            problems += 1
        if got["ap"][0] != "gamefs":
            print(f"{path}: AP is {got['ap']!r}")
            problems += 1
        if again != got:
            print(f"{path}: differs after sgfmill's re-serialisation")
            problems += 1
    print(f"{len(expectations)} files checked, {problems} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
