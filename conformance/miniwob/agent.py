"""What a solver may use: the agent-facing tools (snapshot, find, act, wait) over MCP.

Every call is metered (characters of text returned, for the token column) and kept, so a
failed episode can be reported with the exact calls and envelopes. A tool that refuses
or fails raises `ToolFailure` carrying its envelope: solvers never retry.
"""

from __future__ import annotations

import json
from typing import Any

from mcp_client import McpClient, Meter, ToolResult
from outline import Node, parse


class ToolFailure(Exception):
    def __init__(self, result: ToolResult, arguments: dict[str, Any]):
        self.result = result
        self.arguments = arguments
        env = result.envelope
        super().__init__(
            f"{result.name} {json.dumps(arguments)} -> {env.get('code')}: {env.get('message')}"
        )


class SolverError(Exception):
    """The solver could not find what the instruction names in what the tools showed."""


class Agent:
    def __init__(self, client: McpClient, meter: Meter):
        self.client = client
        self.meter = meter
        self.last_snapshot: str | None = None

    def call(self, tool: str, arguments: dict[str, Any]) -> ToolResult:
        result = self.client.call(f"browser_{tool}", arguments, self.meter)
        if not result.ok:
            raise ToolFailure(result, arguments)
        return result

    # -- observation --------------------------------------------------------------

    def snapshot(self, **params: Any) -> Node:
        result = self.call("snapshot", params)
        self.last_snapshot = result.data.get("text", "")
        return parse(self.last_snapshot)

    def find(self, **params: Any) -> list[dict[str, Any]]:
        return self.call("find", params).data.get("matches", [])

    def wait(self, **params: Any) -> ToolResult:
        return self.call("wait", params)

    # -- acting ---------------------------------------------------------------------

    def act(self, action: str, target: Node | str | None = None, **params: Any) -> ToolResult:
        arguments: dict[str, Any] = {"action": action}
        if isinstance(target, Node):
            if target.ref is None:
                raise SolverError(f"{target!r} has no ref to act on")
            arguments["ref"] = target.ref
        elif isinstance(target, str):
            arguments["ref"] = target
        arguments.update(params)
        return self.call("act", arguments)

    def click(self, target: Node | str, **params: Any) -> ToolResult:
        return self.act("click", target, **params)


def pick(nodes: list[Node], what: str) -> Node:
    """The first of `nodes`, or a SolverError naming what was looked for."""
    if not nodes:
        raise SolverError(f"no {what} in the snapshot")
    return nodes[0]
