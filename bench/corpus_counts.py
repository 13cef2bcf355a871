"""The corpus and catalog figures that README.md quotes, counted from the files.

    python bench/corpus_counts.py

Prints the catalog's entries by kind, the real corpus logs by sidecar kind (failure,
non-memory, healthy) with how many carry a ``gap:`` line, the generated samples, and on what
evidence the root cause of each real log rests (the tier of its root-cause finding, an
uncatalogued error, or none). The scans run in this process through the library API, as
``bench/report_digests.py`` does, so the count takes seconds.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
NOT_REAL = ("generated", "pairs")  # rendered samples, and the pairs' sidecars (no logs of their own)


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args(argv)
    sys.path.insert(0, str(ROOT))
    from matcher.api import scan_path, scanner
    from matcher.catalog import load_catalog
    from matcher.corpus import discover

    catalog = load_catalog()
    print(f"catalog: {catalog.version}")
    kinds = Counter(sig.kind for sig in catalog.signatures.values())
    for kind in sorted(kinds):
        print(f"entries {kind}: {kinds[kind]}")

    samples = discover(sorted(p for p in CORPUS.iterdir() if p.is_dir() and p.name not in NOT_REAL))
    generated = discover([CORPUS / "generated"])
    on_gpu = discover([CORPUS / "generated" / "gpu"])
    by_kind = Counter(str(s.meta.get("kind")) for s in samples)
    print(f"real logs: {len(samples)}")
    for kind in sorted(by_kind):
        print(f"real {kind}: {by_kind[kind]}")
    print(f"real with a gap line: {sum('gap' in s.meta for s in samples)}")
    print(f"generated samples: {len(generated)}")
    print(f"rendered samples: {len(generated) - len(on_gpu)}")
    print(f"samples produced on a GPU: {len(on_gpu)}")
    print(f"all samples: {len(samples) + len(generated)}")

    engine = scanner()
    tiers: Counter[str] = Counter()
    for sample in samples:
        root = scan_path(engine, str(sample.log), name=str(sample.log)).diagnosis.root_cause
        tiers["none" if root is None else "uncatalogued" if root.id == "uncatalogued" else root.tier] += 1
    for tier in sorted(tiers):
        print(f"root cause {tier}: {tiers[tier]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
