"""Screening the queue: decisions that write records, a ranking that learns, the stopping rule,
blind dual screening with its kappa, the interactive screen, ASReview round trips, replays of
labelled sets, and the PRISMA update flow that all of it feeds. The records are our own words
(a CSV export written here)."""

from __future__ import annotations

import csv
import io
import json
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from test_search_import import litcorpus, tree

RELEVANT = [
    "Training an orchestrator of LLM agents with multi-agent reinforcement learning",
    "Credit assignment for cooperating language model agents trained with policy gradients",
    "Learning when sub-agents should be spawned by a reinforcement learning planner",
    "Multi-agent debate fine-tuned with a shared team reward",
]
IRRELEVANT = [
    "A field study of sourdough fermentation in alpine bakeries",
    "Sediment transport in braided rivers after snowmelt floods",
    "Medieval trade routes of the Hanseatic salt merchants",
    "Thermal comfort of passive houses in northern winters",
    "A survey of garden bird feeding habits in suburbs",
    "Corrosion of bronze statues in coastal air",
]


def export(path: Path, titles: list[str], dois: list[str] | None = None) -> Path:
    buf = io.StringIO()
    w = csv.writer(buf)
    w.writerow(["title", "authors", "year", "doi", "abstract"])
    for i, t in enumerate(titles):
        doi = dois[i] if dois else f"10.5555/test.{i}"
        w.writerow([t, f"Author{i}, Ann; Other, Bo", 2025, doi, f"About: {t.lower()}."])
    path.write_text(buf.getvalue(), encoding="utf-8")
    return path


@pytest.fixture
def queued(clone: Path, tmp_path: Path) -> Path:
    """The shipped corpus with one imported search of ten records (four relevant)."""
    run = litcorpus("search", "import", str(export(tmp_path / "s.csv", RELEVANT + IRRELEVANT)),
                    "--root", str(clone), "--source", "csv", "--query", "agents",
                    "--database", "Test index", "--family", "multi_agent_llm")  # fmt: skip
    assert run.returncode == 0, run.stderr
    return clone


def queue_of(root: Path) -> dict[str, dict]:
    lines = (root / "screening/queue.jsonl").read_text().splitlines()
    return {q["id"]: q for q in map(json.loads, lines)}


def ids_by_title(root: Path) -> dict[str, str]:
    return {q["title"]: q["id"] for q in queue_of(root).values()}


def decide(root: Path, *args: str, reviewer: str = "ana") -> subprocess.CompletedProcess[str]:
    return litcorpus("screen", "decide", *args, "--root", str(root), "--reviewer", reviewer)


NOTE = "A study outside LLM multi-agent systems, written for this test."


def test_include_scaffolds_an_entry_and_exclude_writes_a_decision(queued: Path) -> None:
    t = ids_by_title(queued)
    inc = decide(queued, t[RELEVANT[0]], "include")
    assert inc.returncode == 0, inc.stderr
    key = inc.stdout.split("wrote papers/", 1)[1].split(".yaml")[0]
    entry = (queued / f"papers/{key}.yaml").read_text()
    assert 'search: "S001"' in entry and "added: " in entry and "category:" in entry
    exc = decide(queued, t[IRRELEVANT[0]], "exclude", "--reason", "X3", "--note", NOTE)
    assert exc.returncode == 0, exc.stderr
    excl = yaml.safe_load((queued / "exclusions/E033.yaml").read_text())
    assert excl == {
        "id": "E033", "title": IRRELEVANT[0], "ids": {"doi": "10.5555/test.4"},
        "url": "https://doi.org/10.5555/test.4", "source": "publisher_page",
        "query_family": "multi_agent_llm", "date_screened": excl["added"],
        "stage": "abstract_screen", "reason": "out_of_domain", "note": NOTE,
        "added": excl["added"], "search": "S001",
    }  # fmt: skip
    q = queue_of(queued)
    assert (
        q[t[RELEVANT[0]]]["state"] == "included"
        and q[t[RELEVANT[0]]]["record"] == f"papers/{key}.yaml"
    )
    assert q[t[IRRELEVANT[0]]]["decisions"][0]["reason"] == "out_of_domain"
    # the search's counts hold: 10 found, 0 duplicates = 2 records + 8 still queued
    report = json.loads(litcorpus("check", "--root", str(queued), "--format", "json").stdout)
    codes = {p["code"] for p in report["problems"]}
    assert "search-mismatch" not in codes and "queue-invalid" not in codes
    assert {p["path"] for p in report["problems"]} == {f"papers/{key}.yaml"}  # its tags are empty


