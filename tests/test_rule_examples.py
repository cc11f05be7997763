"""Every rule's own examples, run through the whole scan and `fix`: what it reports, each target's verdict,
and the file `fix` writes. The examples are the rule's documentation, so this is where the docs are tested."""
from pathlib import Path

import pytest

from migrator.fix import fix_report
from migrator.maps.load import resolve_targets, runtime, target_ids
from migrator.model import Category, Status
from migrator.rules import ALL_RULES, DOCUMENTED_RULES, Claim, ProjectRule, apply_rules
from migrator.rules.docs import SECTIONS, rule_doc
from migrator.rules.examples import ByRuntime, Invalid, Valid
from migrator.pipeline import ScanRequest, scan

from .conftest import write_tree

TARGETS = resolve_targets(None)
#: the targets the examples were written against (the maps' folders when this module is imported)
BUNDLED = target_ids()


def _cases(kind):
    return [pytest.param(rule, example, id=f"{rule.name}-{kind.__name__.lower()}-{i}")
            for rule in DOCUMENTED_RULES
            for i, example in enumerate(e for e in rule.examples if isinstance(e, kind))]


def _scan(tmp_path: Path, example, targets):
    write_tree(tmp_path, {**example.files, example.path: example.code})
    report = scan(ScanRequest(tmp_path, targets, jobs=1))
    return report, [f for f in report.judged if f.path == example.path]


def check_valid(tmp_path, rule, example, targets=TARGETS):
    _, findings = _scan(tmp_path, example, targets)
    assert [f.snippet for f in findings if f.rule == rule.name] == []


def check_invalid(tmp_path, rule, example, targets=TARGETS):
    """Each target's verdict is the example's, and ``fix`` writes what the example says for the targets it
    names (and nothing for a bundled target it does not name). A target the example cannot name (one added as
    a folder) is held to its kind of runtime: ``fix`` leaves the file alone where no bundled target of its kind
    has a fix, and what it writes elsewhere still compiles."""
    report, findings = _scan(tmp_path, example, targets)
    hits = [f for f in findings if f.rule == rule.name]
    assert hits, [(f.rule, f.api, f.snippet) for f in findings]
    for target in targets:
        statuses = {f.verdicts[target.id].status for f in hits}
        assert statuses == {example.expected(target.id)}, (target.id, [f.verdicts[target.id].message for f in hits])
        fixed = {f.path: f.new for f in fix_report(tmp_path, report, target).changed}
        if target.id in BUNDLED:
            assert fixed.get(example.path, example.code) == example.fixed.get(target.id, example.code), target.id
        elif not any(runtime(t).cuda_names == target.runtime_facts.cuda_names for t in example.fixed):
            assert example.path not in fixed, target.id
        elif example.path in fixed and example.path.endswith(".py"):
            compile(fixed[example.path], example.path, "exec")


@pytest.mark.parametrize("rule, example", _cases(Valid))
def test_valid_example_is_not_reported(tmp_path, rule, example):
    check_valid(tmp_path, rule, example)


@pytest.mark.parametrize("rule, example", _cases(Invalid))
def test_invalid_example_gets_its_verdicts_and_its_fix(tmp_path, rule, example):
    check_invalid(tmp_path, rule, example)


@pytest.mark.parametrize("rule", DOCUMENTED_RULES, ids=lambda rule: rule.name)
def test_rule_documents_itself(rule):
    doc = rule_doc(rule)
    assert doc.missing == (), f"{rule.name}: the docstring lacks {doc.missing} (sections: {SECTIONS})"
    invalid = [e for e in rule.examples if isinstance(e, Invalid)]
    assert invalid and any(isinstance(e, Valid) for e in rule.examples), rule.name
    for example in invalid:  # a default per kind of runtime, and only real exceptions to it
        if isinstance(example.expect, ByRuntime):
            assert set(example.expect.exceptions) <= set(BUNDLED), (rule.name, example.code)
            for target, status in example.expect.exceptions.items():
                assert status != example.expect.default(target), (rule.name, target, "not an exception")
            assert example.expect.renamed != example.expect.kept or example.expect.exceptions, rule.name
        assert set(example.fixed) <= set(BUNDLED), (rule.name, example.code)


