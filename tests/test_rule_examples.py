"""Every rule's own VALID / INVALID examples, run through the whole scan."""
import pytest

from migrator.rules import ALL_RULES

from .conftest import by_rule

CASES = [pytest.param(rule, code, False, id=f"{rule.name}-valid-{i}")
         for rule in ALL_RULES for i, code in enumerate(rule.VALID)]
CASES += [pytest.param(rule, code, True, id=f"{rule.name}-invalid-{i}")
          for rule in ALL_RULES for i, code in enumerate(rule.INVALID)]


@pytest.mark.parametrize("rule, code, expected", CASES)
def test_rule_example(scan_code, rule, code, expected):
    hits = by_rule(scan_code(code), rule.name)
    assert bool(hits) is expected, [(f.rule, f.api, f.snippet) for f in scan_code(code)]


def test_every_rule_has_a_failing_example_or_a_dedicated_test():
    dedicated = {"extension-call", "torch-ops-call", "cuda-kernel", "nvidia-tool", "nvidia-base-image",
                 "cuda-requirement", "torch-op"}
    for rule in ALL_RULES:
        assert rule.INVALID or rule.name in dedicated, rule.name
        assert rule.__doc__, rule.name


def test_rule_priorities_are_explicit_and_distinct():
    priorities = [rule.priority for rule in ALL_RULES]
    assert len(set(priorities)) == len(priorities), "two rules share a priority: which one claims a usage is unclear"
    assert priorities == sorted(priorities)
    # the generic operator rule claims only what no specific rule did
    assert ALL_RULES[-1].name == "torch-op"
