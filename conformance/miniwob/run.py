"""MiniWoB++ conformance: seeded episodes of each task, solved through candor's MCP face.

The harness serves the `miniwob` package's html/ folder on 127.0.0.1, starts
`candor mcp` (with CANDOR_ENABLE_EVAL=true, for the plumbing only), and per episode:

  0. plumbing (browser_navigate): a fresh load of the task page;
  1. plumbing (browser_eval): `Math.seedrandom(seed); core.startEpisodeReal()` and the
     instruction (`core.getUtterance()`);
  2. the task's solver (solvers.py), which acts only through snapshot/find/act/wait;
  3. plumbing (browser_eval): WOB_DONE_GLOBAL, WOB_RAW_REWARD_GLOBAL, WOB_REWARD_GLOBAL.

The time an episode took is the page's own (`core.endEpisode` decays the reward
linearly over core.EPISODE_MAX_TIME from the start), read back from the two rewards.
Tokens count the text blocks of the solver's tool calls (characters / 4), not the
plumbing. Episodes are never retried: a failure is reported with its evidence.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import http.server
import json
import os
import re
import statistics
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field
from pathlib import Path

from agent import Agent, SolverError, ToolFailure
from mcp_client import McpClient, McpError, Meter
from solvers import SOLVERS

TASKS = list(SOLVERS)


@dataclass
class Episode:
    seed: int
    utterance: str = ""
    done: bool = False
    raw: float = 0.0
    reward: float = 0.0
    ms: float | None = None
    chars: int = 0
    tokens: float = 0.0
    calls: int = 0
    by_tool: dict[str, int] = field(default_factory=dict)
    fenced: int = 0
    error: str | None = None
    evidence: list[str] = field(default_factory=list)

    @property
    def success(self) -> bool:
        return self.raw > 0


def serve(root: Path) -> http.server.ThreadingHTTPServer:
    class Handler(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):  # quiet
            pass

        def end_headers(self):
            self.send_header("Cache-Control", "no-store")
            super().end_headers()

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), functools.partial(Handler, directory=str(root)))
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def html_root() -> Path:
    # The PyPI package, located without importing it (its __init__ needs gymnasium,
    # which serving the pages does not).
    spec = importlib.util.find_spec("miniwob")
    if spec is None or not spec.submodule_search_locations:
        sys.exit("conformance: the miniwob package is not installed (pip install --no-deps miniwob)")
    root = Path(list(spec.submodule_search_locations)[0]).resolve() / "html"
    if not (root / "miniwob" / "click-button.html").is_file():
        sys.exit(f"conformance: {root} does not hold the MiniWoB++ task pages")
    return root


class Plumbing:
    """Starts episodes and reads rewards with browser_eval: harness only, never solvers."""

    def __init__(self, client: McpClient):
        self.client = client

    def eval(self, expression: str):
        result = self.client.call("browser_eval", {"expression": expression})
        if not result.ok:
            raise RuntimeError(f"plumbing eval failed: {result.code}: {result.envelope.get('message')}")
        data = result.data
        return data.get("value", data.get("result"))

    def start(self, seed: int) -> str:
        return self.eval(
            f"(Math.seedrandom({json.dumps(str(seed))}), core.startEpisodeReal(), core.getUtterance())"
        )

    def outcome(self) -> dict:
        return self.eval(
            "({done: WOB_DONE_GLOBAL, raw: WOB_RAW_REWARD_GLOBAL, reward: WOB_REWARD_GLOBAL,"
            " reason: WOB_REWARD_REASON, maxTime: core.EPISODE_MAX_TIME})"
        )


def describe_failure(episode: Episode, err: BaseException, meter: Meter, agent: Agent) -> None:
    lines = [f"{type(err).__name__}: {err}"]
    if isinstance(err, ToolFailure):
        lines.append("envelope: " + json.dumps(err.result.envelope, indent=1)[:4000])
    if agent.last_snapshot is not None:
        lines.append("last snapshot:\n" + agent.last_snapshot)
    lines.append("calls:")
    for name, arguments, result in meter.calls:
        lines.append(f"  {name} {json.dumps(arguments)} -> {result.text.splitlines()[0] if result.text else ''}")
    if not isinstance(err, (ToolFailure, SolverError)):
        lines.append(traceback.format_exc())
    episode.evidence = lines


def run_task(
    client: McpClient, plumbing: Plumbing, base: str, task: str, seeds: list[int], transcript=None
) -> list[Episode]:
    solver = SOLVERS[task]
    episodes = []
    for seed in seeds:
        # A fresh page for every episode: nothing of the last one (an open suggestion
        # list, a scrolled tree) leaks into the next, and a seed always means one page.
        opened = client.call("browser_navigate", {"url": f"{base}/miniwob/{task}.html"})
        if not opened.ok:
            raise RuntimeError(f"cannot open {task}: {opened.code}: {opened.envelope.get('message')}")
        episode = Episode(seed=seed)
        meter = Meter()
        agent = Agent(client, meter)
        try:
            episode.utterance = plumbing.start(seed)
            solver(agent, episode.utterance)
        except Exception as err:  # noqa: BLE001 - every failure is reported, none retried
            episode.error = f"{type(err).__name__}: {err}"
            describe_failure(episode, err, meter, agent)
        outcome = plumbing.outcome()
        episode.done = bool(outcome.get("done"))
        episode.raw = float(outcome.get("raw") or 0.0)
        episode.reward = float(outcome.get("reward") or 0.0)
        if episode.done and episode.raw > 0:
            episode.ms = float(outcome["maxTime"]) * (1 - episode.reward / episode.raw)
        elif episode.error is None:
            episode.error = (
                f"reward {episode.raw} ({outcome.get('reason') or 'episode not done'})"
                if episode.done
                else "the solver finished but the episode did not end"
            )
            describe_failure(episode, SolverError(episode.error), meter, agent)
        episode.chars = meter.chars
        episode.tokens = meter.tokens
        episode.calls = len(meter.calls)
        for name, _, result in meter.calls:
            tool = name.removeprefix("browser_")
            episode.by_tool[tool] = episode.by_tool.get(tool, 0) + len(result.text)
            episode.fenced += fenced_chars(result.text)
        if transcript is not None:
            transcript.write(f"== {task} seed {seed}: {episode.chars} chars\n")
            for name, arguments, result in meter.calls:
                transcript.write(f"-- {name} {json.dumps(arguments)} ({len(result.text)} chars)\n{result.text}")
        episodes.append(episode)
    return episodes


def table(results: dict[str, list[Episode]]) -> str:
    header = ("task", "episodes", "success", "mean raw", "mean reward", "median ms", "text chars/ep", "tokens/ep", "calls/ep")
    rows = []
    for task, episodes in results.items():
        n = len(episodes)
        ok = sum(e.success for e in episodes)
        times = [e.ms for e in episodes if e.ms is not None]
        rows.append(
            (
                task,
                str(n),
                f"{100 * ok / n:.0f}%",
                f"{statistics.mean(e.raw for e in episodes):.3f}",
                f"{statistics.mean(e.reward for e in episodes):.3f}",
                f"{statistics.median(times):.0f}" if times else "-",
                f"{statistics.mean(e.chars for e in episodes):.0f}",
                f"{statistics.mean(e.tokens for e in episodes):.0f}",
                f"{statistics.mean(e.calls for e in episodes):.1f}",
            )
        )
    every = [e for episodes in results.values() for e in episodes]
    times = [e.ms for e in every if e.ms is not None]
    passed = sum(all(e.success for e in eps) for eps in results.values())
    rows.append(
        (
            f"all ({passed}/{len(results)} tasks at 100%)",
            str(len(every)),
            f"{100 * sum(e.success for e in every) / len(every):.0f}%",
            f"{statistics.mean(e.raw for e in every):.3f}",
            f"{statistics.mean(e.reward for e in every):.3f}",
            f"{statistics.median(times):.0f}" if times else "-",
            f"{statistics.mean(e.chars for e in every):.0f}",
            f"{statistics.mean(e.tokens for e in every):.0f}",
            f"{statistics.mean(e.calls for e in every):.1f}",
        )
    )
    widths = [max(len(r[i]) for r in [header, *rows]) for i in range(len(header))]

    def fmt(row):
        return "  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths)))

    out = [fmt(header), "  ".join("-" * w for w in widths)]
    out += [fmt(r) for r in rows[:-1]]
    out += ["  ".join("-" * w for w in widths), fmt(rows[-1])]
    return "\n".join(out)


def fenced_chars(text: str) -> int:
    """Characters of page content: inside the text form's fence, the fence itself not counted."""
    inside = re.findall(r"^<untrusted>\n(.*?)^</untrusted>\n", text, flags=re.M | re.S)
    return sum(len(part) for part in inside)


