"""An independent check of one Bisca arena record against the Bisca rules (not using the plugin)."""

from __future__ import annotations

from typing import Any

ORDER = "A7KJQ65432"
POINTS = {"A": 11, "7": 10, "K": 4, "J": 3, "Q": 2}


def _wins(card: str, best: str, trump: str) -> bool:
    if card[1] == best[1]:
        return ORDER.index(card[0]) < ORDER.index(best[0])
    return card[1] == trump


def check(record: dict[str, Any], options: dict[str, Any]) -> None:
    h = options["hand"]
    hands = [list(x) for x in record["hands"]]
    assert [len(x) for x in hands] == [h, h]
    dealer = record["dealer"]
    events = record["events"]
    assert events[0]["type"] == "trump"
    face_up = events[0]["card"]
    trump = record["trump"]
    assert face_up[1] == trump
    seen = set(hands[0]) | set(hands[1]) | {face_up}
    stock = 40 - 2 * h  # includes the face-up card, drawn last
    leader = dealer
    trick: list[tuple[int, str]] = []
    points = [0, 0]
    tricks = [0, 0]
    renuncia = None
    draws_due: list[int] = []
    for ev in events[1:]:
        seat = ev["seat"]
        if ev["type"] == "swap":
            assert options["swap2"] == "on" and stock > 0 and not draws_due
            assert ev["card"] == "2" + trump and ev["took"] == face_up
            hands[seat].remove(ev["card"])
            hands[seat].append(face_up)
            face_up = ev["card"]
        elif ev["type"] == "draw":
            assert draws_due and draws_due.pop(0) == seat, "the winner draws first, then the other"
            (card,) = ev["cards"]
            stock -= 1
            if stock == 0:
                assert card == face_up, "the face-up trump is the last card drawn"
            else:
                assert card not in seen, f"{card} drawn twice"
            seen.add(card)
            hands[seat].append(card)
        else:
            assert ev["type"] == "play"
            assert not draws_due, "nobody plays before the draws"
            expected = leader if not trick else 1 - trick[0][0]
            assert seat == expected, "play alternates from the leader"
            card = ev["card"]
            assert card in hands[seat], f"seat {seat} played {card} it does not hold"
            if trick and stock == 0:
                led = trick[0][1][1]
                if card[1] != led and any(c[1] == led for c in hands[seat]):
                    renuncia = seat if renuncia is None else renuncia
            hands[seat].remove(card)
            trick.append((seat, card))
            if len(trick) == 2:
                (s0, c0), (s1, c1) = trick
                winner = s1 if _wins(c1, c0, trump) else s0
                points[winner] += POINTS.get(c0[0], 0) + POINTS.get(c1[0], 0)
                tricks[winner] += 1
                leader = winner
                trick = []
                if stock:
                    draws_due = [winner, 1 - winner]
    assert len(seen) == 40 or renuncia is not None
    res = record["result"]
    assert res["renuncia"] == renuncia
    assert res["points"] == points and res["tricks"] == tricks
    if renuncia is None:
        assert sum(points) == 120 and not any(hands)
        gp = []
        for s in (0, 1):
            p = points[s]
            gp.append(4 if tricks[s] == 20 else 2 if p == 120 else 2 if p >= 91 else 1 if p >= 61 else 0)
        assert res["game_points"] == gp
    else:
        expect = [0, 0]
        expect[1 - renuncia] = 4
        assert res["game_points"] == expect