@pytest.mark.parametrize(
    "args, message",
    [
        (["Q0999", "include"], "no queued record Q0999"),
        (["Q0001", "exclude", "--note", NOTE], "an exclusion needs --reason"),
        (["Q0001", "exclude", "--reason", "X99", "--note", NOTE],
         "'X99' is not an exclusion reason"),
        (["Q0001", "exclude", "--reason", "X2"], "an exclusion needs --note"),
        (["Q0001", "exclude", "--reason", "X2", "--note", NOTE, "--stage", "lunch"],
         "'lunch' is not a stage"),
    ],
)  # fmt: skip
def test_a_bad_decision_is_refused_and_nothing_changes(
    queued: Path, args: list[str], message: str
) -> None:
    before = tree(queued)
    run = decide(queued, *args)
    assert run.returncode in (1, 2) and message in run.stderr, run.stderr
    assert "Traceback" not in run.stderr and tree(queued) == before


def test_a_decided_record_cannot_be_decided_again(queued: Path) -> None:
    assert decide(queued, "Q0001", "include").returncode == 0
    before = tree(queued)
    again = decide(queued, "Q0001", "exclude", "--reason", "X2", "--note", NOTE)
    assert again.returncode == 1 and "Q0001 is decided already" in again.stderr
    assert tree(queued) == before


def test_the_ranking_learns_from_the_corpus_and_from_each_decision(queued: Path) -> None:
    """Seeded by the corpus's own 84 entries and 32 exclusions, the three records that speak of
    reinforcement learning, orchestrators and teams come first. The seed holds no off-topic
    exclusion, so the credit-assignment record still sits among the off-topic ones until two
    of those are excluded; then all four relevant records lead."""

    def ranked() -> list[str]:
        run = litcorpus("screen", "list", "--root", str(queued), "--format", "json")
        rows = json.loads(run.stdout)
        assert set(rows[0]) == {"id", "title", "ids", "search", "state", "relevance"}
        return [r["title"] for r in rows]

    assert set(ranked()[:3]) == {RELEVANT[0], RELEVANT[2], RELEVANT[3]}
    t = ids_by_title(queued)
    for title in IRRELEVANT[:2]:
        assert decide(queued, t[title], "exclude", "--reason", "X3", "--note", NOTE).returncode == 0
    assert set(ranked()[:4]) == set(RELEVANT)


def test_the_stopping_rule_counts_irrelevant_in_a_row_and_sets_the_rest_aside(queued: Path) -> None:
    taxonomy = queued / "taxonomy.yaml"
    taxonomy.write_text(
        taxonomy.read_text().replace("consecutive_irrelevant: 50", "consecutive_irrelevant: 3")
    )
    t = ids_by_title(queued)
    early = litcorpus("screen", "stopping", "--apply", "--root", str(queued), "--reviewer", "ana")
    assert (
        early.returncode == 1
        and "says keep screening: 0 consecutive irrelevant of 3" in early.stderr
    )
    assert decide(queued, t[RELEVANT[0]], "include").returncode == 0
    for title in IRRELEVANT[:3]:
        assert decide(queued, t[title], "exclude", "--reason", "X3", "--note", NOTE).returncode == 0
    verdict = litcorpus("screen", "stopping", "--apply", "--root", str(queued), "--reviewer", "ana")
    assert verdict.returncode == 0, verdict.stderr
    assert (
        "3 of 3; time to stop; 6 left" in verdict.stdout and "set aside 6 records" in verdict.stdout
    )
    q = queue_of(queued)
    assert sum(x["state"] == "set_aside" for x in q.values()) == 6
    stats = json.loads(litcorpus("check", "--root", str(queued), "--format", "json").stdout)
    assert not [p for p in stats["problems"] if p["code"].startswith(("search", "queue"))]


