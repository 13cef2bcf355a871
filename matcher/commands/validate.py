"""``logkb validate``: check catalog directories or signature files before they are used.

The checks run in stages; a signature with a problem at one stage is not checked at the later
ones, so each broken input gives one line, ``<file>: <key>: <what is wrong>``:

1. load: YAML, schema, regex lint (RE2 syntax, linear-time shape, a literal anchor),
   expressions parse (the loader's own checks, see matcher/catalog/load.py);
2. catalog: duplicate ids (unless an overlay's catalog.yaml ``overrides`` them), ``explains``
   targets exist, expressions name only facts the catalog captures, and every capture and
   value name is declared in a ``facts.yaml`` (the built-in ``kb/facts.yaml`` or the
   overlay's own; these lines name ``file:line``);
3. re2: every regex compiles with the RE2 engine itself (when ``google-re2`` is installed);
4. content: no ``TODO`` placeholder left, at least one fix and one reference; every fix can
   be shown without a number from the log (its last change wording, its title and trade-off
   need no ``{fact}``), and check titles and looks need none either, so no report ever
   shows an unfilled placeholder;
5. examples: every problem signature that is not deprecated has a positive corpus example
   (a sidecar whose ``expect.root_cause`` is its id, or an ``examples:`` path) and is the root
   cause on at least one of them: a signature that another one always shadows is dead weight.

A catalog directory's corpus is the ``corpus/`` beside it (``kb/`` and ``corpus/`` side by side,
as in this repository) or ``--corpus DIR``; without either, stage 5 looks only at ``examples:``,
whose paths are relative to the directory that holds the catalog directory.
Exit status 0 when everything passes, 2 otherwise.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path

import click
import msgspec

from ..catalog import (
    Catalog,
    CatalogError,
    ProblemSignature,
    Signature,
    cross_reference_errors,
    data_dir,
    load_catalog,
    load_signature,
    read_yaml,
    signature_files,
    todo_keys,
)
from ..catalog.files import located
from ..catalog.load import renamed_ids, with_current_ids
from ..catalog.fragments import SharedParts, load_shared, names_used
from ..catalog.vocabulary import FILE_NAME as FACTS_FILE
from ..catalog.vocabulary import Vocabulary, load_vocabulary, undeclared
from ..checklist import placeholders as fill_placeholders
from ..corpus import Sample, SidecarError, check, discover, read_sidecar
from ..scan import Scanner
from .common import EXIT_CLEAN, EXIT_ERROR, catalog_option
from .new import sidecar_for


@click.command("validate")
@click.argument("paths", nargs=-1, type=click.Path(exists=True))
@click.option("--corpus", "corpora", multiple=True, type=click.Path(exists=True, file_okay=False),
              help="Corpus directory holding the examples (repeatable; default: the corpus/ beside each catalog).")
@catalog_option
def command(paths: tuple[str, ...], corpora: tuple[str, ...], catalogs: tuple[str, ...]) -> None:
    """Check catalog directories or signature files (default: the built-in catalog)."""
    targets = Targets.of([Path(p) for p in paths] or [_shown(data_dir("kb"))])
    try:
        problems = list(validate(targets, [Path(c) for c in catalogs], [Path(c) for c in corpora]))
    except SidecarError as exc:
        problems = [str(exc)]
    for problem in problems:
        click.echo(problem)
    if problems:
        click.echo(f"logkb validate: {len(problems)} problem(s)", err=True)
        sys.exit(EXIT_ERROR)
    click.echo(f"logkb validate: {len(targets.files)} file(s) valid", err=True)
    sys.exit(EXIT_CLEAN)


class Targets(msgspec.Struct):
    """What to validate: catalog directories, and every signature file given or inside one."""

    roots: list[Path]
    files: list[Path]

    @classmethod
    def of(cls, paths: Iterable[Path]) -> Targets:
        roots, files = [], []
        for path in paths:
            if path.is_dir():
                roots.append(path)
                files += signature_files(path)
            else:
                files.append(path)
        unique = {p.resolve(): p for p in reversed(files)}
        return cls(roots, [unique[key] for key in dict.fromkeys(p.resolve() for p in files)])

    def root_of(self, file: Path) -> Path:
        """The catalog directory of a file: a directory given, else the nearest one holding a
        catalog.yaml, else the one above the file's engine folder (``<catalog>/<engine>/<slug>.yaml``,
        the layout ``logkb new`` writes)."""
        file = file.resolve()
        for root in self.roots:
            if file.is_relative_to(root.resolve()):
                return root.resolve()
        return next((p for p in file.parents if (p / "catalog.yaml").is_file()), file.parent.parent)


def _shown(path: Path) -> Path:
    """``path`` relative to the working directory when it lies inside it (shorter messages)."""
    try:
        return path.relative_to(Path.cwd())
    except ValueError:
        return path


def validate(targets: Targets, overlays: list[Path], corpora: list[Path]) -> Iterator[str]:
    """One line per problem, stage by stage (see the module docstring)."""
    own_roots = _unique_roots([*targets.roots, *map(targets.root_of, targets.files)])
    all_roots = _unique_roots([data_dir("kb"), *overlays, *own_roots])
    try:
        shared = load_shared(all_roots)
    except CatalogError as exc:
        yield str(exc)
        return
    loaded: dict[Path, Signature] = {}
    for file in targets.files:
        try:
            loaded[file] = load_signature(file, shared=shared)
        except CatalogError as exc:
            yield str(exc)
    if len(loaded) < len(targets.files):
        return
    _warn_unused(shared, own_roots, all_roots)
    try:
        catalog = _catalog_with(targets, loaded, overlays)
    except CatalogError as exc:
        yield str(exc)
        return
    mine = {sig.id: sig for sig in loaded.values()}
    broken: set[str] = set()
    try:
        vocabulary = load_vocabulary(_unique_roots([*catalog.roots, *own_roots]))
    except CatalogError as exc:
        yield str(exc)
        return
    for root in own_roots:
        if (root / FACTS_FILE).is_file():
            for key in todo_keys(read_yaml(root / FACTS_FILE)):
                yield _line(root / FACTS_FILE, key, "still a TODO placeholder: say what the fact is")
    for stage in (_references, functools.partial(_declared, vocabulary), _re2, _content):
        found = [(sig_id, line) for sig_id, line in stage(catalog, mine) if sig_id not in broken]
        broken |= {sig_id for sig_id, _ in found}
        yield from (line for _, line in found)
    scanner = Scanner(catalog)
    corpus = _Corpus(corpora, catalog.renamed)
    for sig in mine.values():
        if sig.id not in broken and isinstance(sig, ProblemSignature) and sig.status != "deprecated":
            yield from _examples(scanner, sig, targets.root_of(sig.path), corpus)


def _catalog_with(targets: Targets, loaded: dict[Path, Signature], overlays: list[Path]) -> Catalog:
    """The built-in catalog, the --catalog overlays and the targets, as a scan would see them."""
    builtin = data_dir("kb").resolve()
    overlays = [*overlays, *(r for r in targets.roots if r.resolve() != builtin)]
    catalog = load_catalog(overlays, check_references=False)
    signatures = dict(catalog.signatures)
    renamed = renamed_ids(signatures.values())
    for file, sig in list(loaded.items()):
        sig = loaded[file] = with_current_ids(sig, renamed)
        existing = signatures.get(sig.id)
        if existing is not None and existing.path.resolve() != file.resolve():
            raise CatalogError(f"{file}: id: {sig.id!r} is already defined in {existing.path}")
        signatures[sig.id] = sig
    return msgspec.structs.replace(catalog, signatures=signatures)


def _line(path: Path, key: str, message: str) -> str:
    return f"{path}: {key}: {message}"


def _references(catalog: Catalog, mine: dict[str, Signature]) -> Iterator[tuple[str, str]]:
    for sig, message in cross_reference_errors(catalog):
        if mine.get(sig.id) is sig:
            yield sig.id, message


def _declared(vocabulary: Vocabulary, catalog: Catalog, mine: dict[str, Signature]) -> Iterator[tuple[str, str]]:
    for sig in mine.values():
        for line in undeclared(sig, vocabulary):
            yield sig.id, line


def _warn_unused(shared: SharedParts, own_roots: list[Path], all_roots: list[Path]) -> None:
    """A warning (not a failure) for each fragment or shared fix of the validated catalogs that
    no signature uses."""
    def own(path: Path) -> bool:
        return any(path.resolve().is_relative_to(r.resolve()) for r in own_roots)

    fragments = [f for f in shared.fragments.values() if own(f.path)]
    fixes = [f for f in shared.fixes.values() if own(f.path)]
    if not fragments and not fixes:
        return
    used = [names_used(path) for root in all_roots for path in signature_files(root)]
    used_fragments = set().union(*(names for names, _ in used))
    used_fixes = set().union(*(ids for _, ids in used))
    for fragment in fragments:
        if fragment.name not in used_fragments:
            where = located(fragment.path, r"^\s*" + fragment.name + r"\s*:")
            click.echo(f"logkb validate: warning: {where}: fragments.{fragment.name}: no pattern uses it", err=True)
    for fix in fixes:
        if fix.id not in used_fixes:
            where = located(fix.path, r"^\s*" + fix.id + r"\s*:")
            click.echo(f"logkb validate: warning: {where}: fixes.{fix.id}: no signature uses it", err=True)


def _unique_roots(roots: Iterable[Path]) -> list[Path]:
    """Each catalog root once (a file's root may be the built-in one), in order."""
    seen: dict[Path, Path] = {}
    for root in roots:
        seen.setdefault(root.resolve(), root)
    return list(seen.values())


def _re2(catalog: Catalog, mine: dict[str, Signature]) -> Iterator[tuple[str, str]]:
    try:
        import re2
    except ImportError:
        click.echo("logkb validate: google-re2 is not installed (pip install 'logkb[re2]'); "
                   "RE2 syntax was checked by the built-in lint only", err=True)
        return
    options = re2.Options()
    options.log_errors = False
    for sig in mine.values():
        for key, source in _regexes(sig):
            try:
                re2.compile(source, options)
            except re2.error as exc:
                reason = exc.args[0] if exc.args else exc
                reason = reason.decode("utf-8", "replace") if isinstance(reason, bytes) else str(reason)
                yield sig.id, _line(sig.path, key, f"RE2 rejects the regex: {reason}")


def _regexes(sig: Signature) -> Iterator[tuple[str, str]]:
    for i, pattern in enumerate(sig.patterns):
        yield f"match.patterns[{i}].regex", ("(?i)" if pattern.ignore_case else "") + pattern.source
    for i, regex in enumerate(sig.exclude):
        yield f"match.exclude[{i}]", regex.source
    for i, regex in enumerate(sig.frames if isinstance(sig, ProblemSignature) else ()):
        yield f"match.context.frames[{i}]", regex.source


def _content(catalog: Catalog, mine: dict[str, Signature]) -> Iterator[tuple[str, str]]:
    for sig in mine.values():
        for key in sig.todo_keys():
            yield sig.id, _line(sig.path, key, "still a TODO placeholder: write it in your own words")
        if isinstance(sig, ProblemSignature):
            for key, entries in (("fixes", sig.fixes), ("references", sig.references)):
                if not entries:
                    yield sig.id, _line(sig.path, key, f"a problem signature needs at least one entry in {key}")
            for key in _needs_numbers(sig):
                yield sig.id, _line(sig.path, key, "needs a number from the log: add a wording without {placeholders}")


def _needs_numbers(sig: ProblemSignature) -> Iterator[str]:
    """Keys of texts a report would have to leave unfilled on a log without the numbers."""
    for i, fix in enumerate(sig.fixes):
        if fill_placeholders(fix.change_templates[-1]):
            yield f"fixes[{i}].change_fallback" if fix.change_fallback else f"fixes[{i}].change"
        for key, text in (("title", fix.title), ("tradeoff", fix.tradeoff)):
            if fill_placeholders(text):
                yield f"fixes[{i}].{key}"
    for i, check in enumerate(sig.checks):
        for key, text in (("title", check.title), ("look", check.look)):
            if fill_placeholders(text):
                yield f"checks[{i}].{key}"


class _Corpus:
    """The samples of each corpus directory, read once."""

    def __init__(self, given: list[Path], renamed: dict[str, str]) -> None:
        self.given = given
        self.renamed = renamed  # a sidecar may name a renamed signature by its old id
        self._samples: dict[Path, list[Sample]] = {}

    def dirs_for(self, root: Path) -> list[Path]:
        beside = root.parent / "corpus"
        return self.given or ([beside] if beside.is_dir() else [])

    def expecting(self, sig_id: str, root: Path) -> list[Sample]:
        found = []
        for directory in self.dirs_for(root):
            if directory not in self._samples:
                self._samples[directory] = discover([directory])
            found += [s for s in self._samples[directory] if self.renamed.get(s.expect.get("root_cause"), s.expect.get("root_cause")) == sig_id]
        return found


def _examples(scanner: Scanner, sig: Signature, root: Path, corpus: _Corpus) -> Iterator[str]:
    listed = sig.examples
    if not listed and not corpus.dirs_for(root):
        return  # an overlay without a corpus: nothing to check against
    samples = {s.log.resolve(): s for s in corpus.expecting(sig.id, root)}
    for i, entry in enumerate(listed):
        sample = _listed_sample(root.parent / entry, sig.id)
        if sample is None:
            yield _line(sig.path, f"examples[{i}]", f"{entry!r} is not a file (paths are relative to the "
                        "directory holding the catalog directory)")
            return
        samples.setdefault(sample.log.resolve(), sample)
    if not samples:
        yield _line(sig.path, "examples", "no positive corpus example (add a log whose sidecar's "
                    f"expect.root_cause is {sig.id}, or list one under examples)")
        return
    for sample in samples.values():
        key = next(todo_keys(sample.meta), None)
        if key is not None:
            yield _line(sample.sidecar, key, "still a TODO placeholder: say where the log comes from")
            return
    outcomes = [(sample, check(scanner, sample)) for sample in samples.values()]
    if sig.severity == "info":  # never ranked as a root cause: its examples must show it among the findings
        if not any(f.id == sig.id for _, outcome in outcomes for f in outcome.diagnosis.run.findings):
            yield _line(sig.path, "examples", f"not found on any of its examples ({outcomes[0][0].log.name} first)")
        return
    found = [(sample, outcome.found) for sample, outcome in outcomes]
    if not any(root_cause == sig.id for _, root_cause in found):
        sample, root_cause = found[0]
        yield _line(sig.path, "examples", f"never the root cause on its own examples "
                    f"(on {sample.log.name} the root cause is {root_cause})")


def _listed_sample(log: Path, sig_id: str) -> Sample | None:
    """An ``examples:`` entry as a sample: its sidecar when it has one, else expecting ``sig_id``."""
    if not log.is_file():
        return None
    sidecar = sidecar_for(log)
    meta = read_sidecar(sidecar) if sidecar.is_file() else {"kind": "failure", "expect": {"root_cause": sig_id}}
    return Sample(log, sidecar, meta)
