"""The help texts of the ``p2pcards`` command: each command's epilog (its --json output
and exit status are a contract, documented here), and the formatter that lays them out."""

from __future__ import annotations

import argparse
import re
import textwrap

GAMES_EPILOG = """\
JSON output (--json): one object
  {"games": [{"name": "sueca", "title": "Sueca", "seats": 4, "deck": 40,
              "rules_version": "1", "description": "...", "plugin": "sueca",
              "options": [{"name": "target", "default": 4, "allowed": [4, 8],
                           "help": "..."}, ...]}, ...],
   "problems": [{"plugin": "...", "error": "..."}, ...]}
"problems" lists plugins that failed to load; they are skipped.
Each game also carries its words in every language the screens speak:
  "texts": {"en": WORDS, "pt": WORDS}, WORDS = {"title": TEXT, "description": TEXT,
           "options": {NAME: {"label": TEXT, "help": TEXT, "values": {VALUE: TEXT}}}}
(the plugin's translation where it gives one, else its English words; VALUE as typed
after -o).  The other fields stay as the plugin registers them, in English.
`p2pcards --lang pt games` words the list in Portuguese (the games' titles, descriptions and
options as each plugin translates them); without --lang it stays in English.
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
core, and a hand-coded Sueca loop measured in the same run as the baseline.  Each is
measured in --rounds slices of the time, the baseline's and the games' interleaved, and
the best slice of each counts (a busy machine slows a slice, never speeds one up); deals
counts every slice's.

JSON output (--json): one object
  {"seconds_per_game": S, "rounds": K,
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
   "proofs": PROOFS, "aims": [AIM, ...]}
  GROUP = {"deals": D, "compute_ms": [per seat], "compute_ms_max": MS,
           "play_ms": [per seat], "play_ms_max": MS, "audit_ms": MS,
           "ops": [{"mult", "hash", "validate", "scalar"} per seat], "audit_ops": {...},
           "bytes_sent": [per seat], "bytes_sent_max": B}
  PROOFS = {"prove_ms_max": MS, "verify_ms_max": MS, "bytes_per_seat": B,
            "compute_ms_max": MS, "compute_ms_max_without": MS, "ratio": X,
            "bytes_sent_max": B, "bytes_sent_max_without": B,
            "chain_ms_on_arrival": MS, "chain_ms_pipelined": MS}
  AIM = {"aim": TEXT, "measured": X, "unit": "ms"|"x"|"KB", "met": BOOL or null}
"ratio" is modp-2048 over ristretto255; "proofs.ratio" is the slowest seat's compute
with proofs over without; "chain_ms_*" how long the rounds' proofs take end to end with a
core per seat, computed from each step's measured times, each proof checked by the next
author first ("on_arrival") or alongside, as tables do ("pipelined").  "aims" says of
each aim (≤ 20 ms per seat for 4 seats and 40 cards, ≥ 200× the baseline, ≤ 40 KB sent
per seat, ≤ 150 ms to make and check the proofs, ≤ 60 KB of proofs per seat; a KB is
1,024 bytes) what was measured and whether it is met
(null: the 20 ms aim, for another number of seats or cards); people read "met", "NOT met"
or "not measured at this size" after each.
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
   "deals": N or null, "timeout": SECONDS,
   "hints": BOOL (false: the host forbade hints, --no-hints; nobody may ask for one),
   "host": {"name": ..., "fingerprint": ...},
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
   "abandoned": null or {"by": SEAT, "waiting_for": [SEAT, ...], "deal": N, "totals": [...],
                         "behind": POINTS},
   "abandons": [{...as "abandoned", "seq": N, "taken_up": BOOL}, ...]}
  (an abandoned table keeps its standing: BEHIND, how far the abandoning seat's side
  trailed the best other side in the totals, 0 when level or ahead; "abandons" lists every
  abandon of the table, also one that both seats took up again with `p2pcards resume`,
  "taken_up": true -- then "abandoned" is null when the table later ends by its rules)
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
that cannot be opened; 130 when interrupted (Ctrl-C).
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
   "port": MESH-PORT, "timeout": SECONDS}
(TIMEOUT: how long a seat may stay silent before the others vote it out; the host's
signed genesis must say the same, or this peer leaves the table before it starts)
then the "table", "deal", "vote_out", "dispute", "fork" and "final" objects described in
`p2pcards host --help`.
Crashes: if this identity has an unfinished table joined at the same HOST:PORT (the process
was killed), `join` takes its seat again instead, as `p2pcards resume` does (it prints the
"resumed" object of `p2pcards resume --help` first); --new joins a new table instead.
Exit status: 0 when the table is over; 1 when it could not be joined or played (no table
of that name, host unreachable, seat refused, a seat silent past the timeout, this seat
voted out...); 2 for bad options; 130 when interrupted (Ctrl-C).
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
   "abandoned": null or {"by": SEAT, "waiting_for": [SEAT, ...], "deal": N, "totals": [...],
                         "behind": POINTS},
   "abandons": [{...as "abandoned", "seq": N, "taken_up": BOOL}, ...],
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
output are a terminal and neither --json nor --text is given; at a table against the
computer, with --text or without a terminal, it is taken up in line mode (as `play
--text`: the person answers lines on standard input); otherwise (--json, or a LAN table
without a terminal) a heuristic computer player plays it to the end.

--abandon ends a table of two playing seats whose other seat stays silent (nobody can be
voted out of a table of two): an "abandon" is written to the transcript and sent to the
other seat if it can be reached; the table ends with no winner ("final" with "abandoned").
Taking it up again: `p2pcards resume TABLE` on such a table (a LAN table of two that ended
abandoned) reconnects to the other seat's process and, once linked, writes this seat's
"takeup" (resuming is the consent); when the other seat resumes it too, the abandoned deal
does not count (verdict "void") and play goes on to the table's end ("taken_up" below).
The first of the two to resume waits for the other; if it does not come within twice the
table's timeout, resume exits 1 and the table stays abandoned, to be taken up later.
A table against the computer (every seat is this process's) is thrown away at once: it
ends abandoned, with no winner, in its manifest and in the history, and leaves "Your
tables"; its transcripts stay.  With --json, one object:
  {"type": "abandoned", "table": HEX, "game": NAME, "role": "local"}

--list prints every table of this identity kept here, one per line, with its state; with
--json one object per table:
  {"type": "saved", "table": HEX, "game": NAME, "role": "host"|"join"|"local", "seats": [I, ...],
   "state": "unfinished"|"finished"|"voted-out"|"abandoned"|"unknown", "path": DIRECTORY,
   "may_take_up": BOOL}
("unknown": the table went on without this seat and nobody could tell it the outcome;
"may_take_up": an abandoned table of two that `p2pcards resume ID` takes up again).

JSON output (--json): one object per line.  First
  {"type": "resumed", "table": HEX, "game": NAME, "role": "host"|"join"|"local", "seats": [I, ...],
   "seq": N (messages in the saved transcript), "deals_done": N, "finished": BOOL,
   "taking_up": BOOL (an abandoned table, taken up again)}
then the "table", "deal", "vote_out", "dispute", "fork" and "final" objects described in
`p2pcards host --help` (deals that ended before the crash are not printed again), and,
once both seats took an abandoned table up again,
  {"type": "taken_up", "table": HEX, "seat": I, "deal": N (the abandoned deal: void),
   "seq": N, "abandon": {...as "abandoned" in "final", "seq": N, "taken_up": true}}
Coming back late: a seat the others voted out while it was away follows the rest of the
table as an observer and learns the outcome ("final" with "voted_out": true).  When no
other process answers and this one has been away longer than twice the table's timeout,
the table went on without it: resume says so, marks the table ended (outcome unknown) and
exits 1; the log is kept for `p2pcards audit`.
Exit status: 0 when the table is over, or when you leave your seat by choice (q) on the
full screen or in line mode; 1 when it cannot be resumed (no unfinished table, a saved log
that does not verify, of another protocol version, no other process reachable, an
abandoned table the other seat did not take up...); 2 for
bad options (several unfinished tables and no TABLE prefix); 130 when interrupted (Ctrl-C).
"""


