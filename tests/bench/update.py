"""`litcorpus search update` of 50 saved searches against the recorded services on 127.0.0.1
(tests/recorded.py), run by `make bench` or alone: 35 on Crossref, 10 on OpenAlex, 5 on
Semantic Scholar (three pages each), with the APIs' politeness delays kept (they are what a
real run waits) and reported apart from the rest of the time. Target: the rest under a minute."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from recorded import Recorded  # noqa: E402
from snapshot import copy_snapshot  # noqa: E402

BIN = Path(sys.executable).parent


def main() -> None:
    plan = [("crossref", 35), ("openalex", 10), ("semanticscholar", 5)]
    with tempfile.TemporaryDirectory() as tmp:
        root = copy_snapshot(Path(tmp) / "corpus")
        lines = ["saved:"]
        n = 0
        for source, count in plan:
            for i in range(count):
                n += 1
                lines.append(f'  - {{id: "R{n:03d}", source: "{source}", query: "q{i}", '
                             'from: "2026-07-01"}')  # fmt: skip
        (root / "saved-searches.yaml").write_text("\n".join(lines) + "\n", encoding="utf-8")
        with Recorded() as server:
            env = {**os.environ, **server.env(), "LITCORPUS_POLITENESS": "1"}
            start = time.monotonic()
            run = subprocess.run(
                [str(BIN / "litcorpus"), "search", "update", "--root", str(root)],
                capture_output=True, text=True, env=env,
            )  # fmt: skip
            seconds = time.monotonic() - start
    summary = run.stdout.strip().splitlines()[-1] if run.stdout.strip() else run.stderr
    m = re.search(r"\(([\d.]+) s of it the APIs' politeness delays\)", run.stdout)
    polite = float(m.group(1)) if m else float("nan")
    result = {"searches": n, "seconds": round(seconds, 2), "politeness": polite,
              "rest": round(seconds - polite, 2), "exit": run.returncode}  # fmt: skip
    print(f"update of {n} saved searches: {seconds:.1f} s, of it {polite:.1f} s politeness "
          f"delays, the rest {seconds - polite:.1f} s (target: under 60 s); {summary}")  # fmt: skip
    out = HERE.parents[1] / ".cache" / "bench" / "update.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
