"""Real network parts for the network-server tests: a Mosquitto broker started by the
project's own command (`telemetry mqtt start`) in a directory and on a port of the test's
own, a QoS 1 publisher (paho), and the standalone consumer and dispatcher processes
(`telemetry ingest mqtt`, `telemetry dispatch`) started as users start them."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import TypeVar

import paho.mqtt.client as mqtt
from paho.mqtt.enums import CallbackAPIVersion

from app.core.config import PROJECT_ROOT
from testkit.processes import free_port, stop_process
from tests.support.cli import TELEMETRY

T = TypeVar("T")


class Broker:
    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self.port = free_port()
        self.env = {
            **os.environ,
            "TELEMETRY_MQTT_DIR": str(directory),
            "TELEMETRY_MQTT_PORT": str(self.port),
        }
        self.url = f"mqtt://127.0.0.1:{self.port}"

    def _run(self, action: str) -> None:
        subprocess.run(
            [TELEMETRY, "mqtt", action], env=self.env, check=True, capture_output=True, timeout=30
        )

    def start(self) -> None:
        self._run("start")

    def stop(self) -> None:
        self._run("stop")


class Publisher:
    """Publishes ChirpStack events as its MQTT integration does: QoS 1, JSON."""

    def __init__(self, broker: Broker) -> None:
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
        self.client.max_inflight_messages_set(1000)
        self.client.max_queued_messages_set(0)
        self.client.connect("127.0.0.1", broker.port)
        self.client.loop_start()

    def publish(self, dev_eui: str, event: str, body: str) -> mqtt.MQTTMessageInfo:
        topic = f"application/7d2a6f80-0000-4000-8000-000000000001/device/{dev_eui}/event/{event}"
        return self.client.publish(topic, body, qos=1)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def wait_published(infos: list[mqtt.MQTTMessageInfo], timeout: float = 30) -> None:
    """Until the broker has acknowledged every message (PUBACK to the publisher)."""
    deadline = time.monotonic() + timeout
    for info in infos:
        info.wait_for_publish(max(0.1, deadline - time.monotonic()))
        assert info.is_published(), "the broker did not take a message in time"


class Process:
    """A `telemetry` command running in the background, its output in a log file."""

    def __init__(self, args: list[str], database_url: str, log: Path, **env: str) -> None:
        self.log = log
        self.handle = log.open("ab")
        self.process = subprocess.Popen(
            [TELEMETRY, *args],
            cwd=PROJECT_ROOT,
            env={**os.environ, "DATABASE_URL": database_url, **env},
            stdout=self.handle,
            stderr=subprocess.STDOUT,
        )

    def kill(self) -> None:
        """kill -9: no clean-up of any kind."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(timeout=10)
        self.handle.close()

    def stop(self) -> None:
        stop_process(self.process, grace_s=20, kill_s=10)
        self.handle.close()

    def output(self) -> str:
        return self.log.read_text(errors="replace")

    async def wait_for_output(self, text: str, count: int = 1, seconds: float = 30) -> None:
        """Until the log holds `text` `count` times (e.g. the consumer has subscribed)."""

        async def read() -> int:
            return self.output().count(text)

        await eventually(read, lambda n: n >= count, seconds, f"{text!r} in {self.log.name}")


async def eventually(
    check: Callable[[], Awaitable[T]], done: Callable[[T], bool], seconds: float, what: str
) -> T:
    """Polls `check()` until `done(result)`; fails naming `what` and the last result."""
    deadline = time.monotonic() + seconds
    while True:
        result = await check()
        if done(result):
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {seconds} s waiting for {what}: {result!r}")
        await asyncio.sleep(0.1)
