"""The ``p2pcards`` command.

Every sub-command has ``--help``.  ``--json`` output is a stable contract for other
tools: its shape is documented in each command's ``--help`` and changes only by adding
keys.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import textwrap
from collections.abc import Sequence
from typing import Any, TextIO

from p2pcards import __version__
from p2pcards.core import GameRegistry, GameSpec, OptionError, load_games
from p2pcards.core.players import PLAYER_LEVELS

__all__ = ["main", "build_parser"]

GAMES_EPILOG = """\
JSON output (--json): one object
  {"games": [{"name": "sueca", "title": "Sueca", "seats": 4, "deck": 40,
              "rules_version": "1", "description": "...", "plugin": "sueca",
              "options": [{"name": "target", "default": 4, "allowed": [4, 8],
                           "help": "..."}, ...]}, ...],
   "problems": [{"plugin": "...", "error": "..."}, ...]}
"problems" lists plugins that failed to load; they are skipped.
`p2pcards --lang pt games` words the list in Portuguese (the games' titles, descriptions and
options as each plugin translates them); without --lang, and with --json, it stays in English.
"""

ARENA_EPILOG = """\
Plays whole deals in one process with full information; the seed stands in for the
shuffle, so the same seed gives the same output byte for byte.  "deal" counts deals
from 0 over the whole run, "match_deal" within the current match "match".  Seats are numbered in
play order; in Sueca team 0 is seats 0 and 2.  When a match ends a new one starts.

JSON output (--json): one object per line.  For each deal:
  {"type": "deal", "game": NAME, "match": M, "deal": N, "match_deal": K, "dealer": SEAT,
   "trump": SUIT-LETTER or null,
   "hands": [[CARD, ...] per seat: the cards dealt at the start],
   "events": [{"type": "trump"|"pass"|"go_in"|"draw"|"swap"|"play", "seat": SEAT, ...}
              in order of play],
   "tricks": [{"leader": SEAT, "seats": [SEAT...], "cards": [CARD...], "winner": SEAT}],
   "result": RESULT, "totals": [...match totals after this deal...],
   "match_over": BOOL, "winner": SIDE or null}
  RESULT per game (every one also has "renuncia": SEAT or null):
    sueca, bisca   {"points": [..], "tricks": [..], "game_points": [..]} per team/player
                   (sueca adds "multiplier": 1 or 2)
    copas          {"points": [4 ints after the moon rule], "taken": [..], "moon": SEAT|null}
    sobe-e-desce   {"played": [4 bools], "tricks": [..], "delta": [..], "scores": [..],
                    "trump_chooser": SEAT}
  Cards are two characters: rank in A23456789TJQK, suit in SHDC ("7H", "TC").
  Then one summary line:
  {"type": "summary", "game": NAME, "options": {...}, "players": [...], "seed": S,
   "deals": N, "matches_finished": K, "wins": [matches won per side]}
"""

BENCH_RULES_EPILOG = """\
Full-information deals per second with random players for every installed game, on one
core, and a hand-coded Sueca loop measured in the same run as the baseline.

JSON output (--json): one object
  {"seconds_per_game": S,
   "baseline": {"name": ..., "deals_per_second": R, "deals": N},
   "games": {NAME: {"deals_per_second": R, "deals": N, "ms_per_deal": MS,
                    "ratio_to_baseline": X}, ...},
   "aim": {"game": "sueca", "deals_per_second": 1000, "met": BOOL}}
"""

BENCH_SIM_EPILOG = """\
The computer player's full-information simulator plays many deals at once (one numpy
array per fact, a row per deal) with uniformly random players.  For each game whose
plugin has one (a SIMULATOR in the plugin's fastsim module: Sueca, Bisca), it is timed
against the plugin's own rules engine and a hand-coded Sueca loop, measured in the same
run.  The plugin is the authority: --check N compares the simulator with it on N random
positions (legal cards, trick winners, points) and replays simulator deals through the
plugin; any difference is reported and the exit status is 1.

JSON output (--json): one object
  {"seconds_per_measure": S, "batch": B,
   "baseline": {"name": ..., "deals_per_second": R, "deals": N},
   "games": {NAME: {"deals_per_second": R, "deals": N,
                    "plugin": {"deals_per_second": R, "deals": N},
                    "ratio_to_plugin": X, "ratio_to_baseline": X,
                    "cross_check": {...} (with --check)}, ...},
   "aim": {"game": "sueca", "deals_per_second": 20000, "met": BOOL},
   "cross_check_ok": BOOL (with --check)}
"""

BENCH_DECK_EPILOG = """\
One mental-deck deal simulated with every seat in this process: per-seat compute for
commit + shuffle + lock + opening its own hand, the rest of the deal, the audit, group
operations and bytes sent per seat -- with ristretto255 (median of 5 deals) and the
modp-2048 baseline group (one deal) measured in the same run, and their ratio; then the
shuffle and lock proofs on ristretto255: the time to make one seat's own and to check all
the others' of one deal, their size, and the deal's compute with and without them.  The
baseline is slow on purpose: a 4-seat 40-card run takes some 15 seconds.

JSON output (--json): one object
  {"seats": N, "cards": M, "dealt_per_seat": K, "reveals": R,
   "groups": {"ristretto255": GROUP, "modp2048": GROUP},
   "ratio": {"compute": X, "audit": X, "play": X, "bytes": X},
   "proofs": PROOFS}
  GROUP = {"deals": D, "compute_ms": [per seat], "compute_ms_max": MS,
           "play_ms": [per seat], "play_ms_max": MS, "audit_ms": MS,
           "ops": [{"mult", "hash", "validate", "scalar"} per seat], "audit_ops": {...},
           "bytes_sent": [per seat], "bytes_sent_max": B}
  PROOFS = {"prove_ms_max": MS, "verify_ms_max": MS, "bytes_per_seat": B,
            "compute_ms_max": MS, "compute_ms_max_without": MS, "ratio": X,
            "bytes_sent_max": B, "bytes_sent_max_without": B}
"ratio" is modp-2048 over ristretto255; "proofs.ratio" is the slowest seat's compute
with proofs over without.
"""

HOST_EPILOG = """\
Seats (--seats SPEC): one item per seat, separated by commas: "bot" (a computer player run
by this process as a separate peer with its own keys), "bot:LEVEL" (LEVEL is random or
heuristic) or "remote" (a peer that joins with `p2pcards join HOST:PORT`).  Default: the
first seat a bot, every other seat remote.  The table starts when every remote seat is taken; the
host's identity signs the table (the genesis) but holds no seat of its own.  Each local
peer's transcript is written to DATA/tables/TABLE/seatN.log (DATA: $P2PCARDS_HOME, else
$XDG_DATA_HOME/p2pcards, else ~/.local/share/p2pcards); `p2pcards audit` checks it.
Warnings (rejected messages and whom they blame) go to standard error.

JSON output (--json): one object per line.  First
  {"type": "listening", "address": ADDR, "port": PORT, "game": NAME}
then, once every seat is taken,
  {"type": "table", "table": HEX, "game": NAME, "rules_version": V, "options": {...},
   "deals": N or null, "timeout": SECONDS, "host": {"name": ..., "fingerprint": ...},
   "seats": [{"seat": I, "name": ..., "fingerprint": ..., "bot": LEVEL or null,
              "runs_on": FINGERPRINT or null}, ...],
   "local_seats": [I, ...]}
then, as the first local seat sees them, one object per finished deal
  {"type": "deal", "table": HEX, "seat": I, "deal": N, "dealer": SEAT,
   "trump": SUIT-LETTER or null, "result": RESULT or null (null: the deal is void),
   "audit": {"verdict": "clean"|"renuncia"|"fault"|"vote-out"|"void", "seat": SEAT or null,
             "kind": ... or null, "reason": TEXT or null},
   "totals": [...match totals...], "match_over": BOOL, "winner": SIDE or null}
"renuncia": the rules replay found a seat breaking a play rule; "fault": a seat cheated
(a bad shuffle, a wrong key, an equivocation, a false dispute...: "kind" says which);
"vote-out": the seat was silent past the timeout and was voted out.  In all three the seat
loses the deal by its game's renúncia rule, and RESULT says so ("renuncia": SEAT).
"void": nobody can be blamed and the deal scores nothing.  When the other seats vote out
a seat that stayed silent past --timeout
  {"type": "vote_out", "table": HEX, "seat": I, "against": SEAT, "deal": N, "seq": N,
   "voters": [SEAT, ...]}
(from the next deal that seat is a dummy: its cards are dealt face up and every peer plays
it with the same computer player); when a seat disputes a deal (a fault only it could see:
the audit decides)
  {"type": "dispute", "table": HEX, "seat": I, "accuser": SEAT, "against": SEAT or null,
   "deal": N, "reason": TEXT}
and when a seat is proven to have signed two different messages for one place
  {"type": "fork", "table": HEX, "seat": I, "against": SEAT, "deal": N, "seq": N}
then one final object
  {"type": "final", "table": HEX, "seat": I, "winner": SIDE or null, "totals": [...],
   "deals": N, "transcript_hash": HEX, "log": PATH, "voted_out": BOOL,
   "abandoned": null or {"by": SEAT, "waiting_for": [SEAT, ...], "deal": N}}
("voted_out": this seat was voted out and followed the rest of the table as an observer).
RESULT is as in `p2pcards arena --help`.  With no bot seat the host only seats the
players: it prints "listening" and "table" and exits.
Crashes: the host keeps listening for the whole table, and a process of the table that
comes back (`p2pcards resume`) reconnects through it.  If this process dies, `p2pcards
resume` takes its bots' seats again (it listens on the same port); `host` warns when this
identity has an unfinished table.
LAN: while a seat is free the table is announced on the local network (DNS-SD, see
`p2pcards tables --help`) as --table-name (default GAME-HOST-XXXX), updated as seats fill
and withdrawn when the table starts or closes; once the announcement is out the host
prints (after "listening")
  {"type": "announced", "name": NAME, "service": SERVICE, "port": PORT}
