"""``library-pin``: a requirement capped below a library's first release that serves the target's device."""

import re

import pytest

from migrator.maps.load import first_releases
from migrator.rules.environment.library_pin import highest_allowed


@pytest.mark.parametrize("specifier, cap", [
    pytest.param("==0.8.3", ((0, 8, 3), True), id="exact"),
    pytest.param("<0.20", ((0, 20), False), id="below"),
    pytest.param("<=0.9.2", ((0, 9, 2), True), id="at-most"),
    pytest.param("~=1.6.0", ((1, 7), False), id="compatible-release"),
    pytest.param("==0.8.*", ((0, 9), False), id="wildcard"),
    pytest.param(">=0.19,<0.25", ((0, 25), False), id="range"),
    pytest.param(">=0.8", None, id="no-cap"),
    pytest.param("== latest", None, id="unreadable"),
])
def test_the_highest_release_a_specifier_allows(specifier, cap):
    assert highest_allowed(specifier) == cap


@pytest.mark.parametrize("line, target, work", [
    pytest.param("deepspeed==0.8.3", "cann", True, id="deepspeed-before-its-npu-accelerator"),
    pytest.param("deepspeed==0.9.3", "cann", False, id="deepspeed-at-its-npu-accelerator"),
    pytest.param("mmcv-full==1.7", "cann", False, id="same-release-written-shorter"),
    pytest.param("mmcv_full<1.7.0", "cann", True, id="normalised-name-below"),
    pytest.param("accelerate<0.29", "neuware", True, id="accelerate-before-mlu"),
])
def test_a_cap_below_the_first_release_for_the_target_is_work(scan_tree, line, target, work):
    report = scan_tree({"requirements.txt": f"torch\n{line}\n"}, [target])
    pins = [f for f in report.findings if f.rule == "library-pin"]
    assert bool(pins) == work
    if work:
        (pin,) = pins
        assert pin.verdicts[target].evidence[0].source.split("@")[0] in {
            r.source.split("@")[0] for r in first_releases().values()}


def test_every_first_release_names_its_repository_tag_and_commit():
    for release in first_releases().values():
        repo, rest = release.source.split("@", 1)
        assert "/" in repo and re.match(r"v[\d.]+ \([0-9a-f]{12}, [\w.-]+\): \S", rest), release.source