def test_dual_screening_is_blind_agrees_conflicts_and_reports_kappa(queued: Path) -> None:
    sampled = litcorpus("screen", "sample", "--size", "4", "--seed", "7", "--root", str(queued))
    assert sampled.returncode == 0, sampled.stderr
    dual = sampled.stdout.split(": ", 1)[1].strip().split(", ")
    assert len(dual) == 4
    # ana and ben decide the four: two alike (exclude, exclude), two apart
    plan = [
        ("exclude", "exclude"),
        ("exclude", "exclude"),
        ("include", "exclude"),
        ("maybe", "include"),
    ]
    for qid, (a, b) in zip(dual, plan, strict=True):
        extra = ["--reason", "X3", "--note", NOTE]
        maybe = ["--note", "the full text decides whether agents learn"]
        first = decide(
            queued, qid, a, *(extra if a == "exclude" else maybe if a == "maybe" else [])
        )
        assert "waits for the second reviewer" in first.stdout, first.stdout
        assert queue_of(queued)[qid]["state"] == "awaiting"
        second = decide(queued, qid, b, *(extra if b == "exclude" else []), reviewer="ben")
        assert second.returncode == 0, second.stderr
    states = [queue_of(queued)[q]["state"] for q in dual]
    assert states == ["excluded", "excluded", "conflict", "conflict"]
    conflicts = json.loads(
        litcorpus("screen", "conflicts", "--root", str(queued), "--format", "json").stdout
    )
    assert [c["id"] for c in conflicts] == dual[2:]
    # Cohen's kappa by hand: 4 records, agree on 2 -> observed 0.5; ana: 2 exclude, 1 include,
    # 1 maybe; ben: 3 exclude, 1 include; chance = (2*3 + 1*1 + 0) / 16 = 0.4375;
    # kappa = (0.5 - 0.4375) / (1 - 0.4375) = 0.1111
    agreed = json.loads(
        litcorpus("screen", "agreement", "--root", str(queued), "--format", "json").stdout
    )
    (pair,) = agreed["pairs"]
    got = (pair["reviewers"], pair["records"], pair["observed"], pair["expected"], pair["kappa"])
    assert got == (
        ["ana", "ben"], 4, 0.5, 0.4375, 0.1111,
    )  # fmt: skip
    assert "blind" in agreed["method"]
    low, high = pair["ci95"]
    assert -1 <= low < pair["kappa"] < high <= 1  # its interval, in the text output too
    text = litcorpus("screen", "agreement", "--root", str(queued)).stdout
    assert f"kappa 0.1111 (95% CI {low} to {high})" in text
    resolved = litcorpus(
        "screen", "resolve", dual[2], "include", "--root", str(queued), "--reviewer", "cat"
    )
    assert resolved.returncode == 0 and "wrote papers/" in resolved.stdout
    refused = decide(queued, dual[3], "include")
    assert refused.returncode == 1 and "settle it with screen resolve" in refused.stderr


def test_the_interactive_screen_under_a_terminal_and_at_end_of_input(queued: Path) -> None:
    """i, then e with a reason and note, then q; a second run ends at end of input."""
    answers = "i\ne\nX3\n" + NOTE + "\nq\n"
    run = litcorpus("screen", "--root", str(queued), "--reviewer", "ana", stdin=answers)
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "Inclusion criteria:" in out and "I1 Two or more LLM-based agents" in out
    assert re.search(r"\*(agents|multi-agent|reinforcement learning|reward)\*", out)  # marked
    assert "wrote papers/" in out and "wrote exclusions/E033.yaml" in out
    assert "stopped; 2 decided in this session" in out
    states = [q["state"] for q in queue_of(queued).values()]
    assert states.count("included") == 1 and states.count("excluded") == 1
    again = litcorpus("screen", "--root", str(queued), "--reviewer", "ana", stdin="s\n")
    assert again.returncode == 0 and "end of input; 0 decided" in again.stdout


def test_the_interactive_screen_asks_for_a_family_the_search_does_not_name(
    clone: Path,
    tmp_path: Path,
) -> None:
    """A search logged without --family: excluding one of its records asks for the family
    there, rather than refusing the decision once its reason and note are typed."""
    run = litcorpus("search", "import", str(export(tmp_path / "s.csv", IRRELEVANT[:2])),
                    "--root", str(clone), "--source", "csv", "--query", "rivers")  # fmt: skip
    assert run.returncode == 0, run.stderr
    answers = "e\nX3\n" + NOTE + "\nnot_a_family\ne\nX3\n" + NOTE + "\nsafety\nq\n"
    run = litcorpus("screen", "--root", str(clone), "--reviewer", "ana", stdin=answers)
    assert run.returncode == 0, run.stderr
    assert "query family (search S" in run.stdout and "names none) >" in run.stdout
    assert "not recorded:" in run.stdout and "not_a_family" in run.stdout  # a typo is refused
    assert "wrote exclusions/E033.yaml" in run.stdout
    written = yaml.safe_load((clone / "exclusions/E033.yaml").read_text())
    assert written["query_family"] == "safety" and written["reason"] == "out_of_domain"