def split(results: dict[str, list[Episode]]) -> str:
    """The text chars/ep of the whole run, by the tool that returned them and by what they are."""
    every = [e for episodes in results.values() for e in episodes]
    tools = sorted({t for e in every for t in e.by_tool})
    parts = [f"{t} {statistics.mean(e.by_tool.get(t, 0) for e in every):.0f}" for t in tools]
    fenced = statistics.mean(e.fenced for e in every)
    rest = statistics.mean(e.chars for e in every) - fenced
    return (
        "text chars/ep by tool: " + ", ".join(parts)
        + f"; page content (inside the fence) {fenced:.0f}, the rest {rest:.0f}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--candor", required=True, help="path of the candor binary")
    parser.add_argument("--episodes", type=int, default=10)
    parser.add_argument("--tasks", default=",".join(TASKS), help="comma-separated task names")
    parser.add_argument("--report", default=None, help="write failures (with evidence) and the table here")
    parser.add_argument("--transcript", default=None, help="write every solver call's text block here")
    args = parser.parse_args()

    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    unknown = [t for t in tasks if t not in SOLVERS]
    if unknown:
        parser.error(f"unknown task(s) {', '.join(unknown)}; known: {', '.join(TASKS)}")
    if args.episodes < 1:
        parser.error("--episodes must be at least 1")

    server = serve(html_root())
    base = f"http://127.0.0.1:{server.server_address[1]}"
    stderr_path = Path(args.report).with_suffix(".candor.log") if args.report else Path(os.devnull)
    stderr = open(stderr_path, "w")
    client = McpClient([args.candor, "mcp"], env={"CANDOR_ENABLE_EVAL": "true"}, stderr=stderr)
    results: dict[str, list[Episode]] = {}
    transcript = open(args.transcript, "w") if args.transcript else None
    failures: list[str] = []
    started = time.monotonic()
    try:
        client.initialize()
        missing = [t for t in ("browser_snapshot", "browser_act", "browser_eval") if t not in client.tools]
        if missing:
            print(f"conformance: candor mcp does not list {', '.join(missing)}", file=sys.stderr)
            return 2
        plumbing = Plumbing(client)
        for task in tasks:
            episodes = run_task(client, plumbing, base, task, list(range(args.episodes)), transcript)
            results[task] = episodes
            ok = sum(e.success for e in episodes)
            print(f"  {task}: {ok}/{len(episodes)}", file=sys.stderr, flush=True)
            for e in episodes:
                if not e.success:
                    failures.append(
                        f"== {task} seed {e.seed}: {e.error}\nutterance: {e.utterance}\n" + "\n".join(e.evidence)
                    )
    except McpError as err:
        print(f"conformance: the MCP session with candor broke: {err} (its log: {stderr_path})", file=sys.stderr)
        return 2
    finally:
        client.close()
        server.shutdown()
        stderr.close()
        if transcript is not None:
            transcript.close()

    text = table(results) + "\n" + split(results)
    print(text)
    print(
        f"({time.monotonic() - started:.0f} s; text chars = characters of the text blocks the solver's"
        " tool calls returned, as an agent reads them; tokens = those characters / 4)"
    )
    if args.report:
        Path(args.report).write_text(text + "\n\n" + "\n\n".join(failures) + "\n")
    if failures:
        print(f"\n{len(failures)} failed episode(s):", file=sys.stderr)
        for failure in failures:
            print(failure, file=sys.stderr)
    return 0 if all(all(e.success for e in eps) for eps in results.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