and players join with `p2pcards join NAME`.  Not announced: with --no-announce, with a
loopback --bind, or with no remote seat; if multicast DNS fails the host warns on standard
error and players can still join by HOST:PORT.
Exit status: 0 when the table is over; 1 when it could not be played to the end (the lobby
did not fill in time, a seat was silent past the timeout...); 2 for bad options or a port
that cannot be opened.
"""

JOIN_EPILOG = """\
Joins the table NAME announced on the local network (`p2pcards tables` lists them), or the
table at HOST:PORT (printed by `p2pcards host`; works where multicast is blocked), as a
headless computer player with this user's identity (DATA/identity.key).  By NAME it looks
for the table for --wait seconds (default 5), refuses a table it cannot join (with the
reason), and gives up the seat unless the host's key has the announced fingerprint;
--host-fingerprint FP pins the host's key by address too.  The peer listens for the other peers on
the local address it uses to reach the host.  Its transcript is written to
DATA/tables/TABLE/seatN.log; `p2pcards audit` checks it.

JSON output (--json): one object per line.  By NAME, first the table as found
  {"type": "found", "table": TABLE}   (TABLE as in `p2pcards tables --help`)
Then, once the host gives a seat,
  {"type": "seated", "seat": I, "game": NAME, "options": {...}, "host": {"name": ...},
   "port": MESH-PORT}
then the "table", "deal", "vote_out", "dispute", "fork" and "final" objects described in
`p2pcards host --help`.
Crashes: if this identity has an unfinished table joined at the same HOST:PORT (the process
was killed), `join` takes its seat again instead, as `p2pcards resume` does (it prints the
"resumed" object of `p2pcards resume --help` first); --new joins a new table instead.
Exit status: 0 when the table is over; 1 when it could not be joined or played (no table
of that name, host unreachable, seat refused, a seat silent past the timeout, this seat
voted out...); 2 for bad options.
"""

AUDIT_EPILOG = """\
Reads a transcript log (DATA/tables/TABLE/seatN.log, N the seat counted from 0: one
length-prefixed frame per message, the genesis first) and checks it offline as every
seated peer checks it live:
every encoding, signature and chain link, every turn, every certificate (votes, seeds,
equivocations), every public deck operation, and each deal audited against its seeds and
replayed through the rules with every card known.  Messages of this seat that the table
did not accept are not in the log: they are kept apart in seatN.rejected, and reported.

A log whose last frame is cut short (a process killed while it wrote: that message was
never sent, and `p2pcards resume` cuts it off) is audited up to there, with a warning.  A
log damaged before its end (frames that do not follow one another) is refused.

