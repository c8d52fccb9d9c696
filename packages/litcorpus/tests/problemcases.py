"""One small change of the fixture corpus per problem code `check` reports: (id, change, code,
path, line), and the builders of those changes."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from corpusfixtures import edit

# One queued record of a search export, as `search import` writes it (facts only).
QUEUED = (
    '{"id": "Q0001", "search": "S001", "title": "A queued study", "authors": ["Doe, Jane"], '
    '"year": 2026, "date": "", "venue": "arXiv", "ids": {"arxiv": "2601.00001"}, '
    '"url": "https://arxiv.org/abs/2601.00001", "state": "pending"}\n'
)


A = "papers/alpha-rl.yaml"


B = "papers/beta-bench.yaml"


X = "exclusions/E001.yaml"


T = "taxonomy.yaml"


C = "claims.yaml"


R = "releases.yaml"


def write(rel: str, content: str | bytes) -> Callable[[Path], None]:
    def action(root: Path) -> None:
        target = root / rel
        target.parent.mkdir(exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8")

    return action


def change(rel: str, old: str, new: str) -> Callable[[Path], None]:
    return lambda root: edit(root / rel, old, new)


def audited(worksheet: str) -> Callable[[Path], None]:
    """Declare a blind second screening whose worksheet is WORKSHEET."""

    def act(root: Path) -> None:
        (root / "reviews" / "audit.csv").write_text(worksheet, encoding="utf-8")
        anchor = "  # The reader tables and concept figures"
        edit(root / "taxonomy.yaml", anchor,
             "  screening_audit: {file: reviews/audit.csv, seed: 1}\n" + anchor)  # fmt: skip

    return act


def symlink(rel: str, target: str) -> Callable[[Path], None]:
    return lambda root: os.symlink(target, root / rel)


NESTED = "key: deep\nx: " + "[" * 40 + "]" * 40 + "\n"


# (case id, action on a valid corpus, expected code, path, line)
Case = tuple[str, Callable[[Path], None], str, str, int | None]  # id, change, code, path, line
CASES: list[Case] = [
    (
        "binary",
        write("papers/bin.yaml", b"key: x\x00\x01\x02"),
        "binary-file",
        "papers/bin.yaml",
        1,
    ),
    (
        "not-utf8",
        write("papers/latin.yaml", b"key: x\ntitle: caf\xe9\n"),
        "not-utf8",
        "papers/latin.yaml",
        2,
    ),
    ("bom", write("papers/bom.yaml", b"\xef\xbb\xbfkey: bom\n"), "bom", "papers/bom.yaml", 1),
    (
        "too-many-items",
        write("papers/long.yaml", "key: long\nx: [" + "1, " * 30_000 + "]\n"),
        "too-many-items",
        "papers/long.yaml",
        None,
    ),
    (
        "crlf",
        write("papers/crlf.yaml", b"key: crlf\r\ntitle: x\r\n"),
        "crlf",
        "papers/crlf.yaml",
        1,
    ),
    ("empty", write("papers/empty.yaml", "# nothing here\n"), "empty-file", "papers/empty.yaml", 1),
    ("syntax", change(A, "venue: arXiv", "venue: [arXiv"), "yaml-syntax", A, 8),
    ("tabs", change(A, "  - Roe, Richard", "\t- Roe, Richard"), "yaml-syntax", A, 5),
    ("alias", change(A, "venue: arXiv", "venue: &v arXiv\naffiliation2: *v"), "yaml-alias", A, 7),
    ("tag", change(A, "venue: arXiv", "venue: !!python/name:os.system arXiv"), "yaml-tag", A, 7),
    ("deep", write("papers/deep.yaml", NESTED), "too-deep", "papers/deep.yaml", 2),
    (
        "dup-yaml-key",
        change(A, "venue: arXiv", "venue: arXiv\nvenue: ICML"),
        "duplicate-yaml-key",
        A,
        8,
    ),
    (
        "too-large",
        write("papers/huge.yaml", "notes: " + "x" * (1 << 20) + "\n"),
        "file-too-large",
        "papers/huge.yaml",
        None,
    ),
    (
        "symlink-outside",
        symlink("papers/passwd.yaml", "/etc/hostname"),
        "symlink-outside",
        "papers/passwd.yaml",
        None,
    ),
    (
        "dangling-link",
        symlink("papers/gone.yaml", "missing.yaml"),
        "unreadable-file",
        "papers/gone.yaml",
        None,
    ),
    ("yml", write("papers/new.yml", "key: new\n"), "wrong-extension", "papers/new.yml", None),
    ("not-a-record", write("papers/notes.txt", "x\n"), "unexpected-file", "papers/notes.txt", None),
    (
        "list-document",
        write("papers/list.yaml", "- key: list\n"),
        "not-a-mapping",
        "papers/list.yaml",
        1,
    ),
    ("unknown-field", change(A, "summary:", "sumary:"), "unknown-field", A, 22),
    ("missing-field", change(A, 'summary: "Trains', 'old_summary: "Trains'), "missing-field", A, 1),
    ("required-when", change(A, "credit_granularity: orchestrator\n", ""), "missing-field", A, 1),
    ("measures-required", change(B, "benchmark_measures: [E1, E3]\n", ""), "missing-field", B, 1),
    ("wrong-type-list", change(A, "is_core: core", "is_core: [core]"), "wrong-type", A, 18),
    ("wrong-type-scalar", change(A, "[spawn, delegate]", "spawn"), "wrong-type", A, 20),
    ("wrong-type-int", change(A, "year: 2025", 'year: "2025"'), "wrong-type", A, 6),
    ("implicit-bool", change(A, 'is_rl: "yes"', "is_rl: yes"), "implicit-type", A, 13),
    (
        "implicit-float-id",
        change(A, 'arxiv: "2501.00001"', "arxiv: 2501.00010"),
        "implicit-type",
        A,
        10,
    ),
    ("implicit-date", change(A, "venue: arXiv", "venue: 2025-01-01"), "implicit-type", A, 7),
    ("year-future", change(A, "year: 2025", "year: 2999"), "out-of-range", A, 6),
    ("year-past", change(A, "year: 2025", "year: 1066"), "out-of-range", A, 6),
    ("negative-count", change(A, "max_agents: 8", "max_agents: 0"), "out-of-range", A, 21),
    ("url-scheme", change(A, "url: https://arxiv", "url: javascript://arxiv"), "bad-url", A, 11),
    (
        "url-form",
        change(A, "url: https://arxiv.org/abs/2501.00001", "url: https://arxiv"),
        "bad-url",
        A,
        11,
    ),
    (
        "two-urls",
        change(
            A, "url: https://arxiv.org/abs/2501.00001", "url: https://a.org/x ; https://b.org/y"
        ),
        "bad-url",
        A,
        11,
    ),
    (
        "bad-date",
        change(X, "date_screened: 2026-04-26", "date_screened: 2026-02-30"),
        "bad-date",
        X,
        8,
    ),
    (
        "future-date",
        change(X, "date_screened: 2026-04-26", "date_screened: 2999-01-01"),
        "bad-date",
        X,
        8,
    ),
    ("added-future", change(A, "added: 2026-05-04", "added: 2999-01-01"), "bad-date", A, 28),
    ("added-before-1950", change(X, "added: 2026-05-04", 'added: "1949-12-31"'), "bad-date", X, 12),
    ("added-missing", change(A, "added: 2026-05-04\n", ""), "missing-field", A, 1),
    ("bad-author", change(A, "  - Doe, Jane", "  - Doe, Jane, Roe, Richard"), "bad-author", A, 4),
    (
        "others-first",
        change(B, "  - Smith, Ann\n  - others", "  - others\n  - Smith, Ann"),
        "bad-author",
        B,
        4,
    ),
    ("others-alone", change(B, "  - Smith, Ann\n  - others", "  - others"), "bad-author", B, 4),
    ("bad-arxiv", change(A, 'arxiv: "2501.00001"', 'arxiv: "arXiv:2501.00001"'), "bad-id", A, 10),
    ("unknown-scheme", change(A, "  arxiv:", "  arxv:"), "unknown-field", A, 10),
    (
        "unknown-value",
        change(A, "category: rl_method", "category: rl-method"),
        "unknown-value",
        A,
        12,
    ),
    ("unknown-multi", change(A, "[spawn, delegate]", "[spawn, halt]"), "unknown-value", A, 20),
    (
        "not-applicable",
        change(A, "max_agents: 8", "max_agents: 8\nbenchmark_measures: [E1]"),
        "not-applicable",
        A,
        22,
    ),
    ("duplicate-value", change(A, "[spawn, delegate]", "[spawn, spawn]"), "duplicate-value", A, 20),
    (
        "missing-evidence",
        change(A, "  delegate: {source: survey_figure", "  stop: {source: survey_figure"),
        "missing-evidence",
        A,
        20,
    ),
    ("stray-evidence", change(A, "[spawn, delegate]", "[spawn]"), "stray-evidence", A, 26),
    (
        "unsafe-key",
        write("papers/Bad_Key.yaml", "key: Bad_Key\n"),
        "unsafe-key",
        "papers/Bad_Key.yaml",
        1,
    ),
    (
        "exclusion-id-form",
        write("exclusions/X9.yaml", "id: X9\n"),
        "unsafe-key",
        "exclusions/X9.yaml",
        1,
    ),
    ("key-mismatch", change(A, "key: alpha-rl", "key: alpha"), "key-mismatch", A, 1),
    ("whitespace", change(A, "venue: arXiv", "venue: 'arXiv '"), "whitespace", A, 7),
    ("control-nul", change(A, "venue: arXiv", 'venue: "arXiv\\0"'), "control-character", A, 7),
    ("bidi-override", change(A, "venue: arXiv", 'venue: "arXiv\\u202e"'), "bidi-control", A, 7),
    ("duplicate-key", change(B, "key: beta-bench", "key: alpha-rl"), "duplicate-key", B, 1),
    ("duplicate-id", change(B, '"2406.00002"', '"2501.00001"'), "duplicate-id", B, 10),
    (
        "shared-id",  # two papers of one code repository (tau-bench and tau2-bench): a warning
        lambda root: [
            edit(root / rel, f'arxiv: "{a}"', f'arxiv: "{a}"\n  github: sierra-research/tau2-bench')
            for rel, a in ((A, "2501.00001"), (B, "2406.00002"))
        ],
        "shared-id",
        B,
        11,
    ),
    (
        "duplicate-id-via-url",
        change(B, "https://arxiv.org/abs/2406.00002", "https://arxiv.org/abs/2501.00001v2"),
        "duplicate-id",
        B,
        11,
    ),
    (
        "near-duplicate-title",
        change(
            B,
            "BetaBench: Measuring Coordination Cost in Agent Teams",
            "Alpha: Learning to Spawn Sub-Agents with Reinforcement Learning!",
        ),
        "near-duplicate-title",
        B,
        2,
    ),
    (
        "retained-and-excluded",
        change(X, '"2301.00003"', '"2501.00001"'),
        "retained-and-excluded",
        X,
        4,
    ),
    (
        "retained-and-excluded-title",
        change(
            X,
            "Delta: Prompted Debate Without Training",
            "Alpha - Learning to spawn sub-agents with reinforcement learning",
        ),
        "retained-and-excluded",
        X,
        2,
    ),
    (
        "retired-value",
        lambda root: (
            edit(
                root / T,
                "      - {id: swarm, order: 4,",
                '      - {id: parallel, order: 9, label: Parallel, description: "Old name.", '
                "replaced_by: swarm}\n      - {id: swarm, order: 4,",
            ),
            edit(root / A, "orchestration_form: swarm", "orchestration_form: parallel"),
        ),
        "retired-value",
        A,
        16,
    ),
    (
        "taxonomy-duplicate-id",
        change(T, "{id: framework, order: 2", "{id: rl_method, order: 2"),
        "taxonomy-duplicate-id",
        T,
        None,
    ),
    (
        "taxonomy-duplicate-code",
        change(T, "{id: single_agent, code: X2", "{id: single_agent, code: X1"),
        "taxonomy-duplicate-code",
        T,
        None,
    ),
    (
        "taxonomy-duplicate-order",
        change(T, "{id: framework, order: 2", "{id: framework, order: 1"),
        "taxonomy-duplicate-order",
        T,
        None,
    ),
    (
        "taxonomy-bad-redirect",
        change(T, "{id: swarm, order: 4,", "{id: swarm, replaced_by: mob, order: 4,"),
        "taxonomy-bad-redirect",
        T,
        None,
    ),
    (
        "taxonomy-invalid",
        change(
            T,
            "    applies_to: paper\n    required: true\n    description: What kind",
            "    applies_to: papers\n    required: true\n    description: What kind",
        ),
        "taxonomy-invalid",
        T,
        None,
    ),
    (
        "taxonomy-implicit",
        change(
            T,
            'label: "Yes", description: "Reinforcement',
            'label: Yes, description: "Reinforcement',
        ),
        "implicit-type",
        T,
        None,
    ),
]
