"""One thin scripted solver per task: read the instruction, look at the page through a
snapshot, pick elements by role and name, act on their refs.

Solvers act only through the agent-facing tools (see agent.py). When the page needs
something the tools do not show or cannot do, a solver fails loudly (SolverError or
ToolFailure) rather than working around it: that is a tool bug to report.
"""

from __future__ import annotations

import re
from typing import Callable

from agent import Agent, SolverError, pick
from outline import Node

Solver = Callable[[Agent, str], None]


def quoted(utterance: str, index: int = 0) -> str:
    found = re.findall(r'"([^"]*)"', utterance)
    if len(found) <= index:
        raise SolverError(f"no quoted text #{index} in {utterance!r}")
    return found[index]


def named(root: Node, roles: tuple[str, ...], name: str) -> list[Node]:
    return root.find_all(lambda n: n.role in roles and n.name == name and n.ref is not None)


def with_role(root: Node, *roles: str) -> list[Node]:
    return root.find_all(lambda n: n.role in roles and n.ref is not None)


def button(root: Node, name: str) -> Node:
    return pick(named(root, ("button",), name), f'button "{name}"')


# -- clicking ---------------------------------------------------------------------------


def click_button(agent: Agent, utterance: str) -> None:
    name = quoted(utterance)
    agent.click(button(agent.snapshot(), name))


def click_button_sequence(agent: Agent, utterance: str) -> None:
    page = agent.snapshot()
    first, second = re.findall(r"button (\w+)", utterance)[:2]
    one, two = button(page, first), button(page, second)
    agent.click(one)
    agent.click(two)


def click_link(agent: Agent, utterance: str) -> None:
    word = quoted(utterance)
    page = agent.snapshot()
    agent.click(pick(named(page, ("link", "clickable"), word), f'link "{word}"'))


def click_tab(agent: Agent, utterance: str) -> None:
    title = re.search(r"(Tab #\d+)", utterance)
    if not title:
        raise SolverError(f"no tab named in {utterance!r}")
    page = agent.snapshot()
    agent.click(pick(named(page, ("tab",), title.group(1)), f'tab "{title.group(1)}"'))


def click_tab_2(agent: Agent, utterance: str) -> None:
    word = quoted(utterance)
    page = agent.snapshot()
    tried: set[str] = set()
    while True:
        links = named(page, ("link", "clickable"), word)
        links = [n for n in links if in_role(n, "tabpanel")]
        if links:
            agent.click(links[0])
            return
        current = [t for t in with_role(page, "tab") if t.has("selected")]
        tried.update(t.name for t in current)
        remaining = [t for t in with_role(page, "tab") if t.name not in tried]
        if not remaining:
            raise SolverError(f'no link "{word}" in any tab panel')
        tried.add(remaining[0].name)
        agent.click(remaining[0])
        page = agent.snapshot()


def in_role(node: Node, role: str) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.role == role:
            return True
        parent = parent.parent
    return False


def click_dialog(agent: Agent, utterance: str) -> None:
    page = agent.snapshot()
    dialog = pick(with_role(page, "dialog") or page.find_all(lambda n: n.role == "dialog"), "dialog")
    agent.click(button(dialog, "Close"))


# -- forms ------------------------------------------------------------------------------


def click_checkboxes(agent: Agent, utterance: str) -> None:
    listed = re.match(r"Select (.*) and click Submit\.", utterance)
    if not listed:
        raise SolverError(f"cannot read {utterance!r}")
    wanted = set() if listed.group(1) == "nothing" else {w.strip() for w in listed.group(1).split(",")}
    page = agent.snapshot()
    boxes = with_role(page, "checkbox")
    missing = wanted - {b.name for b in boxes}
    if missing:
        raise SolverError(f"no checkbox named {sorted(missing)}")
    for box in boxes:
        if (box.name in wanted) != box.has("checked"):
            agent.act("check" if box.name in wanted else "uncheck", box)
    agent.click(button(page, "Submit"))


def click_option(agent: Agent, utterance: str) -> None:
    listed = re.match(r"Select (.*) and click Submit\.", utterance)
    if not listed:
        raise SolverError(f"cannot read {utterance!r}")
    page = agent.snapshot()
    agent.act("check", pick(named(page, ("radio",), listed.group(1)), f'radio "{listed.group(1)}"'))
    agent.click(button(page, "Submit"))


def choose_list(agent: Agent, utterance: str) -> None:
    item = re.match(r"Select (.*) from the list and click Submit\.", utterance)
    if not item:
        raise SolverError(f"cannot read {utterance!r}")
    page = agent.snapshot()
    agent.act("select", pick(with_role(page, "combobox", "listbox"), "list"), values=[item.group(1)])
    agent.click(button(page, "Submit"))


def enter_text(agent: Agent, utterance: str) -> None:
    page = agent.snapshot()
    agent.act("fill", pick(with_role(page, "textbox"), "text field"), text=quoted(utterance))
    agent.click(button(page, "Submit"))


def enter_text_2(agent: Agent, utterance: str) -> None:
    text = quoted(utterance)
    text = text.upper() if "upper case" in utterance else text.lower()
    page = agent.snapshot()
    agent.act("fill", pick(with_role(page, "textbox"), "text input"), text=text)
    agent.click(button(page, "Submit"))


