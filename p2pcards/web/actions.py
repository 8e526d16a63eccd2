"""What the page may ask: each message from the page is one call on a view model.

The page sends small JSON objects: ``{"a": "key", "key": "enter"}`` (a key, named as the
terminal names it: the same key does the same thing as on the terminal, because it is the
same call on the same model), ``{"a": "card", "index": 3, "card": "QS"}`` (a click on the
fourth card of the hand, as the page showed it), ``{"a": "choice", "index": 1}`` (a choice
of a dialog), ``{"a": "confirm"}``, ``{"a": "decline"}``, ``{"a": "swap"}``,
``{"a": "hint"}``, ``{"a": "finish"}``, ``{"a": "window", "which": "s"}``,
``{"a": "continue"}``, ``{"a": "leave"}`` ...  Anything else is ignored: a page can ask no
more of the seat than the keys can.  Nothing here knows a game, and nothing here runs trio:
the models' callbacks (``on_choice`` ...) do.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from p2pcards.players import PLAYER_LEVELS
from p2pcards.tui.input import CARD_KEYS
from p2pcards.tui.model import TableModel
from p2pcards.tui.replay import ReplayModel
from p2pcards.tui.start_model import MENU, PlayForm, StartModel

__all__ = ["REPLAY_STEPS", "replay_action", "start_action", "table_action", "table_key"]

#: Keys of the table screen that are a call without an argument.
_TABLE_CALLS: Mapping[str, Callable[[TableModel], None]] = {
    "left": TableModel.left, "right": TableModel.right, "up": TableModel.up, "down": TableModel.down,
    "enter": TableModel.enter, "space": TableModel.space, "escape": TableModel.escape, "x": TableModel.do_swap,
    "n": TableModel.sit_out,
}
#: Letters :meth:`TableModel.key` answers.
_LETTERS = frozenset("qyls?+-")

#: What the replay's buttons and keys do (the terminal replay's keys).
REPLAY_STEPS: Mapping[str, Callable[[ReplayModel], None]] = {
    "next_trick": ReplayModel.next_trick, "previous_trick": ReplayModel.previous_trick,
    "next_step": ReplayModel.next_step, "previous_step": ReplayModel.previous_step,
    "first_of_deal": ReplayModel.first_of_deal, "last_of_deal": ReplayModel.last_of_deal,
    "next_deal": ReplayModel.next_deal, "previous_deal": ReplayModel.previous_deal, "turn": ReplayModel.turn,
}
_REPLAY_KEYS = {
    "right": "next_trick", "left": "previous_trick", "down": "next_trick", "up": "previous_trick",
    ".": "next_step", ">": "next_step", ",": "previous_step", "<": "previous_step", "home": "first_of_deal",
    "end": "last_of_deal", "pagedown": "next_deal", "pageup": "previous_deal", "s": "turn",
}


def table_key(model: TableModel, key: str) -> None:
    """A key of the table screen, as the terminal binds it (:mod:`p2pcards.tui.keys`)."""
    call = _TABLE_CALLS.get(key)
    if call is not None:
        call(model)
    elif len(key) == 1 and key.isdigit():
        model.digit(int(key))
    elif len(key) == 1 and key in CARD_KEYS[10:]:
        model.card_key(key)
    elif len(key) == 1 and key in _LETTERS:
        model.key(key)


def _index(msg: Mapping[str, Any]) -> int | None:
    value = msg.get("index")
    return value if isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 64 else None


def _shown(model: TableModel, index: int, card: object) -> bool:
    """Whether the card a click names (``"card"``, as the page showed it; absent: any) is
    still the hand's card at ``index``: a click on a view the table has since changed (a
    card played by a key a moment before, the hand sorted again) is dropped, never taken
    as a click on whichever card has moved under it."""
    if card is None:
        return True
    hand = model.hand_cards()
    return index < len(hand) and hand[index].card == card


def _confirm(model: TableModel) -> None:
    if model.picking:
        model.enter()


def _continue(model: TableModel) -> None:
    if model.popup is None and model.modal:
        model.enter()


def _leave(model: TableModel) -> None:
    if model.popup != "quit":
        model.key("q")


def _leave_yes(model: TableModel) -> None:
    if model.popup == "quit":
        model.on_exit()


#: The page's messages at the table that are a call on the model without an argument (some
#: of them only in a state that allows it).
_TABLE_ACTIONS: Mapping[str, Callable[[TableModel], None]] = {
    "confirm": _confirm, "decline": lambda m: m.sit_out(), "swap": lambda m: m.do_swap(),
    "hint": lambda m: m.hint(), "finish": lambda m: m.finish(), "close": lambda m: m.escape(),
    "continue": _continue, "leave": _leave, "leave_yes": _leave_yes,
}
#: The messages that are a letter of :meth:`TableModel.key`, and the letters each may be.
_TABLE_LETTERS: Mapping[str, tuple[str, ...]] = {"window": ("l", "s", "?"), "pace": ("+", "-")}


def table_action(model: TableModel, msg: Mapping[str, Any]) -> None:
    """A message of the page at the table (module docstring)."""
    a = msg.get("a")
    if not isinstance(a, str):
        return
    index = _index(msg)
    call = _TABLE_ACTIONS.get(a)
    if call is not None:
        call(model)
    elif a == "key" and isinstance(msg.get("key"), str):
        table_key(model, msg["key"])
    elif a == "card" and index is not None and _shown(model, index, msg.get("card")):
        model.click_card(index)
    elif a == "choice" and index is not None and model.choosing:
        model.choice_cursor = index
        model.enter()
    elif a in _TABLE_LETTERS and msg.get("which") in _TABLE_LETTERS[a]:
        model.key(msg["which"])


def replay_action(model: ReplayModel, msg: Mapping[str, Any]) -> None:
    """A message of the page in a replay: its steps, its windows, leaving."""
    a = msg.get("a")
    index = _index(msg)
    if a == "step" and msg.get("do") in REPLAY_STEPS:
        REPLAY_STEPS[msg["do"]](model)
    elif a == "key" and isinstance(msg.get("key"), str):
        key = msg["key"]
        if model.popup == "deals" and key in ("up", "down", "left", "right"):
            model.move_cursor(1 if key in ("down", "right") else -1)
        elif key in _REPLAY_KEYS:
            REPLAY_STEPS[_REPLAY_KEYS[key]](model)
        elif key in ("enter", "space"):
            model.choose()
        elif key in ("d", "c"):
            model.open({"d": "deals", "c": "charts"}[key])
        elif key in ("?", "h"):
            model.open("help")
        elif key == "escape":
            if not model.close():
                model.on_exit()
        elif key == "q":
            model.on_exit()
    elif a == "open" and msg.get("which") in ("deals", "charts", "help"):
        model.open(msg["which"])
    elif a == "deal" and index is not None:
        model.popup = None
        model.to_deal(index)
    elif a == "close":
        model.close()
    elif a == "leave":
        model.on_exit()


# ---------------------------------------------------------------------- the start page
def start_action(start: StartModel, msg: Mapping[str, Any], seed: str) -> str:
    """A message of the page on the start page: a view of the menu, a form's row set, a
    table started, joined, taken up again or replayed (through the model's ``on_exit``);
    returns the seed of the next table against the computer (``seed``: as it was)."""
    a = msg.get("a")
    index = _index(msg)
    if isinstance(msg.get("seed"), str):
        seed = msg["seed"].strip()[:19]
    if a == "view" and msg.get("view") in MENU:
        start.view = "menu"
        start.cursor = MENU.index(msg["view"])
        start.enter()
    elif a == "back":
        start.back()
    elif a == "quit":
        start.on_exit(None)
    elif a == "form" and msg.get("form") in ("play", "host") and isinstance(msg.get("row"), str) and index is not None:
        set_row(start.host_form if msg["form"] == "host" else start.form, msg["row"], index)
    elif a == "go" and msg.get("form") in ("play", "host"):
        start.view = msg["form"]
        start.row = len(start.active_form.rows()) - 1
        if msg["form"] == "play" and seed and not seed.isdigit():
            start.error = start.text("web_seed_bad")
        else:
            start.enter()
    elif a == "join" and isinstance(msg.get("address"), str):
        start.view = "join"
        start.address = msg["address"].strip()[:300]
        start.enter()
    elif a in ("lan", "saved", "past") and index is not None:
        _pick(start, a, index)
    return seed


def _pick(start: StartModel, view: str, index: int) -> None:
    """A row of the LAN list, your tables or the past games chosen."""
    if view == "lan" and index < len(start.lan):
        start.view, start.lan_cursor = "lan", index
    elif view == "saved" and index < len(start.saved):
        start.view, start.saved_cursor = "saved", index
    elif view == "past" and index < len(start.past):
        start.view, start.past_cursor = "past", index
    else:
        return
    start.enter()


def set_row(form: PlayForm, row: str, index: int) -> None:
    """Set a row of a play or host form to its ``index``-th value (as the page lists them)."""
    if row == "game" and index < len(form.games):
        form.game, form.values, form.remote = index, {}, 0
    elif row == "level" and index < len(PLAYER_LEVELS):
        form.level = index
    elif row == "hints" and index < 2:
        form.hints = index == 0
    elif row == "remote" and index < form.spec.seats - 1:
        form.remote = index + 1
    else:
        for o in form.spec.options:
            if o.name == row and index < len(o.allowed):
                form.values[row] = index