Several logs of one table (e.g. every seat's): each is checked, and each must be the same
transcript or a beginning of the longest; a log whose messages disagree with the others'
signed messages is reported, with the first seq where they part.

JSON output (--json): for one log, one object
  {"ok": BOOL, "game": NAME, "table": HEX,
   "deals": [{"deal": N, "verdict": "clean"|"renuncia"|"fault"|"vote-out"|"void"|"incomplete",
              "seat": SEAT or null, "kind": TEXT or null, "reason": TEXT or null,
              "result": RESULT or null}, ...],
   "error": null or {"seq": N, "seat": SEAT or null, "reason": TEXT},
   "totals": [...], "winner": SIDE or null, "transcript_hash": HEX,
   "votes": [{"seat": SEAT, "deal": N, "seq": N, "voters": [SEAT, ...]}, ...],
   "dummies": [SEAT, ...], "finished": BOOL,
   "abandoned": null or {"by": SEAT, "waiting_for": [SEAT, ...], "deal": N},
   "rejected": N (messages of this seat the table did not accept),
   "torn_tail": null or {"bytes": N, "seq": N} (the log ends in N bytes that do not make a
                whole frame, where message "seq" was being written; audited without them)}
for several, {"ok": BOOL, "logs": [{"path": PATH, ...the object above...}, ...],
"agree": BOOL, "disagreements": [{"path": PATH, "with": PATH, "seq": N}, ...]}.
"vote-out" is a seat voted out for its silence (it lost that deal; a dummy from then on);
"renuncia" and "fault" name a seat that broke the rules or cheated.  A log is sound ("ok")
when nothing is broken and every deal is clean, vote-out, void or incomplete (the last one).
Exit status: 0 when the logs are sound and agree (a torn last frame is only a warning); 1
when a fault, an error or a disagreement is found (where and whose is printed); 2 when a
file is not a transcript log at all, is damaged before its end, or is a log of another
protocol version.
"""

RESUME_EPILOG = """Takes up again the seats of a table this process was playing when it was killed or
crashed.  Everything needed is in DATA/tables/TABLE/ (DATA: $P2PCARDS_HOME, else
$XDG_DATA_HOME/p2pcards, else ~/.local/share/p2pcards): each local peer's transcript
(seatN.log) and secret (seatN.secret), the bots' identities, and the process's manifest
(host.mesh or join.mesh: the other processes and their addresses), all owner-only.  Every
saved message is verified again and this seat's own messages must come out the same from
its secret: a log that was tampered with is refused.  The process then listens where it
listened, reconnects to every other process (each side proves its seats by signing fresh
nonces), fetches the messages it missed, and plays on.  TABLE is a prefix of the table id
(needed when this identity has several unfinished tables).  `p2pcards join HOST:PORT`
does the same when it finds an unfinished table joined at HOST:PORT.

A table played against the computer (`p2pcards play`, manifest local.mesh) has every seat
in this process: its peers link up in memory again.  A person's seat (`play`, `play
--host`, `play --join`) is taken up on the full-screen table when standard input and
output are a terminal and --json is not given; otherwise a heuristic computer player
plays it to the end.

--abandon ends a table of two playing seats whose other seat stays silent (nobody can be
voted out of a table of two): an "abandon" is written to the transcript and sent to the
other seat if it can be reached; the table ends with no winner ("final" with "abandoned").

--list prints every table of this identity kept here, one per line, with its state; with
--json one object per table:
  {"type": "saved", "table": HEX, "game": NAME, "role": "host"|"join"|"local", "seats": [I, ...],
   "state": "unfinished"|"finished"|"voted-out"|"abandoned"|"unknown", "path": DIRECTORY}
("unknown": the table went on without this seat and nobody could tell it the outcome).

JSON output (--json): one object per line.  First
  {"type": "resumed", "table": HEX, "game": NAME, "role": "host"|"join"|"local", "seats": [I, ...],
   "seq": N (messages in the saved transcript), "deals_done": N, "finished": BOOL}
then the "table", "deal", "vote_out", "dispute", "fork" and "final" objects described in
`p2pcards host --help` (deals that ended before the crash are not printed again).
Coming back late: a seat the others voted out while it was away follows the rest of the
table as an observer and learns the outcome ("final" with "voted_out": true).  When no
other process answers and this one has been away longer than twice the table's timeout,
the table went on without it: resume says so, marks the table ended (outcome unknown) and
exits 1; the log is kept for `p2pcards audit`.
Exit status: 0 when the table is over; 1 when it cannot be resumed (no unfinished table, a
saved log that does not verify, of another protocol version, no other process
reachable...); 2 for bad options (several unfinished tables and no TABLE prefix).
"""


BENCH_TABLE_EPILOG = """\
A host with one random bot and three `p2pcards join --bot random` processes play Sueca
deals over TCP on 127.0.0.1 (a match to 8 game points, which may end before --deals:
the figures are then over the deals played): wall time per audited deal (first
commitment to audited result, as the host reports them), bytes each seat sends per
deal, peak memory of each process; the baseline, measured in the same run, is as many
deals among four replicas in one process with no sockets.

JSON output (--json): one object ("deals": the deals played)
  {"deals": N, "ms_per_deal": [..], "ms_per_deal_mean": MS,
   "bytes_sent_per_seat": [4 ints, per deal], "peak_rss_mb_per_process": [4 floats],
   "baseline": {"ms_per_deal": MS, "deals": N, "note": ...}, "ratio_to_baseline": X,
   "aims": {"ms_per_deal": 400, "rss_mb": 60, "met": BOOL}, "self_rss_mb": MB,
   "messages_per_deal": X, "fsync_ms": MS}
Every message is chained to the one before it and fsync'd by its author before it is
sent: "fsync_ms" (a 500-byte append and fsync where the peers keep their logs, median,
measured in the same run) times "messages_per_deal" is a floor of the wall time that no
CPU can shorten.
"""


class CliError(Exception):
    """A user error: printed as ``p2pcards: error: ...`` with exit status 2."""


def _parse_options(spec: GameSpec, pairs: Sequence[str]) -> dict[str, Any]:
    raw: dict[str, str] = {}
    for pair in pairs:
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise CliError(f"-o expects KEY=VALUE, got {pair!r}")
        raw[key.strip()] = value.strip()
    try:
        return spec.resolve_options(raw)
    except OptionError as exc:
        raise CliError(str(exc)) from None


def _game(registry: GameRegistry, name: str) -> GameSpec:
    try:
        return registry.get(name)
    except KeyError as exc:
        raise CliError(exc.args[0]) from None


def _load() -> GameRegistry:
    registry = load_games()
    for problem in registry.problems:
        print(f"p2pcards: warning: plugin {problem.plugin} skipped: {problem.error}", file=sys.stderr)
    return registry


#: The words of `p2pcards games` around the games' own (``--lang`` before the command; English
#: when it is not given, so that the output stays the same for scripts whatever the locale).
GAMES_WORDS: dict[str, dict[str, str]] = {
    "en": {"none": "no games installed", "option": "    {flag:<28} default {default}: {help}",
           "players": "{n} players", "cards": "{n} cards"},
    "pt": {"none": "nenhum jogo instalado", "option": "    {flag:<28} {label}, por omissão {default}: {help}",
           "players": "{n} jogadores", "cards": "{n} cartas"},
}


# ---------------------------------------------------------------------- commands
def cmd_games(args: argparse.Namespace, out: TextIO) -> int:
    registry = _load()
    lang = getattr(args, "start_lang", None) or "en"
    words = GAMES_WORDS[lang]
    if args.json:
        games = [
            {
                "name": s.name,
                "title": s.title,
                "seats": s.seats,
                "deck": len(s.deck),
                "rules_version": s.rules_version,
                "description": s.description,
                "plugin": registry.owners[s.name],
                "options": [
                    {"name": o.name, "default": o.default, "allowed": list(o.allowed), "help": o.help}
                    for o in s.options
                ],
            }
            for s in sorted(registry.games.values(), key=lambda s: s.name)
        ]
        problems = [{"plugin": p.plugin, "error": p.error} for p in registry.problems]
        print(json.dumps({"games": games, "problems": problems}), file=out)
        return 0
    if not registry.games:
        print(words["none"], file=out)
    for s in sorted(registry.games.values(), key=lambda s: s.name):
        print(f"{s.name:<14} {s.text(lang, 'title')} — {_about(s, lang)}", file=out)
        for o in s.options:
            flag = f"-o {o.name}=" + "|".join(str(v) for v in o.allowed)
            default = str(o.default)  # as typed after -o; its label too when the game words it otherwise
            label = s.text(lang, f"option.{o.name}.{o.default}")
            if label != default:
                default += f" ({label})"
            print(words["option"].format(flag=flag, label=s.text(lang, f"option.{o.name}"), default=default,
                                         help=s.text(lang, f"option.{o.name}.help")), file=out)
    return 0


def _about(spec: GameSpec, lang: str = "en") -> str:
    """A game in a line: its description, with the players and cards it does not already say
    (the built-in games' descriptions start with them: each fact is said once)."""
    words = GAMES_WORDS[lang]
    description = spec.text(lang, "description")
    facts = [words["players"].format(n=spec.seats), words["cards"].format(n=len(spec.deck))]
    missing = [fact for fact in facts if fact not in description]
    if not description:
        return ", ".join(missing)
    return description + (f" ({', '.join(missing)})" if missing else "")


def cmd_arena(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.core.arena import run_arena

    registry = _load()
    spec = _game(registry, args.game)
    options = _parse_options(spec, args.option)
    if args.deals < 1:
        raise CliError("--deals must be at least 1")
    if args.players is None:
        levels = ["heuristic"] * spec.seats
    else:
        levels = [p.strip() for p in args.players.split(",")]
        if len(levels) != spec.seats:
            raise CliError(f"{spec.name} has {spec.seats} seats; --players names {len(levels)}")
        for level in levels:
            if level not in PLAYER_LEVELS:
                raise CliError(f"unknown player {level!r} (choose from {', '.join(PLAYER_LEVELS)})")
    for record in run_arena(spec, options, args.deals, args.seed, levels):
        if args.json:
            out.write(json.dumps(record, separators=(",", ":")) + "\n")
        else:
            out.write(_describe(record, spec) + "\n")
    return 0


DUEL_EPILOG = """\
Duplicate deals: each pair is one shuffled deal (dealer and cards from --seed and the pair's
number) played several times with the same cards in the same seats, the players changing
places, so that luck of the cards cancels out.  Seating: in a game with teams, one play per
team, A in that team's seats and B in the others (Sueca: A in seats 1 and 3 against B, then A
in seats 2 and 4); without teams, one play per seat, A in that seat and B in all the others
(Bisca: 2 plays; Copas, Sobe e Desce: 4 plays, A against three copies of B).  Every player in
every play is made afresh with its own random stream, from (seed, pair, play, seat): the
outcomes do not depend on --jobs.

Measure per seat and deal: Sueca, Bisca: card points taken by its team or by it (higher is
better; 120 in a deal); Copas: penalty points after the moon rule (lower is better); and
for Sobe e Desce, what the deal adds to its score (lower is better: minus the tricks taken,
twice that with clubs; +5, +10 with clubs, for none; 0 for sitting out).  A's value in a play is the
mean over its seats, B's over the others; A wins a pair when its average over the pair's plays
is better than B's (Sueca, Bisca: more than 60 card points on average), ties when they are
equal.  Win rate: (wins + ties / 2) / pairs, with its 95 % Wilson score interval.  Times per
decision are measured around each player's choice, in every process.

JSON output (--json): one object
  {"game": NAME, "options": {...}, "a": BOT, "b": BOT, "seed": S, "think_ms": MS or null,
   "iterations": N or null, "jobs": J (processes used),
   "pairs": N, "plays_per_pair": K, "seating": [[SEAT, ...: A's seats] per play],
   "measure": {"name": "card points"|"penalty points"|"deal score", "better": "higher"|"lower"},
   "wins": W, "ties": T, "losses": L, "win_rate": X, "interval": [LOW, HIGH],
   "mean": {"a": X, "b": Y: mean measure per seat and deal},
   "ms_per_decision": {"a": TIMES, "b": TIMES}, "seconds": S (wall time),
   "results": [{"pair": I, "dealer": SEAT, "a": [A's value per play], "b": [B's value per play],
                "outcome": 1|0.5|0 (for A)}, ...]}
  TIMES = {"mean": MS, "p50": MS, "p99": MS, "decisions": N}
Exit status: 0 when the match is played; 2 for bad arguments; 130 when interrupted (Ctrl-C
stops every worker).
"""


def cmd_duel(args: argparse.Namespace, out: TextIO) -> int:
    import os

    from p2pcards.core.duel import check_duel, run_duel

    registry = _load()
    spec = _game(registry, args.game)
    options = _parse_options(spec, args.option)
    jobs = args.jobs if args.jobs is not None else os.cpu_count() or 1
    try:
        check_duel(spec, args.a, args.b, args.pairs, think_ms=args.think, iterations=args.iterations, jobs=jobs)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    report = run_duel(spec, options, args.a, args.b, args.pairs, args.seed, think_ms=args.think,
                      iterations=args.iterations, jobs=jobs)
    if args.json:
        print(json.dumps(report), file=out)
        return 0
    for line in _describe_duel(report):
        print(line, file=out)
    return 0


def _describe_duel(report: dict[str, Any]) -> list[str]:
    """A duel's report as a few aligned lines for people: seats counted from 1."""
    plays = [_and([str(s + 1) for s in seats]) for seats in report["seating"]]
    seat_word = "seats" if len(report["seating"][0]) > 1 else "seat"
    pairs = report["pairs"]
    measure = report["measure"]
    lines = [
        f"{report['game']}: A {report['a']} against B {report['b']}, {_count(pairs, 'pair')} "
        f"({_count(pairs * report['plays_per_pair'], 'deal')}), seed {report['seed']}",
        f"each deal played {report['plays_per_pair']} times: A in {seat_word} {', then '.join(plays)}; "
        "B in the other seats",
        f"A won {report['wins']}, tied {report['ties']}, lost {report['losses']}: win rate "
        f"{report['win_rate'] * 100:.1f} % (95 % interval {report['interval'][0] * 100:.1f} to "
        f"{report['interval'][1] * 100:.1f} %)",
        f"{measure['name']} per deal ({measure['better']} is better): A {report['mean']['a']:.2f}, "
        f"B {report['mean']['b']:.2f}",
        f"{'ms per decision':<20} {'mean':>9} {'p50':>9} {'p99':>9} {'decisions':>10}",
    ]
    width = max(len(report["a"]), len(report["b"]))
    for side in ("a", "b"):
        t = report["ms_per_decision"][side]
        who = f"  {side.upper()} {report[side]:<{width}}"
        lines.append(f"{who:<20} {t['mean']:>9.3f} {t['p50']:>9.3f} {t['p99']:>9.3f} {t['decisions']:>10}")
    lines.append(f"total {report['seconds']:.2f} s on {_count(report['jobs'], 'job')}")
    return lines


def _count(n: int, what: str) -> str:
    """"1 message", "2 messages"."""
    return f"{n} {what}" if n == 1 else f"{n} {what}s"


def _and(items: Sequence[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    if len(items) < 2:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _side(spec: GameSpec, side: int) -> str:
    """A match's side for people: a team by its seats, or a seat, counted from 1."""
    if spec.teams and 0 <= side < len(spec.teams):
        return f"team {side + 1} (seats {_and([str(s + 1) for s in spec.teams[side]])})"
    return f"seat {side + 1}"


def _describe(record: dict[str, Any], spec: GameSpec) -> str:
    """An arena record as a line for people: matches, deals and seats counted from 1."""
    from p2pcards.core import pretty

    if record["type"] == "summary":
        return (
            f"{record['deals']} deals, {record['matches_finished']} matches finished; "
            f"matches won per side: {record['wins']}"
        )
    res = {k: v for k, v in record["result"].items() if v is not None}
    trump = pretty("A" + record["trump"])[1:] if record["trump"] else "-"
    over = f"  match won by {_side(spec, record['winner'])}" if record["match_over"] and record["winner"] is not None \
        else ""
    return (
        f"match {record['match'] + 1} deal {record['deal'] + 1}: dealer seat {record['dealer'] + 1} trump {trump} "
        f"{json.dumps(res)} totals {record['totals']}{over}"
    )


ENGINE_EPILOG = """\
Protocol: one JSON object per line in, one per line out, in order; blank lines are skipped.
A position (the full list of fields and errors is in protocol/ENGINE.md):
  {"id": ANY, "game": NAME, "options": {...}, "seat": SEAT, "dealer": SEAT,
   "hand": [CARD, ...: the seat's cards dealt at the deal's start, as `arena --json` "hands"],
   "events": [EVENT, ...: the deal's events so far, as `arena --json` "events"],
   "match_deal": K, "match_totals": [...], "bot": "heuristic", "think": MS,
   "iterations": N, "seed": S}
  -> {"id": ANY, "kind": "play"|"trump"|"pass"|"go_in", "choice": CHOICE}
  CHOICE: a card ("7H"), ["swap", CARD] (Bisca), a suit letter or "turn" (Sobe e Desce's
  trumps), a list of cards (passes, going in with an exchange), or null (sitting out).
Also {"cmd": "games"}, {"cmd": "bots"} and {"cmd": "quit"}.  A request that is not valid
JSON, or a position that cannot have happened, is answered {"id": ANY, "error": TEXT}; the
engine reads on.  Exit status: 0 at the end of input or after "quit".

Numbering: the protocol counts seats, deals and matches from 0 (seat 0 is the first seat), as
--json output does.
"""


def cmd_engine(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.core.engine import serve

    return serve(sys.stdin.buffer, out, _load())


def cmd_bench(args: argparse.Namespace, out: TextIO) -> int:
    if args.what == "rules":
        from p2pcards.core.bench import run_rules_bench

        registry = _load()
        if args.seconds <= 0:
            raise CliError("--seconds must be positive")
        report = run_rules_bench(registry.games, args.seconds)
        if args.json:
            print(json.dumps(report), file=out)
            return 0
        base = report["baseline"]
        print(f"baseline ({base['name']}): {base['deals_per_second']:.0f} deals/s", file=out)
        for name, g in report["games"].items():
            print(
                f"{name:<14} {g['deals_per_second']:>9.0f} deals/s  {g['ms_per_deal']:.3f} ms/deal"
                f"  {g['ratio_to_baseline']:.2f}x baseline",
                file=out,
            )
        if "aim" in report:
            aim = report["aim"]
            verdict = "met" if aim["met"] else "NOT met"
            print(f"aim: sueca >= {aim['deals_per_second']} deals/s: {verdict}", file=out)
        return 0
    if args.what == "table":
        return _bench_table(args, out)
    if args.what == "sim":
        from p2pcards.core.bench import print_sim_bench

        try:
            return print_sim_bench(out, _load().games, args.seconds, args.check, args.json)
        except ValueError as exc:
            raise CliError(str(exc)) from None
    if not 2 <= args.seats <= 4:
        raise CliError("--seats must be 2, 3 or 4")
    if args.cards < args.seats or args.cards > 52:
        raise CliError("--cards must be between the number of seats and 52")
    from p2pcards.mental import bench as deck_bench

    return deck_bench.run(seats=args.seats, cards=args.cards, json_out=args.json)


def _bench_table(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.net.bench import run_table_bench

    if not 1 <= args.deals <= 50:
        raise CliError("--deals must be between 1 and 50")
    try:
        report = run_table_bench(args.deals)
    except RuntimeError as exc:
        print(f"p2pcards: bench table failed: {exc}", file=sys.stderr)
        return 1
    if args.json:
        print(json.dumps(report), file=out)
        return 0
    aims = report["aims"]
    print(f"{report['deals']} audited Sueca deals, four processes on loopback", file=out)
    print(f"  ms per deal: {report['ms_per_deal']} (mean {report['ms_per_deal_mean']})", file=out)
    print(f"  bytes sent per seat per deal: {report['bytes_sent_per_seat']}", file=out)
    print(f"  peak memory per process, MB: {report['peak_rss_mb_per_process']}", file=out)
    print(f"  chained messages per deal: {report['messages_per_deal']}, each fsync'd before it is sent "
          f"(fsync here: {report['fsync_ms']} ms)", file=out)
    base = report["baseline"]
    print(f"baseline ({base['note']}): {base['ms_per_deal']} ms per deal; "
          f"network/baseline {report['ratio_to_baseline']}x", file=out)
    verdict = "met" if aims["met"] else "NOT met"
    print(f"aims: <= {aims['ms_per_deal']:.0f} ms per deal, <= {aims['rss_mb']:.0f} MB per peer: {verdict}", file=out)
    return 0


def _is_terminal(out: TextIO) -> bool:
    """Whether the full-screen table can run: standard input and output are a terminal."""
    return out is sys.stdout and sys.stdin.isatty() and sys.stdout.isatty()


def cmd_play(args: argparse.Namespace, out: TextIO) -> int:
    registry = _load()
    spec = _game(registry, args.game)
    options = _parse_options(spec, args.option)
    if args.bots not in PLAYER_LEVELS:
        raise CliError(f"unknown bot level {args.bots!r} (choose from {', '.join(PLAYER_LEVELS)})")
    if args.deals is not None and args.deals < 1:
        raise CliError("--deals must be at least 1")
    if not 0 <= args.speed <= 10:
        raise CliError("--speed must be between 0 and 10 seconds")
    if args.host or args.join is not None:
        return _play_lan(args, out, registry, spec, options)
    if args.text or not _is_terminal(out):
        from p2pcards.textplay import play_text
        from p2pcards.tui.i18n import default_lang

        _identity()  # the data directory is checked as for the full-screen table: same refusal, same status
        return play_text(spec, options, args.bots, args.seed, args.deals, sys.stdin, out,
                         lang=args.lang or args.start_lang or default_lang())
    from p2pcards.identity import data_dir
    from p2pcards.tui.app import play_local
    from p2pcards.tui.i18n import default_lang

    me = _identity()
    _warn_unfinished(data_dir(), me)  # stays on the terminal under the screen, seen again once it closes
    lang = args.lang or args.start_lang or default_lang()
    return _left_note(play_local(spec, options, me=me, lang=lang, bots=args.bots,
                                 seed=args.seed, deals=args.deals, speed=args.speed, data_dir=data_dir()), lang)


def _play_lan(args: argparse.Namespace, out: TextIO, registry: GameRegistry, spec: GameSpec,
              options: dict[str, Any]) -> int:
    """``play --host`` / ``play --join``: the person at a LAN table on the full screen."""
    from p2pcards.identity import data_dir
    from p2pcards.net import parse_seat_spec
    from p2pcards.tui.i18n import default_lang
    from p2pcards.tui.lan import HostPlan, JoinPlan, hosting_announcer, play_lan

    if args.host and args.join is not None:
        raise CliError("--host and --join: choose one")
    if not 0 <= args.port <= 65535:
        raise CliError("--port must be between 0 and 65535")
    seats: list[Any] = []
    by_name = False
    if args.host:
        try:
            seats = parse_seat_spec(args.seats, spec.seats, person=True)
        except ValueError as exc:
            raise CliError(str(exc)) from None
        if not any(s.kind == "me" for s in seats):
            raise CliError("--seats must name one 'me' seat: yours")
        _check_timeout(args.timeout, "--timeout")
    else:
        args.address = args.join
        by_name = ":" not in args.join
        host, port = _join_target(args, by_name)
    if args.text or not _is_terminal(out):
        raise CliError("a LAN table is played on the full-screen table: run it in a terminal, without --text "
                       "(a headless computer player joins with `p2pcards join`)")
    me = _identity()
    lang = args.lang or args.start_lang or default_lang()
    if not args.host and (found := _returning(data_dir(), me, args.join, (host, port), by_name)):
        print(f"p2pcards: you have an unfinished table joined at {args.join}: taking your seat again "
              f"({found.describe()})", file=sys.stderr)
        return _resume_on_screen(found, me, registry, data_dir(), lang)
    if args.host:
        announce = None
        if not args.no_announce:
            _announcement(args, spec, options, seats, me)  # checks --table-name and --mdns-ttl
            announce = hosting_announcer(spec, options, seats, me, args, args.deals)
        host_plan = HostPlan(spec, options, seats, port=args.port, bind=args.bind, deals=args.deals,
                             timeout=args.timeout, announce=announce)
        return _left_note(play_lan(registry, host_plan, me=me, lang=lang, data_dir=data_dir(), speed=args.speed), lang)
    join_plan = JoinPlan(host, port, expect_host=args.host_fingerprint, name=args.join if by_name else "")
    if by_name:
        from p2pcards.discovery import DiscoveryError
        from p2pcards.discovery.commands import locate
        from p2pcards.net import PROTO, ConnectError

        async def find() -> tuple[str, int, str]:
            try:
                return await locate(args, registry.games, PROTO, lambda obj, text: None)
            except DiscoveryError as exc:
                raise ConnectError(str(exc)) from None

        join_plan.locate = find
    return _left_note(play_lan(registry, join_plan, me=me, lang=lang, data_dir=data_dir(), speed=args.speed), lang)


def _left_note(status: int, lang: str = "en") -> int:
    """After a table screen: if the person left a table unfinished, say how to take it up
    (in the table's language).

    ``status`` is the screen's exit status (p2pcards.tui.app.exit_status): 0 both when the
    table is over and when the person left it on purpose; its ``left`` tells them apart.
    """
    if getattr(status, "left", False):
        from p2pcards.tui.i18n import Text

        print(Text(lang)("left_note"), file=sys.stderr)
    return status


def cmd_start(args: argparse.Namespace, out: TextIO) -> int:
    """``p2pcards`` alone: the start screen on a terminal, else the help."""
    if not _is_terminal(out):
        build_parser().print_help(out)
        return 0
    from p2pcards.identity import data_dir
    from p2pcards.tui.i18n import default_lang
    from p2pcards.tui.start import run_start_screen

    return run_start_screen(_load(), me=_identity(), lang=args.start_lang or default_lang(), data_dir=data_dir())


# ---------------------------------------------------------------------- network commands
def _setup_logging(verbose: bool) -> None:
    import logging

    logging.basicConfig(
        level=logging.INFO if verbose else logging.WARNING,
        format="p2pcards: %(levelname)s: %(message)s",
        stream=sys.stderr,
    )


class _TablePrinter:
    """Prints a table's lines: JSON objects (the --json contract) or sentences for people."""

    def __init__(self, out: TextIO, as_json: bool) -> None:
        self.out = out
        self.json = as_json
        self.table: dict[str, Any] | None = None
        self.first: int | None = None
        self.data: Any = None
        self.voted_out = False
        #: the installed games, to name a match's winning team (None: sides are told by number)
        self.registry: GameRegistry | None = None

    def seat(self, seat: int) -> str:
        """A seat as people see it: "seat N" counted from 1, with its name once the table is known."""
        names = [s["name"] for s in self.table["seats"]] if self.table else []
        return f"seat {seat + 1} ({names[seat]})" if 0 <= seat < len(names) else f"seat {seat + 1}"

    def seats(self, seats: Sequence[int]) -> str:
        return _and([self.seat(s) for s in seats])

    def side(self, side: int) -> str:
        """A match's winning side: a team (its seats) or a seat."""
        spec = self.registry.games.get(self.table["game"]) if self.registry and self.table else None
        if spec is not None and spec.teams and 0 <= side < len(spec.teams):
            return self.seats(spec.teams[side])
        return self.seat(side)

    def line(self, obj: dict[str, Any], text: str) -> None:
        self.out.write((json.dumps(obj) if self.json else text) + "\n")
        self.out.flush()

    def listening(self, address: str, port: int, game: str) -> None:
        where = f"{address}:{port}"
        if address in ("0.0.0.0", "::"):
            hint = f"ADDRESS:{port} (this machine's address on the LAN; 127.0.0.1 on this machine)"
        else:
            hint = where
        self.line({"type": "listening", "address": address, "port": port, "game": game},
                  f"table for {game} open on {where}; players join with: p2pcards join {hint}")

    def seated(self, info: dict[str, Any]) -> None:
        self.line(info, f"seated at seat {info['seat'] + 1} of {info['game']} hosted by {info['host']['name']}; "
                        "waiting for the other players")

    def on_table(self, info: dict[str, Any]) -> None:
        self.table = info
        self.first = min(info["local_seats"]) if info["local_seats"] else None
        seats = "; ".join(
            f"{s['seat'] + 1}: {s['name']} ({s['fingerprint']}"
            + (f", {s['bot']} bot" if s["bot"] else "")
            + (f" run by {s['runs_on']}" if s["runs_on"] else "") + ")"
            for s in info["seats"]
        )
        self.line(info, f"table {info['table'][:16]} of {info['game']} starts; seats {seats}")

    def resumed(self, info: dict[str, Any]) -> None:
        seats = ", ".join(str(s + 1) for s in info["seats"])
        state = "it is over" if info["finished"] else "reconnecting to the other players"
        self.line(info, f"resuming table {info['table'][:16]} of {info['game']} (seat(s) {seats}) from its saved "
                        f"transcript of {info['seq']} messages, {info['deals_done']} deal(s) done; {state}")

    def on_event(self, seat: int, event: dict[str, Any]) -> None:
        if seat != self.first or self.table is None:
            return
        obj = {**event, "table": self.table["table"], "seat": seat}
        kind = event["type"]
        if kind == "vote_out":
            self.line(obj, f"{self.seat(event['against'])} was silent past the timeout and was voted out by "
                           f"{self.seats(event['voters'])}: it loses deal {event['deal'] + 1}, and from the next "
                           "deal it is a dummy (its cards face up, played alike by every peer)")
            return
        if kind == "dispute":
            against = "" if event["against"] is None else f" against {self.seat(event['against'])}"
            self.line(obj, f"{self.seat(event['accuser'])} disputes deal {event['deal'] + 1}{against}: "
                           f"{event['reason']}; every seat reveals its seed and the audit decides")
            return
        if kind == "fork":
            self.line(obj, f"{self.seat(event['against'])} signed two different messages for seq {event['seq']}: "
                           f"it loses deal {event['deal'] + 1}")
            return
        if kind == "voted_out":
            self.voted_out = True
            return
        if kind != "deal" and kind != "final":
            return
        if kind == "final":
            from p2pcards.net.node import log_path

            obj["log"] = str(log_path(self.data, bytes.fromhex(self.table["table"]), seat)) if self.data else None
            obj["voted_out"] = bool(event.get("voted_out")) or self.voted_out
            obj.setdefault("abandoned", None)
            if event["winner"] is not None:
                winner = f"won by {self.side(event['winner'])}"
            else:
                winner = "stopped before the match's end, no winner"
            if obj["abandoned"]:
                winner = f"abandoned by {self.seat(obj['abandoned']['by'])}, no winner"
            out = " (this seat was voted out and watched the rest)" if obj["voted_out"] else ""
            self.line(obj, f"table over after {event['deals']} deal(s){out}: {winner}, totals {event['totals']}; "
                           f"transcript {event['transcript_hash'][:16]}, log {obj['log']}")
            return
        from p2pcards.core import pretty

        audit = event["audit"]
        verdict = audit["verdict"]
        if audit["seat"] is not None or audit["reason"]:
            who = "" if audit["seat"] is None else f"{self.seat(audit['seat'])}: "
            verdict += f" ({who}{audit['reason']})"
        trump = pretty("A" + event["trump"])[1:] if event["trump"] else "-"
        result = json.dumps({k: v for k, v in (event["result"] or {}).items() if v is not None}) \
            if event["result"] else "void"
        over = f"; match won by {self.side(event['winner'])}" if event["match_over"] and event["winner"] is not None \
            else ""
        self.line(obj, f"deal {event['deal'] + 1}: dealer {self.seat(event['dealer'])} trump {trump} {result}; "
                       f"audit {verdict}; totals {event['totals']}{over}")


def _run_net(main: Any) -> int:
    """Run a trio main; a NetError is printed as one line and gives exit status 1."""
    import trio

    from p2pcards.net import ListenError, NetError, single_error

    try:
        with single_error():
            trio.run(main)
    except ListenError as exc:
        raise CliError(str(exc)) from None
    except NetError as exc:
        print(f"p2pcards: error: {exc}", file=sys.stderr)
        return 1
    return 0


def _identity() -> Any:
    from p2pcards.identity import IdentityError, data_dir, load_or_create

    try:
        return load_or_create(data_dir())
    except (IdentityError, OSError) as exc:
        raise CliError(f"cannot load this user's identity: {exc}") from None


def _check_timeout(value: float, flag: str) -> None:
    if not 0 < value <= 3600:
        raise CliError(f"{flag} must be more than 0 and at most 3600 seconds")


def _check_linger(args: argparse.Namespace) -> float:
    linger: float = args.linger
    if not 0 <= linger <= 3600:
        raise CliError("--linger must be between 0 and 3600 seconds")
    return linger


def cmd_host(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.identity import data_dir
    from p2pcards.net import host_table, parse_seat_spec

    registry = _load()
    spec = _game(registry, args.game)
    options = _parse_options(spec, args.option)
    try:
        seats = parse_seat_spec(args.seats, spec.seats)
    except ValueError as exc:
        raise CliError(str(exc)) from None
    if args.deals is not None and args.deals < 1:
        raise CliError("--deals must be at least 1")
    if not 0 <= args.port <= 65535:
        raise CliError("--port must be between 0 and 65535")
    _check_timeout(args.timeout, "--timeout")
    if args.lobby_timeout <= 0:
        raise CliError("--lobby-timeout must be positive")
    linger = _check_linger(args)
    _setup_logging(args.verbose)
    me = _identity()
    printer = _TablePrinter(out, args.json)
    printer.data, printer.registry = data_dir(), registry
    _warn_unfinished(printer.data, me, role="host", game=spec.name)
    announcement = _announcement(args, spec, options, seats, me)

    async def main() -> None:
        from p2pcards.discovery.commands import hosting

        remote = sum(s.kind == "remote" for s in seats)
        async with hosting(args, announcement, remote, printer.line) as lan:

            def on_listening(address: str, port: int) -> None:
                printer.listening(address, port, spec.name)
                lan.listening(port)

            def on_table(info: dict[str, Any]) -> None:
                lan.close()
                printer.on_table(info)

            await host_table(spec, seats=seats, host=me, data_dir=printer.data, options=options, deals=args.deals,
                             timeout=args.timeout, bind=args.bind, port=args.port, lobby_timeout=args.lobby_timeout,
                             on_event=printer.on_event, on_table=on_table, on_listening=on_listening,
                             on_seats=lan.seats, linger=linger)

    return _run_net(main)


def _announcement(args: argparse.Namespace, spec: GameSpec, options: dict[str, Any], seats: Sequence[Any],
                  me: Any) -> Any:
    """The table's LAN announcement (p2pcards.discovery); checks --table-name and --mdns-ttl."""
    from p2pcards.discovery import check_table_name
    from p2pcards.discovery.commands import make_announcement

    if args.table_name is not None and (problem := check_table_name(args.table_name)):
        raise CliError(f"--table-name: {problem}")
    if not 1 <= args.mdns_ttl <= 4500:
        raise CliError("--mdns-ttl must be between 1 and 4500 seconds")
    return make_announcement(spec, options, seats, me, args.deals)


def _host_port(text: str) -> tuple[str, int]:
    from p2pcards.net.address import AddressError, parse_host_port

    try:
        return parse_host_port(text)
    except AddressError as exc:
        raise CliError(f"expected HOST:PORT (e.g. 192.168.1.20:40123), got {text!r}: {exc}") from None


def cmd_join(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.identity import data_dir
    from p2pcards.net import join_table
    from p2pcards.table.transcript import MAX_NAME

    by_name = ":" not in args.address  # a table name never has a colon (p2pcards.discovery)
    host, port = _join_target(args, by_name)
    if args.bot not in PLAYER_LEVELS:
        raise CliError(f"unknown bot level {args.bot!r} (choose from {', '.join(PLAYER_LEVELS)})")
    if args.name is not None and not (0 < len(args.name) <= MAX_NAME and args.name.isprintable()):
        raise CliError(f"--name must be 1 to {MAX_NAME} printable characters")
    if args.lobby_timeout <= 0:
        raise CliError("--lobby-timeout must be positive")
    linger = _check_linger(args)
    registry = _load()
    _setup_logging(args.verbose)
    me = _identity()
    printer = _TablePrinter(out, args.json)
    printer.data, printer.registry = data_dir(), registry
    if not args.new and (found := _returning(printer.data, me, args.address, (host, port), by_name)):
        print(f"p2pcards: this identity has an unfinished table joined at {args.address}: taking its seat again "
              f"({found.describe()}); --new joins a new table instead", file=sys.stderr)
        return _resume(found, me, registry, printer, linger)

    async def main() -> None:
        target_host, target_port, expect = host, port, args.host_fingerprint
        if by_name:
            target_host, target_port, expect = await _locate(args, registry, printer)
        await join_table(target_host, target_port, me=me, registry=registry, data_dir=printer.data, level=args.bot,
                         name=args.name, lobby_timeout=args.lobby_timeout, on_seated=printer.seated,
                         on_table=printer.on_table, on_event=printer.on_event, expect_host=expect, linger=linger,
                         table_name=args.address if by_name else None)

    return _run_net(main)


def _returning(data: Any, me: Any, target: str, address: tuple[str, int], by_name: bool) -> Any:
    """The unfinished table this identity joined at ``target`` (a LAN name or HOST:PORT), if any."""
    from p2pcards.net.resume import joined_before

    return joined_before(data, me, name=target if by_name else None, address=address)


def _warn_unfinished(data: Any, me: Any, **which: Any) -> None:
    """Tell (on standard error) how to take up an unfinished table of this identity."""
    from p2pcards.net import unfinished_tables

    for found in unfinished_tables(data, me, **which):
        print(f"p2pcards: note: unfinished table {found.describe()}: `p2pcards resume {found.table[:8]}` "
              "takes its seats again", file=sys.stderr)


def _resume(found: Any, me: Any, registry: GameRegistry, printer: _TablePrinter, linger: float,
            abandon: bool = False) -> int:
    from p2pcards.net import resume_table
    from p2pcards.net.store import PERSON

    if any(p.level == PERSON for p in found.manifest.peers) and not printer.json and _is_terminal(printer.out) \
            and not abandon:
        return _resume_on_screen(found, me, registry, printer.data)

    async def main() -> None:
        await resume_table(found.path, me=me, registry=registry, data_dir=printer.data, on_resumed=printer.resumed,
                           on_table=printer.on_table, on_event=printer.on_event, linger=linger, abandon=abandon)

    return _run_net(main)


def _resume_on_screen(found: Any, me: Any, registry: GameRegistry, data: Any, lang: str | None = None) -> int:
    """A table with the person's seat, resumed on the full-screen table."""
    from p2pcards.net import ResumeError
    from p2pcards.tui.app import run_local_table
    from p2pcards.tui.i18n import Text, default_lang
    from p2pcards.tui.lan import ResumePlan, play_lan
    from p2pcards.tui.runtime import LocalTable

    lang = lang or default_lang()
    if found.manifest.role == "local":
        try:
            table = LocalTable.resume(found.path, registry, me=me, text=Text(lang))
        except ResumeError as exc:
            print(f"p2pcards: error: {exc}", file=sys.stderr)
            return 1
        return _left_note(run_local_table(table), lang)
    return _left_note(play_lan(registry, ResumePlan(found.path), me=me, lang=lang, data_dir=data), lang)


_STATES = {"unfinished": "unfinished: `p2pcards resume {prefix}` takes its seats again",
           "finished": "ended: played to its end", "voted-out": "ended: this seat was voted out (it watched the rest)",
           "abandoned": "ended: abandoned", "unknown": "ended: the table went on without this seat; result unknown"}


def cmd_resume_list(args: argparse.Namespace, out: TextIO) -> int:
    """``resume --list``: every table this identity played here, unfinished or ended."""
    from p2pcards.identity import data_dir
    from p2pcards.net import unfinished_tables

    me = _identity()
    found = unfinished_tables(data_dir(), me, prefix=args.table, ended=True)
    for f in found:
        m = f.manifest
        obj = {"type": "saved", "table": m.table_hex, "game": m.game, "role": m.role, "seats": list(m.seats),
               "state": f.state, "path": str(f.path.parent)}
        text = f"{f.describe()}: {_STATES[f.state].format(prefix=m.table_hex[:8])}"
        print(json.dumps(obj) if args.json else text, file=out)
    if not args.json:
        note = _older_note()
        if not found:
            print(f"no table of this identity in {data_dir()}{note}", file=out)
        elif note:
            print(note.strip(" ()").capitalize(), file=out)
    return 0


def _older_note() -> str:
    """A sentence about tables saved by an older p2pcards, which cannot be resumed ('' if none)."""
    from p2pcards.identity import data_dir
    from p2pcards.net.store import older_manifests

    older = older_manifests(data_dir())
    if not older:
        return ""
    return (f" ({len(older)} table(s) there were saved by an older p2pcards, whose table protocol this version "
            "no longer speaks: they cannot be resumed; their files are left as they are)")


def cmd_resume(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.identity import data_dir
    from p2pcards.net import unfinished_tables

    prefix = args.table
    if prefix is not None and (not prefix or any(c not in "0123456789abcdefABCDEF" for c in prefix)):
        raise CliError(f"TABLE is a prefix of a table id (hexadecimal), got {prefix!r}")
    if args.list:
        return cmd_resume_list(args, out)
    linger = _check_linger(args)
    registry = _load()
    _setup_logging(args.verbose)
    me = _identity()
    printer = _TablePrinter(out, args.json)
    printer.data, printer.registry = data_dir(), registry
    found = unfinished_tables(printer.data, me, prefix=prefix)
    if not found:
        which = f" whose id starts with {prefix}" if prefix else ""
        print(f"p2pcards: error: this identity has no unfinished table{which} in {printer.data}{_older_note()}",
              file=sys.stderr)
        return 1
    if len(found) > 1:
        names = "; ".join(f.describe() for f in found)
        raise CliError(f"several unfinished tables (`p2pcards resume --list` lists them); name one by a prefix of "
                       f"its id: {names}")
    return _resume(found[0], me, registry, printer, linger, args.abandon)


def _join_target(args: argparse.Namespace, by_name: bool) -> tuple[str, int]:
    """HOST:PORT, or ("", 0) for a table name (checked, with the LAN options)."""
    from p2pcards.discovery import check_fingerprint, check_table_name

    if args.host_fingerprint is not None and (problem := check_fingerprint(args.host_fingerprint)):
        raise CliError(f"--host-fingerprint: {problem}")
    if args.wait is not None and not 0 < args.wait <= 3600:
        raise CliError("--wait must be more than 0 and at most 3600 seconds")
    if not by_name:
        return _host_port(args.address)
    if problem := check_table_name(args.address):
        raise CliError(f"expected a table name or HOST:PORT, got {args.address!r}: {problem}")
    return "", 0


async def _locate(args: argparse.Namespace, registry: GameRegistry, printer: _TablePrinter) -> tuple[str, int, str]:
    """The announced table's address, port and host fingerprint; a NetError if it cannot be joined."""
    from p2pcards.discovery import DiscoveryError
    from p2pcards.discovery.commands import locate
    from p2pcards.net import PROTO, ConnectError

    try:
        return await locate(args, registry.games, PROTO, printer.line)
    except DiscoveryError as exc:
        raise ConnectError(str(exc)) from None


def cmd_tables(args: argparse.Namespace, out: TextIO) -> int:
    from p2pcards.discovery.commands import run_tables
    from p2pcards.net import PROTO

    if args.wait is not None and not 0 < args.wait <= 3600:
        raise CliError("--wait must be more than 0 and at most 3600 seconds")
    registry = _load()
    _setup_logging(args.verbose)
    return run_tables(args, out, registry.games, PROTO)


def _read_transcript(path: str) -> tuple[list[bytes], int]:
    """The messages of a transcript log and the bytes of a torn last frame after them (0:
    none); CliError (exit 2) for anything that is not a log, or is damaged before its end.

    A torn last frame is what a crash in the middle of a write leaves: ``p2pcards resume``
    (p2pcards.net.store.read_log) cuts it off and goes on, so the audit checks what comes
    before it and warns.  Frames that stop following one another before the end are damage,
    not a crash: refused.
    """
    from p2pcards.table.transcript import VERSION, VersionError, parse_message
    from p2pcards.table.wire import FrameDecoder, FrameError, unpack

    try:
        data = open(path, "rb").read()  # noqa: SIM115
    except OSError as exc:
        raise CliError(f"cannot read {path}: {exc.strerror or exc}") from None
    decoder = FrameDecoder()
    try:
        try:
            messages = decoder.feed(data)
        except FrameError as exc:
            at = len(data) - decoder.pending  # where the frame that breaks the rules starts
            whole = len(FrameDecoder().feed(data[:at]))
            if whole:
                raise CliError(f"{path} is damaged after its first {whole} message(s), at byte {at}: {exc}; a log "
                               "cut short by a crash loses only the end of its last frame") from None
            raise
        if not messages:
            if decoder.pending:
                raise FrameError(f"it holds no whole message: its {decoder.pending} bytes do not make a whole frame")
            raise FrameError("the file is empty")
        first = unpack(messages[0])
        if isinstance(first, dict) and first.get("kind") == "genesis" and first.get("v") != VERSION:
            raise VersionError(f"it was written with protocol version {first.get('v')!r} of p2pcards; this version "
                               f"speaks protocol {VERSION} and cannot check it")
        try:
            genesis = parse_message(messages[0], None)
        except VersionError:
            raise
        except Exception as exc:  # noqa: BLE001 -- any failure: not a genesis
            raise FrameError(f"its first message is not a table's genesis ({exc})") from None
        if genesis.kind != "genesis":
            raise FrameError("its first message is not a table's genesis")
    except VersionError as exc:
        raise CliError(f"{path}: {exc}") from None
    except FrameError as exc:
        raise CliError(f"{path} is not a p2pcards transcript log: {exc}") from None
    return messages, decoder.pending


def cmd_audit(args: argparse.Namespace, out: TextIO) -> int:
    from pathlib import Path

    from p2pcards.net.store import FrameFile, StoreError, side_path

    try:
        from p2pcards.table.audit import audit_transcript
    except ImportError:
        raise CliError("this build of p2pcards has no transcript audit (p2pcards.table.audit)") from None
    read = [(path, _read_transcript(path)) for path in args.logfile]
    logs = [(path, messages) for path, (messages, _) in read]
    registry = _load()
    reports = []
    for path, (messages, torn) in read:
        report = audit_transcript(messages, registry)
        try:
            report["rejected"] = len(FrameFile.read(side_path(Path(path), "rejected")))
        except StoreError:
            report["rejected"] = 0
        report["torn_tail"] = {"bytes": torn, "seq": len(messages)} if torn else None
        reports.append(report)
    disagreements = []
    longest = max(range(len(logs)), key=lambda i: len(logs[i][1]))
    for i, (path, messages) in enumerate(logs):
        ref_path, ref = logs[longest]
        if i == longest:
            continue
        part = next((k for k, (a, b) in enumerate(zip(messages, ref)) if a != b), None)
        if part is not None or len(messages) > len(ref):
            disagreements.append({"path": path, "with": ref_path, "seq": part if part is not None else len(ref)})
    ok = all(r["ok"] for r in reports) and not disagreements
    if args.json:
        if len(logs) == 1:
            print(json.dumps(reports[0]), file=out)
        else:
            print(json.dumps({"ok": ok, "logs": [{"path": p, **r} for (p, _), r in zip(logs, reports)],
                              "agree": not disagreements, "disagreements": disagreements}), file=out)
        return 0 if ok else 1
    for (path, messages), report in zip(logs, reports):
        if len(logs) > 1:
            print(f"{path}:", file=out)
        if report.get("table") and report.get("game"):
            print(f"table {report['table'][:16]} of {report['game']}: {_count(len(messages), 'message')}", file=out)
        else:
            print(f"a transcript of {_count(len(messages), 'message')} whose genesis (its first message, which "
                  "names the table and the game) does not verify", file=out)
        torn = report["torn_tail"]
        if torn:
            print(f"WARNING: the last {torn['bytes']} bytes do not make a whole frame: message seq {torn['seq']} was "
                  "being written when the process stopped (it was never sent; `p2pcards resume` cuts it off); the "
                  "messages before it are audited", file=out)
        for d in report.get("deals", []):
            who = f" seat {d['seat'] + 1}" if d.get("seat") is not None else ""
            why = f": {d['reason']}" if d.get("reason") else ""
            print(f"deal {d['deal'] + 1}: {d['verdict']}{who}{why}", file=out)
        for v in report.get("votes", []):
            print(f"seat {v['seat'] + 1} was voted out in deal {v['deal'] + 1} (seq {v['seq']}) by seats "
                  f"{_and([str(s + 1) for s in v['voters']])}; a dummy from then on", file=out)
        if report.get("abandoned"):
            a = report["abandoned"]
            print(f"abandoned by seat {a['by'] + 1} in deal {a['deal'] + 1}, waiting for seat(s) "
                  f"{_and([str(s + 1) for s in a['waiting_for']])}: no winner", file=out)
        if report.get("rejected"):
            print(f"{report['rejected']} message(s) of this seat were not accepted by the table (kept apart, not "
                  "part of the transcript)", file=out)
        err = report.get("error")
        if err:
            who = "unattributed" if err.get("seat") is None else f"seat {err['seat'] + 1}"
            print(f"error at message seq {err.get('seq')} ({who}): {err.get('reason')}", file=out)
        if report.get("ok"):
            print(f"OK: totals {report.get('totals')}, transcript {str(report.get('transcript_hash'))[:16]}", file=out)
        else:
            print("FAULT: this transcript does not verify", file=out)
    for d in disagreements:
        print(f"DISAGREE: {d['path']} parts from {d['with']} at seq {d['seq']}: they are not the same transcript",
              file=out)
    return 0 if ok else 1


# ---------------------------------------------------------------------- parser
TOP_EPILOG = """\
Examples:
  p2pcards                     the start screen (games, LAN tables, yours)
  p2pcards play sueca          a match of Sueca against computer players
  p2pcards play sueca --host   host a LAN table and sit at it; elsewhere:
  p2pcards tables              list the tables open on the LAN
  p2pcards play --join NAME    a person takes a seat of the table called NAME
  p2pcards join NAME           a headless computer player takes one
  p2pcards resume              take up again a table left or cut short

See `p2pcards COMMAND --help` for a command's options, its --json output and its exit
status.  People see seats and deals counted from 1 ("seat 1", "deal 1"); --json output
counts them from 0.
"""

#: Said in the help of every command whose --json output numbers seats, deals or matches.
JSON_NUMBERING = ("Numbering: --json counts seats, deals, matches and teams from 0 (seat 0 is the first "
                  "seat); the lines printed for people count from 1.")

_LABEL = re.compile(r"[A-Z][A-Za-z ]*(\([^)]*\))?:(\s|$)")


class _HelpFormatter(argparse.RawDescriptionHelpFormatter):
    """Descriptions and epilogs wrapped to the terminal, their layout kept.

    Prose (lines that start at the margin) is filled paragraph by paragraph: a paragraph
    ends at a blank line, an indented line, or a line that starts with a label such as
    "Exit status:".  Indented lines (the JSON formats, examples) are laid out by hand and
    kept as they are: broken, they would no longer line up.
    """

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        out: list[str] = []
        prose: list[str] = []

        def flush() -> None:
            if prose:
                out.extend(textwrap.wrap(" ".join(prose), width, initial_indent=indent, subsequent_indent=indent,
                                         break_long_words=False, break_on_hyphens=False))
                prose.clear()

        for line in text.splitlines():
            if not line.strip():
                flush()
                out.append("")
            elif line[0].isspace():
                flush()
                out.append(indent + line)
            else:
                if _LABEL.match(line):
                    flush()
                prose.append(line.strip())
        flush()
        return "\n".join(out) + "\n"


def _lan_options(p: argparse._ActionsContainer) -> None:
    from p2pcards.discovery.commands import add_lan_options

    # a parser or, for `play`, an argument group: add_lan_options only calls add_argument
    add_lan_options(p)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="p2pcards",
        description="Card tables on a local network with no server and no dealer: "
        "Sueca, Bisca, Copas and Sobe e Desce, or any installed game plugin.  With no COMMAND, on a terminal: "
        "the start screen.",
        epilog=TOP_EPILOG, formatter_class=_HelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"p2pcards {__version__}")
    parser.add_argument("--lang", choices=("en", "pt"), default=None, dest="start_lang",
                        help="language of the start screen (default: from the locale)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    raw = _HelpFormatter

    p = sub.add_parser("games", help="list installed games and their options", epilog=GAMES_EPILOG, formatter_class=raw,
                       description="List the installed games (the four built in and any game plugin): players, "
                       "cards, and each table option (-o KEY=VALUE) with its values and default.  A plugin that "
                       "fails to load is reported on standard error and skipped.")
    p.add_argument("--json", action="store_true", help="print one JSON object (format below)")
    p.set_defaults(func=cmd_games)

    p = sub.add_parser(
        "arena", help="play deals in-process between computer players", epilog=ARENA_EPILOG + JSON_NUMBERING,
        formatter_class=raw,
        description="Play deals of GAME between computer players in this process, with no network and no mental "
        "deck: for testing players and rules, and for other tools (--json).  One line per deal, then a summary.",
    )
    p.add_argument("game", metavar="GAME", help="game name, e.g. sueca, bisca, copas, sobe-e-desce")
    p.add_argument("--deals", type=int, default=1, metavar="N", help="deals to play (default 1)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of shuffles and players (default 0)")
    p.add_argument(
        "--players",
        metavar="P0,P1,...",
        help=f"one player level per seat, from {', '.join(PLAYER_LEVELS)} (default: all heuristic)",
    )
    p.add_argument(
        "-o", "--option", action="append", default=[], metavar="KEY=VALUE",
        help="table option (repeatable); see `p2pcards games`",
    )
    p.add_argument("--json", action="store_true", help="print JSON lines (format below)")
    p.set_defaults(func=cmd_arena)

    p = sub.add_parser(
        "duel", help="duplicate deals between two computer players, with statistics",
        epilog=DUEL_EPILOG + JSON_NUMBERING, formatter_class=raw,
        description="Play a duplicate match of GAME between computer players A and B: every deal several times, "
        "the players changing seats, on several processes; report A's win rate over the pairs with a 95 % "
        "interval, the mean points or score of each, and each one's time per decision.",
    )
    p.add_argument("game", metavar="GAME", help="game name: sueca, bisca, copas or sobe-e-desce")
    p.add_argument("--a", required=True, metavar="BOT", help=f"player A, one of {', '.join(PLAYER_LEVELS)}")
    p.add_argument("--b", required=True, metavar="BOT", help=f"player B, one of {', '.join(PLAYER_LEVELS)}")
    p.add_argument("--pairs", type=int, default=100, metavar="N", help="pairs of deals to play (default 100)")
    p.add_argument("--seed", type=int, default=0, metavar="S", help="seed of the deals and players (default 0)")
    p.add_argument("--think", type=int, default=None, metavar="MS",
                   help="time per decision for players that search, in ms (default: the player's own)")
    p.add_argument("--iterations", type=int, default=None, metavar="N",
                   help="search budget per decision for players that search; makes them reproducible")
    p.add_argument("--jobs", type=int, default=None, metavar="J",
                   help="worker processes (default: the number of CPUs); the outcomes do not depend on it")
    p.add_argument(
        "-o", "--option", action="append", default=[], metavar="KEY=VALUE",
        help="table option (repeatable); see `p2pcards games`",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object (format below)")
    p.set_defaults(func=cmd_duel)

    p = sub.add_parser(
        "engine", help="answer positions as JSON lines: our bots for other programs", epilog=ENGINE_EPILOG,
        formatter_class=raw,
        description="Read positions of a deal from standard input, one JSON object per line, and answer each with "
        "a bot's choice on standard output, like a chess engine: for referees, GUIs and other programs "
        "(protocol/ENGINE.md).",
    )
    p.set_defaults(func=cmd_engine)

    p = sub.add_parser("bench", help="benchmarks: rules engine, batch simulator, mental deck, table over TCP",
                       formatter_class=raw,
                       description="Measure how fast this machine plays: `bench rules` (deals per second of each "
                       "game's rules), `bench deck` (the mental deck's cost per seat) and `bench table` (audited "
                       "deals among processes over TCP).  Each has --help and --json.")
    bsub = p.add_subparsers(dest="what", metavar="WHAT", required=True)
    b = bsub.add_parser("rules", help="deals per second per game", epilog=BENCH_RULES_EPILOG, formatter_class=raw,
                        description="Deals per second of every installed game's rules, against a baseline.")
    b.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per game (default 1)")
    b.add_argument("--json", action="store_true", help="print one JSON object (format below)")
    b = bsub.add_parser("sim", help="the search bot's batch simulator: deals per second, cross-checked",
                        epilog=BENCH_SIM_EPILOG + JSON_NUMBERING, formatter_class=raw,
                        description="Full-information deals per second of each game's batch simulator (many deals"
                                    " at once, numpy), against its plugin and a hand-coded loop in the same run.")
    b.add_argument("--seconds", type=float, default=1.0, help="CPU seconds per measurement (default 1)")
    b.add_argument("--check", type=int, default=0, metavar="N",
                   help="also cross-check each simulator with its plugin's rules on N random positions"
                        " (default 0; the full check is 1000000); exit 1 if any differ")
    b.add_argument("--json", action="store_true", help="print one JSON object (format below)")
    b = bsub.add_parser("deck", help="mental deck cost per seat", epilog=BENCH_DECK_EPILOG + JSON_NUMBERING,
                        formatter_class=raw,
                        description="The mental deck's compute, proofs and bytes per seat for one deal.")
    b.add_argument("--seats", type=int, default=4, help="seats at the table, 2..4 (default 4)")
    b.add_argument("--cards", type=int, default=40, help="cards in the deck (default 40)")
    b.add_argument("--json", action="store_true", help="print one JSON object")
    b = bsub.add_parser("table", help="audited deals among four processes on loopback",
                        epilog=BENCH_TABLE_EPILOG + JSON_NUMBERING, formatter_class=raw,
                        description="Wall time, bytes and memory of audited Sueca deals among four processes.")
    b.add_argument("--deals", type=int, default=3, help="Sueca deals to play, at most (default 3)")
    b.add_argument("--json", action="store_true", help="print one JSON object (format below)")
    p.set_defaults(func=cmd_bench)

    p = sub.add_parser(
        "play",
        help="play against computer players in the terminal",
        formatter_class=raw,
        description="Play a match against computer players on a full-screen table: each computer "
        "player is a peer of its own, every deal is shuffled with the mental deck and audited. "
        "Keys: arrows and Enter, or a card's digit, or the mouse; ? shows every key; q leaves. "
        "With --text, or when input or output is not a terminal, the match is played in line mode "
        "(cards chosen by their number; q quits).  With --host or --join the person plays at a LAN "
        "table instead (see LAN tables below).  A table left before its end is taken up again by "
        "`p2pcards resume`.",
    )
    p.add_argument("game", metavar="GAME", nargs="?", default="sueca", help="game to play (default sueca)")
    p.add_argument(
        "-o", "--option", action="append", default=[], metavar="KEY=VALUE", help="table option (repeatable)"
    )
    p.add_argument(
        "--bots", default="heuristic", metavar="LEVEL",
        help="computer players' level: random or heuristic (default heuristic)",
    )
    p.add_argument(
        "--seed", type=int, default=None, metavar="S", help="seed for a reproducible match (default: random)"
    )
    p.add_argument(
        "--deals", type=int, default=None, metavar="N", help="stop after N deals (default: play the match to its end)"
    )
    p.add_argument("--speed", type=float, default=0.8, metavar="S",
                   help="seconds each computer player takes per decision on the table "
                   "(default 0.8; + and - change it)")
    p.add_argument("--lang", choices=("en", "pt"), default=None,
                   help="language of the table (default: from the locale)")
    p.add_argument("--text", action="store_true", help="line mode instead of the full-screen table")
    lan = p.add_argument_group(
        "LAN tables", "with --host the person hosts a table on the LAN (seat 'me'; the other seats are players "
        "who join, or computer players this process runs); with --join the person joins one")
    lan.add_argument("--host", action="store_true", help="host a table of GAME on the LAN and sit at it")
    lan.add_argument("--join", metavar="NAME|HOST:PORT", default=None,
                     help="join the table with this name (see `p2pcards tables`) or at this address")
    lan.add_argument("--seats", metavar="SPEC",
                     help="with --host: me, remote, bot or bot:LEVEL per seat (default: me,remote,...)")
    lan.add_argument("--port", type=int, default=0, metavar="P", help="with --host: TCP port (default any free port)")
    lan.add_argument("--bind", default="0.0.0.0", metavar="ADDR",
                     help="with --host: address to listen on (default 0.0.0.0: every interface)")
    lan.add_argument("--timeout", type=float, default=300.0, metavar="S",
                     help="with --host: seconds a seat may stay silent before it is voted out (default 300, "
                          "where `p2pcards host` has 60: at this table you, a person, hold a seat, and people "
                          "take longer to think than computer players)")
    lan.add_argument("--table-name", metavar="NAME", help="with --host: the table's name on the LAN")
    lan.add_argument("--no-announce", action="store_true", help="with --host: do not announce the table on the LAN")
    lan.add_argument("--mdns-ttl", type=int, default=120, metavar="S",
                     help="with --host: seconds browsers keep listing the table if this host dies (default 120)")
    lan.add_argument("--host-fingerprint", metavar="FP",
                     help="with --join: give up the seat unless the host's key has this fingerprint")
    lan.add_argument("--wait", type=float, default=None, metavar="S",
                     help="with --join NAME: seconds to look for the table on the LAN (default 5)")
    _lan_options(lan)
    p.set_defaults(func=cmd_play)

    p = sub.add_parser(
        "host", help="open a table on the network and play its bot seats", epilog=HOST_EPILOG + JSON_NUMBERING,
        formatter_class=raw,
        description="Open a table for GAME: remote players join with `p2pcards join`, bot seats are "
        "played by this process; every deal is shuffled with the mental deck and audited.",
    )
    p.add_argument("game", metavar="GAME", help="game name, e.g. sueca, bisca, copas, sobe-e-desce")
    p.add_argument("--port", type=int, default=0, metavar="P", help="TCP port to listen on (default 0: any free port)")
    p.add_argument("--bind", default="0.0.0.0", metavar="ADDR",
                   help="address to listen on (default 0.0.0.0: every interface, for the LAN)")
    p.add_argument("--seats", metavar="SPEC", help="bot, bot:LEVEL or remote per seat (default: bot,remote,...)")
    p.add_argument("-o", "--option", action="append", default=[], metavar="KEY=VALUE",
                   help="table option (repeatable); see `p2pcards games`")
    p.add_argument("--deals", type=int, default=None, metavar="N",
                   help="stop after N deals (default: play the match to its end)")
    p.add_argument("--timeout", type=float, default=60.0, metavar="S",
                   help="seconds a seat may stay silent when the table waits for it before it is voted out "
                        "(default 60, suited to computer players; `play --host` has 300 since a person sits "
                        "there: give more when people join remote seats with `p2pcards play --join`)")
    p.add_argument("--lobby-timeout", type=float, default=600.0, metavar="S",
                   help="seconds to wait for the table to fill (default 600)")
    p.add_argument("--linger", type=float, default=30.0, metavar="S",
                   help="seconds to stay once the table is over when a player is missing, so that it can come "
                        "back and learn the outcome (default 30; 0: leave at once)")
    p.add_argument("--json", action="store_true", help="print JSON lines (format below)")
    p.add_argument("-v", "--verbose", action="store_true", help="log connections and seating to standard error")
    p.add_argument("--table-name", metavar="NAME", help="the table's name on the LAN (default GAME-HOST-XXXX)")
    p.add_argument("--no-announce", action="store_true", help="do not announce the table on the LAN")
    p.add_argument("--mdns-ttl", type=int, default=120, metavar="S",
                   help="seconds browsers keep listing the table if this host dies (TTL; default 120)")
    _lan_options(p)
    p.set_defaults(func=cmd_host)

    p = sub.add_parser(
        "join", help="join a table as a headless computer player", epilog=JOIN_EPILOG + JSON_NUMBERING,
        formatter_class=raw,
        description="Join the table NAME announced on the local network, or the table at HOST:PORT, as a "
        "headless computer player with this user's identity.",
    )
    p.add_argument("address", metavar="NAME|HOST:PORT",
                   help="a table's name (see `p2pcards tables`) or the host's address and port, "
                        "e.g. 192.168.1.20:40123")
    p.add_argument("--bot", default="heuristic", metavar="LEVEL",
                   help=f"the computer player's level: {', '.join(PLAYER_LEVELS)} (default heuristic)")
    p.add_argument("--name", metavar="NAME", help="name shown at the table (default: the identity's name)")
    p.add_argument("--lobby-timeout", type=float, default=600.0, metavar="S",
                   help="seconds to wait for the table to start (default 600)")
    p.add_argument("--linger", type=float, default=30.0, metavar="S",
                   help="seconds to stay once the table is over when a player is missing, so that it can come "
                        "back and learn the outcome (default 30; 0: leave at once)")
    p.add_argument("--json", action="store_true", help="print JSON lines (format below)")
    p.add_argument("-v", "--verbose", action="store_true", help="log connections to standard error")
    p.add_argument("--wait", type=float, default=None, metavar="S",
                   help="seconds to look for the table NAME on the LAN (default 5)")
    p.add_argument("--host-fingerprint", metavar="FP",
                   help="give up the seat unless the host's key has this fingerprint")
    p.add_argument("--new", action="store_true",
                   help="join a new table even if this identity has an unfinished one joined at HOST:PORT")
    _lan_options(p)
    p.set_defaults(func=cmd_join)

    p = sub.add_parser(
        "resume", help="take up again the seats of a table this process was playing when it died",
        epilog=RESUME_EPILOG + JSON_NUMBERING, formatter_class=raw,
        description="Rebuild this process's seats of an unfinished table from their saved transcripts, "
        "reconnect to the other players, fetch the messages missed, and play on.",
    )
    p.add_argument("table", metavar="TABLE", nargs="?", help="a prefix of the table id (when there are several)")
    p.add_argument("--list", action="store_true",
                   help="list this identity's tables here, unfinished and ended, and how each ended")
    p.add_argument("--abandon", action="store_true",
                   help="abandon the table instead (a table of two seats whose other seat is gone): it ends with no "
                        "winner, recorded")
    p.add_argument("--json", action="store_true", help="print JSON lines (format below)")
    p.add_argument("--linger", type=float, default=30.0, metavar="S",
                   help="seconds to stay once the table is over when a player is missing, so that it can come "
                        "back and learn the outcome (default 30; 0: leave at once)")
    p.add_argument("-v", "--verbose", action="store_true", help="log connections to standard error")
    p.set_defaults(func=cmd_resume)

    from p2pcards.discovery.commands import TABLES_EPILOG

    p = sub.add_parser(
        "tables", help="list the tables open on the local network", epilog=TABLES_EPILOG, formatter_class=raw,
        description="List the tables announced on the local network, with the reason any cannot be joined.",
    )
    p.add_argument("--wait", type=float, default=None, metavar="S",
                   help="seconds to listen (default 3; with --watch, until interrupted)")
    p.add_argument("--watch", action="store_true", help="print every change as it happens")
    p.add_argument("--json", action="store_true", help="print JSON (format below)")
    p.add_argument("-v", "--verbose", action="store_true", help="log discovery to standard error")
    _lan_options(p)
    p.set_defaults(func=cmd_tables)

    p = sub.add_parser("audit", help="verify a saved table transcript offline", epilog=AUDIT_EPILOG + JSON_NUMBERING,
                       formatter_class=raw,
                       description="Check a saved transcript (a seat's log) offline, as the seated players checked "
                       "it live: signatures, turns, every shuffle and deal, and the rules; say whose fault it is if "
                       "anything is wrong.  Given several logs of one table, also check that they agree.")
    p.add_argument("logfile", metavar="LOGFILE", nargs="+",
                   help="a transcript log, e.g. DATA/tables/TABLE/seat0.log; several: logs of one table, compared")
    p.add_argument("--json", action="store_true", help="print one JSON object (format below)")
    p.set_defaults(func=cmd_audit)
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "func", None) is None:
        args.func = cmd_start
    try:
        return int(args.func(args, out or sys.stdout))
    except CliError as exc:
        parser.exit(2, f"p2pcards: error: {exc}\n")
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