def test_an_exclusion_of_a_record_without_an_address_asks_for_one(
    clone: Path,
    tmp_path: Path,
) -> None:
    """A reference with no id and no URL (common in .bib files): excluding it is refused until
    --url names where it was read, so no exclusion is written that check refuses."""
    bare = tmp_path / "bare.csv"
    bare.write_text('title,authors,year\nNotes on alpine sourdough,"Baker, Ann",2024\n')
    run = litcorpus("search", "import", str(bare), "--root", str(clone), "--source", "csv",
                    "--query", "bread", "--family", "safety")  # fmt: skip
    assert run.returncode == 0, run.stderr
    (qid,) = [q["id"] for q in queue_of(clone).values() if q["title"].startswith("Notes on alp")]
    before = sorted(p.name for p in (clone / "exclusions").iterdir())
    refused = decide(clone, qid, "exclude", "--reason", "X3", "--note", NOTE)
    assert refused.returncode == 2 and "has no address" in refused.stderr  # a usage error
    assert "give --url" in refused.stderr
    for wrong, said in [("ftp://x.org/a", "scheme 'ftp' is not allowed"),
                        ("https://x.org/a b", "is not a well-formed URL"),  # as check says
                        ("http://[x", "is not a well-formed URL")]:  # fmt: skip
        bad = decide(clone, qid, "exclude", "--reason", "X3", "--note", NOTE, "--url", wrong)
        assert bad.returncode == 2 and said in bad.stderr and "Traceback" not in bad.stderr
    assert sorted(p.name for p in (clone / "exclusions").iterdir()) == before
    assert queue_of(clone)[qid]["state"] == "pending"
    url = "https://example.org/sourdough"
    answers = f"e\nX3\n{NOTE}\n{url}\nq\n"  # the interactive screen asks for it
    done = litcorpus("screen", "--root", str(clone), "--reviewer", "ana", stdin=answers)
    assert done.returncode == 0, done.stderr
    assert "address (the record has no id or URL) >" in done.stdout
    written = yaml.safe_load((clone / "exclusions/E033.yaml").read_text())
    assert written["url"] == url and queue_of(clone)[qid]["url"] == url
    check = litcorpus("check", "--strict", "--root", str(clone))
    assert check.returncode == 0, check.stdout + check.stderr


def _terminal_session(root: Path, keys: list[str]) -> str:
    """Run the interactive screen on a pseudo-terminal, as a reviewer at a keyboard does: each
    key line is typed once the screen waits for it (its prompt ends in '> ')."""
    import os
    import pty
    import select
    import time

    pid, fd = pty.fork()
    if pid == 0:  # the child: the screen, its standard streams the terminal
        env = {**os.environ, "NO_COLOR": "1", "TERM": "xterm"}
        os.execvpe(sys.executable, [sys.executable, "-m", "litcorpus", "screen", "--root",
                                    str(root), "--reviewer", "ana"], env)  # fmt: skip
    seen, pending, deadline = b"", list(keys), time.monotonic() + 120
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.5)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:  # the screen ended and closed the terminal
                break
            if not chunk:
                break
            seen += chunk
            if pending and seen.rstrip().endswith(b">"):
                os.write(fd, pending.pop(0).encode() + b"\r")
    else:  # the screen never finished: end it, and fail with what it showed
        os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, seen.decode(errors="replace")[-2000:]
    return seen.decode("utf-8", errors="replace")


def test_the_interactive_screen_on_a_real_terminal(queued: Path) -> None:
    """On a terminal (a pty, as under tmux): include one record, exclude the next with a
    reason and a note, quit; both decisions are written and the queue says so."""
    out = _terminal_session(queued, ["i", "e", "X3", NOTE, "q"])
    assert "Inclusion criteria:" in out and "[i]nclude  [m]aybe  [e]xclude" in out
    assert "wrote papers/" in out and "wrote exclusions/E033.yaml" in out
    assert "stopped; 2 decided in this session" in out
    states = [q["state"] for q in queue_of(queued).values()]
    assert states.count("included") == 1 and states.count("excluded") == 1
    assert yaml.safe_load((queued / "exclusions" / "E033.yaml").read_text())["note"] == NOTE


def test_a_killed_decision_is_finished_by_the_next_run(queued: Path) -> None:
    """A decision killed after its commit point (the journal placed) is completed by the next
    command that takes the lock; one killed before it left nothing."""
    code = (
        "import os, sys, signal\n"
        "import surewrite.transaction as t\n"
        "real = t._place\n"
        "def stop(root, entries):\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        "t._place = stop\n"
        "sys.argv = ['litcorpus', 'screen', 'decide', 'Q0001', 'include', '--root', sys.argv[1],"
        " '--reviewer', 'ana']\n"
        "from litcorpus.entry import main\n"
        "main()\n"
    )
    killed = subprocess.run(
        [sys.executable, "-c", code, str(queued)], capture_output=True, text=True
    )
    assert killed.returncode == -signal.SIGKILL
    assert (queued / ".litcorpus.change.journal").exists()
    assert queue_of(queued)["Q0001"]["state"] == "pending"
    listed = litcorpus(
        "screen", "decide", "Q0002", "maybe", "--root", str(queued), "--reviewer", "ana",
        "--note", "the full text decides it",
    )  # fmt: skip
    assert listed.returncode == 0, listed.stderr
    q = queue_of(queued)
    assert q["Q0001"]["state"] == "included" and (queued / q["Q0001"]["record"]).exists()
    assert q["Q0002"]["state"] == "maybe"
    assert not (queued / ".litcorpus.change.journal").exists()
    assert not list(queued.rglob("*.tmp"))


