"""``p2pcards history`` and ``p2pcards stats``: the matches of the history database, and what
they say about each player, each Sueca partnership and each computer player's level."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TextIO

from p2pcards.core import GameRegistry, load_games
from p2pcards.history import HistoryError
from p2pcards.history.charts import form_line, points_chart
from p2pcards.history.db import History, db_path, rebuild
from p2pcards.words import Text

__all__ = [
    "FORM_MATCHES",
    "HISTORY_EPILOG",
    "STATS_EPILOG",
    "compute_stats",
    "describe_stats",
    "history_line",
    "run_history",
    "run_stats",
    "side_names",
]

#: How many of the last matches a form line shows.
FORM_MATCHES = 10

HISTORY_EPILOG = """\
Lists every match this data directory's peers played (against the computer or on the LAN;
finished, abandoned, voided or unfinished), oldest first, from the history database
DATA/history.sqlite.  The database is written as the tables are played; --rebuild makes it
again from the transcripts under DATA/tables (every log followed and audited as `p2pcards
audit` does), e.g. after a crash, a copy of someone's tables, or an update of p2pcards.

--game keeps the matches of one game; --player those where a seat's name is NAME (any
case) or its fingerprint starts with NAME.  "ended" is finished (the match or its planned
deals ran out), abandoned (a seat left a table of two), voided (it ended with no deal
scored) or unfinished (no end known: still playing, left, or stopped by a crash).

