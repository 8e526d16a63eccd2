"""p2pcards: card tables on a local network with no server and no dealer.

The package is layered (see README.md):

* :mod:`p2pcards.core` -- the sans-IO trick-taking rules engine, plugin hooks and
  computer players.  No trio, no sockets, no clocks.
* :mod:`p2pcards.mental` -- the sans-IO mental-poker deck (commit-reveal SRA over
  ristretto255) and its audit.
* :mod:`p2pcards.cli` -- the ``p2pcards`` command.
"""

__version__ = "0.1.0"