def test_a_planted_change_journal_is_refused_and_moves_nothing(queued: Path) -> None:
    (queued / ".litcorpus.change.journal").write_text(json.dumps({"transaction": [
        {"path": "claims.yaml", "temp": ".claims.yaml.abc.tmp", "sha256": "0" * 64, "new": False},
    ]}))  # fmt: skip
    before = tree(queued)
    run = decide(queued, "Q0001", "maybe", "--note", "the full text decides it")
    assert run.returncode == 1 and "journal-refused" in run.stderr
    assert tree(queued) == before


def test_asreview_export_and_labels_back(queued: Path, tmp_path: Path) -> None:
    out = tmp_path / "asreview.csv"
    run = litcorpus(
        "screen", "export", "--format", "asreview-csv", "--out", str(out), "--root", str(queued)
    )
    assert run.returncode == 0, run.stderr
    import pandas as pd

    frame = pd.read_csv(out)
    assert list(frame.columns)[:3] == ["litcorpus_id", "title", "abstract"] and len(frame) == 10
    # what ASReview LAB hands back: the same rows with its label column
    frame["asreview_label"] = [1 if t in RELEVANT else 0 for t in frame["title"]]
    labelled = tmp_path / "labelled.csv"
    frame.to_csv(labelled, index=False)
    refused = litcorpus("screen", "import-labels", str(labelled), "--root", str(queued))
    assert refused.returncode == 2 and "give --reason and --note" in refused.stderr
    back = litcorpus("screen", "import-labels", str(labelled), "--reason", "X3", "--note", NOTE,
                     "--reviewer", "asreview", "--root", str(queued))  # fmt: skip
    assert back.returncode == 0, back.stderr
    assert "10 decisions taken" in back.stdout
    states = [q["state"] for q in queue_of(queued).values()]
    assert states.count("included") == 4 and states.count("excluded") == 6
    ris = tmp_path / "q.ris"
    assert (
        litcorpus(
            "screen", "export", "--format", "ris", "--out", str(ris), "--root", str(queued)
        ).returncode
        == 0
    )
    import rispy

    assert len(rispy.loads(ris.read_text())) == 10


def _labelled(queued: Path, tmp_path: Path, relevant: set[str]) -> Path:
    out = tmp_path / "asreview.csv"
    litcorpus("screen", "export", "--format", "asreview-csv", "--out", str(out), "--root",
              str(queued))  # fmt: skip
    import pandas as pd

    frame = pd.read_csv(out)
    frame["asreview_label"] = [1 if t in relevant else 0 for t in frame["title"]]
    frame.to_csv(tmp_path / "labelled.csv", index=False)
    return tmp_path / "labelled.csv"


def test_labels_against_recorded_decisions_are_listed_as_conflicts(
    queued: Path, tmp_path: Path
) -> None:
    ids = ids_by_title(queued)
    assert (
        decide(queued, ids[RELEVANT[0]], "exclude", "--reason", "X3", "--note", NOTE).returncode
        == 0
    )
    assert decide(queued, ids[IRRELEVANT[0]], "include").returncode == 0
    labelled = _labelled(queued, tmp_path, set(RELEVANT))
    back = litcorpus("screen", "import-labels", str(labelled), "--reason", "X3", "--note", NOTE,
                     "--reviewer", "asreview", "--root", str(queued))  # fmt: skip
    assert back.returncode == 0, back.stderr
    assert (
        "8 decisions taken (0 already decided alike, 2 against a recorded decision" in back.stdout
    )
    assert f"conflict: {ids[RELEVANT[0]]} is excluded" in back.stdout
    assert f"conflict: {ids[IRRELEVANT[0]]} is included" in back.stdout
    q = queue_of(queued)
    assert q[ids[RELEVANT[0]]]["state"] == "excluded"  # the recorded decision stands


def test_labels_are_taken_all_or_none(queued: Path, tmp_path: Path) -> None:
    ids = ids_by_title(queued)
    labelled = _labelled(queued, tmp_path, set(RELEVANT))
    # the last irrelevant record has no address: its exclusion cannot be written
    lines = (queued / "screening/queue.jsonl").read_text().splitlines()
    last = ids[IRRELEVANT[-1]]
    lines = [
        json.dumps({**json.loads(x), "ids": {}, "url": ""}) if f'"{last}"' in x else x
        for x in lines
    ]
    (queued / "screening/queue.jsonl").write_text("\n".join(lines) + "\n")
    before = tree(queued)
    back = litcorpus("screen", "import-labels", str(labelled), "--reason", "X3", "--note", NOTE,
                     "--reviewer", "asreview", "--root", str(queued))  # fmt: skip
    assert back.returncode == 1, back.stdout
    assert f"{last} has no address" in back.stderr and "no label was taken" in back.stderr
    assert f"litcorpus screen decide {last} exclude --url" in back.stderr
    assert tree(queued) == before