BENCH_TABLE_EPILOG = """\
A host with one random bot and three `p2pcards join --bot random` processes play Sueca
deals over TCP on 127.0.0.1 (a match to 8 game points, which may end before --deals:
the figures are then over the deals played): wall time per audited deal (first
commitment to audited result, as the host reports them), bytes each seat sends per
deal, peak memory and processor time per deal of each process (the latter includes
starting Python and the handshake; "table_cpu_ms_per_deal_per_process" counts from the
table's start, null where /proc cannot be read); the baseline, measured in the same
run, is as many deals among four replicas in one process with no sockets.  --profile
FILE: the first joining process runs under cProfile and writes FILE.

JSON output (--json): one object ("deals": the deals played)
  {"deals": N, "ms_per_deal": [..], "ms_per_deal_mean": MS,
   "bytes_sent_per_seat": [4 ints, per deal], "peak_rss_mb_per_process": [4 floats],
   "cpu_ms_per_deal_per_process": [4 floats],
   "table_cpu_ms_per_deal_per_process": [4 floats] or null,
   "baseline": {"ms_per_deal": MS, "deals": N, "cpu_ms_per_deal_per_replica": MS,
                "note": ...}, "ratio_to_baseline": X,
   "aims": {"ms_per_deal": 250, "rss_mb": 50, "met": BOOL}, "self_rss_mb": MB,
   "messages_per_deal": X, "fsync_ms": MS, "profile": FILE or null}
Every message is chained to the one before it and fsync'd by its author before it is
sent: "fsync_ms" (a 500-byte append and fsync where the peers keep their logs, median,
measured in the same run) times "messages_per_deal" is a floor of the wall time that no
CPU can shorten.
"""