JSON output (--json): one object
  {"matches": [{"table": HEX, "game": NAME, "options": {...}, "started": UNIX-SECONDS,
     "deals_planned": N or null, "ended": "finished"|"abandoned"|"voided"|"unfinished",
     "winner": SIDE or null, "totals": [...], "transcript_hash": HEX or null,
     "abandoned": null or {"by": SEAT, "deal": N, "waiting_for": [SEAT...], "totals": [...],
                           "behind": N (how far the side of the seat that abandoned trailed)},
     "abandons": [every abandon, as "abandoned" with "seq" and "taken_up": BOOL (both seats took
                  the table up again after it: the table did not end there)],
     "seats": [{"seat": SEAT, "side": SIDE, "name": TEXT, "fingerprint": TEXT,
                "kind": "person"|"bot", "level": LEVEL or null}],
     "hints": [N per seat, in seat order: the hints that seat asked for on the table screen],
     "deals": [{"deal": N, "dealer": SEAT, "trump": SUIT-LETTER or null, "result": RESULT or null,
                "verdict": "clean"|"renuncia"|"fault"|"vote-out"|"void", "verdict_seat": SEAT or null,
                "verdict_kind": TEXT or null, "verdict_reason": TEXT or null,
                "winner": SIDE or null, "capote": SIDE or null, "renuncia": SEAT or null,
                "points": [the game's measure per side, or null], "totals": [...]}]}, ...],
   "rebuilt": null or {"tables": N, "deals": N, "skipped": [{"table": HEX, "reason": TEXT}]}}
RESULT is a deal's result as `p2pcards arena --help` describes it.  A side is a team (Sueca:
team 0 is seats 0 and 2) or else a seat.
"""

STATS_EPILOG = f"""\
What the history database (DATA/history.sqlite; see `p2pcards history --help`) says about
the people who played here, by fingerprint and shown by their latest name, per game:
matches played and won, deals won of those scored, the average of the game's measure per
deal (card points in Sueca and Bisca, penalty points in Copas, what a deal adds in
Sobe e Desce: lower is better in those two), capotes (a side took every trick), renúncias and
other cheating verdicts of the audit, the hints asked for on the table screen (said only
when there were some), and a form line over the last {FORM_MATCHES} matches (█ won, ▁ lost,
· neither, oldest first).  Then who wins with whom in games of teams (the computer's seats
by level), the computer players' record by level (each seat it ran counts
once), and a chart of the points of each deal of the last match.

JSON output (--json): one object
  {{"players": [{{"fingerprint": TEXT, "name": TEXT,
                 "games": {{GAME: {{"matches": N, "won": N, "unfinished": N, "deals": N, "deals_won": N,
                                 "average_points": X or null, "capotes": N, "renuncias": N,
                                 "cheating": N, "hints": N (hints asked in those matches),
                                 "form": ["W"|"L"|"-", ...: oldest first]}}}}}}],
   "partnerships": [{{"game": GAME, "players": [ID, ID], "names": [TEXT, TEXT], "matches": N,
                     "won": N, "unfinished": N}}],
   "bots": [{{"game": GAME, "level": LEVEL, "matches": N, "won": N, "deals": N, "deals_won": N,
             "average_points": X or null, "unfinished": N}}],
   "last_match": null or {{"table": HEX, "game": GAME, "sides": [[SEAT, ...] per side],
                          "names": [TEXT per side], "points": [[X or null per side] per deal]}}}}
ID is a person's fingerprint, or "bot:LEVEL" for the computer.  "matches" counts every match
with a deal recorded, "unfinished" those of them with no end known (left, or still played).
"""


def _open(data_dir: Path) -> History:
    return History(db_path(data_dir))


def _norm(text: str) -> str:
    return text.replace("-", "").replace(" ", "").casefold()


def _plays(match: dict[str, Any], who: str) -> bool:
    key = _norm(who)
    return any(s["name"].casefold() == who.casefold() or (key and _norm(s["fingerprint"]).startswith(key))
               for s in match["seats"])


def _public(match: dict[str, Any]) -> dict[str, Any]:
    """A match as ``history --json`` prints it (stable keys)."""
    return {
        "table": match["table_id"], "game": match["game"], "options": match["options"], "started": match["started"],
        "deals_planned": match["deals_planned"], "ended": match["ended"], "winner": match["winner"],
        "totals": match["totals"], "transcript_hash": match["transcript_hash"],
        "abandoned": match.get("abandoned"), "abandons": match.get("abandons", []), "seats": match["seats"],
        "hints": match.get("hints", []),
        "deals": [{k: d[k] for k in ("deal", "dealer", "trump", "result", "verdict", "verdict_seat", "verdict_kind",
                                     "verdict_reason", "winner", "capote", "renuncia", "points", "totals")}
                  for d in match["deal_list"]],
    }


def side_names(match: dict[str, Any], joiner: str = " and ") -> list[str]:
    """Each side of a match for people: its seats' names ("Zé and Rui"; ``joiner`` between them)."""
    sides: dict[int, list[str]] = {}
    for s in match["seats"]:
        sides.setdefault(s["side"], []).append(s["name"])
    return [joiner.join(sides[k]) for k in sorted(sides)]


def run_history(data_dir: Path, game: str | None, player: str | None, json_out: bool, rebuild_first: bool,
                out: TextIO, registry: GameRegistry | None = None, text: Text | None = None) -> int:
    """List the matches of ``data_dir``'s history (``HISTORY_EPILOG``), after rebuilding it
    from the transcripts when ``rebuild_first``, for people in ``text``'s language (default
    English).  Returns 0; raises :class:`~p2pcards.history.HistoryError` for an unknown
    game or an unusable database."""
    t = text or Text("en")
    rebuilt = None
    if game is not None or rebuild_first:
        registry = registry if registry is not None else load_games()
        if game is not None and game not in registry.games:
            raise HistoryError.said("err_unknown_game", game=game,
                                    installed=", ".join(sorted(registry.games)) or "none")
    if player is not None and not player.strip():
        raise HistoryError.said("err_player_empty")
    if rebuild_first:
        rebuilt = rebuild(data_dir, registry)
    with _open(data_dir) as history:
        matches = history.matches()
    matches = [m for m in matches if (game is None or m["game"] == game) and (player is None or _plays(m, player))]
    if json_out:
        print(json.dumps({"matches": [_public(m) for m in matches], "rebuilt": rebuilt}), file=out)
        return 0
    if rebuilt is not None:
        print(t("history_rebuilt", tables=t.plural("history_tables", rebuilt["tables"]),
                deals=t.plural("stats_deals", rebuilt["deals"])), file=out)
        for skip in rebuilt["skipped"]:
            print(t("history_skipped", table=skip["table"][:16], reason=skip["reason"]), file=out)
    if not matches:
        print(t("history_none_fit" if game or player else "history_none"), file=out)
        return 0
    for m in matches:
        print(history_line(m, t), file=out)
    return 0


def history_line(m: dict[str, Any], t: Text) -> str:
    """One match of the history in one line for people: when, game, table, how it ended,
    who won (or that nobody has, or not yet), the totals and the deals when there are any,
    and who sat where."""
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(m["started"]))
    names = side_names(m, t("past_and"))
    if m["winner"] is not None and m["winner"] < len(names):
        outcome = t("history_won_by", names=names[m["winner"]])
    else:
        outcome = t("history_no_winner_yet" if m["ended"] == "unfinished" else "history_no_winner")
    seats = ", ".join(f"{s['seat'] + 1} {s['name']}" + (f" ({_level(t, s['level'])})" if s["kind"] == "bot" else "")
                      for s in m["seats"])
    totals = ", " + ":".join(str(v) for v in m["totals"]) if m["totals"] else ""
    deals = ", " + t.plural("stats_deals", m["deals"]) if m["deals"] else ""
    ended = t(f"history_ended_{m['ended']}") if f"history_ended_{m['ended']}" in t else m["ended"]
    for a in m.get("abandons", []):
        if a.get("taken_up"):  # an abandon both seats took up again: not how it ended, but it happened
            behind = t("audit_behind", n=a["behind"]) if a.get("behind") else ""
            ended += t("history_taken_up", by=a["by"] + 1, behind=behind, deal=a["deal"] + 1)
    return t("history_row", when=when, game=m["game"], table=m["table_id"][:8], ended=ended, outcome=outcome,
             totals=totals, deals=deals, seats=seats)


def _level(t: Text, level: str | None) -> str:
    """A computer player's level in words of ``t``'s language."""
    key = f"stats_level_{level}"
    return t(key) if key in t else str(level)


# ---------------------------------------------------------------------- statistics
def _blank() -> dict[str, Any]:
    return {"matches": 0, "won": 0, "unfinished": 0, "deals": 0, "deals_won": 0, "_points": [], "capotes": 0,
            "renuncias": 0, "cheating": 0, "hints": 0, "_form": []}


def _tally(entry: dict[str, Any], match: dict[str, Any], seat: dict[str, Any], hints: int = 0) -> None:
    """Add ``match``, as ``seat`` played it (having asked for ``hints`` hints), to ``entry``."""
    side = seat["side"]
    entry["matches"] += 1
    entry["unfinished"] += int(match["ended"] == "unfinished")
    entry["hints"] += hints
    won = match["winner"] is not None and match["winner"] == side
    entry["won"] += int(won)
    entry["_form"].append("W" if won else "L" if match["winner"] is not None else "-")
    for d in match["deal_list"]:
        if d["verdict_seat"] == seat["seat"]:
            entry["renuncias"] += int(d["verdict"] == "renuncia")
            entry["cheating"] += int(d["verdict"] == "fault")
        if d["result"] is None:
            continue
        entry["deals"] += 1
        entry["deals_won"] += int(d["winner"] == side)
        entry["capotes"] += int(d["capote"] == side)
        if side < len(d["points"]) and d["points"][side] is not None:
            entry["_points"].append(d["points"][side])


def _finish(entry: dict[str, Any]) -> dict[str, Any]:
    points = entry.pop("_points")
    form = entry.pop("_form")
    entry["average_points"] = round(sum(points) / len(points), 2) if points else None
    entry["form"] = form[-FORM_MATCHES:]
    return entry


def compute_stats(matches: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The statistics of ``matches`` (as :meth:`History.matches` gives them, oldest first):
    the object ``stats --json`` prints (``STATS_EPILOG``)."""
    players: dict[str, dict[str, Any]] = {}
    pairs: dict[tuple[str, str, str], dict[str, Any]] = {}
    bots: dict[tuple[str, str], dict[str, Any]] = {}
    for m in matches:
        asked = m.get("hints") or []  # per seat, in the order of m["seats"]
        for i, seat in enumerate(m["seats"]):
            if seat["kind"] == "person":
                p = players.setdefault(seat["fingerprint"], {"fingerprint": seat["fingerprint"], "games": {}})
                p["name"] = seat["name"]  # the latest name: matches come oldest first
                _tally(p["games"].setdefault(m["game"], _blank()), m, seat, asked[i] if i < len(asked) else 0)
            else:
                b = bots.setdefault((m["game"], seat["level"] or "?"), _blank())
                _tally(b, m, seat)
        teams: dict[int, list[dict[str, Any]]] = {}
        for seat in m["seats"]:
            teams.setdefault(seat["side"], []).append(seat)
        for side, members in teams.items():
            if len(members) != 2:
                continue
            ids = sorted((s["fingerprint"], s["name"]) if s["kind"] == "person"
                         else (f"bot:{s['level']}", f"the computer ({s['level']})") for s in members)
            key = (m["game"], ids[0][0], ids[1][0])
            pair = pairs.setdefault(key, {"game": m["game"], "players": [ids[0][0], ids[1][0]], "matches": 0,
                                          "won": 0, "unfinished": 0})
            pair["names"] = [ids[0][1], ids[1][1]]
            pair["matches"] += 1
            pair["unfinished"] += int(m["ended"] == "unfinished")
            pair["won"] += int(m["winner"] == side)
    out_players = []
    for p in sorted(players.values(), key=lambda p: (p["name"].casefold(), p["fingerprint"])):
        out_players.append({"fingerprint": p["fingerprint"], "name": p["name"],
                            "games": {g: _finish(e) for g, e in sorted(p["games"].items())}})
    out_bots = []
    for (game, level), entry in sorted(bots.items()):
        finished = _finish(entry)
        out_bots.append({"game": game, "level": level, **{k: finished[k] for k in (
            "matches", "won", "deals", "deals_won", "average_points", "unfinished")}})
    out_pairs = [{k: v[k] for k in ("game", "players", "names", "matches", "won", "unfinished")}
                 for _, v in sorted(pairs.items())]
    last = next((m for m in reversed(matches) if m["deal_list"]), None)
    last_match = None
    if last is not None:
        sides: dict[int, list[int]] = {}
        for seat in last["seats"]:
            sides.setdefault(seat["side"], []).append(seat["seat"])
        last_match = {"table": last["table_id"], "game": last["game"], "sides": [sides[k] for k in sorted(sides)],
                      "names": side_names(last), "points": [d["points"] for d in last["deal_list"]]}
    return {"players": out_players, "partnerships": out_pairs, "bots": out_bots, "last_match": last_match}


def run_stats(data_dir: Path, json_out: bool, out: TextIO, registry: GameRegistry | None = None,
              text: Text | None = None) -> int:
    """Print the statistics of ``data_dir``'s history (``STATS_EPILOG``), for people in
    ``text``'s language (default English).  Returns 0; raises
    :class:`~p2pcards.history.HistoryError` for an unusable database."""
    with _open(data_dir) as history:
        matches = history.matches()
    stats = compute_stats(matches)
    if json_out:
        print(json.dumps(stats), file=out)
        return 0
    t = text or Text("en")
    if not stats["players"] and not stats["bots"]:
        print(t("stats_none"), file=out)
        return 0
    last = next((m for m in reversed(matches) if m["deal_list"]), None)  # as compute_stats finds it
    names = side_names(last, t("past_and")) if last is not None else None
    for line in describe_stats(stats, registry if registry is not None else load_games(), t, last_names=names):
        print(line, file=out)
    return 0


def describe_stats(stats: dict[str, Any], registry: GameRegistry, text: Text | None = None, *,
                   game_name: Callable[[str], str] | None = None, measure_name: Callable[[str], str] | None = None,
                   last_names: Sequence[str] | None = None) -> list[str]:
    """``stats`` (:func:`compute_stats`) for people, in ``text``'s language (default
    English; its ``stats_`` words, counts in the singular or the plural, averages with its
    decimal mark), with a form line per player and game and a chart of the last match.

    ``game_name`` and ``measure_name`` say a game and a game's measure (``value_label``)
    in it (default: the game's name, and the measure in ``text``'s words when it has
    them); ``last_names`` names the sides of the last match (default: ``stats``' own)."""
    say = _StatsWords(text or Text("en"), registry, game_name, measure_name)
    t = say.t
    if not stats["players"] and not stats["bots"]:
        return [t("stats_none")]
    lines: list[str] = []
    for p in stats["players"]:
        lines += say.player(p)
    if stats["partnerships"]:
        lines.append(t("stats_partners"))
        lines += [say.pair(pair) for pair in stats["partnerships"]]
    if stats["bots"]:
        lines.append(t("stats_bots"))
        lines += [say.bot(bot) for bot in stats["bots"]]
    if stats["last_match"] is not None:
        lines += say.last(stats["last_match"], last_names)
    return lines


class _StatsWords:
    """The lines of :func:`describe_stats`, one kind of line per method, in ``t``'s words."""

    def __init__(self, t: Text, registry: GameRegistry, game_name: Callable[[str], str] | None,
                 measure_name: Callable[[str], str] | None) -> None:
        self.t = t
        self.registry = registry
        self.game_of = game_name or (lambda name: name)
        self.measure_of = measure_name or self.measure_words

    def measure_words(self, label: str) -> str:
        key = f"stats_measure_{label}"
        return self.t(key) if key in self.t else label

    def measure(self, game: str) -> tuple[str, bool]:
        """The game's measure in words, and whether lower is better."""
        spec = self.registry.games.get(game)
        if spec is None or not spec.match_class.value_label:
            return self.t("stats_points"), False
        return self.measure_of(spec.match_class.value_label), spec.match_class.lower_is_better

    def who(self, player: str, name: str) -> str:
        return self.t("stats_computer", level=_level(self.t, player[4:])) if player.startswith("bot:") else name

    def number(self, value: float) -> str:
        return f"{value:g}".replace(".", self.t("stats_decimal"))

    def unfinished(self, entry: dict[str, Any]) -> str:
        n = entry.get("unfinished", 0)
        return self.t("stats_unfinished", n=n) if n else ""

    def lower(self, lower: bool) -> str:
        return self.t("stats_lower") if lower else ""

    def player(self, p: dict[str, Any]) -> list[str]:
        """A person's name, then per game a line of counts and a form line."""
        t = self.t
        lines = [t("stats_player", name=p["name"], fingerprint=p["fingerprint"])]
        for game, e in p["games"].items():
            label, lower = self.measure(game)
            avg = t("stats_average", value=self.number(e["average_points"]), label=label, lower=self.lower(lower)) \
                if e["average_points"] is not None else t("stats_no_average", label=label)
            lines.append(t("stats_game", game=self.game_of(game), matches=t.plural("stats_matches", e["matches"]),
                           unfinished=self.unfinished(e), won=e["won"], deals_won=e["deals_won"],
                           deals=t.plural("stats_deals", e["deals"]), average=avg,
                           capotes=t.plural("stats_capotes", e["capotes"]),
                           renuncias=t.plural("stats_renuncias", e["renuncias"]),
                           cheating=t.plural("stats_cheating", e["cheating"]),
                           hints=t.plural("stats_hints", e["hints"]) if e.get("hints") else ""))
            lines.append(t("stats_form", form=form_line(e["form"]), n=len(e["form"])))
        return lines

    def pair(self, pair: dict[str, Any]) -> str:
        t = self.t
        a, b = pair["players"]
        fields = {"game": self.game_of(pair["game"]), "won": pair["won"],
                  "matches": t.plural("stats_matches", pair["matches"]), "unfinished": self.unfinished(pair)}
        if a == b and a.startswith("bot:"):  # two computer players of one level: the level said once
            return t("stats_pair_bots", level=_level(t, a[4:]), **fields)
        return t("stats_pair", a=self.who(a, pair["names"][0]), b=self.who(b, pair["names"][1]), **fields)

    def bot(self, bot: dict[str, Any]) -> str:
        t = self.t
        label, _ = self.measure(bot["game"])
        avg = t("stats_bot_average", value=self.number(bot["average_points"]), label=label) \
            if bot["average_points"] is not None else ""
        return t("stats_bot", game=self.game_of(bot["game"]), level=_level(t, bot["level"]), won=bot["won"],
                 matches=t.plural("stats_matches", bot["matches"]), unfinished=self.unfinished(bot),
                 deals_won=bot["deals_won"], deals=t.plural("stats_deals", bot["deals"]), average=avg)

    def last(self, last: dict[str, Any], last_names: Sequence[str] | None) -> list[str]:
        """The last match's heading and its chart of points per deal, per side."""
        label, lower = self.measure(last["game"])
        lines = [self.t("stats_last", game=self.game_of(last["game"]), table=last["table"][:8], label=label,
                        lower=self.lower(lower))]
        names = list(last_names) if last_names is not None else last["names"]
        series = [[d[side] if side < len(d) else None for d in last["points"]] for side in range(len(names))]
        return lines + ["  " + line for line in points_chart(names, series)]
