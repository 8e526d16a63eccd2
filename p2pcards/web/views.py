"""What the page is sent: the screens' view models as plain JSON, every word already in
the person's language.

The page draws these and nothing else; it never sees a :class:`~p2pcards.tui.model.TableModel`,
a replica or a deck.  Everything here is read through the same view models the terminal
draws (:mod:`p2pcards.tui.model`, :mod:`p2pcards.tui.windows`, :mod:`p2pcards.tui.start_model`,
:mod:`p2pcards.tui.lobby_screen`), so the page is sent exactly what the terminal shows:
the person's own hand, the cards on the table, what the game says in its own words, and
no card the person's replica does not know.  Nothing here names a game: a plugin's
decisions, facts, summaries and words reach the page the way they reach the terminal.

Cards go as their two-character codes (``"7H"``, ``"TC"``) for the page to draw; the deck's
style (``pt``: the Portuguese 40-card deck, no 8, 9 or 10; ``fr``: the French 52) comes
from the game's deck.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from p2pcards.core import PLAY, GameSpec
from p2pcards.tui.layout import overlay_title
from p2pcards.tui.model import TableModel
from p2pcards.tui.start_model import MENU, PlayForm, StartModel
from p2pcards.words import Text

__all__ = ["deck_style", "form_view", "lobby_view", "start_view", "table_view", "words"]

#: Ranks the Portuguese 40-card deck lacks.
_FRENCH_ONLY = set("89T")


def deck_style(spec: GameSpec | None) -> str:
    """``pt`` for a game dealt from (a part of) the Portuguese 40-card deck, else ``fr``."""
    if spec is None:
        return "fr"
    return "fr" if any(card[0] in _FRENCH_ONLY for card in spec.deck) else "pt"


def _window(model: TableModel) -> dict[str, Any] | None:
    """The window on top (help, scores, last trick, leave?, a deal's result, the match's
    end, an error, or a window of a replay), as the terminal's windows say it."""
    kind = model.overlay
    if kind is None:
        return None
    t = model.text
    out: dict[str, Any] = {"kind": kind, "title": overlay_title(model), "lines": [], "cards": []}
    if kind == "help":
        out["lines"] = model.help_lines()
    elif kind == "scores":
        out["lines"] = model.score_lines()
    elif kind == "last":
        last = model.snap.last_trick
        if last is None:
            out["lines"] = [t("no_trick_yet")]
        else:
            _, plays, winner = last
            out["cards"] = [{"name": model.name(s), "card": c} for s, c in plays]
            out["lines"] = [t("won_by", name=model.who(winner))]
    elif kind == "quit":
        out["lines"] = t("quit_text", path=model.log_path or "-", command=model.resume_command()).split("\n")
    elif kind == "summary":
        out["lines"] = model.summary_lines()
        out["next"] = "result" if "final" in model.modal else "deal"
    elif kind == "final":
        out["lines"] = model.final_lines()
    elif kind == "error":
        out["lines"] = [model.error or ""]
    else:
        extra = model.extra_window(kind)
        out["lines"] = extra[0] if extra is not None else []
    return out


def _dialog(model: TableModel) -> dict[str, Any] | None:
    """The decision dialog of a decision that is not a play: a pick of cards or a list of
    choices, in the game's words."""
    decision = model.decision
    if decision is None or not (model.picking or model.choosing):
        return None
    out: dict[str, Any] = {"kind": model.mode, "title": model.dialog_title(), "lines": model.dialog_lines(),
                           "confirm": model.button("confirm"), "decline": None, "pick": None, "options": []}
    if decision.pick is not None:
        out["pick"] = list(decision.pick)
        out["picked"] = len(model.picked)
        if decision.may_decline:
            out["decline"] = model.button("decline")
    else:
        out["options"] = [{"label": label, "red": red, "cursor": cursor}
                          for _, label, red, cursor in model.choice_options()]
    return out


def table_view(model: TableModel) -> dict[str, Any]:
    """The table screen: what the terminal's table screen shows, as data."""
    snap = model.snap
    head, trump = model.header()
    seats = []
    for seat in range(model.game.seats):
        panel = model.seat_panel(seat)
        face = list(snap.dummy_hands.get(seat, ())) if snap.in_deal and seat != model.me else []
        count = snap.hand_sizes[seat] if snap.in_deal and seat < len(snap.hand_sizes) else 0
        seats.append({"seat": seat, "where": panel.where, "name": panel.name, "marker": panel.marker,
                      "runs": panel.runs, "cards": panel.cards, "count": count, "face": face,
                      "detail": panel.detail, "turn": panel.turn, "dealer": panel.dealer, "you": panel.you,
                      "active": panel.active, "offline": seat in model.offline})
    hand = [{"index": c.index, "card": c.card, "label": c.label, "legal": c.legal, "cursor": c.cursor,
             "picked": c.picked, "key": c.key, "received": c.received} for c in model.hand_cards()]
    trick, winner = model.trick_cards()
    swap = model.swap
    return {
        "screen": "table",
        "game": model.game.name,
        "deck": deck_style(model.game.spec),
        "seats_n": model.game.seats,
        "header": head,
        "trump": trump,
        "trump_suit": snap.trump if snap.in_deal else None,
        "trump_card": snap.trump_card if snap.in_deal else None,
        "status": model.status(),
        "prompt": model.prompt(),
        "notices": model.notices(),
        "seats": seats,
        "hand": hand,
        "trick": trick,
        "trick_winner": winner,
        "mode": model.mode,
        "play": model.mode == PLAY,
        "swap": model.choice_label(swap) if swap is not None and model.mode == PLAY else None,
        "dialog": _dialog(model),
        "window": _window(model),
        "scores": model.score_lines(),
        "hint": model.hint_line,
        "hint_busy": model.hint_busy,
        "hints_allowed": model.hints_allowed,
        "finish": model.finish_offered and not model.finishing,
        "finishing": model.finishing,
        "message": model.message,
        "turn": model.decision is not None,
        "finished": model.finished or model.error is not None,
        "speed": model.speed,
    }