def test_rule_docs_render_the_checked_example():
    doc = rule_doc(next(rule for rule in ALL_RULES if rule.name == "device-move"))
    markdown = doc.markdown()
    first = next(e for e in doc.examples if isinstance(e, Invalid))
    assert f"```python\n{first.code}```" in markdown
    assert f"`migrator fix --target cann` writes:\n\n```python\n{first.fixed['cann']}```" in markdown
    assert "cann: rewrite · neuware: rewrite · kunlun: supported" in markdown
    assert markdown.index("## What it does") < markdown.index("## Example") < markdown.index("## Fix safety")
    assert "```" not in doc.text() and "    x = torch.ones(2).cuda()" in doc.text()


def test_rules_run_tier_by_tier_and_the_generic_operator_rule_alone_last(example_usages):
    tiers = [rule.claim for rule in ALL_RULES]
    assert tiers == sorted(tiers) and set(tiers) == set(Claim)
    assert [rule.name for rule in ALL_RULES if rule.claim == Claim.OPERATOR] == ["torch-op"]
    # the tiers decide, not the order the rules come in: backwards, every usage gets the same finding
    for ctx, usage in example_usages:
        forwards = apply_rules([usage], "train.py", ctx)
        backwards = apply_rules([usage], "train.py", ctx, rules=tuple(reversed(ALL_RULES)))
        assert [f.rule for f in backwards] == [f.rule for f in forwards], (usage.api, usage.snippet)


def test_a_docstring_section_beyond_the_three_is_rendered_after_them():
    class Documented(ProjectRule):
        """Reads a demo thing.

        ## What it does
        Finds demo things.

        ## Why is this bad?
        They are demos.

        ## Fix safety
        Nothing to fix.

        ## Known limits
        Only demo files.
        """

        name, category = "demo-rule", Category.OP
        examples = (Invalid("import demo\n", expect=Status.UNKNOWN), Valid("x = 1\n"))

    doc = rule_doc(Documented())
    assert doc.missing == () and doc.section("Known limits") == "Only demo files."
    text = doc.markdown()
    assert text.index("## Fix safety") < text.index("## Not reported") < text.index("## Known limits")
    assert text.rstrip().endswith("Only demo files.")


@pytest.fixture(scope="module")
def example_usages(tmp_path_factory):
    """Every usage of every rule's examples and of the bundled example project, with its project's context."""
    from migrator.analyze import analyze_file
    from migrator.discover import discover
    from migrator.inventory import build_index, kernel_usages
    from migrator.maps.load import third_party
    from migrator.rules import RuleContext

    tmp_path = tmp_path_factory.mktemp("examples")
    roots = [Path(__file__).resolve().parents[1] / "examples"]
    for index, example in enumerate(e for rule in DOCUMENTED_RULES for e in rule.examples):
        roots.append(write_tree(tmp_path / str(index), {**example.files, example.path: example.code}))
    usages = []
    for root in roots:
        results = [analyze_file(source) for source in discover(root).files]
        ctx = RuleContext(targets=tuple(TARGETS), third_party=third_party(), project=build_index(results))
        usages += [(ctx, u) for r in results for u in r.usages + kernel_usages(r)]
    return usages


def test_rules_of_one_claim_tier_never_claim_the_same_usage(example_usages):
    """A tier is a set, not an order: over every example and the bundled project, no usage is claimed by two
    rules of one tier (so their order cannot decide a finding), while rules of different tiers do overlap
    (a repository's own extension build is also a CUDA-named call): the tiers are what decides those."""
    across = set()
    for ctx, usage in example_usages:
        claimed = [rule for rule in ALL_RULES if rule.check(usage, ctx) is not None]
        for tier in Claim:
            same = [rule.name for rule in claimed if rule.claim == tier]
            assert len(same) <= 1, (tier.name, same, usage.api, usage.snippet)
        across |= {(claimed[0].name, other.name) for other in claimed[1:]}
    assert ("extension-build", "device-call") in across and ("device-call", "torch-op") in across


def test_a_rule_is_only_asked_about_the_usage_kinds_it_declares(example_usages):
    """``kinds`` is a dispatch table, not a guess: over every example of every rule, no rule would claim a
    usage of a kind it does not declare (so skipping those loses nothing)."""
    usages, checked = example_usages, 0
    assert {u.kind for _, u in usages} >= {"call", "method", "literal", "import", "env", "command", "kernel"}
    for ctx, usage in usages:
        for rule in ALL_RULES:
            if rule.kinds is not None and usage.kind not in rule.kinds:
                checked += 1
                assert rule.check(usage, ctx) is None, (rule.name, usage.kind, usage.api)
    assert checked > 1000
