"""The three packages as people install them: regular (not editable) installs of wheels built
from packages/, each into a fresh virtual environment, from the wheels `make test` downloaded
into .cache/wheelhouse (no network here). orchtrace alone scores a trace in a trainer's call
and brings none of the corpus toolkit's libraries; each extra brings only its own; litcorpus
runs `check` without orchtrace."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from conftest import CORPUS_FIXTURES, REPO, TRACE_FIXTURES

WHEELHOUSE = REPO / ".cache" / "wheelhouse"
HEAVY = {"pandas", "matplotlib", "scikit-learn", "jinja2", "bibtexparser", "pyarrow", "duckdb",
         "ray", "litcorpus"}  # fmt: skip
EXAMPLE = REPO / "traces" / "examples" / "centralized.json"


def run(*args: str | Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(a) for a in args], capture_output=True, text=True, cwd=cwd,
                          timeout=600)  # fmt: skip


@pytest.fixture(scope="module")
def wheels(tmp_path_factory: pytest.TempPathFactory) -> Path:
    assert (WHEELHOUSE / ".done").is_file(), "run `make test`: it fills .cache/wheelhouse"
    out = tmp_path_factory.mktemp("wheels")
    for name in ("surewrite", "orchtrace", "litcorpus"):
        built = run(sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-index",
                    "--find-links", WHEELHOUSE, "--wheel-dir", out, REPO / "packages" / name,
                    cwd=out)  # fmt: skip
        assert built.returncode == 0, built.stderr[-3000:]
    return out


class Venv:
    """A fresh environment without pip of its own: this one's pip installs into it."""

    def __init__(self, folder: Path, wheels: Path) -> None:
        made = run(sys.executable, "-m", "venv", "--without-pip", folder, cwd=folder.parent)
        assert made.returncode == 0, made.stderr
        self.folder, self.bin, self.wheels = folder, folder / "bin", wheels

    def pip(self, *args: str | Path) -> subprocess.CompletedProcess[str]:
        python = self.bin / "python"
        return run(sys.executable, "-m", "pip", "--python", python, *args, cwd=self.folder)

    def install(self, *requirements: str) -> None:
        done = self.pip("install", "--quiet", "--no-compile", "--no-index", "--find-links",
                        WHEELHOUSE, "--find-links", self.wheels, *requirements)  # fmt: skip
        assert done.returncode == 0, done.stderr[-3000:]

    def names(self) -> set[str]:
        listed = self.pip("list", "--format", "json")
        return {p["name"].lower().replace("_", "-") for p in json.loads(listed.stdout)}


@pytest.fixture(scope="module")
def trainer_env(tmp_path_factory: pytest.TempPathFactory, wheels: Path) -> Venv:
    env = Venv(tmp_path_factory.mktemp("trainer") / "venv", wheels)
    env.install("orchtrace")
    return env


def test_orchtrace_alone_brings_only_its_core(trainer_env: Venv) -> None:
    names = trainer_env.names()
    assert {"orchtrace", "surewrite", "orjson", "msgspec", "numpy", "jsonschema", "click"} <= names
    assert not names & HEAVY, names & HEAVY
    assert "awesome-llm-mas-rl" not in names


def test_a_trainer_scores_a_trace_with_the_installed_package(trainer_env: Venv) -> None:
    """The schema ships inside the wheel: scoring and validating work away from the checkout."""
    code = (
        "import sys, json; from orchtrace.trainers import trl_reward, compute_score;"
        "text = open(sys.argv[1]).read();"
        "print(json.dumps([trl_reward('critical_steps')(completions=[text, 'no trace']),"
        " compute_score(solution_str=text, reward='finish_rate')['score']]))"
    )
    done = run(trainer_env.bin / "python", "-c", code, EXAMPLE, cwd=trainer_env.folder)
    assert done.returncode == 0, done.stderr[-3000:]
    (critical, missing), finish = json.loads(done.stdout)
    assert critical == 4.0 and missing is None  # the PARL column of the centralized example
    assert finish == 1.0
    checked = run(trainer_env.bin / "orchtrace", "validate", EXAMPLE, cwd=trainer_env.folder)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_command_that_needs_an_extra_names_it(trainer_env: Venv, tmp_path: Path) -> None:
    done = run(trainer_env.bin / "orchtrace", "table", EXAMPLE, "--out", tmp_path / "run.parquet",
               cwd=tmp_path)  # fmt: skip
    assert done.returncode == 2
    assert "needs pyarrow: pip install 'orchtrace[runs]'" in done.stderr
    assert "Traceback" not in done.stderr and not list(tmp_path.iterdir())
    export = TRACE_FIXTURES / "exports" / "openinference-langgraph.pb"  # OTLP protobuf
    done = run(trainer_env.bin / "orchtrace", "import", export, "--out", tmp_path / "traces",
               cwd=tmp_path)  # fmt: skip
    assert done.returncode == 1, done.stderr
    assert "needs opentelemetry-proto: pip install 'orchtrace[otlp]'" in done.stderr
    assert "Traceback" not in done.stderr and not list(tmp_path.iterdir())


@pytest.mark.parametrize(
    ("extra", "brings"),
    [("runs", {"pyarrow", "duckdb", "zstandard"}), ("otlp", {"opentelemetry-proto", "protobuf"})],
)
def test_each_extra_brings_only_its_own(
    tmp_path: Path, wheels: Path, extra: str, brings: set[str]
) -> None:
    env = Venv(tmp_path / "venv", wheels)
    env.install("orchtrace")
    before = env.names()
    env.install(f"orchtrace[{extra}]")
    assert env.names() - before == brings


def test_the_ray_extra_is_the_run_tables_and_ray(wheels: Path) -> None:
    wheel = next(wheels.glob("orchtrace-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        meta = z.read(next(n for n in z.namelist() if n.endswith(".dist-info/METADATA"))).decode()
    ray = sorted(line.split(":", 1)[1].split(";")[0].strip() for line in meta.splitlines()
                 if line.startswith("Requires-Dist:") and "extra == \"ray\"" in line)  # fmt: skip
    assert ray == ["orchtrace[runs]", "ray[data]<3,>=2.40"]


def test_litcorpus_checks_a_corpus_without_orchtrace(tmp_path: Path, wheels: Path) -> None:
    env = Venv(tmp_path / "venv", wheels)
    env.install("litcorpus")
    names = env.names()
    assert "litcorpus" in names and "surewrite" in names and "orchtrace" not in names
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS_FIXTURES / "survey2", corpus)
    done = run(env.bin / "litcorpus", "check", "--strict", cwd=corpus)
    assert done.returncode == 0, done.stdout + done.stderr
    # a corpus that documents a trace schema asks for the extra, and writes nothing
    shutil.copytree(REPO / "node_modules" / "minisearch", corpus / "node_modules" / "minisearch")
    (corpus / "traces").mkdir()
    shutil.copy(REPO / "traces" / "trace.schema.json", corpus / "traces")
    site = run(env.bin / "litcorpus", "site", "--out", tmp_path / "site", cwd=corpus)
    assert site.returncode == 1
    assert "pip install 'litcorpus[traces]'" in site.stderr and "Traceback" not in site.stderr
    assert not (tmp_path / "site").exists()
    # without it, the site builds from the templates the wheel ships
    shutil.rmtree(corpus / "traces")
    site = run(env.bin / "litcorpus", "site", "--out", tmp_path / "site", cwd=corpus)
    assert site.returncode == 0, site.stderr
    assert (tmp_path / "site" / "index.html").is_file()
    assert not (tmp_path / "site" / "traces.html").exists()
