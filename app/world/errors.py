"""The one error of world loading: a message `<path>: <problem>` naming the file's path."""

from __future__ import annotations


class WorldError(Exception):
    """A world file that cannot be loaded; nothing of it was written."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def fail(path: str, problem: str) -> WorldError:
    return WorldError(f"{path}: {problem}")
