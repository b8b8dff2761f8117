"""The fake OpenAI server (tests/support/fake_openai.py) as a running subprocess."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import requests

ROOT = Path(__file__).resolve().parents[2]


class FakeOpenAI:
    def __init__(self, key: str | None = None) -> None:
        args = [sys.executable, "-m", "tests.support.fake_openai"]
        if key:
            args += ["--key", key]
        self.process = subprocess.Popen(args, cwd=ROOT, stdout=subprocess.PIPE, text=True)
        port = int(self.process.stdout.readline())
        self.url = f"http://127.0.0.1:{port}"
        self.base_url = f"{self.url}/v1"

    def log(self) -> list[dict]:
        return requests.get(f"{self.url}/log", timeout=10).json()["log"]

    def delay(self, seconds: float) -> None:
        """Every completion from now on sleeps `seconds` first (0: none)."""
        requests.post(f"{self.url}/delay", json={"seconds": seconds}, timeout=10).raise_for_status()

    def reset(self) -> None:
        requests.post(f"{self.url}/reset", timeout=10)

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=10)
        self.process.stdout.close()
