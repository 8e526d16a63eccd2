"""An independent check of Copas arena records against the Copas rules
(plugins/p2pcards_copas/game.py's docstring), not using the plugin.

This is a second, minimal implementation of the rules -- it does not import the Copas
plugin -- used to cross-check the plugin on many arena deal records
(:func:`p2pcards.core.records.deal_record`).  :func:`check` validates one record;
:func:`check_sequence` also checks what spans deals: the passing cycle per deal of a
match, running totals and the end of the match.  Both raise ``AssertionError`` with a
message that names the deal and the fault.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from p2pcards.core.cards import FRENCH_52

__all__ = ["check", "check_sequence"]

_ORDERS = {"portuguese": "AKJQT98765432", "standard": "AKQJT98765432"}
_STRENGTH = {name: {r: 13 - i for i, r in enumerate(order)} for name, order in _ORDERS.items()}
_DECK = frozenset(FRENCH_52)
_OFFSET_NAMES = {1: "left", 3: "right", 2: "across"}


def _points(card: str) -> int:
    return 13 if card == "QS" else 1 if card[1] == "H" else 0


def _legal(hand: set[str], trick: list[str], first_trick: bool, broken: bool, free: bool) -> set[str]:
    """Cards of ``hand`` that may be played now (the Copas rules)."""
    if trick:
        same = {c for c in hand if c[1] == trick[0][1]}
        if same:
            return same
        if first_trick:
            safe = {c for c in hand if not _points(c)}
            if safe:
                return safe
        return set(hand)
    if first_trick:
        return {"2C"} & hand
    if broken or free:
        return set(hand)
    other = {c for c in hand if c[1] != "H"}
    return other or set(hand)


def check(record: Mapping[str, Any], options: Mapping[str, Any]) -> None:
    """Validate one Copas deal record; raise AssertionError naming the first fault."""
    where = f"copas deal {record.get('deal')} (match {record.get('match')})"

    def ensure(cond: bool, msg: str) -> None:
        if not cond:
            raise AssertionError(f"{where}: {msg}")

    strength = _STRENGTH[options.get("ranks", "portuguese")]
    free = options.get("hearts", "broken") == "free"
    ensure(record.get("type") == "deal" and record.get("game") == "copas", "not a copas deal record")
    ensure(record.get("trump") is None, "Copas has no trumps")

    # -- the deal: 13 cards each, the whole deck once
    hands_rec = record["hands"]
    ensure(len(hands_rec) == 4 and all(len(h) == 13 for h in hands_rec), "hands are not 4 x 13")
    dealt = [c for h in hands_rec for c in h]
    ensure(len(set(dealt)) == 52 and set(dealt) == _DECK, "the hands are not the 52-card deck")
    hands = [set(h) for h in hands_rec]

    # -- passing: all four at once, same direction, 3 of one's own dealt cards each
    events = record["events"]
    kinds = [e["type"] for e in events]
    ensure(set(kinds) <= {"pass", "play"}, f"unexpected events {sorted(set(kinds) - {'pass', 'play'})}")
    passes = [e for e in events if e["type"] == "pass"]
    ensure(kinds[: len(passes)] == ["pass"] * len(passes), "passes must come before any play")
    if passes:
        ensure([e["seat"] for e in passes] == [0, 1, 2, 3], "passes are not one per seat in seat order")
        offsets = {(e["to"] - e["seat"]) % 4 for e in passes}
        ensure(len(offsets) == 1 and offsets <= {1, 2, 3}, f"pass directions differ or are void: {offsets}")
        for e in passes:
            cards = e["cards"]
            ensure(len(cards) == 3 and len(set(cards)) == 3, f"seat {e['seat']} passes {cards}, not 3 cards")
            ensure(set(cards) <= hands[e["seat"]], f"seat {e['seat']} passes {cards} it was not dealt")
        for e in passes:
            hands[e["seat"]] -= set(e["cards"])
        for e in passes:
            hands[e["to"]] |= set(e["cards"])

    # -- play
    plays = [e for e in events if e["type"] == "play"]
    tricks_rec = record["tricks"]
    result = record["result"]
    leader = next(s for s in range(4) if "2C" in hands[s])
    broken = False
    offender: int | None = None
    taken = [0, 0, 0, 0]
    trick: list[str] = []
    seats: list[int] = []
    n_tricks = 0
    for i, ev in enumerate(plays):
        seat, card = ev["seat"], ev["card"]
        expected = (leader + len(trick)) % 4
        ensure(seat == expected, f"play {i}: seat {seat} played, seat {expected} was to play")
        ensure(card in hands[seat], f"play {i}: seat {seat} plays {card}, which it does not hold")
        if card not in _legal(hands[seat], trick, n_tricks == 0, broken, free):
            if offender is None:
                offender = seat
        hands[seat].discard(card)
        trick.append(card)
        seats.append(seat)
        if _points(card):
            broken = True
        if len(trick) == 4:
            led = trick[0][1]
            win = max(
                (j for j in range(4) if trick[j][1] == led), key=lambda j: strength[trick[j][0]]
            )
            winner = seats[win]
            ensure(n_tricks < len(tricks_rec), f"trick {n_tricks} is missing from the record")
            t = tricks_rec[n_tricks]
            ensure(
                t["leader"] == leader and t["seats"] == seats and t["cards"] == trick,
                f"trick {n_tricks} recorded as {t}, played as {seats} {trick}",
            )
            ensure(t["winner"] == winner, f"trick {n_tricks} {trick}: winner {t['winner']}, should be {winner}")
            taken[winner] += sum(_points(c) for c in trick)
            n_tricks += 1
            leader = winner
            trick, seats = [], []
    ensure(len(tricks_rec) == n_tricks, f"{len(tricks_rec)} tricks recorded, {n_tricks} played")

    # -- result
    got = result.get("renuncia")
    ensure(got == offender, f"renuncia {got}, but the first illegal play was by {offender}")
    ensure(result["taken"] == taken, f"taken {result['taken']}, tricks give {taken}")
    if offender is None:
        ensure(len(plays) == 52 and n_tricks == 13, f"the deal ended after {len(plays)} plays")
        ensure(sum(taken) == 26, f"{sum(taken)} points taken, not 26")
        if 26 in taken:
            moon = taken.index(26)
            want = [0 if s == moon else 26 for s in range(4)]
        else:
            moon, want = None, taken
    else:
        moon, want = None, [26 if s == offender else 0 for s in range(4)]
    ensure(result["moon"] == moon, f"moon {result['moon']}, should be {moon}")
    ensure(result["points"] == want, f"points {result['points']}, should be {want}")
    ensure(set(result) == {"points", "taken", "moon", "renuncia"}, f"result keys {sorted(result)}")


def check_sequence(records: Iterable[Mapping[str, Any]], options: Mapping[str, Any]) -> int:
    """Check arena records in order: each deal (:func:`check`), the passing cycle
    (left, right, across, none by deal number in the match), running totals and the end
    of each match (someone at 100 -- or one deal with ``match=single`` -- and a lowest
    total that is not shared).  Returns the number of deal records checked."""
    target = options.get("match", 100)
    current: Any = None
    number = 0
    totals = [0, 0, 0, 0]
    count = 0
    for rec in records:
        if rec.get("type") != "deal":
            continue
        if rec["match"] != current:
            current, number, totals = rec["match"], 0, [0, 0, 0, 0]
        check(rec, options)
        where = f"copas deal {rec['deal']} (match {rec['match']}, deal {number} of it)"
        passes = [e for e in rec["events"] if e["type"] == "pass"]
        want = ("left", "right", "across", "none")[number % 4]
        got = _OFFSET_NAMES[(passes[0]["to"] - passes[0]["seat"]) % 4] if passes else "none"
        if got != want:
            raise AssertionError(f"{where}: cards passed {got}, should be {want}")
        totals = [t + p for t, p in zip(totals, rec["result"]["points"], strict=True)]
        if rec["totals"] != totals:
            raise AssertionError(f"{where}: totals {rec['totals']}, should be {totals}")
        low = min(totals)
        over = totals.count(low) == 1 and (target == "single" or max(totals) >= 100)
        winner = totals.index(low) if over else None
        if rec["match_over"] != over or rec["winner"] != winner:
            raise AssertionError(
                f"{where}: match_over {rec['match_over']} winner {rec['winner']}, should be {over} {winner}"
            )
        number += 1
        count += 1
    return count