def test_two_exclusions_for_different_reasons_are_a_conflict(queued: Path) -> None:
    sampled = litcorpus("screen", "sample", "--size", "1", "--seed", "3", "--root", str(queued))
    qid = sampled.stdout.split(": ", 1)[1].strip()
    assert decide(queued, qid, "exclude", "--reason", "X2", "--note", NOTE).returncode == 0
    second = decide(queued, qid, "exclude", "--reason", "X3", "--note", NOTE, reviewer="ben")
    assert second.returncode == 0 and "disagree" in second.stdout
    assert queue_of(queued)[qid]["state"] == "conflict"
    conflicts = json.loads(
        litcorpus("screen", "conflicts", "--root", str(queued), "--format", "json").stdout
    )
    said = conflicts[0]["decisions"]
    assert said["ana"]["reason"] != said["ben"]["reason"]


def test_simulate_beats_random_order_on_a_labelled_set(tmp_path: Path) -> None:
    """Forty records of our own: eight about trained agent teams, the rest about other things."""
    rows = [("title", "abstract", "label_included")]
    topics = [
        "rivers",
        "bakeries",
        "castles",
        "glaciers",
        "orchards",
        "harbours",
        "violins",
        "comets",
    ]
    for i in range(8):
        rows.append((f"Multi-agent reinforcement learning for LLM agents, study {i}",
                     "We train language model agents that cooperate with a team reward.",
                     "1"))  # fmt: skip
    for i in range(32):
        t = topics[i % 8]
        rows.append(
            (f"Notes on {t}, part {i}", f"A descriptive account of {t} over {i} years.", "0")
        )
    labelled = tmp_path / "labelled.csv"
    with labelled.open("w", newline="") as f:
        csv.writer(f).writerows(rows)
    figure = tmp_path / "curve.svg"
    run = litcorpus("screen", "simulate", str(labelled), "--seeds", "3", "--format", "json",
                    "--figure", str(figure))  # fmt: skip
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    assert (result["records"], result["relevant"], result["seeds"]) == (40, 8, 3)
    # the seven relevant left after the priors come first: all found after 7 of 38 records
    assert result["ranking"]["wss@100"] == round(1 - 7 / 38, 4)
    assert result["ranking"]["recall@10%"] > result["random"]["recall@10%"]
    assert result["random"]["wss@95"] < 0.3
    assert figure.read_text().startswith("<?xml")
    bad = tmp_path / "bad.csv"
    bad.write_text("title,label_included\nA,yes\n")
    refused = litcorpus("screen", "simulate", str(bad))
    assert refused.returncode == 1 and "label 'yes' is not 0 or 1" in refused.stderr


def test_the_update_flow_counts_every_screened_record(queued: Path, tmp_path: Path) -> None:
    """A round by hand: S001 (10 records, 0 duplicates), S002 a paper list (3 records: one
    duplicate of S001, one of the corpus). Decisions: 2 included, 5 excluded (3 title and
    abstract, 2 full text), 3 set aside by the stopping rule, 1 still pending."""
    rows = [
        RELEVANT[0],
        "A second list of agent training methods",
        "AgentBench: Evaluating LLMs as Agents",
    ]
    dois = ["10.5555/test.0", "10.5555/list.1", ""]
    listed = export(tmp_path / "list.csv", rows, dois)
    run = litcorpus("search", "import", str(listed), "--root", str(queued),
                    "--source", "csv", "--query", "README section RL", "--method", "website",
                    "--database", "GitHub paper lists", "--family", "multi_agent_llm")  # fmt: skip
    assert "3 records found, 2 duplicates removed, 1 queued" in run.stdout, run.stdout + run.stderr
    t = ids_by_title(queued)
    for title in RELEVANT[:2]:
        assert decide(queued, t[title], "include").returncode == 0
    for title, stage in zip(
        IRRELEVANT[:5], ["abstract_screen"] * 3 + ["full_text_screen"] * 2, strict=True
    ):
        args = ("exclude", "--reason", "X3", "--note", NOTE, "--stage", stage)
        assert decide(queued, t[title], *args).returncode == 0
    from litcorpus.analysis.result import analyse
    from litcorpus.model.corpus import load_corpus

    queue = queue_of(queued)
    for qid in [t[RELEVANT[2]], t[RELEVANT[3]], t[IRRELEVANT[5]]]:
        queue[qid]["state"] = "set_aside"
    (queued / "screening/queue.jsonl").write_text(
        "".join(json.dumps(q) + "\n" for q in queue.values())
    )
    flow = analyse(load_corpus(queued), stats=False).update
    assert flow is not None
    s, o = flow["searches"], flow["other"]
    assert (s["identified"], s["duplicates"], s["automation"], s["awaiting"]) == (10, 0, 3, 0)
    assert s["sources"] == [
        {
            "database": "Test index",
            "method": "database",
            "searches": 1,
            "records_found": 10,
            "duplicates": 0,
            "unscreenable": 0,
        }
    ]
    assert (s["included"], sum(st["excluded"] for st in s["stages"])) == (2, 5)
    assert [st["excluded"] for st in s["stages"]] == [0, 3, 2, 0]
    assert (o["identified"], o["duplicates"], o["awaiting"], o["included"]) == (3, 2, 1, 0)
    assert flow["new_studies"] == 2 and flow["total_studies"] == flow["previous"]["studies"] + 2


