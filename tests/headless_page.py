"""A page open in headless Chromium, driven over the DevTools protocol: screenshots of the same
live page, taken until what it draws satisfies a test (the viewer's scene arrives over a
websocket after the page loads, so one-shot ``--screenshot`` runs raced it under load).

Only what the browser tests need: open a URL at a fixed viewport, open another URL in the same
page, capture PNG screenshots, stop the browser. The protocol goes over the ``websockets``
package that the viewer extra installs.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import re
import signal
import subprocess
import tempfile
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--remote-debugging-port=0",
]
LISTENING = re.compile(r"DevTools listening on (ws://[^\s]+)")


class HeadlessPage:
    """``url`` open in a headless Chromium, ``width`` × ``height`` CSS pixels at scale 1."""

    def __init__(
        self, chromium: str, url: str, width: int = 800, height: int = 600, timeout: float = 60.0
    ) -> None:
        from websockets.sync.client import connect

        # Chromium's helper processes may still be writing the profile while they exit
        self._profile = tempfile.TemporaryDirectory(ignore_cleanup_errors=True)
        self._browser = subprocess.Popen(
            [chromium, *FLAGS, f"--user-data-dir={self._profile.name}", url],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # its own process group: close() stops every process of it
        )
        try:
            endpoint = self._endpoint(timeout)
            page = self._page_target(endpoint, timeout)
            self._socket = connect(page, max_size=None, open_timeout=timeout)
            self._next_id = 0
            self.call(
                "Emulation.setDeviceMetricsOverride",
                width=width,
                height=height,
                deviceScaleFactor=1,
                mobile=False,
            )
        except BaseException:
            self.close()
            raise

    def _endpoint(self, timeout: float) -> str:
        """The browser's ``host:port``, read from the line Chromium prints when it listens."""
        assert self._browser.stderr is not None
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = self._browser.stderr.readline()
            if not line and self._browser.poll() is not None:
                raise AssertionError(f"Chromium exited with code {self._browser.returncode}")
            match = LISTENING.search(line)
            if match:
                return match.group(1).split("/")[2]
        raise AssertionError(f"Chromium did not open its DevTools port within {timeout} s")

    @staticmethod
    def _page_target(endpoint: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with urllib.request.urlopen(f"http://{endpoint}/json/list", timeout=5) as response:
                targets = json.load(response)
            pages = [t for t in targets if t.get("type") == "page"]
            if pages:
                return str(pages[0]["webSocketDebuggerUrl"])
            time.sleep(0.2)
        raise AssertionError(f"Chromium opened no page within {timeout} s")

    def call(self, method: str, timeout: float = 60.0, **params: Any) -> dict[str, Any]:
        """One DevTools command and its result (events that arrive meanwhile are dropped)."""
        self._next_id += 1
        self._socket.send(json.dumps({"id": self._next_id, "method": method, "params": params}))
        deadline = time.monotonic() + timeout
        while True:
            message = json.loads(self._socket.recv(timeout=max(deadline - time.monotonic(), 0)))
            if message.get("id") == self._next_id:
                if "error" in message:
                    raise AssertionError(f"{method}: {message['error']}")
                return dict(message.get("result", {}))

    def navigate(self, url: str, timeout: float = 60.0) -> None:
        """Open ``url`` in the same page (the browser, its GPU process and the compiled
        WebGL programs stay) and wait until its document has loaded."""
        self.call("Page.navigate", url=url)
        deadline = time.monotonic() + timeout
        while True:
            try:  # (while the new document commits, the page may answer "not attached")
                state = self.call(
                    "Runtime.evaluate", expression="[document.readyState, location.href]",
                    returnByValue=True,
                )  # fmt: skip
                ready, href = state["result"]["value"]
                if ready == "complete" and href.rstrip("/") == url.rstrip("/"):
                    return
            except AssertionError:
                pass
            if time.monotonic() > deadline:
                raise AssertionError(f"{url} did not load within {timeout} s")
            time.sleep(0.1)

    def screenshot(self, out: Path | None = None) -> np.ndarray:
        """The viewport as an ``(height, width, 3)`` integer RGB array (also saved to ``out``)."""
        from PIL import Image

        png = base64.b64decode(self.call("Page.captureScreenshot", format="png")["data"])
        if out is not None:
            out.write_bytes(png)
        return np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)

    def screenshot_until(
        self, done: Callable[[np.ndarray], bool], timeout: float, every: float = 0.5
    ) -> np.ndarray:
        """Screenshots every ``every`` s until ``done(image)`` or ``timeout`` s: the last one."""
        deadline = time.monotonic() + timeout
        while True:
            image = self.screenshot()
            if done(image) or time.monotonic() > deadline:
                return image
            time.sleep(every)

    def close(self) -> None:
        socket = getattr(self, "_socket", None)
        if socket is not None:
            socket.close()
        self._signal_group(signal.SIGTERM)
        try:
            self._browser.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._signal_group(signal.SIGKILL)
            self._browser.wait(timeout=10)
        self._signal_group(signal.SIGKILL)  # helper processes that outlived the browser
        if self._browser.stderr is not None:
            self._browser.stderr.close()
        self._profile.cleanup()

    def _signal_group(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError):  # the whole group has exited
            os.killpg(self._browser.pid, sig)

    def __enter__(self) -> HeadlessPage:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
