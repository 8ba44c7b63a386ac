"""The shipped Unicode tables are exactly what the installed peers produce (tools/gen_unicode_tables.py)."""

from __future__ import annotations

import importlib.util
import json
import pathlib

import pytest

from tf_wordpiece.unicode import tables as ut

pytest.importorskip("tensorflow_text")
pytest.importorskip("tokenizers")

TOOL = pathlib.Path(__file__).resolve().parents[2] / "tools" / "gen_unicode_tables.py"


def test_shipped_tables_are_up_to_date():
    spec = importlib.util.spec_from_file_location("gen_unicode_tables", TOOL)
    generator = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(generator)
    fresh = json.loads(json.dumps(generator.build()))  # the same JSON round trip as the file
    shipped = ut.peer_tables()
    assert fresh["provenance"] == shipped["provenance"]
    for peer in ("tf_text", "hf"):
        for name in fresh[peer]:
            assert fresh[peer][name] == shipped[peer][name], f"{peer}/{name} is stale: run {TOOL.name}"
