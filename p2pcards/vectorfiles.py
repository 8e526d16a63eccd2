"""Writing golden test-vector files, shared by the deck and table layers."""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

__all__ = ["write_files", "vectors_main"]


def write_files(directory: Path, files: dict[str, str]) -> list[Path]:
    """Write ``files`` (name -> text) into ``directory``; return their paths."""
    directory.mkdir(parents=True, exist_ok=True)
    paths = []
    for name, text in files.items():
        path = directory / name
        path.write_text(text)
        paths.append(path)
    return paths


def vectors_main(argv: Sequence[str] | None, module: str, generate: Callable[[], dict[str, str]]) -> int:
    """``python -m MODULE DIRECTORY``: write the vectors there, print their paths."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print(f"usage: python -m {module} DIRECTORY", file=sys.stderr)
        return 2
    for path in write_files(Path(args[0]), generate()):
        print(path)
    return 0
