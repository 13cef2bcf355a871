"""Does the first fix work? Score logkb's checklists against the change that fixed each run.

``corpus/pairs/*.yaml`` each name a real failing log from a public thread, the change the
thread confirms made the run work (``worked``), and, when it was posted, the fixed run's log.
Each failing log is scanned through the command line (``logkb scan -f json``), as a user
would, and the fixes of its root cause are compared with the change:

- first fix right: the first printed fix changes the knob that worked (a flag or environment
  variable, compared without dashes and case), or takes the action that worked
  (``stop-other-process``, ``quantize-or-smaller-model``, ``more-gpus``, ``upgrade-engine``,
  ``downgrade-engine``, ``raise-shm``; ``other`` never counts);
- in the first three: the same, for any of the first three fixes;
- value within 10%: for pairs whose change has a number, the first number the matching fix
  prints after the knob lies within 10% of the value that worked;
- value in the direction that worked: for pairs that also name the value that failed
  (``was``), the printed number moves the knob away from it the same way the value that worked
  did (a computed maximum that fits is right even where the user then chose a rounder, lower
  number, which the 10% figure counts as off).

    python bench/pairs.py [--pairs corpus/pairs] [--logkb PATH] [--details]
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
TOLERANCE = 0.10
TOP = 3

# What a fix says when it takes one of the actions a thread may report instead of a knob.
ACTIONS = {
    "stop-other-process": ("other process", "stop the", "kill", "free the gpu", "nvidia-smi"),
    "quantize-or-smaller-model": ("quantiz", "smaller model", "4-bit", "gguf with fewer bits", "smaller quant"),
    "more-gpus": ("tensor-parallel", "tensor_parallel", "tp_size", "num-shard", "more gpus", "second gpu",
                  "another gpu", "split the model", "pipeline-parallel"),
    "upgrade-engine": ("upgrade", "newer release", "newer version", "update "),
    "downgrade-engine": ("downgrade", "older release", "previous release"),
    "raise-shm": ("shm-size", "/dev/shm", "shm_size"),
}
_VALUE = re.compile(r"[ =]{1,3}(-?\d+(?:\.\d+)?)\b")


@dataclass
class Pair:
    name: str
    failing_log: Path
    engine: str
    knob: str
    value: float | None
    was: float | None  # the value that failed, when the pair names it


@dataclass
class Score:
    pair: Pair
    root_cause: str | None
    fixes: list[dict]
    first: bool
    top: bool
    value_ok: bool | None  # None: the change has no number, or no matching fix printed one
    direction_ok: bool | None  # None: no value that failed, or no printed number


_TOKEN = re.compile(r"[A-Za-z0-9_.-]+")


def _name(token: str) -> str:
    """A flag or variable as compared: no leading dashes, '-' as '_', lower case."""
    return token.lstrip("-").replace("-", "_").lower()


def _knob_at(text: str, knob: str) -> int | None:
    """Where ``text`` sets the knob (the end of its token), or None. A flag counts only in its
    dashed form: 'N x tensor_parallel_size' uses the setting, '--tensor-parallel-size 2' changes it."""
    wanted, flag = _name(knob), knob.startswith("-")
    return next((m.end() for m in _TOKEN.finditer(text)
                 if _name(m.group()) == wanted and (not flag or m.group().startswith("-"))), None)


def _mentions(fix: dict, knob: str) -> bool:
    text = " ".join(str(fix.get(k) or "") for k in ("id", "title", "change"))
    if knob in ACTIONS:
        lowered = text.lower()
        return any(word in lowered for word in ACTIONS[knob])
    return knob != "other" and _knob_at(text, knob) is not None


def _value_after(fix: dict, knob: str) -> float | None:
    """The value a fix sets the knob to: the number right after it ('--max-model-len 16640',
    'num_ctx=8192'); 'Raise --gpu-memory-utilization by 0.05' names a step, not a value."""
    change = str(fix.get("change") or "")
    at = _knob_at(change, knob)
    number = _VALUE.match(change, at) if at is not None else None
    return float(number.group(1)) if number else None


def load(folder: Path) -> list[Pair]:
    pairs = []
    for path in sorted(folder.glob("*.yaml")):
        meta = yaml.safe_load(path.read_text(encoding="utf-8"))
        worked = meta["worked"]
        value, was = worked.get("value"), worked.get("was")
        pairs.append(Pair(path.stem, ROOT / meta["failing_log"], meta["engine"], str(worked["knob"]),
                          float(value) if isinstance(value, (int, float)) else None,
                          float(was) if isinstance(was, (int, float)) else None))
    return pairs


def score(logkb: str, pair: Pair) -> Score:
    done = subprocess.run([logkb, "scan", "-f", "json", str(pair.failing_log)], capture_output=True, text=True)
    if done.returncode not in (0, 1):
        print(f"{pair.failing_log}: logkb exited {done.returncode}: {done.stderr.strip()}", file=sys.stderr)
        return Score(pair, None, [], False, False, None, None)
    report = json.loads(done.stdout)["files"][0]
    root = next((f for f in report["findings"] if f["id"] == report["root_cause"]), None)
    fixes = root["fixes"] if root else []
    first = bool(fixes) and _mentions(fixes[0], pair.knob)
    top = any(_mentions(f, pair.knob) for f in fixes[:TOP])
    value_ok = direction_ok = None
    if pair.value is not None:
        matching = next((f for f in fixes[:TOP] if _mentions(f, pair.knob)), None)
        printed = _value_after(matching, pair.knob) if matching else None
        if printed is not None:
            value_ok = abs(printed - pair.value) <= TOLERANCE * abs(pair.value)
            if pair.was is not None and pair.was != pair.value:
                direction_ok = (printed - pair.was) * (pair.value - pair.was) > 0
    return Score(pair, report["root_cause"], fixes, first, top, value_ok, direction_ok)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=Path, default=ROOT / "corpus" / "pairs")
    parser.add_argument("--logkb", default=shutil.which("logkb") or "logkb")
    parser.add_argument("--details", action="store_true", help="one line per pair on stderr")
    args = parser.parse_args()
    scores = [score(args.logkb, pair) for pair in load(args.pairs)]
    if args.details:
        for s in scores:
            shown = s.fixes[0]["id"] if s.fixes else None
            mark = "ok  " if s.first else "top3" if s.top else "MISS"
            print(f"{mark} {s.pair.name}: worked {s.pair.knob}={s.pair.value}; root {s.root_cause}, "
                  f"first fix {shown}, value {'-' if s.value_ok is None else 'ok' if s.value_ok else 'off'}, "
                  f"direction {'-' if s.direction_ok is None else 'ok' if s.direction_ok else 'wrong'}",
                  file=sys.stderr)
    n = len(scores)
    valued = [s for s in scores if s.pair.value is not None]
    judged = [s for s in valued if s.value_ok is not None]
    directed = [s for s in valued if s.direction_ok is not None]

    def pct(part: int, whole: int) -> str:
        return f"{part}/{whole} ({100 * part / whole:.0f}%)" if whole else "-"

    print("| pairs | first fix is the change that worked | in the first three | "
          "computed value within 10% (pairs with a value; printed) | computed value moves the knob the way that "
          "worked |\n|---:|---|---|---|---|")
    print(f"| {n} | {pct(sum(s.first for s in scores), n)} | {pct(sum(s.top for s in scores), n)} | "
          f"{pct(sum(bool(s.value_ok) for s in judged), len(judged))} of {len(judged)} printed "
          f"({len(valued)} with a value) | {pct(sum(bool(s.direction_ok) for s in directed), len(directed))} |")


if __name__ == "__main__":
    main()
