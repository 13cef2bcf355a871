"""The catalog: YAML signature files (``kb/``) as typed, validated objects.

- :mod:`.model`: the objects every consumer reads: one class per kind of entry (ProblemSignature,
  SymptomClass, FactExtractor, PhaseMarker, FrameMap, all Signatures) and their parts (Check, Fix, ...);
- :mod:`.files`: where the files are and how one is read (bounded, safe YAML);
- :mod:`.load`: files to validated objects, a pure function of the files;
- :mod:`.cache`: the validated catalog on disk, used by :func:`load_catalog`.

The built-in catalog ships inside the package (``matcher/_data/kb`` in a wheel, ``kb/`` in a
source checkout), with the corpus its examples name (``matcher/_data/corpus``, ``corpus/``).
"""

from .cache import load_catalog
from .errors import CatalogError
from .files import data_dir, read_yaml, signature_files, source_checkout
from .load import cross_reference_errors, load_signature
from .model import (
    Applicability,
    Catalog,
    Check,
    CompiledRegex,
    FactEntry,
    FactExtractor,
    Fix,
    FrameMap,
    LazyRegex,
    OwnRule,
    Pattern,
    PhaseMarker,
    ProblemSignature,
    Reference,
    Signature,
    SymptomClass,
    Value,
    condition_expression,
    todo_keys,
)

__all__ = [
    "Applicability", "Catalog", "CatalogError", "Check", "CompiledRegex", "FactEntry", "FactExtractor", "Fix",
    "FrameMap", "LazyRegex", "OwnRule", "Pattern", "PhaseMarker", "ProblemSignature", "Reference", "Signature",
    "SymptomClass", "Value", "condition_expression", "cross_reference_errors", "data_dir", "load_catalog", "load_signature",
    "read_yaml", "signature_files", "source_checkout", "todo_keys",
]
