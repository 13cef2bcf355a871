"""Score a folder of new real logs as they are, before the catalog is changed for them.

Each ``X.log`` has a sidecar ``X.yaml`` in the corpus format, with ``kind`` one of
``failure``, ``non-memory`` or ``healthy`` and ``expect.root_cause`` / ``expect.phase``.
The logs are scanned through the command line (``logkb scan -f json``), as a user would, and
one Markdown table row is printed for ``corpus/FIRST-SEEN.md``:

    python bench/first_seen.py DIR [DIR...] --label "batch B" [--logkb PATH] [--details]

- root cause right first: failures whose reported root cause is the expected id (a memory
  failure that no signature fits counts as right when nothing, or ``uncatalogued``, is named);
- phase right: failures whose reported phase is the expected one (a log that reached no phase
  has phase ``unknown``; rows before 2026-12-05's batch BB counted it as a miss);
- memory diagnoses on non-memory logs: healthy and non-memory logs on which a catalog problem
  signature that diagnoses a lack of memory (tagged ``gpu-memory`` or ``host-memory``) is
  reported at warning or error, other than a wrapper ("Engine core initialization failed",
  "Shard 0 failed to start"), which only says that something else failed
  (``--count-wrappers`` counts them too). A failure of another kind that has its own
  signature (a kernel fault, GPU hardware, tagged ``not-memory``) is not a memory diagnosis.

Under the row, on stderr, the root-cause figure is split by whether the excerpt holds the
failure's decisive line (the sidecar's ``expect.line`` is set) or ends before it, its cause
known only from the thread: no reading of the log can name the second kind.
"""

from __future__ import annotations

import argparse
import datetime
import json
import shutil
import subprocess
import sys
from pathlib import Path

import yaml

NOT_A_DIAGNOSIS = {None, "uncatalogued"}
MEMORY_TAGS = {"gpu-memory", "host-memory"}  # a report without tags (an older logkb) counts every finding


def memory_diagnoses(report: dict, count_wrappers: bool = False) -> list[str]:
    """The memory diagnoses a file's JSON report makes at warning or error (after the findings
    that explain others are weighed, as the exit code weighs them), wrappers aside unless
    ``count_wrappers``."""
    from matcher.diagnose import exit_severities

    severity = exit_severities({f["id"]: f["severity"] for f in report["findings"]},
                               {f["id"]: f["explained_by"] for f in report["findings"] if f.get("explained_by")})
    return [f["id"] for f in report["findings"]
            if f["id"] not in NOT_A_DIAGNOSIS and severity[f["id"]] in ("error", "warning")
            and (count_wrappers or f["role"] != "wrapper")
            and (f["role"] == "wrapper" or MEMORY_TAGS & set(f.get("tags", MEMORY_TAGS)))]


def score(logkb: str, folders: list[Path], details: bool, count_wrappers: bool = False) -> dict[str, int]:
    from matcher.catalog import load_catalog

    renamed = load_catalog().renamed  # old id -> current id (related: renamed)
    counts = dict(logs=0, failures=0, right=0, phased=0, phase_right=0, quiet_logs=0, loud=0, shown=0, shown_right=0)
    for sidecar in sorted(p for folder in folders for p in folder.rglob("*.yaml")):
        log = sidecar.with_suffix(".log")
        if not log.exists():
            continue
        meta = yaml.safe_load(sidecar.read_text(encoding="utf-8")) or {}
        expect = meta.get("expect") or {}
        done = subprocess.run([logkb, "scan", "-f", "json", str(log)], capture_output=True, text=True)
        if done.returncode not in (0, 1):
            print(f"{log}: logkb exited {done.returncode}: {done.stderr.strip()}", file=sys.stderr)
            report = {"root_cause": None, "phase": None, "findings": []}
        else:
            report = json.loads(done.stdout)["files"][0]
        counts["logs"] += 1
        # a report whose log reached no phase has none; a sidecar writes that "unknown"
        found, phase = report["root_cause"], report["phase"] or "unknown"
        if meta.get("kind") == "failure":
            counts["failures"] += 1
            # a sidecar or a logkb of before a rename may name the signature by its old id
            wanted, found = renamed.get(expect.get("root_cause"), expect.get("root_cause")), renamed.get(found, found)
            ok = found == wanted or (wanted is None and found in NOT_A_DIAGNOSIS)
            counts["right"] += ok
            if expect.get("line") is not None:  # the excerpt holds the decisive line
                counts["shown"] += 1
                counts["shown_right"] += ok
            phase_ok = None
            if expect.get("phase"):
                counts["phased"] += 1
                phase_ok = phase == expect["phase"]
                counts["phase_right"] += phase_ok
            if details:
                print(f"{'ok  ' if ok else 'MISS'} {'' if phase_ok in (None, True) else 'phase '}{log.name}: "
                      f"found {found} ({phase}), expected {wanted} ({expect.get('phase')})", file=sys.stderr)
        else:
            counts["quiet_logs"] += 1
            loud = memory_diagnoses(report, count_wrappers)
            counts["loud"] += bool(loud)
            if details:
                print(f"{'LOUD' if loud else 'ok  '} {log.name}: {loud or found}", file=sys.stderr)
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--label", default="")
    parser.add_argument("--logkb", default=shutil.which("logkb") or "logkb")
    parser.add_argument("--details", action="store_true", help="one line per log on stderr")
    parser.add_argument("--count-wrappers", action="store_true", help="count wrapper findings as memory diagnoses")
    args = parser.parse_args()
    version = subprocess.run([args.logkb, "--version"], capture_output=True, text=True).stdout
    catalog = next((w.strip(",") for line in version.splitlines() if "catalog" in line
                    for w in line.split() if w[:1].isdigit()), "?")
    c = score(args.logkb, args.folders, args.details, args.count_wrappers)

    def pct(part: int, whole: int) -> str:
        return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "-"

    print(f"| {datetime.date.today()} | {catalog} | {args.label} | {c['logs']} ({c['failures']} failures, "
          f"{c['quiet_logs']} healthy or non-memory) | {pct(c['right'], c['failures'])} | "
          f"{pct(c['phase_right'], c['phased'])} | {pct(c['loud'], c['quiet_logs'])} |")
    print(f"root cause right first where the excerpt holds the decisive line: {pct(c['shown_right'], c['shown'])}; "
          f"where it ends before it: {pct(c['right'] - c['shown_right'], c['failures'] - c['shown'])}", file=sys.stderr)


if __name__ == "__main__":
    main()
