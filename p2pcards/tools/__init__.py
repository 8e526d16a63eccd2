"""Tools that drive the whole stack from one process, for people who measure, compare
and test rather than play: the arena (``p2pcards arena``), the duplicate duel
(``p2pcards duel``), the engine protocol (``p2pcards engine``) and the benchmarks of the
rules, the deck and a whole table (``p2pcards bench``).

* :mod:`~p2pcards.tools.arena` -- full-information play in one process;
* :mod:`~p2pcards.tools.duel` -- duplicate matches between two levels of computer player;
* :mod:`~p2pcards.tools.engine` -- a position in, a bot's choice out (``protocol/ENGINE.md``);
* :mod:`~p2pcards.tools.bench_rules`, :mod:`~p2pcards.tools.bench_deck`,
  :mod:`~p2pcards.tools.bench_table` -- the benchmarks.

Nothing below this package imports it; the command line imports each module on use.
"""
