"""An independent check of one Sobe e Desce arena deal record against the Sobe e Desce rules.

``check(record, options)`` re-implements the rules from scratch (it does not import the
plugin) and raises ``AssertionError`` naming the first thing that is wrong.  The record
is :func:`p2pcards.core.records.deal_record`'s: ``hands`` are the 5 cards each seat holds
once dealt (before going in), ``events`` run trump, go_in (with draw after an exchange),
then play; ``tricks`` are the finished tricks; ``result`` the deal's result.

Checked: the trump chooser is the dealer's next seat and a
turned card is its own and sets trumps; going in is asked in play order from the
chooser, the chooser (everyone with hearts, anyone at 5 or less) plays, discards come
from the hand and are replaced by as many fresh cards; only players play, in play order,
the chooser leading first and each trick's winner next; every card is held and legal
(lead the ace of trumps, follow suit, else a higher trump when held); trick winners;
a lone player takes five tricks unplayed; a deal ends early only after a renúncia; the
renúncia is the first illegal play; tricks, deltas and scores; the match end.  The
must-play rule for two deals sat out needs the match's history and is not checked here
(scores before the deal are recovered as ``scores - delta``).
"""

from __future__ import annotations

from typing import Any

from p2pcards.core.cards import PORTUGUESE_40, PT_RANK_ORDER

RANK = {r: len(PT_RANK_ORDER) - i for i, r in enumerate(PT_RANK_ORDER)}
DECK = frozenset(PORTUGUESE_40)


def _winner(cards: list[str], trump: str) -> int:
    best = 0
    for i in range(1, len(cards)):
        c, b = cards[i], cards[best]
        if (c[1] == b[1] and RANK[c[0]] > RANK[b[0]]) or (c[1] == trump and b[1] != trump):
            best = i
    return best


def _legal(hand: list[str], trick: list[str], trump: str) -> list[str]:
    """Cards ``hand`` may play to ``trick`` (the plugin's docstring, "Play")."""
    if not trick:
        ace = "A" + trump
        return [ace] if ace in hand else hand
    led = trick[0][1]
    same = [c for c in hand if c[1] == led]
    if same:
        return same
    top = max((RANK[c[0]] for c in trick if c[1] == trump), default=-1)
    higher = [c for c in hand if c[1] == trump and RANK[c[0]] > top]
    return higher or hand


def check(record: dict[str, Any], options: dict[str, Any]) -> None:
    """Raise AssertionError if ``record`` breaks the Sobe e Desce rules."""
    assert not options, f"sobe-e-desce has no options, got {options!r}"
    res = record["result"]
    dealer = record["dealer"]
    chooser = (dealer + 1) % 4
    assert res["trump_chooser"] == chooser, (
        f"trump chooser {res['trump_chooser']} is not the dealer's next seat {chooser}"
    )
    delta = list(res["delta"])
    before = [s - d for s, d in zip(res["scores"], delta, strict=True)]
    assert all(b > 0 for b in before), f"scores before the deal {before}: the match was already over"
    hands, seen = _dealt_hands(record)
    events = record["events"]
    trump = record["trump"]
    _check_trump(events[0], trump, hands, chooser)
    played, i = _going_in(events, hands, seen, chooser, trump, before)
    assert list(res["played"]) == played, f"result played {res['played']} != go_in events {played}"
    tricks, renuncia = _play(record, events[i:], hands, played, chooser, trump)
    assert res["renuncia"] == renuncia, f"renúncia recorded {res['renuncia']}, replay finds {renuncia}"
    _check_scores(record, played, tricks, renuncia, chooser, trump)


def _dealt_hands(record: dict[str, Any]) -> tuple[list[list[str]], set[str]]:
    """The dealt hands, checked (4 x 5 distinct cards of the deck), and the cards seen so far."""
    hands = [list(h) for h in record["hands"]]
    assert len(hands) == 4 and all(len(h) == 5 for h in hands), f"hands are not 4 x 5 cards: {hands}"
    seen: set[str] = set()
    for h in hands:
        for c in h:
            assert c in DECK, f"{c!r} is not a card of the 40-card deck"
            assert c not in seen, f"{c} dealt twice"
            seen.add(c)
    return hands, seen


def _check_trump(ev: dict[str, Any], trump: str, hands: list[list[str]], chooser: int) -> None:
    """The first event: the chooser names trumps, or turns a card of its own that sets them."""
    assert ev["type"] == "trump" and ev["seat"] == chooser, f"first event {ev} is not the chooser's trump"
    if ev["choice"] == "turn":
        card = ev["card"]
        assert card in hands[chooser], f"turned card {card} is not in the chooser's hand"
        assert card[1] == trump, f"turned card {card} does not set trumps {trump}"
    else:
        assert ev["choice"] in ("S", "H", "D", "C") and ev["choice"] == trump, f"bad trump event {ev}"
        assert ev["card"] is None, f"a named suit turns no card: {ev}"


