"""Key bindings of the table screen: each key is one call on the view model.

←/→ move along the hand (or a list of choices; ↑/↓ too), Enter and Space play (Space marks
a card when cards are picked), digits pick a card by its place (``a``, ``b``, ``c``...
from the eleventh: :data:`~p2pcards.tui.model.CARD_KEYS`), ``x`` takes the game's other
choice of a play (an exchange), ``n`` declines a pick where the game allows it (sits a deal
out), ``h`` a hint and ``f`` finishing a forced deal (bound as the letters of the 16th and
18th cards: the model tells them apart), ``l`` last trick, ``s`` scores, ``?`` help,
``+``/``-`` the computer players' pace, ``q`` leaves (after ``y``), Esc closes a window,
Ctrl-C leaves at once.  What a key means in each situation is the model's business.
"""

from __future__ import annotations

from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent

from p2pcards.tui.model import CARD_KEYS, TableModel

__all__ = ["create_key_bindings"]


def create_key_bindings(model: TableModel) -> KeyBindings:
    """The table screen's keys, bound to ``model``."""
    kb = KeyBindings()
    _bind_moves(kb, model)
    _bind_card_keys(kb, model)
    _bind_commands(kb, model)
    return kb


def _bind_moves(kb: KeyBindings, model: TableModel) -> None:
    """The arrows, Enter and Space."""

    @kb.add("left")
    def _left(event: KeyPressEvent) -> None:
        model.left()

    @kb.add("right")
    def _right(event: KeyPressEvent) -> None:
        model.right()

    @kb.add("up")
    def _up(event: KeyPressEvent) -> None:
        model.up()

    @kb.add("down")
    def _down(event: KeyPressEvent) -> None:
        model.down()

    @kb.add("enter")
    def _enter(event: KeyPressEvent) -> None:
        model.enter()

    @kb.add("space")
    def _space(event: KeyPressEvent) -> None:
        model.space()


def _bind_card_keys(kb: KeyBindings, model: TableModel) -> None:
    """The keys of the hand's places: the digits, then the letters of :data:`CARD_KEYS`."""
    for d in range(10):
        @kb.add(str(d))
        def _digit(event: KeyPressEvent, d: int = d) -> None:
            model.digit(d)

    for letter in CARD_KEYS[10:]:
        @kb.add(letter)
        def _card(event: KeyPressEvent, letter: str = letter) -> None:
            model.card_key(letter)


def _bind_commands(kb: KeyBindings, model: TableModel) -> None:
    """The letter keys (windows, pace, leaving), ``x``, ``n``, Esc and Ctrl-C."""
    for name in ("q", "y", "l", "s", "?", "+", "-"):
        @kb.add(name)
        def _letter(event: KeyPressEvent, name: str = name) -> None:
            model.key(name)

    @kb.add("x")
    def _swap(event: KeyPressEvent) -> None:
        model.do_swap()

    @kb.add("n")
    def _no(event: KeyPressEvent) -> None:
        model.sit_out()

    @kb.add("escape", eager=True)
    def _escape(event: KeyPressEvent) -> None:
        model.escape()

    @kb.add("c-c")
    def _interrupt(event: KeyPressEvent) -> None:
        model.interrupt()
