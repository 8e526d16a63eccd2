"""Test doubles and the protocol-vector generators built on them (like ``trio.testing``).

* :mod:`~p2pcards.testing.deck` -- every seat of a mental deal in one process
  (:class:`~p2pcards.testing.deck.InProcessDeal`);
* :mod:`~p2pcards.testing.table_mesh` -- several table replicas in one process over a
  synchronous network, with silent seats and tampering routes
  (:class:`~p2pcards.testing.table_mesh.LocalMesh`, :func:`~p2pcards.testing.table_mesh.run_local`);
* :mod:`~p2pcards.testing.fake_lan` -- multicast DNS in memory, with the interface of the
  zeroconf bridge (:class:`~p2pcards.testing.fake_lan.FakeLan`);
* :mod:`~p2pcards.testing.deck_vectors`, :mod:`~p2pcards.testing.table_vectors` -- the
  golden vectors of ``protocol/vectors`` (``python -m p2pcards.testing.deck_vectors
  protocol/vectors``, ``python -m p2pcards.testing.table_vectors protocol/vectors``).

They ship with the package so that the tests, the benchmarks (:mod:`p2pcards.tools`) and
another implementation's authors can use them; nothing that runs a real table imports them.
"""
