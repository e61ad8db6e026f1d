"""The placement file: what it accepts, what it refuses, and where partners go."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from app.ops.placement import load_placement


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "placement.yaml"
    path.write_text(text)
    return path


def test_partners_go_to_their_cluster_and_the_rest_to_the_default(tmp_path: Path) -> None:
    partner = uuid.uuid4()
    placement = load_placement(
        write(
            tmp_path,
            f"""
clusters:
  a: {{url: "postgresql://a/telemetry", read: ["postgresql://a-standby/telemetry"]}}
  b: {{url: "postgresql://b/telemetry"}}
default: b
partners: {{"{partner}": a}}
""",
        )
    )
    assert placement.cluster_of(partner) == "a"
    assert placement.cluster_of(uuid.uuid4()) == "b"
    assert placement.cluster_of(None) == "b"
    assert placement.directory == "b"  # the default cluster unless named
    assert placement.clusters["a"].read == ["postgresql://a-standby/telemetry"]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("clusters: {}", "names no cluster"),
        (f"clusters: {{a: {{url: x}}}}\npartners: {{{uuid.uuid4()}: c}}", "unknown cluster 'c'"),
        ("clusters: {a: {url: x}}\ndefault: z", "default names an unknown cluster"),
        ("clusters: {a: {url: x}}\npartners: {not-a-uuid: a}", "placement file"),
        ("clusters: {a: {url: x, pool: 3}}", "pool"),
        ("clusters: [", "placement file"),
    ],
)
def test_a_bad_file_is_refused_naming_the_problem(tmp_path: Path, text: str, problem: str) -> None:
    with pytest.raises(ValueError, match=problem):
        load_placement(write(tmp_path, text))
