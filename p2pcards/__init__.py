"""p2pcards: card tables on a local network with no server and no dealer.

The package is layered (:mod:`p2pcards.layers` lists the layers, bottom to top, and says
why; a test holds every import to it), for example:

* :mod:`p2pcards.core` -- the sans-IO trick-taking rules engine and plugin hooks.  No
  trio, no sockets, no clocks.
* :mod:`p2pcards.players` -- the computer players, on top of the rules.
* :mod:`p2pcards.mental` -- the sans-IO mental-poker deck (commit-reveal SRA over
  ristretto255) and its audit.
* :mod:`p2pcards.cli` -- the ``p2pcards`` command.
"""

from importlib.metadata import PackageNotFoundError, version

try:
    __version__: str = version("p2pcards")
    """The installed distribution's version (pyproject.toml's ``version``, its one source)."""
except PackageNotFoundError:  # run from a source tree that was never installed
    __version__ = "0+unknown"
