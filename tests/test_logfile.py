"""While a screen runs, log records go to the data directory's log file, never to the terminal."""

from __future__ import annotations

import logging
import warnings

from p2pcards.tui.logfile import LOG_BACKUPS, log_path, screen_logging


def test_records_go_to_the_file_not_to_the_terminal_and_logging_comes_back(tmp_path, capfd, caplog):
    before = logging.getLogger().handlers[:]
    with screen_logging(tmp_path) as path:
        logging.getLogger("p2pcards.net.node").warning("seat %d rejected a message", 2)
        logging.getLogger("p2pcards.tui").info("the table failed")
        warnings.warn("a deprecated thing", DeprecationWarning, stacklevel=1)
    out, err = capfd.readouterr()
    assert out == "" and err == "", "nothing reaches the terminal behind the screen's back"
    assert path == log_path(tmp_path)
    text = path.read_text()
    assert "seat 2 rejected a message" in text and "the table failed" in text and "a deprecated thing" in text
    assert logging.getLogger().handlers == before and logging.lastResort is not None
    assert "rejected a message" not in caplog.text  # the handlers in place before saw nothing
    logging.getLogger("p2pcards.after").warning("after the screen")
    assert "after the screen" in caplog.text  # the handlers in place before are back
    assert "after the screen" not in path.read_text()


def test_the_log_is_rotated(tmp_path, monkeypatch):
    monkeypatch.setattr("p2pcards.tui.logfile.LOG_BYTES", 2000)
    with screen_logging(tmp_path) as path:
        for i in range(400):
            logging.getLogger("p2pcards").warning("line %d of a long evening", i)
    assert path is not None
    kept = sorted(p.name for p in path.parent.iterdir())
    assert kept == ["p2pcards.log"] + [f"p2pcards.log.{i}" for i in range(1, LOG_BACKUPS + 1)]
    assert all(p.stat().st_size <= 2200 for p in path.parent.iterdir())
    assert "line 399" in path.read_text()


def test_an_unusable_data_directory_drops_records_quietly(tmp_path, capfd):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with screen_logging(blocker) as path:
        logging.getLogger("p2pcards").error("lost, on purpose")
    with screen_logging(None) as none:
        logging.getLogger("p2pcards").error("lost too")
    assert path is None and none is None
    assert capfd.readouterr().err == ""


def test_a_refused_message_reaches_the_screen_and_other_records_do_not(tmp_path):
    from p2pcards.net.node import REFUSED_RECORD

    told: list[tuple[int, int | None]] = []
    node_log = logging.getLogger("p2pcards.net.node")
    with screen_logging(tmp_path, on_refused=lambda seat, blame: told.append((seat, blame))):
        node_log.warning("seat 0 rejected a message", extra={REFUSED_RECORD: (0, 3)})
        node_log.warning("link x: garbage frame")
        node_log.debug("seat 1 rejected a stale message", extra={REFUSED_RECORD: (1, None)})  # below the level
    assert told == [(0, 3)]