def test_a_record_not_retrieved_leaves_the_queue_and_fills_prismas_box(queued: Path) -> None:
    """One record of S001 cannot be read anywhere: it is marked not retrieved with a note,
    leaves the open records, and the update flow and the PRISMA2020 template count it as
    screened on its title, sought and not retrieved (10 records: 1 included, 1 excluded on
    title and abstract, 1 not retrieved, 7 pending)."""
    t = ids_by_title(queued)
    lost, kept, out = t[RELEVANT[1]], t[RELEVANT[0]], t[IRRELEVANT[0]]
    assert decide(queued, kept, "include").returncode == 0
    assert decide(queued, out, "exclude", "--reason", "X3", "--note", NOTE).returncode == 0
    before = (queued / "screening/queue.jsonl").read_bytes()
    where = ["screen", "not-retrieved", lost, "--root", str(queued), "--reviewer", "ana"]
    empty = litcorpus(*where, "--note", "  ")
    assert empty.returncode == 2 and "--note is needed" in empty.stderr, empty.stderr
    decided = litcorpus(*where[:2], kept, *where[3:], "--note", "Sought on arXiv.")
    assert decided.returncode == 1 and f"{kept} is included" in decided.stderr
    assert (queued / "screening/queue.jsonl").read_bytes() == before
    done = litcorpus(*where, "--note", "No abstract or PDF at the workshop page or on arXiv.")
    assert done.returncode == 0 and "marked not retrieved" in done.stdout, done.stderr
    record = queue_of(queued)[lost]
    assert record["state"] == "not_retrieved"
    assert record["not_retrieved"]["note"] == "No abstract or PDF at the workshop page or on arXiv."
    assert record["not_retrieved"]["by"] == "ana"
    listed = litcorpus("screen", "list", "--root", str(queued), "--format", "json")
    assert lost not in {r["id"] for r in json.loads(listed.stdout)}
    checked = litcorpus("check", "--root", str(queued)).stdout  # the scaffold waits for tags
    assert "queue-invalid" not in checked and "search-mismatch" not in checked, checked

    from litcorpus.analysis.result import analyse
    from litcorpus.model.corpus import load_corpus
    from litcorpus.publish.prisma2020 import prisma2020_csv

    flow = analyse(load_corpus(queued), stats=False).update
    assert flow is not None
    s = flow["searches"]
    assert (s["not_retrieved"], s["awaiting"], s["included"]) == (1, 7, 1)
    rows = csv.DictReader(io.StringIO(prisma2020_csv({"stages": [{}, {}]}, {}, flow) or ""))
    n = {r["data"]: r["n"] for r in rows}
    assert n["records_screened"] == "3" and n["records_excluded"] == "1"
    assert (n["dbr_sought_reports"], n["dbr_notretrieved_reports"], n["dbr_assessed"]) == (
        "2",
        "1",
        "1",
    )

    found = decide(queued, lost, "include")  # found later: decided, its search kept on record
    assert found.returncode == 0, found.stderr
    record = queue_of(queued)[lost]
    assert record["state"] == "included" and record["not_retrieved"]["by"] == "ana"
    checked = litcorpus("check", "--root", str(queued)).stdout
    assert "queue-invalid" not in checked and "search-mismatch" not in checked, checked