def _going_in(events: list[dict[str, Any]], hands: list[list[str]], seen: set[str], chooser: int, trump: str,
              before: list[int]) -> tuple[list[bool], int]:
    """Going in, in play order from the chooser (``hands`` and ``seen`` follow the
    exchanges): who plays, and the index of the first event after it."""
    i = 1
    played = [False] * 4
    for k in range(4):
        seat = (chooser + k) % 4
        ev = events[i]
        i += 1
        assert ev["type"] == "go_in" and ev["seat"] == seat, f"expected seat {seat} to go in, got {ev}"
        must = seat == chooser or trump == "H" or before[seat] <= 5
        if not ev["plays"]:
            assert not must, f"seat {seat} must play but sat out"
            assert ev["exchange"] == 0 and not ev["cards"], f"seat {seat} sat out but exchanged: {ev}"
            continue
        played[seat] = True
        out = list(ev["cards"])
        assert ev["exchange"] == len(out) <= 5, f"exchange count mismatch: {ev}"
        assert len(set(out)) == len(out), f"seat {seat} discarded a card twice: {out}"
        for c in out:
            assert c in hands[seat], f"seat {seat} discarded {c}, which it does not hold"
            hands[seat].remove(c)
        if out:
            _check_draw(events[i], seat, out, hands, seen)
            i += 1
    return played, i


def _check_draw(dr: dict[str, Any], seat: int, out: list[str], hands: list[list[str]], seen: set[str]) -> None:
    """``seat`` drew as many fresh cards as it discarded (``out``)."""
    assert dr["type"] == "draw" and dr["seat"] == seat, f"expected seat {seat}'s draw, got {dr}"
    assert len(dr["cards"]) == len(out), f"seat {seat} discarded {len(out)} but drew {dr['cards']}"
    for c in dr["cards"]:
        assert c in DECK and c not in seen, f"seat {seat} drew {c!r}, already dealt or not a card"
        seen.add(c)
        hands[seat].append(c)


def _play(record: dict[str, Any], plays: list[dict[str, Any]], hands: list[list[str]], played: list[bool],
          chooser: int, trump: str) -> tuple[list[int], int | None]:
    """The play: tricks taken per seat (before a renúncia's penalty) and the renúncia's seat."""
    active = [s for s in range(4) if played[s]]
    assert all(e["type"] == "play" for e in plays), "only plays may follow going in"
    tricks = [0] * 4
    if len(active) == 1:
        assert not plays and not record["tricks"], "a lone player takes five tricks without play"
        tricks[active[0]] = 5
        return tricks, None
    renuncia: int | None = None
    offenders: set[int] = set()
    n = len(active)
    leader = chooser
    trick: list[str] = []
    seats: list[int] = []
    done = 0
    expected = leader
    for j, e in enumerate(plays):
        seat, card = e["seat"], e["card"]
        assert seat in active, f"seat {seat} plays but sat out"
        assert seat == expected, f"seat {seat} played out of turn (expected {expected})"
        hand = hands[seat]
        assert card in hand, f"seat {seat} played {card}, which it does not hold"
        if card not in _legal(hand, trick, trump):
            offenders.add(seat)
            if renuncia is None:
                renuncia = seat
        hand.remove(card)
        trick.append(card)
        seats.append(seat)
        expected = _next_active(seat, active)
        if len(trick) == n:
            if done == len(record["tricks"]) and j == len(plays) - 1 and seat in offenders:
                break  # an evident renúncia ends the deal before the trick is taken
            w = _check_trick(record, done, leader, seats, trick, trump)
            tricks[w] += 1
            done += 1
            leader = expected = w
            trick, seats = [], []
    assert done == len(record["tricks"]), "the record has tricks that were not played"
    if done < 5:
        assert plays, "no trick was played by two or more players"
        assert plays[-1]["seat"] in offenders, f"the deal ended after {done} tricks without an evident renúncia"
    return tricks, renuncia


def _next_active(seat: int, active: list[int]) -> int:
    """The next seat in play order that plays."""
    nxt = (seat + 1) % 4
    while nxt not in active:
        nxt = (nxt + 1) % 4
    return nxt


def _check_trick(record: dict[str, Any], done: int, leader: int, seats: list[int], trick: list[str],
                 trump: str) -> int:
    """The ``done``-th trick as recorded is the one played; its winner."""
    w = seats[_winner(trick, trump)]
    assert done < len(record["tricks"]), f"trick {done + 1} is missing from the record"
    rt = record["tricks"][done]
    assert rt["leader"] == leader and list(rt["seats"]) == seats and list(rt["cards"]) == trick, (
        f"trick {done + 1} recorded as {rt}, played as {seats} {trick}"
    )
    assert rt["winner"] == w, f"trick {done + 1} {trick}: winner is {w}, recorded {rt['winner']}"
    return w


def _check_scores(record: dict[str, Any], played: list[bool], tricks: list[int], renuncia: int | None, chooser: int,
                  trump: str) -> None:
    """Tricks, deltas and scores of the deal, and the match's end."""
    res = record["result"]
    delta = list(res["delta"])
    mult = 2 if trump == "C" else 1
    want = [0] * 4
    if renuncia is not None:
        tricks[renuncia] = 0
    for s in range(4):
        if not played[s]:
            continue
        if s == renuncia:
            want[s] = 10
        elif tricks[s]:
            want[s] = -tricks[s] * mult
        else:
            want[s] = 5 * mult
    assert list(res["tricks"]) == tricks, f"tricks {res['tricks']}, replay counts {tricks}"
    assert delta == want, f"delta {delta}, rules give {want} (tricks {tricks}, trump {trump})"
    scores = list(res["scores"])
    if "totals" in record:
        assert list(record["totals"]) == scores, f"match totals {record['totals']} != scores {scores}"
    if "match_over" in record:
        over = min(scores) <= 0
        assert record["match_over"] == over, f"match_over {record['match_over']} with scores {scores}"
        if over:
            best = min(range(4), key=lambda s: (scores[s], -tricks[s], (s - chooser) % 4))
            assert record["winner"] == best, f"winner {record['winner']}, rules give {best} ({scores})"
        else:
            assert record["winner"] is None, f"winner {record['winner']} before anyone reached 0"
