"""The instance's table of /latest generations: read-your-writes across its workers.

A worker's /latest cache (app/telemetry/latest_cache.py) learns of a new stored body from
PostgreSQL's notification, which another worker of the same instance may read a little
after the storing worker has already answered 204. So `telemetry serve` creates one small
shared-memory file for its workers (Settings.latest_generations, in /dev/shm) holding
SLOTS 64-bit counters, a device's counter being the slot `device_num % SLOTS`:

- the ingest worker bumps the device's slot after the commit and before its answer;
- a cache entry keeps the slot's value read before the database read it came from, and a
  hit whose slot now holds another value is a miss.

A store bumps after its own commit, so any change of the value is enough: a lost
concurrent increment still changes it, and a device sharing a slot only costs a miss.
Reading and bumping are an index into a memoryview over the mapping, no system call. An
app not started by `serve` (one process) uses a private table of the same size.

In placement mode (app/ops/placement.py) the apps of every cluster share the instance's
table, although a num names another device on each cluster: the slot of num 5 is bumped
by stores of num 5 on cluster a and on cluster b alike. That is deliberately kept, as it
can only cost extra misses, never a wrong answer: the table holds no data, a /latest
entry is its own app's (keyed by the tenancy and reference of the request, dropped by its
own cluster's notifications), and a bump from another cluster only changes the slot's
value, which makes that entry a miss. One table per cluster would save those rare
misses for one more shared-memory file per cluster.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import tempfile

SLOTS = 65_536
SIZE = SLOTS * 8
_WRAP = 2**64
PREFIX = "telemetry-latest-"
SHM_DIR = "/dev/shm"  # noqa: S108 (a private file from mkstemp: O_EXCL, mode 0600)


def create_table_file() -> str:
    """A new zeroed table file for one `serve` instance (its caller removes it), named
    after the serving process; tables left by a `serve` that was killed are removed."""
    directory = SHM_DIR if os.path.isdir(SHM_DIR) else tempfile.gettempdir()
    _remove_orphans(directory)
    fd, path = tempfile.mkstemp(prefix=f"{PREFIX}{os.getpid()}-", suffix=".gen", dir=directory)
    try:
        os.ftruncate(fd, SIZE)
    finally:
        os.close(fd)
    return path


def _remove_orphans(directory: str) -> None:
    for name in os.listdir(directory):
        pid = name[len(PREFIX) :].split("-", 1)[0]
        if not (name.startswith(PREFIX) and name.endswith(".gen") and pid.isdigit()):
            continue
        try:
            os.kill(int(pid), 0)
        except ProcessLookupError:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(os.path.join(directory, name))
        except PermissionError:
            pass  # a live process of another user


class Generations:
    """The table mapped into this process: the file at `path`, or a private one."""

    __slots__ = ("_map", "_slots")

    def __init__(self, path: str = "") -> None:
        if path:
            with open(path, "r+b") as file:
                self._map = mmap.mmap(file.fileno(), SIZE)
        else:
            self._map = mmap.mmap(-1, SIZE)
        self._slots = memoryview(self._map).cast("Q")

    def read(self, device_num: int) -> int:
        return self._slots[device_num % SLOTS]

    def bump(self, device_num: int) -> None:
        slot = device_num % SLOTS
        self._slots[slot] = (self._slots[slot] + 1) % _WRAP

    def close(self) -> None:
        self._slots.release()
        self._map.close()
