"""The user's documents hold together: every relative Markdown link in README.md, docs/ and
bench/README.md names a file that exists, and the README stays a short read."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.parse import unquote

import pytest

REPO = Path(__file__).resolve().parents[2]
README_MAX_LINES = 500

# [text](target) and [text](target "title"); images too. Code spans and fenced blocks are
# removed first, so that shell and Python examples are not read as links.
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^[ \t]*(```|~~~).*?^[ \t]*\1", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")


def documents() -> list[Path]:
    pages = [REPO / "README.md", REPO / "bench" / "README.md"]
    pages += sorted((REPO / "docs").rglob("*.md"))
    return [page for page in pages if page.is_file()]


def relative_links(text: str) -> list[str]:
    """Link targets that point into the repository (no scheme, no bare #anchor)."""
    prose = CODE_SPAN.sub("", FENCE.sub("", text))
    targets = []
    for target in LINK.findall(prose):
        if re.match(r"^[a-zA-Z][a-zA-Z0-9+.-]*:", target) or target.startswith("#"):
            continue
        targets.append(target)
    return targets


def test_link_reader_finds_links_outside_code_only() -> None:
    text = (
        "See [the rules](docs/rules.md) and [the web](https://example.com), [here](#top).\n"
        "`[not a link](nowhere.md)`\n"
        "   ```sh\n   echo '[nor this](nowhere.md)'\n   ```\n"
        '![a picture](img/a.png "title") and [a part](docs/cli.md#options)\n'
    )
    assert relative_links(text) == ["docs/rules.md", "img/a.png", "docs/cli.md#options"]


@pytest.mark.parametrize("page", documents(), ids=lambda page: str(page.relative_to(REPO)))
def test_relative_links_resolve(page: Path) -> None:
    missing = []
    for target in relative_links(page.read_text(encoding="utf-8")):
        path = unquote(target.split("#", 1)[0])
        if not path:
            continue
        if not (page.parent / path).exists():
            missing.append(target)
    assert not missing, f"{page.relative_to(REPO)} links to missing files: {missing}"


def test_readme_is_short() -> None:
    lines = (REPO / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines (at most {README_MAX_LINES})"
