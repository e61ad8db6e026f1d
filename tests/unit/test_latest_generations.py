"""The /latest generation table shared by the workers of one `serve` instance: a bump by
one process is seen by another's cache at once (the file is mapped twice here, as two
workers map it), and a cached answer is kept only with the slot read before its read."""

from __future__ import annotations

import os
import subprocess
import uuid
from collections.abc import Iterator

import pytest

from app.core.config import Settings
from app.core.listener import Listener
from app.latest.cache import LatestCache, LatestKey
from app.latest.generations import SHM_DIR, SLOTS, Generations, create_table_file

KEY: LatestKey = (uuid.uuid4(), None, uuid.uuid4(), None)


@pytest.fixture
def table() -> Iterator[str]:
    path = create_table_file()
    yield path
    os.unlink(path)


def cache_on(path: str) -> LatestCache:
    # A listener that never connects: these tests are about the table, not NOTIFY.
    return LatestCache(Listener(Settings(database_url="postgresql://unused")), Generations(path))


def test_the_table_is_a_zeroed_file_in_shared_memory(table: str) -> None:
    assert os.path.dirname(table) == SHM_DIR or not os.path.isdir(SHM_DIR)
    assert os.path.getsize(table) == SLOTS * 8
    assert os.stat(table).st_mode & 0o077 == 0, "only the serving user may map it"
    assert Generations(table).read(12345) == 0


def test_a_table_left_by_a_killed_serve_is_removed_by_the_next(table: str) -> None:
    directory = os.path.dirname(table)
    dead = subprocess.Popen(["true"])
    dead.wait()
    orphan = os.path.join(directory, f"telemetry-latest-{dead.pid}-x.gen")
    open(orphan, "wb").close()
    newer = create_table_file()
    try:
        assert not os.path.exists(orphan)
        assert os.path.exists(table), "the table of a live process stays"
    finally:
        os.unlink(newer)


def test_a_bump_in_one_mapping_is_read_in_another(table: str) -> None:
    writer, reader = Generations(table), Generations(table)
    before = reader.read(7)
    writer.bump(7)
    assert reader.read(7) != before
    assert reader.read(7 + SLOTS) == reader.read(7), "nums sharing a slot see the same value"
    assert reader.read(8) == 0


def test_a_slot_wraps_instead_of_overflowing() -> None:
    table = Generations()
    table._slots[3] = 2**64 - 1
    table.bump(3)
    assert table.read(3) == 0


def test_an_entry_is_a_miss_once_another_worker_bumped_its_device(table: str) -> None:
    worker_a, worker_b = cache_on(table), cache_on(table)
    # First read: the device's num is not known before it, so nothing is cached yet.
    worker_a.put(KEY, 42, b"{}", '"v1"', worker_a.mark(KEY))
    assert worker_a.get(KEY) is None
    worker_a.put(KEY, 42, b"{}", '"v1"', worker_a.mark(KEY))
    assert worker_a.get(KEY) == (b"{}", '"v1"')

    worker_b.generations.bump(42)  # worker B stored an uplink of device 42 and committed
    assert worker_a.get(KEY) is None, "the stale answer must not be served"
    worker_a.put(KEY, 42, b'{"t":1}', '"v2"', worker_a.mark(KEY))
    assert worker_a.get(KEY) == (b'{"t":1}', '"v2"')


def test_a_read_that_may_predate_a_bump_is_not_kept(table: str) -> None:
    worker_a, worker_b = cache_on(table), cache_on(table)
    worker_a.put(KEY, 42, b"{}", '"v1"', worker_a.mark(KEY))
    mark = worker_a.mark(KEY)  # taken, then the database read starts ...
    worker_b.generations.bump(42)  # ... and another worker commits and bumps meanwhile
    worker_a.put(KEY, 42, b"{}", '"v1"', mark)
    assert worker_a.get(KEY) is None


def test_a_reference_now_naming_another_device_is_not_kept(table: str) -> None:
    cache = cache_on(table)
    cache.put(KEY, 42, b"{}", '"v1"', cache.mark(KEY))
    cache.put(KEY, 43, b"{}", '"v2"', cache.mark(KEY))  # the DevEUI moved to device 43
    assert cache.get(KEY) is None
    cache.put(KEY, 43, b"{}", '"v2"', cache.mark(KEY))
    assert cache.get(KEY) == (b"{}", '"v2"')
