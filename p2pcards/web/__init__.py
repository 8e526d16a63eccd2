"""The browser table (``p2pcards web``, ``p2pcards play --web``): the person's own peer
serves a page that shows everything the terminal does -- the start screen, a LAN table's
lobby, the table, replays and statistics -- with cards drawn in SVG.

The page talks only to the person's own peer, which keeps the keys and does the
cryptography; nothing of the protocol changes, and the page is sent only what the person's
replica may know.  It is the terminal table's twin: the same view models
(:mod:`p2pcards.tui.model`, :mod:`p2pcards.tui.start_model`...) and the same words
(:mod:`p2pcards.words`, and each game's own), drawn by a page instead of a terminal.

* :mod:`~p2pcards.web.security` -- the secret, the cookie, the ``Host`` and ``Origin`` checks;
* :mod:`~p2pcards.web.views`, :mod:`~p2pcards.web.pages` -- the screens as JSON for the page;
* :mod:`~p2pcards.web.actions` -- what the page's messages do (the terminal's keys);
* :mod:`~p2pcards.web.peer` -- the peer and its one page: the screens in turn, in trio;
* :mod:`~p2pcards.web.server` -- Starlette on Hypercorn's trio worker, and :func:`run_web`;
* ``static/`` -- the page: HTML, CSS and plain JavaScript modules, no build step.
"""
