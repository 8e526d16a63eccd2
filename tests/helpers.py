"""Shared helpers for rules tests (arranged decks and scripted drivers) and for tests of a
match against the computer (a data directory whose person a seed makes)."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from p2pcards.core import DealState, Decision, End, SeatView


def arranged(deck: Sequence[str], first: Sequence[str]) -> list[str]:
    """``first`` at positions 0.., then the rest of ``deck`` in its canonical order."""
    rest = [c for c in deck if c not in first]
    assert len(rest) + len(first) == len(deck), "arranged cards must be distinct deck cards"
    return list(first) + rest


def pos_of(deal: DealState, card: str) -> int:
    pos = deal.deck.find(card)
    assert pos is not None, card
    return pos


def run_until_decision(deal: DealState) -> Decision | End:
    """Complete deck steps until a decision (or the end) is pending."""
    while True:
        step = deal.step()
        if isinstance(step, (Decision, End)):
            return step
        deal.complete()


def play_card(deal: DealState, seat: int, card: str) -> None:
    """Play ``card`` for ``seat`` and complete the resulting reveal."""
    step = run_until_decision(deal)
    assert isinstance(step, Decision) and step.seats == (seat,), (step, seat)
    deal.apply(seat, pos_of(deal, card))
    run_until_decision(deal)


def legal_cards(deal: DealState, seat: int) -> list[str]:
    run_until_decision(deal)
    return sorted(deal.deck.cards[p] for p in deal.legal(seat) if isinstance(p, int))  # type: ignore[misc]


def finish(deal: DealState, choose: Callable[[SeatView, Decision], Any] | None = None) -> dict[str, Any]:
    """Play the deal to its end: first legal choice (or ``choose``) everywhere."""
    while True:
        step = run_until_decision(deal)
        if isinstance(step, End):
            return step.result
        for seat in step.seats:
            if choose is not None:
                deal.apply(seat, choose(SeatView(deal, seat), step))
            elif step.pick is None:
                deal.apply(seat, deal.legal(seat)[0])
            else:
                deal.apply(seat, tuple(deal.legal(seat)[: step.pick[0]]))


def seeded_home(path: Path, seed: int, name: str = "you") -> Path:
    """A fresh data directory (for ``$P2PCARDS_HOME``) whose person is the one
    :func:`p2pcards.textplay.play_text` makes from ``seed`` when given none: ``p2pcards
    play --text --seed S`` there plays the match ``play_text(..., seed=S)`` plays in
    process (a match's deals depend on its players' keys as well as on the seed)."""
    from p2pcards.private import write_private
    from p2pcards.textplay import seeded_person

    path.mkdir(parents=True, mode=0o700)
    write_private(path / "identity.key", seeded_person(seed, name).to_bytes())
    return path


def european_faults(text: str) -> list[str]:
    """What reads as Brazilian, or as "I" with a verb of the third person, in a Portuguese
    text: "você", "Eu jogou", "eu levou"... (European Portuguese addresses the person with
    the verb alone: "Jogou 7♥", "a vaza é sua")."""
    return re.findall(r"\b[Vv]ocê\b|\b[Ee]u \w+(?:ou|eu|iu)\b", text)
