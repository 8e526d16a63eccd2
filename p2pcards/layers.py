"""The layers of the project, bottom to top: the one place that lists them.

A module may import modules of its own layer and of the layers below it, never above
(``tests/test_layers.py`` checks every import of every module under ``p2pcards/`` and
``plugins/``, function-local and ``TYPE_CHECKING`` ones too, and that the imports between
files make no circle).  Each layer names the packages and modules it holds; a module
belongs to the layer of the longest name that prefixes its own.

Why this order:

* **foundation** -- small modules every layer may use and that use nothing of the
  project: a seat's keys (``identity``, ``private``), a child process's tie to its parent
  (``lifeline``), writing vector files (``vectorfiles``), and this list.
* **rules** -- ``core``: cards, the deck's positions, the deal as a state machine, the game
  contract, the plugin loader.  Sans-IO; it imports no game (plugins are found through
  entry points at run time, and a spec's ``"module:Name"`` strings are imported by name).
* **words** -- the English and Portuguese strings and a game's words in a language.  Above
  the rules because the latter read a game's spec, lines and summaries; below every face
  that shows them, the history's exports included.
* **players** -- computer players (heuristics, the search, hints) on top of the rules.
* **games** -- the game plugins, which build on the rules and the players' heuristic
  building blocks and the batch simulator, and on nothing above.
* **deck** -- ``mental``, the mental-poker deck: sans-IO, knows nothing of games.
* **table** -- the signed transcript and the replica; it runs the rules (and the dummy's
  player) on the deck.
* **runtime** -- ``net``: trio, links, the lobby, the mesh, the logs.
* **services** -- LAN discovery and the history of what was played, beside the runtime.
* **testing** -- test doubles and the protocol-vector generators that use them.
* **tools** -- arena, duel, engine and the benchmarks, which drive the layers below from
  one process (the table benchmark through the test doubles).
* **faces** -- text mode, the full-screen table and the browser table (``web``, which draws
  the full-screen table's view models in a page).
* **command** -- the ``p2pcards`` command and the package's root.
"""

from __future__ import annotations

__all__ = ["LAYERS", "GAMES", "ROLES", "SANS_IO", "layer_of", "diagram"]

#: The plugin packages of the built-in games (the games layer).
GAMES: tuple[str, ...] = ("p2pcards_sueca", "p2pcards_bisca", "p2pcards_copas", "p2pcards_sobe_e_desce")

#: (layer, the packages and modules it holds), bottom to top.
LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("foundation", ("p2pcards.identity", "p2pcards.private", "p2pcards.lifeline", "p2pcards.vectorfiles",
                    "p2pcards.layers")),
    ("rules", ("p2pcards.core",)),
    ("words", ("p2pcards.words",)),
    ("players", ("p2pcards.players",)),
    ("games", GAMES),
    ("deck", ("p2pcards.mental",)),
    ("table", ("p2pcards.table",)),
    ("runtime", ("p2pcards.net",)),
    ("services", ("p2pcards.discovery", "p2pcards.history")),
    ("testing", ("p2pcards.testing",)),
    ("tools", ("p2pcards.tools",)),
    ("faces", ("p2pcards.textplay", "p2pcards.tui", "p2pcards.web")),
    ("command", ("p2pcards.cli", "p2pcards.__main__", "p2pcards")),
)


def layer_of(module: str) -> tuple[int, str] | None:
    """The index (0 at the bottom) and name of ``module``'s layer, or None for a module of
    no layer (not the project's)."""
    best: tuple[int, int, str] | None = None
    for index, (name, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if (module == prefix or module.startswith(prefix + ".")) and (best is None or len(prefix) > best[0]):
                best = (len(prefix), index, name)
    return None if best is None else (best[1], best[2])


#: What each layer is for, in a few words (the diagram of docs/architecture.md).
ROLES: dict[str, str] = {
    "foundation": "identity · private · lifeline · vectorfiles · layers",
    "rules": "core/ (cards, positions, the deal as a state machine, the game contract)",
    "words": "words/ (English and Portuguese strings, a game's words)",
    "players": "players/ (heuristics, the search, hints, the dummy's rule)",
    "games": "plugins/p2pcards_sueca · _bisca · _copas · _sobe_e_desce (entry points)",
    "deck": "mental/ (the shuffled deck, its proofs, its audit)",
    "table": "table/ (the replica: transcript, deals, silence, certificates, verdicts)",
    "runtime": "net/ (trio: links, mesh, senders, inbox, clocks, sync, files, lobby, resume)",
    "services": "discovery/ (mDNS) · history/ (SQLite history, replays, statistics)",
    "testing": "testing/ (deck and table in one process, fake LAN, protocol vectors)",
    "tools": "tools/ (arena, duel, engine, benchmarks)",
    "faces": "tui/ (full-screen table, start screen) · web/ (the same in a browser) · textplay/ (line mode)",
    "command": "cli/ (the p2pcards command)",
}
#: The highest layer that is sans-IO: it and every layer below import no trio, no
#: prompt-toolkit, no zeroconf, and read no clock (tests/test_sans_io.py).
SANS_IO = "table"


def diagram() -> str:
    """The layers, top to bottom, as docs/architecture.md draws them (written from here:
    ``python -m p2pcards.layers`` prints it, and a test compares the page with it)."""
    lines = []
    for name, _ in reversed(LAYERS):
        if name == SANS_IO:
            lines.append("  " + "─ " * 8 + "the sans-IO line")
        lines.append(f"  {name:<12} {ROLES[name]}")
    return "\n".join(lines)


if __name__ == "__main__":
    print(diagram())
