"""An independent check of one Sueca arena record against the Sueca rules (not using the plugin)."""

from __future__ import annotations

from typing import Any

ORDER = "A7KJQ65432"
POINTS = {"A": 11, "7": 10, "K": 4, "J": 3, "Q": 2}


def _wins(card: str, best: str, trump: str) -> bool:
    if card[1] == best[1]:
        return ORDER.index(card[0]) < ORDER.index(best[0])
    return card[1] == trump


def _game_points(points: int, all_tricks: bool, all_points: int) -> int:
    if all_tricks:
        return 4
    if points == 120:
        return all_points
    if points >= 91:
        return 2
    if points >= 61:
        return 1
    return 0


def check(record: dict[str, Any], options: dict[str, Any]) -> None:
    hands = [list(h) for h in record["hands"]]
    assert all(len(h) == 10 for h in hands), "everyone gets 10 cards"
    everything = [c for h in hands for c in h]
    assert len(set(everything)) == 40, "every card dealt exactly once"
    dealer = record["dealer"]
    trump_ev = record["events"][0]
    assert trump_ev["type"] == "trump" and trump_ev["seat"] == dealer
    assert trump_ev["card"] in hands[dealer], "the trump card stays in the dealer's hand"
    assert record["trump"] == trump_ev["card"][1]
    trump = record["trump"]
    leader = (dealer + 1) % 4
    points = [0, 0]
    tricks = [0, 0]
    renuncia = None
    for t in record["tricks"]:
        assert t["leader"] == leader, "the winner of a trick leads the next"
        assert t["seats"] == [(leader + i) % 4 for i in range(4)], "play goes round in seat order"
        led = t["cards"][0][1]
        best = 0
        for i, (seat, card) in enumerate(zip(t["seats"], t["cards"], strict=True)):
            assert card in hands[seat], f"seat {seat} played {card} it does not hold"
            if i and card[1] != led and any(c[1] == led for c in hands[seat]):
                renuncia = seat if renuncia is None else renuncia
            hands[seat].remove(card)
            if i and _wins(card, t["cards"][best], trump):
                best = i
        assert t["winner"] == t["seats"][best], "trick winner by the rules"
        leader = t["winner"]
        points[leader % 2] += sum(POINTS.get(c[0], 0) for c in t["cards"])
        tricks[leader % 2] += 1
    res = record["result"]
    assert res["renuncia"] == renuncia
    assert res["points"] == points and res["tricks"] == tricks
    if renuncia is None:
        assert sum(points) == 120 and not any(hands), "a clean deal plays every card"
        mult = res["multiplier"]
        expect = [mult * _game_points(points[t], tricks[t] == 10, options["all_points"]) for t in (0, 1)]
    else:
        expect = [0, 0]
        expect[1 - renuncia % 2] = 4
    assert res["game_points"] == expect, f"game points {res['game_points']} != {expect}"
