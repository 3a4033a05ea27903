"""The front door and the reference pages: README.md short enough to read in ten minutes, and every relative link and
`#anchor` in README.md and docs/ (into results/ too) leading somewhere that exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
PAGES = [README, *sorted((REPO / "docs").glob("*.md"))]
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def prose(text: str) -> str:
    """The text outside fenced code blocks and inline code, where a `[x](y)` is a link."""
    text = re.sub(r"^```.*?^```", "", text, flags=re.M | re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors(path: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation but hyphens dropped, spaces to hyphens."""
    return {re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
            for heading in re.findall(r"^#{1,6} (.+)$", prose(path.read_text()), re.M)}


def links(path: Path) -> list[str]:
    return [target for target in LINK.findall(prose(path.read_text())) if not re.match(r"[a-z]+://", target)]


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.relative_to(REPO).as_posix())
def test_every_relative_link_and_anchor_resolves(page):
    broken = []
    for target in links(page):
        file, _, anchor = target.partition("#")
        goal = (page.parent / file).resolve() if file else page
        if not goal.exists() or REPO not in (goal, *goal.parents):
            broken.append(f"{target}: no such file in the repository")
        elif anchor and (goal.suffix != ".md" or anchor not in anchors(goal)):
            broken.append(f"{target}: no heading #{anchor} there")
    assert not broken, broken


def test_the_readme_is_read_in_ten_minutes_and_names_nothing_outside_the_repository():
    text = README.read_text()
    assert len(text.split()) <= 1500
    long = [line for line in prose(text).splitlines() if len(line) > 200]
    assert not long, long
    assert "../" not in text  # no sibling folder of the checkout (a reader's clone has none)


def test_the_link_check_can_fail(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n[a](nowhere.md) [b](#title) [c](#elsewhere) `[d](ignored.md)`\n")
    assert links(page) == ["nowhere.md", "#title", "#elsewhere"]
    assert anchors(page) == {"title"}
