"""Every real corpus log gets what its sidecar expects (root cause or none, phase, line,
facts): the same check `logkb test` runs, one test per sample so that a regression names the
log. Generated samples are checked in test_generated.py."""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from matcher.corpus import check, discover

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
SAMPLES = [s for s in discover([CORPUS]) if "generated" not in s.log.relative_to(CORPUS).parts]


def test_the_real_corpus_has_failures_and_healthy_logs() -> None:
    assert len([s for s in SAMPLES if not s.healthy]) >= 100
    assert len([s for s in SAMPLES if s.healthy]) >= 25


def test_every_real_sample_names_its_public_source() -> None:
    """A GitHub thread for most; a forum post or a documentation page for a few, which must
    then say in ``where`` which post or output the excerpt was copied from."""
    for sample in SAMPLES:
        source = sample.meta.get("source", {})
        url = source.get("url", "")
        host = urlsplit(url).hostname
        assert url.startswith("https://") and host, f"{sample.sidecar.name}: source.url {url!r}"
        if host != "github.com":
            assert source.get("where"), f"{sample.sidecar.name}: a page other than a GitHub thread needs 'where'"


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.log.relative_to(CORPUS).as_posix())
def test_real_sample_gets_what_its_sidecar_expects(sample, scanner) -> None:
    outcome = check(scanner, sample)
    assert outcome.ok, f"{sample.log.name}: {'; '.join(outcome.problems)}"