DUEL_EPILOG = """\
Duplicate deals: each pair is one shuffled deal (dealer and cards from --seed and the pair's
number) played several times with the same cards in the same seats, the players changing
places, so that luck of the cards cancels out.  Seating: in a game with teams, one play per
team, A in that team's seats and B in the others (Sueca: A in seats 1 and 3 against B, then A
in seats 2 and 4); without teams, one play per seat, A in that seat and B in all the others
(Bisca: 2 plays; Copas, Sobe e Desce: 4 plays, A against three copies of B).  Every player in
every play is made afresh with its own random stream, from (seed, pair, play, seat): the
outcomes do not depend on --jobs.

Players: a level (random, casual, heuristic, search: weakest first), at its own
effort; LEVEL@N for a level that searches, at N worlds a decision whatever --iterations says
(search@600 against search: one level at two efforts).

Outside engines: with --engine COMMAND, engine:LEVEL (or engine:LEVEL@N) is the level LEVEL
of a program speaking the engine protocol (`p2pcards engine --help`), COMMAND split as a
shell does and started once per worker process; each decision of its seats is sent to it as
a position (the seat's cards dealt and the deal's events as the seat knows them), with
"bot": LEVEL, "iterations": N (or --iterations), "think": --think and a "seed" from the
seat's random stream, and its answer is played.  The engine is asked for its levels
({"cmd": "bots"}) before the match.  Another release's bots, say, installed in a virtual
environment of their own:
  p2pcards duel sueca --a search --b engine:search@600 --engine "/old/venv/bin/p2pcards engine"
An engine that cannot start, stops, is silent for 300 s, refuses a position or answers what
the rules do not allow stops the match (exit status 1, the problem on standard error).

Measure per seat and deal: Sueca, Bisca: card points taken by its team or by it (higher is
better; 120 in a deal); Copas: penalty points after the moon rule (lower is better); and
for Sobe e Desce, what the deal adds to its score (lower is better: minus the tricks taken,
twice that with clubs; +5, +10 with clubs, for none; 0 for sitting out).  A's value in a play is the
mean over its seats, B's over the others; A wins a pair when its average over the pair's plays
is better than B's (Sueca, Bisca: more than 60 card points on average), ties when they are
equal.  Win rate: (wins + ties / 2) / pairs, with its 95 % Wilson score interval.  Times per
decision are measured around each player's choice, in every process.

JSON output (--json): one object
  {"game": NAME, "options": {...}, "a": BOT, "b": BOT (as given: LEVEL or LEVEL@N),
   "seed": S, "think_ms": MS or null,
   "iterations": N or null, "jobs": J (processes used), "engine": COMMAND or null,
   "pairs": N, "plays_per_pair": K, "seating": [[SEAT, ...: A's seats] per play],
   "measure": {"name": "card points"|"penalty points"|"deal score", "better": "higher"|"lower"},
   "wins": W, "ties": T, "losses": L, "win_rate": X, "interval": [LOW, HIGH],
   "mean": {"a": X, "b": Y: mean measure per seat and deal},
   "ms_per_decision": {"a": TIMES, "b": TIMES},
   "worlds_per_decision": {"a": WORLDS or null, "b": WORLDS or null},
   "fallbacks": {"a": {REASON: N, ...}, "b": {...}},
   "capped": {"a": N, "b": N: decisions a time cap stopped before their worlds},
   "slips": {"a": N, "b": N: plays where a level that slips (casual) took its second-best card},
   "seconds": S (wall time),
   "results": [{"pair": I, "dealer": SEAT, "a": [A's value per play], "b": [B's value per play],
                "outcome": 1|0.5|0 (for A)}, ...]}
  TIMES = {"mean": MS, "p50": MS, "p99": MS, "decisions": N}
  WORLDS = {"mean": X, "min": N, "max": N, "decisions": N}: the worlds a search weighed per
    decision it searched (null for a side that searches nothing)
  REASON: why a search played the heuristic's choice instead of its own, counted per
    decision (empty: never): "no-value" (the game gives no deal value), "no-replay" (the
    sampler cannot replay the deal's history), "no-world" (no world could be sampled in the
    budget), "failed" (the search raised; logged).  Each reason is also logged once.
  An outside engine's side counts the "worlds", "fallback", "capped" and "slip" its answers
  carry (this project's engine gives them).
Exit status: 0 when the match is played; 1 when an outside engine fails; 2 for bad arguments;
130 when interrupted (Ctrl-C stops every worker).
"""


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