def test_a_search_run_on_a_releases_day_after_it_counts_after_it(
    queued: Path, tmp_path: Path
) -> None:
    """A release is made, and a second search is run and screened the same day: the release's
    flow keeps its first search's 10 records, excluded, and the live flow since the release
    counts the second search's 2 records alone, in the databases arm."""
    for qid in ids_by_title(queued).values():
        assert decide(queued, qid, "exclude", "--reason", "X3", "--note", NOTE).returncode == 0
    release = litcorpus("release", "--root", str(queued), "2026.12")
    assert release.returncode == 0, release.stderr
    titles = ["Tidal patterns of a northern fjord", "Lichen growth on granite walls"]
    later = export(tmp_path / "later.csv", titles, ["10.5555/later.0", "10.5555/later.1"])
    run = litcorpus("search", "import", str(later), "--root", str(queued), "--source", "csv",
                    "--query", "agents again", "--database", "Test index",
                    "--family", "multi_agent_llm")  # fmt: skip
    assert "2 records found, 0 duplicates removed, 2 queued" in run.stdout, run.stdout + run.stderr
    for qid, record in queue_of(queued).items():
        if record["state"] == "pending":
            assert decide(queued, qid, "exclude", "--reason", "X3", "--note", NOTE).returncode == 0
    from litcorpus.analysis.result import analyse
    from litcorpus.model.corpus import load_corpus

    corpus = load_corpus(queued)
    live = analyse(corpus, stats=False).update
    assert live is not None and live["previous"]["version"] == "2026.12"
    s = live["searches"]
    assert (s["identified"], s["duplicates"], s["included"]) == (2, 0, 0)
    assert sum(st["excluded"] for st in s["stages"]) == 2
    assert live["other"]["identified"] == 0
    out = tmp_path / "r"
    stats = litcorpus("stats", "--root", str(queued), "--as-of", "2026.12", "--out", str(out))
    assert stats.returncode == 0, stats.stderr
    held = json.loads((out / "stats.json").read_text())["prisma_update"]["searches"]
    assert (held["identified"], sum(st["excluded"] for st in held["stages"])) == (10, 10)


def test_the_rankings_weights_give_the_relevant_records_9_8_times_the_irrelevant() -> None:
    """One relevant and three irrelevant records: by hand, 1 and 1/29.4 each before scaling; their
    sum, 1 + 3/29.4 = 1.10204, is scaled to 4, so 3.6296 and 0.1235 each, and
    3.6296 / (3 x 0.1235) = 9.8."""
    import numpy as np

    from litcorpus.screening.rank import sample_weights

    w = sample_weights(np.array([1, 0, 0, 0]))
    assert w.round(4).tolist() == [3.6296, 0.1235, 0.1235, 0.1235]
    assert round(w[0] / w[1:].sum(), 6) == 9.8 and round(w.mean(), 12) == 1.0


def test_the_estimate_of_relevant_records_left_follows_the_queue_not_the_corpus() -> None:
    import numpy as np

    from litcorpus.screening.rank import estimate_left

    # ten open records the model gives 0.8 each, trained where 72% were relevant; twenty
    # decisions on search results, none relevant: share (0 + 1) / (20 + 2) = 1/22. By hand:
    # odds 0.8/0.2 = 4, times (1/21) / (0.72/0.28) = 0.0185185, is 0.074074: p = 0.068966
    total, low, high = estimate_left(0.72, np.full(10, 0.8), 0, 20)
    assert round(total, 3) == 0.690
    # the range of a sum of ten Bernoulli(0.068966): 1.96 * sqrt(10 * p * (1 - p)) = 1.5706
    assert (round(low, 2), round(high, 2)) == (0.0, 2.26)
    # half the decisions relevant: share 11/22 = 0.5, odds 4 * 1 / 2.5714 = 1.5556, p = 0.6087
    assert round(estimate_left(0.72, np.full(10, 0.8), 10, 20)[0], 2) == 6.09


def test_no_estimate_before_five_decisions_on_search_results(queued: Path) -> None:
    listed = litcorpus("screen", "list", "--root", str(queued))
    assert "estimated relevant left: not yet (it needs 5 decisions on records of these" in (
        listed.stdout
    )
    ids = ids_by_title(queued)
    for title in IRRELEVANT[:5]:
        assert (
            decide(queued, ids[title], "exclude", "--reason", "X3", "--note", NOTE).returncode == 0
        )
    verdict = litcorpus("screen", "stopping", "--root", str(queued))
    assert "95% range" in verdict.stdout and "a model's guess, not a count" in verdict.stdout


def test_an_empty_queue_lists_and_says_stop_without_failing(clone: Path) -> None:
    """No record left to screen: the estimate is none left, not a crash."""
    for command in ("list", "stopping"):
        run = litcorpus("screen", command, "--root", str(clone))
        assert run.returncode == 0, run.stderr
        assert "Traceback" not in run.stderr
    assert "estimated relevant among them: 0.0 (95% range 0.0-0.0" in run.stdout