# ---------------------------------------------------------------------- the start page
def _choices(form: PlayForm, row: str, t: Text) -> list[str]:
    """Every value a row of the form may take, in the page's words, in the form's order."""
    from p2pcards.players import PLAYER_LEVELS

    spec = form.spec
    if row == "game":
        return [g.text(t.lang, "title") for g in form.games]
    if row == "level":
        return [t(f"level_{lv}") if f"level_{lv}" in t else lv for lv in PLAYER_LEVELS]
    if row == "hints":
        return [t("start_hints_allowed"), t("start_hints_forbidden")]
    if row == "remote":
        return [str(n) for n in range(1, spec.seats)]
    for o in spec.options:
        if o.name == row:
            return [spec.text(t.lang, f"option.{row}.{v}") for v in o.allowed]
    return []


def _chosen(form: PlayForm, row: str) -> int:
    """The index of a row's value in :func:`_choices`."""
    if row == "game":
        return form.game
    if row == "level":
        return form.level
    if row == "hints":
        return 0 if form.hints else 1
    if row == "remote":
        return form.remotes - 1
    return form.values.get(row, 0)


def form_view(form: PlayForm, t: Text) -> list[dict[str, Any]]:
    """The rows of a play or host form: label, help, the values and the one chosen."""
    spec = form.spec
    fixed = {"game": t("start_game"), "level": t("start_level"), "remote": t("start_remote"),
             "hints": t("start_hints")}
    rows = []
    for row in form.rows():
        if row == "start":
            continue
        label = fixed[row] if row in fixed else spec.text(t.lang, f"option.{row}")
        helps = [spec.text(t.lang, f"option.{o.name}.help") for o in spec.options if o.name == row]
        if row == "game":
            helps = [spec.text(t.lang, "description")]
        rows.append({"row": row, "label": label, "help": helps[0] if helps else "", "values": _choices(form, row, t),
                     "chosen": _chosen(form, row)})
    return rows


def start_view(model: StartModel, *, notice: str = "", seed: str = "") -> dict[str, Any]:
    """The start page: the menu, the forms, the LAN list, your tables, past games and the
    statistics' lines, and what the page was last told (``notice``)."""
    t = model.text
    labels = {"play": t("start_play"), "host": t("start_host"), "lan": t("start_lan"), "join": t("start_join"),
              "saved": t("start_saved"), "past": t("start_past"), "stats": t("start_stats"),
              "quit": t("start_quit")}
    lan_rows = []
    for e in model.tables():
        text = t("lan_entry", game=model.game_title(e.game), host=e.host, address=f"{e.address}:{e.port}",
                 free=t.plural("free_seats", e.free))
        lan_rows.append({"name": e.name, "text": text, "reason": e.reason})
    saved = []
    for sv in model.saved:
        kind = {"local": "saved_local", "join": "saved_joined"}.get(sv.role, "saved_hosted")
        where = t(kind, where=t("saved_port", port=sv.where) if sv.where.isdigit() else sv.where)
        saved.append({"text": f"{model.game_title(sv.game)} {sv.table[:8]} ({where})", "state": t("saved_" + sv.state),
                      "open": sv.state == "unfinished" and sv.person})
    past = [{"text": model.past_line(e), "open": e.path is not None} for e in model.past]
    if not model.discovery:
        lan_note = t("lan_placeholder")
    elif model.lan_problem:
        lan_note = model.lan_problem
    else:
        lan_note = "" if lan_rows else t("lan_none")
    return {
        "screen": "start",
        "view": model.view,
        "menu": [{"item": item, "label": labels[item]} for item in MENU if item in labels],
        "play": form_view(model.form, t),
        "host": form_view(model.host_form, t),
        "seed": seed,
        "lan": lan_rows,
        "lan_note": lan_note,
        "address": model.address,
        "saved": saved,
        "saved_note": "" if saved else t("saved_none"),
        "past": past,
        "past_note": "" if past else t("past_none"),
        "stats": model.stats if model.view == "stats" else [],
        "error": model.error,
        "message": model.message if model.view == "message" else "",
        "notice": notice,
    }


def lobby_view(lines: Iterable[str], status: str, error: str | None, t: Text) -> dict[str, Any]:
    """The lobby of a LAN table (:class:`~p2pcards.tui.lobby_screen.LobbyModel`'s lines)."""
    return {"screen": "lobby", "title": t("lobby_title"), "lines": [p for line in lines for p in line.split("\n")],
            "status": status, "error": None if error is None else t("lobby_failed", reason=error)}


def words(t: Text, keys: Sequence[str]) -> dict[str, str]:
    """The page's own words (buttons, titles) in ``t``'s language."""
    return {k: t(k) for k in keys if k in t}
