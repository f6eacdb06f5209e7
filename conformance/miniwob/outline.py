"""Reads the text form of an `elements` snapshot (docs/observation.md#elements) back into a tree.

One node a line, two spaces of indentation a level: `- role "name" [ref] states` for an
element, bare text for text. Names and values are written as Rust debug strings
(`"say \\"hi\\""`, `\\u{a0}`), decoded here. This is what a scripted agent reads; it
never looks at the DOM.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Callable, Iterator

_STRING = r'"((?:[^"\\]|\\.)*)"'
_ELEMENT = re.compile(r"^(?P<role>\S+)(?: " + _STRING + r")?(?: \[(?P<ref>e[0-9a-z]+)\])?(?P<rest>.*)$")
_VALUE = re.compile(r"\bvalue=" + _STRING)
_ESCAPE = re.compile(r"\\(u\{[0-9a-fA-F]+\}|.)")


def unescape(text: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code.startswith("u{"):
            return chr(int(code[2:-1], 16))
        return {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}.get(code, code)

    return _ESCAPE.sub(one, text)


@dataclass
class Node:
    role: str  # an element's role, or "text"
    name: str = ""
    ref: str | None = None
    states: list[str] = field(default_factory=list)
    value: str | None = None
    depth: int = 0
    parent: "Node | None" = None
    children: list["Node"] = field(default_factory=list)
    line: str = ""

    @property
    def is_text(self) -> bool:
        return self.role == "text"

    def walk(self) -> Iterator["Node"]:
        for child in self.children:
            yield child
            yield from child.walk()

    def find_all(self, pred: Callable[["Node"], bool]) -> list["Node"]:
        return [n for n in self.walk() if pred(n)]

    def text(self) -> str:
        """This node's name or text, and all text under it, space-joined."""
        parts = [self.name] if self.name else []
        for node in self.walk():
            if node.name:
                parts.append(node.name)
        return " ".join(parts)

    def has(self, state: str) -> bool:
        return state in self.states

    def __repr__(self) -> str:  # short, for failure reports
        return f"<{self.line.strip()}>"


def parse(snapshot_text: str) -> Node:
    root = Node(role="root", depth=-1)
    stack = [root]
    for raw in snapshot_text.splitlines():
        if not raw.strip():
            continue
        indent = len(raw) - len(raw.lstrip(" "))
        depth = indent // 2
        body = raw.strip()
        if body.startswith("- "):
            match = _ELEMENT.match(body[2:])
            if not match:
                continue
            rest = match.group("rest") or ""
            value = _VALUE.search(rest)
            states = _VALUE.sub("", rest).split()
            node = Node(
                role=match.group("role"),
                name=unescape(match.group(2)) if match.group(2) is not None else "",
                ref=match.group("ref"),
                states=[s for s in states if "=" not in s or s.startswith(("checked=", "pressed=", "level="))],
                value=unescape(value.group(1)) if value else None,
                depth=depth,
                line=raw,
            )
        else:
            node = Node(role="text", name=body, depth=depth, line=raw)
        while len(stack) > 1 and stack[-1].depth >= depth:
            stack.pop()
        node.parent = stack[-1]
        stack[-1].children.append(node)
        stack.append(node)
    return root
