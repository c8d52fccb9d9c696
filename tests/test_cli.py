"""The `litcorpus check` command as a user runs it: output formats and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from conftest import REPO, edit

LITCORPUS = [sys.executable, "-m", "litcorpus"]


def run(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([*LITCORPUS, *args], cwd=cwd, capture_output=True, text=True, timeout=60)


def test_clean_corpus_exits_zero(mini_root: Path) -> None:
    result = run("check", "--root", str(mini_root))
    assert result.returncode == 0, result.stdout
    assert result.stdout.strip() == "ok"


def test_problems_exit_one_with_text_lines(mini_root: Path) -> None:
    edit(mini_root / "papers/alpha-rl.yaml", "category: rl_method", "category: rl-method")
    result = run("check", "--root", str(mini_root))
    assert result.returncode == 1
    assert (
        "papers/alpha-rl.yaml:12:1: unknown-value: 'rl-method' is not a value of category "
        "(did you mean 'rl_method'?"
    ) in result.stdout
    assert "Traceback" not in result.stdout + result.stderr


def test_json_format_matches_contract(mini_root: Path) -> None:
    edit(mini_root / "papers/alpha-rl.yaml", "summary:", "sumary:")
    result = run("check", "--root", str(mini_root), "--format", "json")
    assert result.returncode == 1
    report = json.loads(result.stdout)
    assert report["ok"] is False
    keys = {"path", "line", "column", "code", "severity", "field", "message", "hint"}
    assert all(set(p) == keys for p in report["problems"])
    codes = {(p["code"], p["field"]) for p in report["problems"]}
    assert codes == {("unknown-field", "sumary"), ("missing-field", "summary")}
    unknown = next(p for p in report["problems"] if p["code"] == "unknown-field")
    assert "did you mean 'summary'" in unknown["hint"]


def test_warnings_pass_unless_strict(mini_root: Path) -> None:
    edit(mini_root / "papers/alpha-rl.yaml", "venue: arXiv", "venue: 'arXiv '")
    assert run("check", "--root", str(mini_root)).returncode == 0
    assert run("check", "--root", str(mini_root), "--strict").returncode == 1


def test_usage_errors_exit_two(tmp_path: Path) -> None:
    assert run("check", "--format", "xml").returncode == 2
    assert run("check", "--root", str(tmp_path)).returncode == 2
    assert run("no-such-command").returncode == 2


def test_root_defaults_to_the_enclosing_repository(mini_root: Path) -> None:
    result = run("check", cwd=mini_root / "papers")
    assert result.returncode == 0 and result.stdout.strip() == "ok"


def test_root_before_the_command_name(mini_root: Path, tmp_path: Path) -> None:
    """`litcorpus --root DIR COMMAND` works as `COMMAND --root DIR` does, for a command and a
    command of a group, from a folder outside any corpus; the command's own --root wins."""
    assert run("--root", str(mini_root), "check", cwd=tmp_path).stdout.strip() == "ok"
    listed = run("--root", str(mini_root), "screen", "list", cwd=tmp_path)
    assert listed.returncode == 0, listed.stderr
    wrong = run("--root", str(tmp_path), "check", "--root", str(mini_root), cwd=tmp_path)
    assert wrong.returncode == 0 and wrong.stdout.strip() == "ok"
    missing = run("--root", str(tmp_path), "claims", cwd=tmp_path)
    assert missing.returncode == 2 and "holds no taxonomy.yaml" in missing.stderr


def test_check_stays_light() -> None:
    """`check` serves as a pre-commit hook: it loads neither click nor pandas nor matplotlib."""
    code = (
        "import sys; sys.argv = ['litcorpus', 'check', '--root', sys.argv[1]]\n"
        "from litcorpus.entry import main\n"
        "try: main()\n"
        "except SystemExit: pass\n"
        "print(sorted(m for m in ('click', 'pandas', 'matplotlib', 'jinja2') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(REPO)], capture_output=True, text=True, timeout=60
    )
    assert out.stdout.strip().splitlines()[-1] == "[]"


def test_quick_check_path_answers_like_the_click_command(mini_root: Path) -> None:
    """`litcorpus check` without click gives the click command's output and exit code."""
    edit(mini_root / "papers/alpha-rl.yaml", "category: rl_method", "category: rl-method")
    via_click = [sys.executable, "-c", "from litcorpus.cli import cli; cli(prog_name='litcorpus')"]
    for args in (
        ["check", "--root", str(mini_root)],
        ["check", f"--root={mini_root}", "--format", "json", "--strict"],
        ["check", "--strict", "--format=json", "--root", str(mini_root)],
    ):
        quick = run(*args)
        clicked = subprocess.run([*via_click, *args], capture_output=True, text=True, timeout=60)
        assert (quick.returncode, quick.stdout) == (clicked.returncode, clicked.stdout) != (0, "")
    for args in (["check", "--help"], ["check", "--root", str(mini_root / "papers")]):
        quick, clicked = (
            run(*args),
            subprocess.run([*via_click, *args], capture_output=True, text=True, timeout=60),
        )
        assert (quick.returncode, quick.stdout, quick.stderr) == (
            clicked.returncode,
            clicked.stdout,
            clicked.stderr,
        )


def test_console_scripts_installed() -> None:
    bindir = Path(sys.executable).parent
    for name in ("litcorpus", "orchtrace"):
        result = subprocess.run(
            [str(bindir / name), "--version"], capture_output=True, text=True, timeout=60
        )
        assert result.returncode == 0 and name in result.stdout


def on_terminal(*args: str) -> tuple[int, str]:
    """Run litcorpus with stderr on a pseudo-terminal; returns the exit code and what it drew."""
    import os
    import pty

    main, tty = pty.openpty()
    proc = subprocess.Popen([*LITCORPUS, *args], stdout=subprocess.DEVNULL, stderr=tty)
    os.close(tty)
    drawn = b""
    while True:
        try:
            chunk = os.read(main, 4096)
        except OSError:  # the child closed its end
            break
        if not chunk:
            break
        drawn += chunk
    os.close(main)
    return proc.wait(timeout=120), drawn.decode(errors="replace")


def test_progress_is_drawn_on_a_terminal_and_silent_in_a_pipe(
    mini_root: Path, tmp_path: Path
) -> None:
    site = ("site", "--root", str(mini_root), "--out", str(tmp_path / "site"))
    piped = run(*site)
    assert piped.returncode == 0 and piped.stderr == ""
    code, drawn = on_terminal(*site)
    assert code == 0
    for stage in ("reading records 5/5", "checking records 5/5", "writing pages 3/3"):
        assert stage in drawn
    code, drawn = on_terminal("stats", "--root", str(mini_root), "--out", str(tmp_path / "s"))
    assert code == 0 and "writing files" in drawn
    code, drawn = on_terminal("check", "--root", str(mini_root))
    assert code == 0 and "reading records 5/5" in drawn and "checking records 5/5" in drawn