TOP_EPILOG = """\
Examples:
  p2pcards                     the start screen (games, LAN tables, yours)
  p2pcards play sueca          a match of Sueca against computer players
  p2pcards play sueca --host   host a LAN table and sit at it; elsewhere:
  p2pcards tables              list the tables open on the LAN
  p2pcards play --join NAME    a person takes a seat of the table called NAME
  p2pcards join NAME           a headless computer player takes one
  p2pcards resume              take up again a table left or cut short
  p2pcards web                 the start page and its tables in your browser

See `p2pcards COMMAND --help` for a command's options, its --json output and its exit
status.  People see seats and deals counted from 1 ("seat 1", "deal 1"); --json output
counts them from 0.

Exit status, one rule for every way of playing (the start screen, `play` on the full
screen or in line mode, `replay`, `host`, `join`, `resume`): 0 when the table is over or
you leave it by choice (q, or a piped input that ends); 130 when interrupted (Ctrl-C, on
the screen as outside it); 1 for an error (a table that fails, a host that cannot be
reached, a table that cannot be resumed); 2 for bad arguments.  A table left or
interrupted before its end is kept: `p2pcards resume TABLE` takes it up again.
"""

PLAY_EPILOG = """Exit status: 0 when the table is over or you leave it by choice (q, confirmed on the full
screen; q or the end of a piped input in line mode); 130 when interrupted (Ctrl-C); 1 when
the table fails (shown on the screen, then printed on standard error); 2 for bad
arguments or an unusable data directory.  On leaving or an interrupt before the table's
end, the exact command that takes it up again is printed; a match played to its end on
the full screen prints its result (the winner and the tally) once the screen closes.
"""

#: Said in the help of every command whose --json output numbers seats, deals or matches.
JSON_NUMBERING = ("Numbering: --json counts seats, deals, matches and teams from 0 (seat 0 is the first "
                  "seat); the lines printed for people count from 1.")

_LABEL = re.compile(r"[A-Z][A-Za-z ]*(\([^)]*\))?:(\s|$)")

REPLAY_EPILOG = """\
Reads a transcript log (DATA/tables/TABLE/seatN.log, or a copy from another machine),
follows it as `p2pcards audit` does, and shows it on the full-screen table, one step at a
time, seen from one seat (--seat; default the seat the log is named after, else seat 1).
A deal the audit opened is shown with every hand face up; a deal it never opened (voided,
forfeited, or the one a log stops in) only with the cards as they were played.

Keys:  ->/<-      the next/previous trick     ./  one decision
       Home/End   the deal's start/end        d   the deals and their verdicts
       PgDn/PgUp  the next/previous deal      c   the points chart
       s          the next seat at the bottom
       ?          help                        q   leave (Esc closes a window)

A replay only reads the log: it sends nothing and writes nothing.  It needs a terminal
(`p2pcards export LOGFILE` prints the deals as text).
Exit status: 0 after the replay (q); 130 when interrupted (Ctrl-C); 2 for a file that is
not a transcript, a game not installed here, a bad --seat, or no terminal.
"""


WEB_EPILOG = """\
The page talks only to your own peer, which keeps your keys and plays your seat: it is
sent what your replica may know, nothing more, and nothing of the protocol changes.

Safety: the server listens on 127.0.0.1 (this computer only) on a free port, and the
address carries a secret made for this run (http://127.0.0.1:PORT/?k=SECRET); the page
keeps it in a cookie, and every request and WebSocket without it is refused, as is a
WebSocket from any other page (its Origin).  --bind ADDR serves the page on the LAN too
(e.g. --bind 0.0.0.0 to play from a phone): anyone who has the whole address then plays
your seat, and the page travels as plain HTTP that others on the network can read.  Keep
the address to yourself.

One page at a time: opening the address in a second tab moves the table there (the first
tab says so).  Closing the tab leaves your seat as q does on the terminal (its
transcript is kept); opening the address again takes the seat up again.  Quit on the
start page (or Ctrl-C here) stops the server.

JSON output (--json): one object per line.  First, when the page is served,
  {"type": "listening", "url": URL, "address": ADDR, "port": PORT}
(URL carries the secret); then, as the person plays, each table opened on the page
  {"type": "table", "table": HEX, "game": NAME, "seat": SEAT}
each table left before its end ("closed": the page went away; "resumable": its
transcript is kept, and the next page takes the seat up again when "closed")
  {"type": "left", "table": HEX, "closed": BOOL, "resumable": BOOL}
and last {"type": "stopped"}.
Exit status: 0 after Quit on the page; 130 when interrupted (Ctrl-C); 2 for bad arguments.
"""


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