def focus_text(agent: Agent, utterance: str) -> None:
    page = agent.snapshot()
    agent.act("focus", pick(with_role(page, "textbox"), "textbox"))


ORDINALS = {"1st": 0, "2nd": 1, "3rd": 2}


def focus_text_2(agent: Agent, utterance: str) -> None:
    which = re.search(r"the (\w+) input textbox", utterance)
    if not which or which.group(1) not in ORDINALS:
        raise SolverError(f"cannot read {utterance!r}")
    boxes = with_role(agent.snapshot(), "textbox")
    index = ORDINALS[which.group(1)]
    if len(boxes) <= index:
        raise SolverError(f"only {len(boxes)} textboxes")
    agent.act("focus", boxes[index])


def labelled_fields(page: Node) -> dict[str, Node]:
    """Text fields by the text just before them (labels not tied to their inputs)."""
    fields: dict[str, Node] = {}
    label = ""
    for node in page.walk():
        if node.is_text:
            label = node.name.split()[-1].lower() if node.name.split() else ""
        elif node.role == "textbox" and node.ref:
            fields[node.name.lower() or label] = node
    return fields


def login_user(agent: Agent, utterance: str) -> None:
    user, password = quoted(utterance, 0), quoted(utterance, 1)
    page = agent.snapshot()
    fields = labelled_fields(page)
    if "username" not in fields or "password" not in fields:
        raise SolverError(f"username/password fields not found: {sorted(fields)}")
    agent.act("fill", fields["username"], text=user)
    agent.act("fill", fields["password"], text=password)
    agent.click(button(page, "Login"))


def use_autocomplete(agent: Agent, utterance: str) -> None:
    start = quoted(utterance, 0)
    end = quoted(utterance, 1) if "ends with" in utterance else ""
    page = agent.snapshot()
    field = pick(with_role(page, "textbox", "combobox"), "text field")
    agent.act("type", field, text=start)
    # The suggestions come up after the widget's own delay: wait for them, then look.
    agent.wait(selector="ul.ui-autocomplete li", state="visible", timeoutMs=3000)
    page = agent.snapshot()
    choices = [
        n
        for n in page.find_all(lambda n: n.ref is not None and n.role in ("menuitem", "option", "listitem"))
        if (label := n.name or item_label(n)).startswith(start) and label.endswith(end)
    ]
    agent.click(pick(choices, f"suggestion {start}…{end}"))
    agent.click(button(page, "Submit"))


# -- navigation -------------------------------------------------------------------------


def tree_items(page: Node) -> list[Node]:
    """Items of the file tree: each listitem with the name its text gives it."""
    return page.find_all(lambda n: n.role == "listitem")


def item_label(item: Node) -> str:
    # An item whose only content is its text carries it as its name.
    if item.name:
        return item.name
    for child in item.children:
        if child.is_text or child.name:
            return child.name
    return ""


def navigate_tree(agent: Agent, utterance: str) -> None:
    target = quoted(utterance)
    page = agent.snapshot()
    opened: set[str] = set()
    while True:
        for item in tree_items(page):
            label = item_label(item)
            if label == target:
                # A folder's name is its own clickable; a file is its whole item.
                own = [c for c in item.children if c.ref and c.name == label]
                agent.click(own[0] if own else item)
                return
        # Open every folder not opened yet (a folder's name is a clickable toggle).
        folders = [
            n
            for item in tree_items(page)
            for n in item.children
            if n.role == "clickable" and n.name and n.ref and n.ref not in opened
        ]
        if not folders:
            raise SolverError(f'no item "{target}" in the tree, all folders open')
        for folder in folders:
            opened.add(folder.ref)
            agent.click(folder)
        page = agent.snapshot()


def search_engine(agent: Agent, utterance: str) -> None:
    query = quoted(utterance, 0)
    nth = re.search(r"the (\d+)(?:st|nd|rd|th) search result", utterance)
    if not nth:
        raise SolverError(f"cannot read {utterance!r}")
    index = int(nth.group(1)) - 1
    page = agent.snapshot()
    agent.act("fill", pick(with_role(page, "textbox", "searchbox"), "search box"), text=query)
    agent.click(button(page, "Search"))
    page = agent.snapshot()
    result_page = index // 3 + 1
    if result_page > 1:
        pager = [n for n in with_role(page, "link") if in_role(n, "listitem")]
        agent.click(pick([n for n in pager if n.name == str(result_page)], f"page {result_page} link"))
        page = agent.snapshot()
    results = [n for n in with_role(page, "link") if not in_role(n, "listitem")]
    if len(results) <= index % 3:
        raise SolverError(f"{len(results)} results shown")
    agent.click(results[index % 3])


SOLVERS: dict[str, Solver] = {
    "click-button": click_button,
    "click-button-sequence": click_button_sequence,
    "click-link": click_link,
    "click-tab": click_tab,
    "click-tab-2": click_tab_2,
    "click-checkboxes": click_checkboxes,
    "click-option": click_option,
    "choose-list": choose_list,
    "click-dialog": click_dialog,
    "enter-text": enter_text,
    "enter-text-2": enter_text_2,
    "focus-text": focus_text,
    "focus-text-2": focus_text_2,
    "login-user": login_user,
    "use-autocomplete": use_autocomplete,
    "navigate-tree": navigate_tree,
    "search-engine": search_engine,
}
