"""Reads taxonomy.yaml: record kinds, their fields, the axes and their values, the id schemes.

Everything the validator, statistics and site know about the corpus's vocabulary comes from
here; `load_taxonomy` also checks the taxonomy's own consistency and returns its problems.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .problems import Problem
from .sections import Section, text_problems
from .yamlio import Document, FieldPath, read_document

if TYPE_CHECKING:
    from .views import Views

TAXONOMY_FILE = "taxonomy.yaml"
FIELD_TYPES = {"slug", "string", "text", "int", "date", "url", "urls", "authors", "ids", "evidence"}


@dataclass(frozen=True, slots=True)
class Value:
    id: str
    label: str
    description: str
    order: int
    code: str | None = None
    family: str | None = None
    replaced_by: str | None = None

    @property
    def retired(self) -> bool:
        return self.replaced_by is not None


@dataclass(frozen=True, slots=True)
class FieldSpec:
    id: str
    type: str
    required: bool = False
    description: str = ""
    pattern: str | None = None
    min: int | None = None
    max_years_ahead: int | None = None
    axes: tuple[str, ...] = ()  # evidence: the axes whose tagged values need an item
    sources: tuple[str, ...] = ()  # evidence: the allowed values of an item's source
    label: str = ""  # a short name for readers ("Most agents"); the id when not declared
    # evidence: what each source means, for readers, when `sources` maps them to a sentence
    meanings: tuple[tuple[str, str], ...] = ()


@dataclass(slots=True)
class Axis:
    id: str
    label: str
    description: str
    applies_to: str
    multi: bool
    required: bool
    required_when: dict[str, list[str]]
    only_when: dict[str, list[str]]
    values: list[Value]
    families: dict[str, str] = field(default_factory=dict)
    short: str = ""  # the axis's name on a tag ("Credit"); its label when not declared
    by_id: dict[str, Value] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self.values.sort(key=lambda v: v.order)
        self.by_id = {v.id: v for v in self.values}
        self.short = self.short or self.label

    @property
    def current_ids(self) -> list[str]:
        return [v.id for v in self.values if not v.retired]

    def code_of(self, value_id: str) -> str | None:
        v = self.by_id.get(value_id)
        return None if v is None else v.code or v.family


@dataclass(slots=True)
class Kind:
    id: str
    label: str
    dir: str
    key_field: str
    title_field: str
    fields: dict[str, FieldSpec]


@dataclass(slots=True)
class IdScheme:
    id: str
    label: str
    pattern: re.Pattern[str]
    example: str
    url: str
    version_suffix: re.Pattern[str] | None = None
    may_repeat: bool = False  # it names what works may share (a code repository), not a work


@dataclass(slots=True)
class Taxonomy:
    version: str
    kinds: dict[str, Kind]
    axes: dict[str, Axis]
    id_schemes: dict[str, IdScheme]
    doc: Document = field(default_factory=Document, repr=False)
    views: Views = field(default_factory=lambda: _views().Views(), repr=False)

    def axes_for(self, kind: str) -> list[Axis]:
        return [a for a in self.axes.values() if a.applies_to == kind]

    def allowed_fields(self, kind: str) -> list[str]:
        return [*self.kinds[kind].fields, *(a.id for a in self.axes_for(kind))]


def _conditions(
    r: Section, axis: dict[str, Any], path: FieldPath, key: str
) -> dict[str, list[str]]:
    raw = r.get(axis, path, key, dict, {})
    out: dict[str, list[str]] = {}
    for other, vals in raw.items():
        if not (isinstance(vals, list) and all(isinstance(v, str) for v in vals)):
            r.problem((*path, key, other), "taxonomy-invalid", "expected a list of value ids")
        else:
            out[other] = vals
    return out


def parse_taxonomy(doc: Document) -> tuple[Taxonomy, list[Problem]]:
    r = Section(doc, TAXONOMY_FILE, "taxonomy-invalid")
    root = doc.data if isinstance(doc.data, dict) else {}
    if doc.data is not None and not isinstance(doc.data, dict):
        r.problem((), "taxonomy-invalid", "taxonomy.yaml must be a mapping")
    schemes = {}
    for path, s in r.items(root, (), "id_schemes", dict):
        sid = str(path[-1])
        suffix = _pattern(r, s, path, "version_suffix")
        schemes[sid] = IdScheme(
            sid,
            r.get(s, path, "label", str),
            _pattern(r, s, path, "pattern", required=True) or re.compile(r"\A\Z"),
            r.get(s, path, "example", str),
            r.get(s, path, "url", str),
            suffix,
            r.get(s, path, "may_repeat", bool, False),
        )
    kinds = {}
    for path, k in r.items(root, (), "kinds", dict):
        fields = {}
        for fpath, f in r.items(k, path, "fields", list):
            pattern = _pattern(r, f, fpath, "pattern")
            # a list of sources, or a mapping of each to what it means
            raw = r.get(f, fpath, "sources", (list, dict), [])
            meanings = (
                tuple((str(k), str(v)) for k, v in raw.items()) if isinstance(raw, dict) else ()
            )
            spec = FieldSpec(
                r.get(f, fpath, "id", str),
                r.get(f, fpath, "type", str),
                r.get(f, fpath, "required", bool, False),
                r.get(f, fpath, "description", str, ""),
                pattern.pattern if pattern else None,
                r.get(f, fpath, "min", int, None),
                r.get(f, fpath, "max_years_ahead", int, None),
                tuple(map(str, r.get(f, fpath, "axes", list, []))),
                tuple(map(str, raw)),
                r.get(f, fpath, "label", str, ""),
                meanings,
            )
            if spec.type not in FIELD_TYPES:
                r.problem(
                    (*fpath, "type"),
                    "taxonomy-invalid",
                    f"unknown field type '{spec.type}'",
                    f"one of: {', '.join(sorted(FIELD_TYPES))}",
                )
            if spec.id in fields:
                r.problem(fpath, "taxonomy-duplicate-id", f"field '{spec.id}' declared twice")
            fields[spec.id] = spec
        kid = str(path[-1])
        r.safe_id(path, kid, "record kind")
        folder = r.get(k, path, "dir", str)
        if not r.safe_id((*path, "dir"), folder, "record folder"):
            folder = ""  # never read or written: its records are not loaded
        kinds[kid] = Kind(
            kid,
            r.get(k, path, "label", str),
            folder,
            r.get(k, path, "key_field", str),
            r.get(k, path, "title_field", str),
            fields,
        )
    axes: dict[str, Axis] = {}
    for path, a in r.items(root, (), "axes", list):
        families = {}
        for fam_path, fam in r.items(a, path, "families", list):
            families[r.get(fam, fam_path, "code", str)] = r.get(fam, fam_path, "label", str)
        values = []
        for vpath, v in r.items(a, path, "values", list):
            values.append(
                Value(
                    r.get(v, vpath, "id", str),
                    r.get(v, vpath, "label", str),
                    r.get(v, vpath, "description", str),
                    r.get(v, vpath, "order", int),
                    r.get(v, vpath, "code", str, None),
                    r.get(v, vpath, "family", str, None),
                    r.get(v, vpath, "replaced_by", str, None),
                )
            )
        axis = Axis(
            r.get(a, path, "id", str),
            r.get(a, path, "label", str),
            r.get(a, path, "description", str),
            r.get(a, path, "applies_to", str),
            r.get(a, path, "multi", bool, False),
            r.get(a, path, "required", bool, False),
            _conditions(r, a, path, "required_when"),
            _conditions(r, a, path, "only_when"),
            values,
            families,
            r.get(a, path, "short", str, ""),
        )
        r.safe_id((*path, "id"), axis.id, "axis id")
        if axis.id in axes:
            r.problem((*path, "id"), "taxonomy-duplicate-id", f"axis '{axis.id}' declared twice")
        axes[axis.id] = axis
        _check_axis(r, axis, path)
    tax = Taxonomy(str(root.get("version", "")), kinds, axes, schemes, doc)
    _check_references(r, tax)
    return tax, r.problems


def _pattern(
    r: Section, m: dict[str, Any], path: FieldPath, key: str, required: bool = False
) -> re.Pattern[str] | None:
    """M[KEY] compiled as a regular expression; a problem (and None) when it is not one."""
    text = r.get(m, path, key, str, ... if required else None)
    if not text:
        return None
    try:
        return re.compile(text)
    except (re.error, RecursionError, OverflowError) as exc:
        r.bad((*path, key), f"bad regular expression: {exc}", "check its brackets and escapes")
        return None


def _check_axis(r: Section, axis: Axis, path: FieldPath) -> None:
    """Unique ids, codes and orders; families and redirects that resolve."""
    for attr in ("id", "code", "order"):
        seen: dict[object, str] = {}
        for i, v in enumerate(axis.values):
            key = getattr(v, attr)
            if key is None:
                continue
            if key in seen:
                r.problem(
                    (*path, "values", i, attr),
                    f"taxonomy-duplicate-{attr}",
                    f"axis '{axis.id}': {attr} {key!r} used by '{seen[key]}' and '{v.id}'",
                )
            seen[key] = v.id
    for i, v in enumerate(axis.values):
        if v.family is not None and v.family not in axis.families:
            r.problem(
                (*path, "values", i, "family"),
                "taxonomy-invalid",
                f"axis '{axis.id}': value '{v.id}' names unknown family '{v.family}'",
            )
        if v.replaced_by is not None:
            target = axis.by_id.get(v.replaced_by)
            if target is None or target.retired:
                r.problem(
                    (*path, "values", i, "replaced_by"),
                    "taxonomy-bad-redirect",
                    f"axis '{axis.id}': '{v.id}' redirects to '{v.replaced_by}', "
                    "which is not a current value",
                )


def _check_references(r: Section, tax: Taxonomy) -> None:
    """Kinds name declared fields; axes point at known kinds, axes and values."""
    for kid, kind in tax.kinds.items():
        for attr in ("key_field", "title_field"):
            if getattr(kind, attr) not in kind.fields:
                r.problem(
                    ("kinds", kid, attr),
                    "taxonomy-invalid",
                    f"kind '{kid}': {attr} '{getattr(kind, attr)}' is not a declared field",
                )
        for fid, spec in kind.fields.items():
            for axis_id in spec.axes:
                if axis_id not in tax.axes:
                    r.problem(
                        ("kinds", kid, "fields"),
                        "taxonomy-invalid",
                        f"field '{fid}' names unknown axis '{axis_id}'",
                    )
    for i, axis in enumerate(tax.axes.values()):
        path: FieldPath = ("axes", i)
        if axis.applies_to not in tax.kinds:
            r.problem(
                (*path, "applies_to"),
                "taxonomy-invalid",
                f"axis '{axis.id}' applies to unknown kind '{axis.applies_to}'",
            )
        elif axis.id in tax.kinds[axis.applies_to].fields:
            r.problem(
                (*path, "id"),
                "taxonomy-duplicate-id",
                f"axis '{axis.id}' is also declared as a field",
            )
        for key in ("required_when", "only_when"):
            for other, vals in getattr(axis, key).items():
                target = tax.axes.get(other)
                bad = [v for v in vals if target is None or v not in target.by_id]
                if target is None or bad:
                    r.problem(
                        (*path, key, other),
                        "taxonomy-invalid",
                        f"axis '{axis.id}': {key} names unknown axis or values "
                        f"'{other}: {', '.join(bad) or vals}'",
                    )


def load_taxonomy(root: Path) -> tuple[Taxonomy, list[Problem]]:
    """Load and self-check ROOT/taxonomy.yaml."""
    doc = read_document(root / TAXONOMY_FILE, TAXONOMY_FILE, root=root)
    tax, problems = parse_taxonomy(doc)
    problems += text_problems(doc, TAXONOMY_FILE)
    tax.views, view_problems = _views().load_views(tax)
    return tax, [*doc.problems, *problems, *view_problems]


def _views() -> Any:
    """The views module, which reads the taxonomy's stats and site sections (it imports this
    module, so it is imported here on first use)."""
    from . import views

    return views
