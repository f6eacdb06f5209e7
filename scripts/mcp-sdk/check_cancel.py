"""A client's cancel of a running call, sent by the official Python MCP SDK to `candor mcp`.

Serves one small page on 127.0.0.1, starts `candor mcp` over stdio with the SDK's
`stdio_client` and `ClientSession`, navigates to the page, starts a `browser_wait` for
text the page never shows (deadline 60 s), waits until `browser_diagnostics` shows the
wait running, and cancels it. Then checks, with the server's journal
(`browser_diagnostics`, `data.last`), that the wait ended `COMMAND_CANCELLED` within
1 s of the cancel, and that the task's next `browser_snapshot` answers within 1 s.
Prints the figures; exits 1 with the reason on any failure.

How the SDK cancels (mcp 1.30.0, read from its source): cancelling the task that awaits
`ClientSession.call_tool` makes the session give the request up (its `send_request`
drops the response stream) but writes nothing to the server; v1 leaves the
`notifications/cancelled` to the caller, who sends it with the session's own
`send_notification` and the SDK's `CancelledNotification` type. So the check does both,
as a client does: it cancels the call's task, then sends the notification. The request's
id is read off the wire: the session writes through a tap that forwards every message
to the transport unchanged and records the id of the `tools/call` it carries.

    python check_cancel.py CANDOR
"""

import http.server
import json
import os
import shutil
import sys
import tempfile
import threading
import time

import anyio
from mcp import ClientSession, StdioServerParameters, types
from mcp.client.stdio import stdio_client

PAGE = b"""<!doctype html>
<html><head><meta charset="utf-8"><title>Cancel check</title></head>
<body><h1>Cancel check</h1><p>This page never says what the wait waits for.</p></body></html>
"""
NEVER = "Never on this page"
WAIT_DEADLINE_MS = 60_000
# The bounds the acceptance states: the wait ends within 1 s of the cancel, and the next
# call answers within 1 s.
CANCEL_BOUND_MS = 1_000
NEXT_BOUND_MS = 1_000
# The bound on any one step, so a hung server fails the check instead of hanging it.
STEP_S = 60


class Failed(Exception):
    pass


