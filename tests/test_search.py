"""The list page's search index (litcorpus.publish.search): MiniSearch's own serialisation,
word folding, and the fields and their text."""

from __future__ import annotations

import json
import shutil
import subprocess

from conftest import REPO, js_data
from litcorpus.publish.search import FIELDS, fold, minisearch_index

MINISEARCH = REPO / "node_modules" / "minisearch" / "dist" / "umd" / "index.js"
# MiniSearch itself (the very file the site ships, run as its UMD wrapper runs under CommonJS)
# indexes the same words (a tokenizer that returns them, no processing) and prints its toJSON:
# the index search.py writes must be what MiniSearch writes.
BUILD = """
const fs = require("fs");
const mod = { exports: {} };
new Function("module", "exports", fs.readFileSync(process.argv[1], "utf8"))(mod, mod.exports);
const MiniSearch = mod.exports;
const docs = JSON.parse(fs.readFileSync(0, "utf8"));
const fields = %s;
const ms = new MiniSearch({ fields, tokenize: (s) => s.split(" "), processTerm: (t) => t });
ms.addAll(docs.map(([id, byField]) => {
  const doc = { id };
  fields.forEach((f) => { if ((byField[f] || []).length) { doc[f] = byField[f].join(" "); } });
  return doc;
}));
process.stdout.write(JSON.stringify(ms.toJSON()));
"""


def test_index_is_what_minisearch_writes() -> None:
    node = shutil.which("node")
    assert node and MINISEARCH.is_file(), "run `make` (npm ci installs MiniSearch)"
    texts = [
        (
            "c3",
            {
                "title": "Contextual Counterfactual Credit",
                "summary": "Credit per message, credit by replay.",
                "first": "Wei Chen",
            },
        ),
        ("multi", {"title": "Multi-Agent Débat", "notes": "2501.00001 owner/credit"}),
        ("bare", {"notes": "Only notes, 2025."}),
        ("empty", {}),
    ]
    docs = [(key, {f: fold(t) for f, t in by_field.items()}) for key, by_field in texts]
    ours = minisearch_index(docs)
    script = BUILD % json.dumps(list(FIELDS))
    out = subprocess.run(
        [node, "-e", script, str(MINISEARCH)],
        input=json.dumps(docs),
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    theirs = json.loads(out.stdout)
    as_map = lambda ix: {term: data for term, data in ix["index"]}  # noqa: E731
    assert as_map(ours) == as_map(theirs)
    assert {k: v for k, v in ours.items() if k != "index"} == {
        k: v for k, v in theirs.items() if k != "index"
    }
    assert as_map(ours)["credit"] == {"1": {"0": 1}, "4": {"0": 2}, "7": {"1": 1}}  # by field


def test_fold_matches_how_readers_type() -> None:
    assert fold("Multi-Agent Débat, GRPO-style (2025)") == [
        "multi",
        "agent",
        "multiagent",
        "debat",
        "grpo",
        "style",
        "grpostyle",
        "2025",
    ]
    assert fold("snake_case and a_b") == ["snake", "case", "and", "a", "b"]
    assert fold("") == []


def test_a_64_kb_one_word_summary_is_folded() -> None:
    """A summary of one 64 KB word (no space, no hyphen): folding stays one pass (a pattern
    that retried at every position took quadratic time). Its speed is measured, with its
    linearity, in tests/bench/run.py; here it must complete and give the word."""
    word = "a" * 65_536
    assert fold(word) == [word]
    assert fold(f"{word}-b") == [word, "b", word + "b"]


def test_shipped_index_holds_every_entry() -> None:
    from litcorpus.model.corpus import load_corpus
    from litcorpus.publish.presentation import entry_view
    from litcorpus.publish.search import search_fields, search_index

    corpus = load_corpus(REPO)
    entries = [entry_view(r.data, corpus.taxonomy) for r in corpus.of("paper")]
    index = js_data(search_index(entries), "LITCORPUS_SEARCH")
    assert sorted(index["documentIds"].values()) == sorted(e["key"] for e in entries)
    c3 = search_fields(next(e for e in entries if e["key"] == "c3"))  # papers/c3.yaml
    assert c3["name"] == "C3" and c3["first"] == "Yanjun Chen"
    assert "tags" not in c3  # matched through the facet values, not the index
    assert c3["venue"] == "arXiv 2026" and c3["place"] == "Hong Kong Polytechnic University"
