"""msgspec (0.18 to 0.22) frees memory twice when one union of a type holds a string with
`Meta(pattern=...)` beside a list, set, tuple or dict: its TypeNode_Free counts the compiled
pattern as a child type node. The process then dies at exit ("double free or corruption"),
so a test run or a worker exits 134 after its work succeeded. POST /query's `agg` (a name or
per field a name or a list of names) was such a union; its pattern is now stated in the
document and checked by the service.
"""

from __future__ import annotations

import importlib
import pkgutil
import subprocess
import sys
from typing import Any

import msgspec
import msgspec.inspect as mi

import app

CONTAINERS = (mi.ListType, mi.SetType, mi.FrozenSetType, mi.VarTupleType, mi.DictType)


def _unwrapped(node: Any) -> Any:
    while isinstance(node, mi.Metadata):
        node = node.type
    return node


def _bad_unions(node: Any, where: str, seen: set[type], found: list[str]) -> None:
    node = _unwrapped(node)
    if isinstance(node, mi.UnionType):
        members = [_unwrapped(member) for member in node.types]
        patterned = any(isinstance(m, mi.StrType) and m.pattern for m in members)
        if patterned and any(isinstance(m, CONTAINERS) for m in members):
            found.append(where)
        for member in members:
            _bad_unions(member, where, seen, found)
    elif isinstance(node, mi.DictType):
        _bad_unions(node.key_type, where, seen, found)
        _bad_unions(node.value_type, where, seen, found)
    elif isinstance(node, (mi.ListType, mi.SetType, mi.FrozenSetType, mi.VarTupleType)):
        _bad_unions(node.item_type, where, seen, found)
    elif isinstance(node, mi.StructType) and node.cls not in seen:
        seen.add(node.cls)
        for field in node.fields:
            _bad_unions(field.type, f"{node.cls.__module__}.{node.cls.__qualname__}", seen, found)


def test_no_struct_of_the_app_has_a_patterned_string_beside_a_container_in_a_union() -> None:
    seen: set[type] = set()
    found: list[str] = []
    structs = 0
    for module_info in pkgutil.walk_packages(app.__path__, "app."):
        module = importlib.import_module(module_info.name)
        for value in list(vars(module).values()):
            if isinstance(value, type) and issubclass(value, msgspec.Struct):
                if value is msgspec.Struct or value in seen:
                    continue
                try:
                    info = mi.type_info(value)
                except TypeError:
                    # A struct holding a union msgspec cannot decode is never decoded by
                    # msgspec (pipeline.Uplink | DeviceEvent); it builds no type nodes.
                    continue
                structs += 1
                _bad_unions(info, value.__qualname__, seen, found)
    assert structs > 50  # the walk saw the app's messages
    assert found == []


def test_building_the_app_and_exiting_leaves_a_clean_exit_status() -> None:
    script = (
        "import warnings; warnings.simplefilter('ignore')\n"
        "from app.core.config import Settings\n"
        "from app.main import create_app\n"
        "create_app(Settings(database_url='postgresql://nobody@127.0.0.1:1/none'))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-2000:]
