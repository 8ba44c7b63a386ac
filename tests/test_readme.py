"""The README, followed top to bottom as a new user would, in a scratch copy of the repository.

How blocks run (and which do not): tests/helpers/doc_blocks.py; tests/test_docs.py does the same for docs/*.md.
"""

from __future__ import annotations

import shlex

import pytest

from helpers.doc_blocks import REPO, RUNNABLE, SHOWN, Block, blocks, run_page, run_shell

README = REPO / "README.md"


def readme_blocks(text: str) -> list[Block]:
    return blocks(text, "README.md")


def test_blocks_are_found_and_every_tag_is_known():
    found = readme_blocks(README.read_text(encoding="utf-8"))
    runnable = [block for block in found if block.language in RUNNABLE and not block.skipped]
    assert len(runnable) >= 8, f"only {len(runnable)} runnable blocks found; is the parser still right?"
    unknown = [(block.line, block.language) for block in found if block.language not in RUNNABLE + SHOWN]
    assert not unknown, f"README blocks with a tag this test neither runs nor treats as output: {unknown}"
    assert any(block.skipped for block in found), "the pip install block should carry a skip-test marker"


def test_the_test_commands_name_paths_and_markers_that_exist(pytestconfig):
    """The skipped pytest blocks (the quick set, everything) name test paths and markers (-m): each must exist."""
    found = readme_blocks(README.read_text(encoding="utf-8"))
    commands = [block.code for block in found if block.skipped and "pytest" in block.code]
    assert commands, "the README's pytest commands were not found"
    lines = [shlex.split(line, comments=True) for code in commands for line in code.splitlines()]
    named = {word for words in lines for word in words if word.startswith(("tests/", "tf_wordpiece"))}
    assert not sorted(path for path in named if not (REPO / path).exists()), "README names paths that do not exist"
    # pytest's -m (the words after "pytest"; python's own -m names the module)
    options = [words[words.index("pytest") + 1 :] for words in lines if "pytest" in words]
    selections = [word for words in options for before, word in zip(words, words[1:]) if before == "-m"]
    markers = {name for selection in selections for name in selection.split() if name not in ("not", "and", "or")}
    assert markers >= {"quick", "slow"}, f"the README's -m selections were not found: {markers}"
    registered = {line.split(":")[0].split("(")[0] for line in pytestconfig.getini("markers")}
    assert markers <= registered, f"README selects markers pytest does not know: {sorted(markers - registered)}"


def test_parser_honours_the_skip_marker_and_treats_untagged_blocks_as_output():
    text = "intro\n<!-- skip-test: installs -->\n```bash\npip install .\n```\n\n```bash\necho hi\n```\n```\nhi\n```\n"
    found = readme_blocks(text)
    assert [(block.language, block.line, block.skipped) for block in found] == [
        ("bash", 3, True),
        ("bash", 7, False),
        ("", 10, False),
    ]
    assert found[1].code == "echo hi\n"
    needs = readme_blocks("<!-- test-needs: node npm -->\n```bash\nnode x.mjs\n```\n")[0]
    assert needs.needs == ("node", "npm") and not needs.skipped
    assert Block("bash", 1, "", False, needs=("no-such-program-41",)).missing() == ["no-such-program-41"]
    assert found[0].why == "installs"
    with pytest.raises(ValueError, match="line 2: a code block is never closed"):
        readme_blocks("text\n```python\nx = 1\n")


def test_a_failing_shell_line_fails_the_test(tmp_path):
    block = Block("bash", 7, "true\nfalse\necho unreachable\n", skipped=False)
    with pytest.raises(pytest.fail.Exception, match="line 7: the bash block failed with exit code 1"):
        run_shell(block, tmp_path, tmp_path)


@pytest.mark.slow  # the full export, the learner and Beam's DirectRunner: a minute or more on 2 cores
def test_readme_blocks_run_in_order(tmp_path, monkeypatch):
    ran, made = run_page(README, tmp_path, monkeypatch)
    assert ran >= 8
    assert "ted_hrlr_translate_pt_en_converter" in made, "the quick start's export wrote nothing"
