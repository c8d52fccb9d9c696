"""The problem cases of the files beside the entries: claims.yaml, the second reader's and the
audit's worksheets, the search log, the screening queue, releases.yaml and the PRISMA flow."""

from __future__ import annotations

from corpusfixtures import edit
from problemcases import QUEUED, A, B, C, Case, R, T, audited, change, write

# an included queued record whose decision's file is RECORD
DECIDED = QUEUED.replace(
    '"state": "pending"',
    (
        '"state": "included", "decisions": [{"reviewer": "r", "decision": "include", '
        '"date": "2026-06-01", "seq": 1}], "record": "RECORD"'
    ),
)

# fmt: off
CLAIM_CASES: list[Case] = [
    ("claim-unknown-axis", change(C, "{category: [benchmark]}", "{categry: [benchmark]}"),
     "unknown-field", C, 18),
    ("claim-unknown-value", change(C, "orchestration_decisions: [spawn]}\n    expect: {keys",
                                   "orchestration_decisions: [spawnn]}\n    expect: {keys"),
     "unknown-value", C, 12),
    ("claim-invalid", change(C, "{keys: [alpha-rl]}", "{keys: [alpha-rl, omega]}"),
     "claim-invalid", C, 13),
    ("claim-bad-operator", change(C, "{count: {le: 2, ge: 1}}", "{count: {atmost: 2}}"),
     "claim-invalid", C, 19),
    ("agreement-unknown-key", change("reviews/second-reader.csv", "gamma-survey,", "omega,"),
     "agreement-invalid", "reviews/second-reader.csv", 4),
    ("screening-audit-unknown-id", audited("id,decision\nRnothing0,include\n"),
     "screening-audit-invalid", "reviews/audit.csv", 2),
    ("prisma-arithmetic", change(C, "included: 3", "included: 4"), "prisma-mismatch", C, 41),
    ("release-bad-version", change(R, 'version: "2026.05"', 'version: "May 2026"'),
     "release-invalid", R, 2),
    ("claim-unknown-release", change(C, 'snapshot: "2026.05"\n    text: "Two',
                                     'snapshot: "2027.01"\n    text: "Two'),
     "unknown-value", C, 28),
    ("unsafe-id", change(T, "- id: reward-credit-gap", '- id: "../../../../README"'),
     "unsafe-id", T, 363),
    ("search-not-logged", change(A, "added: 2026-05-04", "added: 2026-05-04\nsearch: S009"),
     "search-invalid", A, 29),
    ("search-counts", lambda root: (
        (root / "searches.yaml").write_text(
            "searches:\n  - {id: S001, source: arxiv, query: agents, date_run: '2026-06-01',"
            " records_found: 3, duplicates: 1}\n"),
        edit(root / B, "added: 2026-05-04", "added: 2026-06-02\nsearch: S001")),
     "search-mismatch", "searches.yaml", 2),
    ("aggregator-page", change("exclusions/E002.yaml", "url: https://docs.example.com/epsilon",
                               "url: https://papers.example.org/2501.00001v2/similar"),
     "shared-address", "exclusions/E002.yaml", 4),
    ("saved-search-web-index", write(
        "saved-searches.yaml",
        "saved:\n  - {id: R001, source: openalex, query: agents, from: '2026-07-01'}\n"
        "  - {id: R002, source: web, query: agents, from: '2026-07-01'}\n"),
     "saved-search-invalid", "saved-searches.yaml", 3),
    ("queue-not-json", write("screening/queue.jsonl", '{"id": "Q0001", "title": "cut'),
     "queue-invalid", "screening/queue.jsonl", 1),
    ("queue-bad-state", write("screening/queue.jsonl", QUEUED.replace('"pending"', '"done"')),
     "queue-invalid", "screening/queue.jsonl", 1),
    ("queue-not-retrieved-unsaid", write("screening/queue.jsonl", QUEUED.replace(
        '"pending"', '"not_retrieved"')), "queue-invalid", "screening/queue.jsonl", 1),
    ("queue-repeated-key", write("screening/queue.jsonl", QUEUED.replace(
        '"state"', '"title": "Another", "state"')), "queue-invalid", "screening/queue.jsonl", 1),
    ("queue-unlogged-search", write("screening/queue.jsonl", QUEUED),
     "search-invalid", "screening/queue.jsonl", 1),
    ("queue-record-moved", write("screening/queue.jsonl", DECIDED.replace(
        "RECORD", "papers/omega.yaml")), "queue-invalid", "screening/queue.jsonl", 1),
    ("queue-record-of-other-kind", write("screening/queue.jsonl", DECIDED.replace(
        "RECORD", "exclusions/E001.yaml")), "queue-invalid", "screening/queue.jsonl", 1),
    ("prisma-records", lambda root: (
        edit(root / C, "abstract_screen: {assessed: 5, excluded: 1}",
             "abstract_screen: {assessed: 5, excluded: 2}"),
        edit(root / C, "full_text_screen: {assessed: 4", "full_text_screen: {assessed: 3"),
        edit(root / C, "artifact_screen: {assessed: 4", "artifact_screen: {assessed: 3"),
        edit(root / C, "included: 3", "included: 2")), "prisma-mismatch", C, 38),
]
# fmt: on
