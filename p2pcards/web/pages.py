"""What the page is sent beyond the table and the start page: a replay's deals and chart,
the statistics' numbers for the charts, and the page's own words (buttons, titles).

The statistics are ``p2pcards stats --json``'s object itself (:func:`~p2pcards.history.stats.compute_stats`),
with the games' titles and the computer levels in the page's language: the page draws its
charts from the same numbers the command prints.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from p2pcards.core import GameRegistry
from p2pcards.tui.model import TableModel
from p2pcards.web.views import table_view
from p2pcards.words import Text

__all__ = ["PAGE_WORDS", "replay_view", "stats_data"]

#: The words the page itself shows (its buttons and titles), sent in the page's language.
PAGE_WORDS = (
    "start_title", "start_back", "start_go", "start_open", "start_address", "start_quit", "scores", "last_trick",
    "help_title", "quit_title", "replay_deals_title", "replay_chart_title", "lobby_title", "stats_none",
    "web_hint", "web_finish", "web_scores", "web_last", "web_help", "web_leave", "web_continue", "web_see_result",
    "web_back_to_start", "web_leave_yes", "web_stay", "web_close", "web_ok", "web_taken", "web_take_back",
    "web_offline", "web_stopped", "web_seed", "web_seed_help", "web_join", "web_join_help", "web_language",
    "web_replay_first", "web_replay_prev_deal", "web_replay_prev_trick", "web_replay_prev_step",
    "web_replay_next_step", "web_replay_next_trick", "web_replay_next_deal", "web_replay_last", "web_replay_seat",
    "web_replay_leave", "web_stats_won", "web_stats_deals", "web_stats_average", "web_stats_form", "web_stats_game",
    "web_stats_player", "web_stats_partners", "web_stats_bots", "web_stats_level", "web_stats_last",
    "web_stats_text", "web_slower", "web_faster", "web_your_hand", "web_table", "web_matches",
    "web_name", "web_name_help", "web_name_keep",
)


def replay_view(model: TableModel) -> dict[str, Any]:
    """A replay: the table at the step shown, with the match's deals (their verdicts and
    scores, the one under the list's cursor) and each side's points per deal for the chart."""
    from p2pcards.tui.replay import ReplayModel

    out = table_view(model)
    out["screen"] = "replay"
    if not isinstance(model, ReplayModel):
        return out
    closed = [d for d in model.match.deals if d.event is not None]
    labels = [label for label, _ in model.sides()]
    series = [[d.measures[s] if s < len(d.measures) else None for d in closed] for s in range(len(labels))]
    out["replay"] = {
        "deals": [model.deal_line(d) for d in model.match.deals],
        "deal_cursor": model.deal_cursor,
        "at": model.at,
        "frames": len(model.frames),
        "chart": {"labels": labels, "series": series, "deals": [d.deal + 1 for d in closed]},
    }
    return out


def stats_data(data_dir: Path, registry: GameRegistry, text: Text) -> dict[str, Any] | None:
    """``stats --json``'s object for ``data_dir`` with the words to label it (None: no
    history here, or one that cannot be read -- the page then shows the lines alone)."""
    from p2pcards.history import HistoryError
    from p2pcards.history.db import History, db_path
    from p2pcards.history.stats import compute_stats
    from p2pcards.players import PLAYER_LEVELS

    if not db_path(data_dir).is_file():
        return None
    try:
        with History(db_path(data_dir)) as history:
            stats = compute_stats(history.matches())
    except HistoryError:
        return None
    titles = {name: spec.text(text.lang, "title") for name, spec in registry.games.items()}
    levels = {lv: text(f"level_{lv}") if f"level_{lv}" in text else lv for lv in PLAYER_LEVELS}
    computer = {lv: text("stats_computer", level=name) for lv, name in levels.items()}
    return {"stats": stats, "titles": titles, "levels": levels, "computer": computer}
