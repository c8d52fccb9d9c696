"""Makes corpus text safe for the formats litcorpus writes, whatever a record holds.

- CSV: a cell starting with =, +, -, @, a tab or a carriage return is read as a formula by
  spreadsheets; following the OWASP guidance on CSV injection, such a cell gets a leading
  apostrophe (and the csv module quotes what needs quoting).
- Markdown: inline text is one line with Markdown's and HTML's punctuation backslash-escaped,
  so it opens no link, heading, emphasis or tag; a link's address has every character that
  could end it or start markup percent-encoded.
- LaTeX: the ten special characters become their commands.
- JavaScript: data for a page is JSON inside a string literal given to JSON.parse (a browser
  parses a large JSON string several times faster than the same object literal), with the
  backslashes, quotes and line separators that would end or break the literal escaped.
- BibTeX: braces are what ends a field, and BibTeX counts them even after a backslash, so a
  brace in text becomes \\textbraceleft{} or \\textbraceright{} and one in an address is
  percent-encoded: every field stays balanced and no value can close its entry.
"""

from __future__ import annotations

import json
import re
from typing import Any
from urllib.parse import quote

from pylatexenc.latexencode import unicode_to_latex

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")
_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>|])")
_SPACE = re.compile(r"\s+")
_LATEX = {
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "\\": r"\textbackslash{}",
}
_LATEX_SPECIAL = re.compile(r"[&%$#_{}~^\\]")
# Kept as they are in an address: RFC 3986's reserved and unreserved characters, and '%'
# (already-encoded addresses stay as written), except ( ) ' which Markdown reads.
_URL_SAFE = ":/?#@!$&*+,;=-._~%"


def csv_cell(value: object) -> object:
    """VALUE, with an apostrophe before text that a spreadsheet would run as a formula, and
    any carriage return read as the line break it stands for (a CSV writer leaves a lone CR
    unquoted, and a reader then splits the row)."""
    if not isinstance(value, str):
        return value
    if value.startswith(_FORMULA_START):
        value = "'" + value
    return value.replace("\r\n", "\n").replace("\r", "\n")


def js_data(name: str, data: Any) -> bytes:
    """A script that sets window.NAME to DATA: `window.NAME = JSON.parse('...');`."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    literal = (
        text.replace("\\", "\\\\")
        .replace("'", "\\'")
        .replace("\u2028", "\\u2028")
        .replace("\u2029", "\\u2029")
        .replace("</", "<\\/")
    )
    return f"window.{name} = JSON.parse('{literal}');\n".encode()


def md_text(text: object) -> str:
    """TEXT as one line of inline Markdown that renders as the text itself."""
    return _MD_SPECIAL.sub(r"\\\1", _SPACE.sub(" ", str(text)).strip())


def md_url(url: str) -> str:
    """URL as a Markdown link destination: nothing in it can close the link early."""
    return quote(url.strip(), safe=_URL_SAFE)


def latex_text(text: str) -> str:
    return _LATEX_SPECIAL.sub(lambda m: _LATEX[m.group()], text)


def bib_text(text: str) -> str:
    """TEXT in LaTeX for a BibTeX field, on one line, with no brace that could unbalance the
    field."""
    one_line = " ".join(text.split())
    latex = str(unicode_to_latex(one_line, non_ascii_only=False, unknown_char_policy="keep"))
    # the encoder writes a brace of the text, and only those, as \{ or \}
    return latex.replace(r"\{", r"\textbraceleft{}").replace(r"\}", r"\textbraceright{}")


def bib_verbatim(value: str) -> str:
    """An address or identifier for a BibTeX field read verbatim (url, doi, eprint)."""
    return quote(value.strip(), safe=_URL_SAFE + "()'")
