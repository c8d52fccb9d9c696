"""surewrite on its own: files replaced whole, new files created all or none, output folders
swapped at once and marked as the tool's, and paths that would carry a write elsewhere refused."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from surewrite.errors import OutputError
from surewrite.files import write_file, write_new_files
from surewrite.paths import below, check_dir_output
from surewrite.tree import read_tree, stale, write_tree


def test_a_file_is_replaced_whole_and_leaves_nothing_beside_it(tmp_path: Path) -> None:
    target = tmp_path / "out.json"
    target.write_text("old")
    write_file(target, b"new")
    assert target.read_bytes() == b"new"
    assert [p.name for p in tmp_path.iterdir()] == ["out.json"]


def test_new_files_are_created_all_or_none(tmp_path: Path) -> None:
    (tmp_path / "b.yaml").write_text("theirs\n")
    files = {tmp_path / "a.yaml": b"a\n", tmp_path / "b.yaml": b"b\n"}
    with pytest.raises(OutputError):
        write_new_files(files, tmp_path / ".journal")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["b.yaml"]
    assert (tmp_path / "b.yaml").read_text() == "theirs\n"
    write_new_files({tmp_path / "a.yaml": b"a\n"}, tmp_path / ".journal")
    assert (tmp_path / "a.yaml").read_text() == "a\n"
    assert not (tmp_path / ".journal").exists()


def test_a_tree_is_swapped_whole_and_marked_as_the_tools(tmp_path: Path) -> None:
    out = tmp_path / "site"
    assert write_tree(out, {"index.html": b"1", "a/b.html": b"2"}, "t", "site") == (2, 2)
    marker = {".t-output": b"t site\na/b.html\nindex.html\n"}  # the tool, the kind, the files
    assert read_tree(out) == {"index.html": b"1", "a/b.html": b"2", **marker}
    assert stale(out, {"index.html": b"1", "a/b.html": b"2"}, "t", "site") == []
    count, written = write_tree(out, {"index.html": b"1"}, "t", "site")
    assert (count, written) == (1, 0)  # unchanged content is linked, not written again
    assert read_tree(out) == {"index.html": b"1", ".t-output": b"t site\nindex.html\n"}
    with pytest.raises(OutputError, match="not of t stats"):
        write_tree(out, {"x": b""}, "t", "stats")  # another kind of output: refused


def test_a_folder_the_tool_did_not_make_is_refused(tmp_path: Path) -> None:
    mine = tmp_path / "notes"
    mine.mkdir()
    (mine / "todo.txt").write_text("keep\n")
    with pytest.raises(OutputError) as caught:
        write_tree(mine, {"index.html": b""}, "t", "site")
    assert caught.value.code == "output-refused"
    assert json.dumps(sorted(p.name for p in mine.iterdir())) == '["todo.txt"]'


def test_a_write_through_a_symbolic_link_is_refused(tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "root").mkdir()
    (tmp_path / "root" / "link").symlink_to(tmp_path / "elsewhere")
    assert below(tmp_path / "root", "a/b.yaml") == tmp_path / "root" / "a" / "b.yaml"
    for rel in ("link/x.yaml", "../x.yaml", "/etc/passwd"):
        with pytest.raises(OutputError):
            below(tmp_path / "root", rel)


def test_an_earlier_output_may_be_replaced_and_an_empty_folder_used(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    assert check_dir_output(tmp_path / "empty", "t", "site") == tmp_path / "empty"
    own = tmp_path / "own"
    own.mkdir()
    (own / "index.html").write_text("x")
    (own / ".t-output").write_text("t site\nindex.html\n")
    assert check_dir_output(own, "t", "site") == own
    with pytest.raises(OutputError, match="not of t stats"):
        check_dir_output(own, "t", "stats")


@pytest.mark.parametrize("name", ["../README.md", "/ABS/x", "tables/../../x", "a//b", "./a"])
def test_a_tree_file_that_would_leave_its_folder_is_refused(tmp_path: Path, name: str) -> None:
    """The last line behind the checked ids: whatever names a file of a tree, it stays in it.
    (An absolute name points into the test's folder: a regression must not write elsewhere.)"""
    from surewrite.tree import write_tree

    name = name.replace("/ABS", str(tmp_path))
    (tmp_path / "README.md").write_text("mine\n")
    with pytest.raises(OutputError) as caught:
        write_tree(tmp_path / "out", {"index.html": b"x", name: b"table\n"}, "t", "site")
    assert caught.value.code == "output-refused"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["README.md"]
    assert (tmp_path / "README.md").read_text() == "mine\n"
