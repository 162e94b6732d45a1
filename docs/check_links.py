#!/usr/bin/env python3
"""Checks the guide's links once it is built: every relative href and src of the book's pages
(a chapter, an anchor in it, a file of the repository, the crate docs `cargo doc` wrote beside it
in target/doc) and every relative link of README.md must resolve. Prints each broken link and
exits 1 if there is one.

Usage, from the clone's root, after `cargo doc` and `mdbook build docs`:
    python3 docs/check_links.py target/book
"""

import re
import sys
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit


class Links(HTMLParser):
    """The href and src values of a page, and the ids it defines."""

    def __init__(self):
        super().__init__()
        self.links, self.ids = [], set()

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.links.append(value)
            elif name == "id" and value:
                self.ids.add(value)


def parse(page: Path) -> Links:
    links = Links()
    links.feed(page.read_text(encoding="utf-8"))
    return links


def external(link: str) -> bool:
    return bool(urlsplit(link).scheme) or link.startswith("//")


def broken_in_book(book: Path) -> list:
    broken, pages = [], {}
    # print.html repeats every chapter; 404.html is written for a web server's root.
    for page in sorted(book.glob("*.html")):
        if page.name in ("print.html", "404.html", "toc.html"):
            continue
        for link in parse(page).links:
            if external(link):
                continue
            parts = urlsplit(link)
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if not target.exists():
                broken.append(f"{page.name}: {link} (no {target})")
            elif parts.fragment and target.suffix == ".html":
                if target not in pages:
                    pages[target] = parse(target).ids
                if unquote(parts.fragment) not in pages[target]:
                    broken.append(f"{page.name}: {link} (no anchor in {target.name})")
    return broken


def broken_in_readme(readme: Path) -> list:
    broken = []
    for link in re.findall(r"\]\(([^)\s]+)\)", readme.read_text(encoding="utf-8")):
        if external(link) or link.startswith("#"):
            continue
        if not (readme.parent / unquote(urlsplit(link).path)).exists():
            broken.append(f"README.md: {link}")
    return broken


def main(book: str) -> int:
    book_dir = Path(book)
    if not (book_dir / "index.html").exists():
        print(f"{book}: no built book (run `mdbook build docs` first)", file=sys.stderr)
        return 1
    broken = broken_in_book(book_dir) + broken_in_readme(Path("README.md"))
    for line in broken:
        print(f"broken link: {line}", file=sys.stderr)
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
