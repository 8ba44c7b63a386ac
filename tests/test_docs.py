"""Every page of docs/ runs as written: its code blocks, in order, each page in a clean scratch copy.

How blocks run (and which do not): tests/helpers/doc_blocks.py. tests/test_readme.py does the README.
"""

from __future__ import annotations

import pytest

from helpers.doc_blocks import REPO, RUNNABLE, SHOWN, blocks, run_page

PAGES = sorted((REPO / "docs").glob("*.md"))


def test_pages_are_found():
    assert {page.name for page in PAGES} >= {"deployment.md", "benchmarks.md", "learning.md", "subwords.md"}


@pytest.mark.parametrize("page", PAGES, ids=[page.name for page in PAGES])
def test_every_block_is_run_or_shown_and_each_skip_says_why(page):
    found = blocks(page.read_text(encoding="utf-8"), f"docs/{page.name}")
    unknown = [(block.line, block.language) for block in found if block.language not in RUNNABLE + SHOWN]
    assert not unknown, f"docs/{page.name}: blocks with a tag this test neither runs nor shows: {unknown}"
    silent = [block.line for block in found if block.skipped and not block.why]
    assert not silent, f"docs/{page.name}: skip-test markers that do not say why, at lines {silent}"


RUNNABLE_PAGES = [
    page
    for page in PAGES
    if any(b.language in RUNNABLE and not b.skipped for b in blocks(page.read_text(encoding="utf-8"), page.name))
]


@pytest.mark.slow  # exports, conversions and Node: minutes on 2 cores
@pytest.mark.parametrize("page", RUNNABLE_PAGES, ids=[page.name for page in RUNNABLE_PAGES])
def test_page_blocks_run_in_order_in_a_clean_copy(page, tmp_path, monkeypatch):
    ran, _ = run_page(page, tmp_path, monkeypatch)
    assert ran >= 1
