"""A minimal MCP client over stdio (JSON-RPC 2.0, one JSON object per line).

No SDK: `initialize`, `notifications/initialized`, `tools/list` and `tools/call` are all
the suite needs. Every call's text content is counted, so the suite can report the
tokens an agent would have read (tokens ~ characters / 4).
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from dataclasses import dataclass, field
from typing import Any


class McpError(RuntimeError):
    """A JSON-RPC error, or the server went away."""


@dataclass
class ToolResult:
    """One tools/call result: the envelope (structuredContent) and the text blocks."""

    name: str
    envelope: dict[str, Any]
    text: str
    is_error: bool
    ms: float

    @property
    def ok(self) -> bool:
        return bool(self.envelope.get("ok"))

    @property
    def code(self) -> str | None:
        return self.envelope.get("code")

    @property
    def data(self) -> dict[str, Any]:
        return self.envelope.get("data") or {}


@dataclass
class Meter:
    """Characters of text content returned by tool calls, and the calls themselves."""

    chars: int = 0
    calls: list[tuple[str, dict[str, Any], ToolResult]] = field(default_factory=list)

    @property
    def tokens(self) -> float:
        return self.chars / 4


class McpClient:
    def __init__(self, argv: list[str], env: dict[str, str] | None = None, stderr=None):
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr if stderr is not None else subprocess.DEVNULL,
            env={**os.environ, **(env or {})},
            bufsize=0,
        )
        self._next_id = 0
        self._lock = threading.Lock()
        self.tools: dict[str, dict[str, Any]] = {}

    # -- JSON-RPC ---------------------------------------------------------------------

    def _send(self, message: dict[str, Any]) -> None:
        assert self.proc.stdin is not None
        try:
            self.proc.stdin.write((json.dumps(message) + "\n").encode())
            self.proc.stdin.flush()
        except BrokenPipeError as err:
            raise McpError(f"the server exited (code {self.proc.poll()})") from err

    def _read(self) -> dict[str, Any]:
        assert self.proc.stdout is not None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise McpError(f"the server closed stdout (exit code {self.proc.poll()})")
            line = line.strip()
            if line:
                return json.loads(line)

    def request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        with self._lock:
            self._next_id += 1
            rid = self._next_id
            message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
            if params is not None:
                message["params"] = params
            self._send(message)
            while True:
                reply = self._read()
                if reply.get("id") != rid:
                    continue  # a notification or a server request: not used here
                if "error" in reply:
                    raise McpError(f"{method}: {reply['error']}")
                return reply.get("result")

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            message["params"] = params
        with self._lock:
            self._send(message)

    # -- MCP --------------------------------------------------------------------------

    def initialize(self) -> dict[str, Any]:
        result = self.request(
            "initialize",
            {
                "protocolVersion": "2025-06-18",
                "capabilities": {},
                "clientInfo": {"name": "candor-miniwob-conformance", "version": "1"},
            },
        )
        self.notify("notifications/initialized")
        listed = self.request("tools/list", {})
        self.tools = {tool["name"]: tool for tool in listed.get("tools", [])}
        return result

    def call(self, name: str, arguments: dict[str, Any], meter: Meter | None = None) -> ToolResult:
        started = time.perf_counter()
        result = self.request("tools/call", {"name": name, "arguments": arguments})
        ms = (time.perf_counter() - started) * 1000
        text = "".join(
            block.get("text", "") for block in result.get("content", []) if block.get("type") == "text"
        )
        out = ToolResult(
            name=name,
            envelope=result.get("structuredContent") or {},
            text=text,
            is_error=bool(result.get("isError")),
            ms=ms,
        )
        if meter is not None:
            meter.chars += len(text)
            meter.calls.append((name, arguments, out))
        return out

    def close(self) -> None:
        if self.proc.stdin:
            try:
                self.proc.stdin.close()
            except OSError:
                pass
        try:
            self.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
