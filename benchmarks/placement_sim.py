"""Placement of tenants across clusters: a simulation at fleet scale.

Questions: for 1,000 partners with skewed fleets, how even is the load per cluster under
a few placement rules; what does rebalancing cost when fleets grow unevenly; and how many
clusters does a million devices need at the per-box figures measured on this box?

Model (deterministic, seed 18):
- Fleet sizes follow a Pareto law (shape 1.16, the "80/20" law), scaled so the 1,000
  partners hold 1,000,000 devices; the biggest partner holds a few percent of all devices.
- A device sends one uplink of 4 fields every `--interval` seconds (900: 15 minutes), so a
  partner's ingest load is devices / interval uplinks/s, and its storage is
  readings/day x `--bytes-per-reading` x retention days.
- A box (one primary cluster) sustains `--box-uplinks` uplinks/s (from `telemetry bench
  run --only ingest`) at `--target` utilisation (headroom for bursts, standby catch-up and
  maintenance) and holds `--box-disk-gb` of data. Reads are sent to standbys and do not
  count here; each cluster adds standbys for its read load independently.
- A partner lives whole on one cluster (the placement map is partner -> cluster), so the
  biggest partner must fit one box: if it does not, the table says so.

Placement rules compared: `hash` (partner id modulo N: no state, no balance), `greedy`
(biggest first onto the least loaded cluster), and `greedy + growth`: a year of uneven
growth (each fleet grows by a lognormal factor, median 1.3x, sigma 0.7) on the greedy
placement, then `rebalance` onto the clusters the grown load needs, moving per step the
smallest partner that covers a cluster's excess (few moves, little data to copy), and
counting what moved.

Run: `.venv/bin/python -m benchmarks.placement_sim [--box-uplinks N] [--interval S]`;
prints a markdown table (the README's table is its output).
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass

import numpy as np

PARTNERS = 1000
DEVICES = 1_000_000
SEED = 18


@dataclass
class Model:
    box_uplinks: float
    interval_s: float
    target: float
    bytes_per_reading: float
    retention_days: int
    box_disk_gb: float
    fields: int = 4

    def uplinks(self, devices: np.ndarray) -> np.ndarray:
        return devices / self.interval_s

    def disk_gb(self, devices: np.ndarray) -> np.ndarray:
        readings_per_day = devices * (86400 / self.interval_s) * (self.fields + 1)
        return readings_per_day * self.retention_days * self.bytes_per_reading / 1e9

    def box_load(self, devices: np.ndarray) -> np.ndarray:
        """The fraction of a box each partner needs (the tighter of CPU and disk)."""
        return np.maximum(
            self.uplinks(devices) / self.box_uplinks, self.disk_gb(devices) / self.box_disk_gb
        )


def fleets(rng: np.random.Generator) -> np.ndarray:
    raw = rng.pareto(1.16, PARTNERS) + 1
    sizes = np.maximum(1, np.round(raw / raw.sum() * DEVICES)).astype(np.int64)
    sizes[np.argmax(sizes)] += DEVICES - sizes.sum()
    return sizes


def place_hash(count: int, clusters: int) -> np.ndarray:
    return np.arange(count) * 2654435761 % 2**32 % clusters


def place_greedy(load: np.ndarray, clusters: int) -> np.ndarray:
    where = np.zeros(len(load), dtype=np.int64)
    totals = np.zeros(clusters)
    for partner in np.argsort(-load):
        target = int(np.argmin(totals))
        where[partner] = target
        totals[target] += load[partner]
    return where


def cluster_loads(load: np.ndarray, where: np.ndarray, clusters: int) -> np.ndarray:
    return np.bincount(where, weights=load, minlength=clusters)


def rebalance(
    load: np.ndarray, devices: np.ndarray, where: np.ndarray, clusters: int, cap: float
) -> tuple[np.ndarray, int, int]:
    """Moves partners off clusters over `cap` onto the least loaded cluster: each time the
    smallest partner that covers the excess alone, else the biggest that fits, so that few
    partners and little data move."""
    where = where.copy()
    moved = moved_devices = 0
    totals = cluster_loads(load, where, clusters)
    for source in np.argsort(-totals):
        while totals[source] > cap:
            target = int(np.argmin(totals))
            room = cap - totals[target]
            members = [p for p in np.flatnonzero(where == source) if load[p] <= room]
            if target == source or not members:
                break
            excess = totals[source] - cap
            covering = [p for p in members if load[p] >= excess]
            partner = (
                min(covering, key=lambda p: load[p])
                if covering
                else max(members, key=lambda p: load[p])
            )
            where[partner] = target
            totals[source] -= load[partner]
            totals[target] += load[partner]
            moved += 1
            moved_devices += int(devices[partner])
    return where, moved, moved_devices


def clusters_needed(load: np.ndarray, target: float) -> int:
    """The fewest clusters such that greedy placement keeps every one under `target` (or
    under the biggest partner's own load, when that alone is over the target)."""
    cap = max(target, float(load.max()))
    clusters = max(1, math.ceil(load.sum() / target))
    while cluster_loads(load, place_greedy(load, clusters), clusters).max() > cap:
        clusters += 1
    return clusters


def describe(name: str, totals: np.ndarray, target: float, note: str = "") -> str:
    return (
        f"| {name} | {len(totals)} | {totals.max() * 100:.0f}% | {totals.mean() * 100:.0f}% | "
        f"{totals.max() / totals.mean():.2f} | {int((totals > target).sum())} | {note} |"
    )


def run(model: Model) -> str:
    rng = np.random.default_rng(SEED)
    all_devices = fleets(rng)
    all_load = model.box_load(all_devices)
    growth = rng.lognormal(math.log(1.3), 0.7, len(all_devices))
    # A partner over the target alone is placed on clusters of its own, split by
    # sub-account (the map is per partner today: that split is not built); the table
    # places the others.
    whale = all_load > model.target
    whale_boxes = int(np.ceil(all_load[whale] / model.target).sum())
    devices, load = all_devices[~whale], all_load[~whale]
    n = clusters_needed(load, model.target)
    lines = [
        f"1,000 partners, {int(all_devices.sum()):,} devices; biggest partner "
        f"{int(all_devices.max()):,} devices ({all_load.max() * 100:.0f}% of a box), median "
        f"{int(np.median(all_devices)):,}, top 10 hold "
        f"{np.sort(all_devices)[-10:].sum() / all_devices.sum() * 100:.0f}%.",
        f"Per box: {model.box_uplinks:,.0f} uplinks/s, {model.box_disk_gb:,.0f} GB at "
        f"{model.bytes_per_reading:.0f} bytes/reading x {model.retention_days} days; one uplink "
        f"every {model.interval_s:.0f} s; target utilisation {model.target * 100:.0f}%.",
        f"Total: {model.uplinks(all_devices).sum():,.0f} uplinks/s, "
        f"{model.disk_gb(all_devices).sum():,.0f} GB; a million devices need "
        f"**{n + whale_boxes} clusters** (primary + standby each) at this target"
        + (
            f": {n} shared, and {whale_boxes} for the {int(whale.sum())} partner(s) too big "
            "for one box (split by sub-account)."
            if whale_boxes
            else "."
        ),
        "",
        "| placement | clusters | busiest | mean | busiest/mean | over target | moves |",
        "|---|---|---|---|---|---|---|",
    ]
    hashed = cluster_loads(load, place_hash(len(load), n), n)
    lines.append(describe("hash(partner) mod N", hashed, model.target))
    where = place_greedy(load, n)
    lines.append(describe("greedy, biggest first", cluster_loads(load, where, n), model.target))
    grown_devices = np.round(devices * growth[~whale])
    grown = model.box_load(grown_devices)
    lines.append(
        describe("greedy, after a year of growth", cluster_loads(grown, where, n), model.target)
    )
    # Partners grown over the target move to clusters of their own; the rest rebalance.
    fits = grown <= model.target
    outgrown_boxes = int(np.ceil(grown[~fits] / model.target).sum())
    m = clusters_needed(grown[fits], model.target)
    rebalanced, moved, moved_devices = rebalance(
        grown[fits], grown_devices[fits], where[fits], max(m, n), model.target
    )
    moved += int((~fits).sum())
    moved_devices += int(grown_devices[~fits].sum())
    lines.append(
        describe(
            f"rebalanced ({max(m, n) - n:+d} clusters"
            + (f", +{outgrown_boxes} for outgrown partners" if outgrown_boxes else "")
            + ")",
            cluster_loads(grown[fits], rebalanced, max(m, n)),
            model.target,
            f"{moved} partners, {moved_devices:,} devices "
            f"({moved_devices / grown_devices.sum() * 100:.1f}% of the data copied)",
        )
    )
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    # Measured here: `telemetry bench run --only ingest --scale S` (64 connections) and
    # `--only storage` (raw + rollups + indexes) on the shared 2-core box.
    parser.add_argument("--box-uplinks", type=float, default=699.0)
    parser.add_argument("--interval", default="900,60", help="seconds between uplinks (list)")
    parser.add_argument("--target", type=float, default=0.6)
    parser.add_argument("--bytes-per-reading", type=float, default=141.0)
    parser.add_argument("--retention-days", type=int, default=90)
    parser.add_argument("--box-disk-gb", type=float, default=2000.0)
    args = parser.parse_args()
    for interval in (float(text) for text in args.interval.split(",")):
        model = Model(
            box_uplinks=args.box_uplinks,
            interval_s=interval,
            target=args.target,
            bytes_per_reading=args.bytes_per_reading,
            retention_days=args.retention_days,
            box_disk_gb=args.box_disk_gb,
        )
        print(f"### One uplink every {interval:.0f} s\n")
        print(run(model) + "\n")


if __name__ == "__main__":
    main()