class Page(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/html; charset=utf-8")
        self.send_header("Content-Length", str(len(PAGE)))
        self.end_headers()
        self.wfile.write(PAGE)

    def log_message(self, *args):
        pass


def serve_page():
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def envelope(name, result):
    """The call's envelope (its structuredContent); `ok` must agree with `isError`."""
    got = result.structuredContent
    if not isinstance(got, dict):
        raise Failed(f"{name} answered no structuredContent: {result}")
    if got.get("ok") is not (not result.isError):
        raise Failed(f"{name}: ok {got.get('ok')} but isError {result.isError}")
    return got


async def call(session, name, arguments):
    with anyio.fail_after(STEP_S):
        result = await session.call_tool(name, arguments)
    return envelope(name, result)


class Tap:
    """Forwards every message the session writes to the transport, unchanged, and
    records the id of each `tools/call` request for the tool named."""

    def __init__(self, transport):
        self.transport = transport
        self.send, self._receive = anyio.create_memory_object_stream(0)
        self.ids = {}
        self.sent_cancels = []

    async def run(self):
        async with self._receive:
            async for message in self._receive:
                root = message.message.root
                if isinstance(root, types.JSONRPCRequest) and root.method == "tools/call":
                    self.ids.setdefault((root.params or {}).get("name"), []).append(root.id)
                if (
                    isinstance(root, types.JSONRPCNotification)
                    and root.method == "notifications/cancelled"
                ):
                    self.sent_cancels.append((root.params or {}).get("requestId"))
                await self.transport.send(message)
        await self.transport.aclose()


async def check(candor, url, state):
    """Runs the check against `candor mcp`; raises Failed with the first thing wrong."""
    params = StdioServerParameters(
        command=candor,
        args=["mcp"],
        # The SDK passes only a few variables of its own environment (PATH, HOME…): the
        # server gets a state and an archive folder of its own.
        env={
            "CANDOR_STATE_DIR": os.path.join(state, "state"),
            "CANDOR_ARCHIVE_DIR": os.path.join(state, "archive"),
            **{name: os.environ[name] for name in ["CANDOR_CHROMIUM"] if os.environ.get(name)},
        },
    )
    failure = None
    try:
        async with stdio_client(params) as (read, write), anyio.create_task_group() as group:
            tap = Tap(write)
            group.start_soon(tap.run)
            async with ClientSession(read, tap.send) as session:
                try:
                    await exercise(session, tap, url, group)
                except (Failed, TimeoutError) as raised:
                    failure = raised
            # Ends the tap and, when the check failed early, the wait still running.
            group.cancel_scope.cancel()
    except Exception:
        # A failure can leave the server answering a session that closed, which the
        # SDK's stdio reader raises as its own error: the failure is what to report.
        if failure is None:
            raise
    if failure is not None:
        raise failure


async def exercise(session, tap, url, group):
    """Navigates, starts the wait, cancels it and checks how it ended and what ran next."""
    with anyio.fail_after(STEP_S):
        init = await session.initialize()
    if init.serverInfo.name != "candor":
        raise Failed(f"the server is {init.serverInfo.name!r}, not candor")

    opened = await call(session, "browser_navigate", {"url": url})
    if opened.get("ok") is not True:
        raise Failed(f"browser_navigate: {json.dumps(opened)}")

    # The wait runs in a task of its own, in a cancel scope the check cancels.
    waited = {}

    async def wait():
        with anyio.CancelScope() as scope:
            waited["scope"] = scope
            waited["result"] = await session.call_tool(
                "browser_wait", {"text": NEVER, "timeoutMs": WAIT_DEADLINE_MS}
            )

    sent_at = time.monotonic()
    group.start_soon(wait)
    # Cancelled once it runs: diagnostics answers beside it and says so.
    while True:
        seen = await call(session, "browser_diagnostics", {})
        active = (seen.get("data") or {}).get("active") or {}
        if active.get("method") == "wait":
            break
        if time.monotonic() - sent_at > 10:
            raise Failed(f"the wait never showed as running: {json.dumps(seen)}")
        await anyio.sleep(0.05)
    ids = tap.ids.get("browser_wait") or []
    if len(ids) != 1:
        raise Failed(f"expected one browser_wait request on the wire, saw {ids}")
    wait_id = ids[0]

    cancelled_at = time.monotonic()
    waited["scope"].cancel()
    await session.send_notification(
        types.ClientNotification(
            types.CancelledNotification(
                params=types.CancelledNotificationParams(
                    requestId=wait_id, reason="the agent gave up"
                )
            )
        )
    )
    if "result" in waited:
        raise Failed(f"the wait answered before the cancel: {waited['result']}")

    # The server's journal tells how the call ended.
    while True:
        seen = await call(session, "browser_diagnostics", {})
        last = (seen.get("data") or {}).get("last") or []
        ended = next((c for c in reversed(last) if c.get("method") == "wait"), None)
        if ended is not None:
            break
        if time.monotonic() - cancelled_at > 10:
            active = (seen.get("data") or {}).get("active")
            raise Failed(f"the wait had not ended 10 s after the cancel: {json.dumps(active)}")
        await anyio.sleep(0.02)
    cancel_ms = (time.monotonic() - cancelled_at) * 1000
    if tap.sent_cancels != [wait_id]:
        raise Failed(f"the cancels on the wire name {tap.sent_cancels}, not [{wait_id}]")
    ran_ms = (cancelled_at - sent_at) * 1000
    if ended.get("code") != "COMMAND_CANCELLED":
        code = ended.get("code")
        raise Failed(f"the wait ended {code!r}, not COMMAND_CANCELLED: {json.dumps(ended)}")

    # The task is free: the next call runs at once, not queued behind the wait.
    next_at = time.monotonic()
    read = await call(session, "browser_snapshot", {"mode": "text"})
    next_ms = (time.monotonic() - next_at) * 1000
    if read.get("ok") is not True:
        raise Failed(f"the next browser_snapshot: {json.dumps(read)}")
    if "Cancel check" not in ((read.get("data") or {}).get("text") or ""):
        raise Failed(f"the next browser_snapshot does not read the page: {json.dumps(read)}")

    print(
        f"mcp-sdk-check: cancel (request {wait_id!r}, after the wait ran {ran_ms:.0f} ms of its "
        f"{WAIT_DEADLINE_MS}) to COMMAND_CANCELLED in the journal: {cancel_ms:.0f} ms "
        f"(the server's durationMs {ended.get('durationMs')}); the next snapshot: {next_ms:.0f} ms"
    )
    problems = []
    if cancel_ms > CANCEL_BOUND_MS:
        problems.append(f"the cancel took {cancel_ms:.0f} ms (bound {CANCEL_BOUND_MS})")
    if next_ms > NEXT_BOUND_MS:
        problems.append(f"the next snapshot took {next_ms:.0f} ms (bound {NEXT_BOUND_MS})")
    if problems:
        raise Failed("; ".join(problems))


def main():
    if len(sys.argv) != 2:
        print("usage: check_cancel.py CANDOR", file=sys.stderr)
        return 64
    candor = sys.argv[1]
    site = serve_page()
    state = tempfile.mkdtemp(prefix="candor-mcp-sdk-")
    try:
        anyio.run(check, candor, f"http://127.0.0.1:{site.server_address[1]}/", state)
    except Failed as failure:
        print(f"mcp-sdk-check: FAILED: {failure}", file=sys.stderr)
        return 1
    except TimeoutError:
        print(f"mcp-sdk-check: FAILED: a step took longer than {STEP_S} s", file=sys.stderr)
        return 1
    finally:
        site.shutdown()
        shutil.rmtree(state, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
