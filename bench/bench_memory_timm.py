"""Which of timm's model files `migrator memory` can estimate, and why not where it cannot.

    PYTHONPATH=<timm source>:<its dependencies> python bench/bench_memory_timm.py [--batch 2] [--limit N]

For the first model registered in each of timm's model files (`timm.models._registry._module_to_models`),
built by `timm.create_model(name)` (no pretrained weights): the parameter count and how it was built (meta,
empty weights, cpu), then one training step on fake tensors at the image size the model declares. Prints one
line a file, then how many were estimated and the reasons of those that were not, grouped.
"""

from __future__ import annotations

import argparse
import collections
import functools
import signal
import sys
import time


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout("no estimate within the time limit")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--batch", type=int, default=2)
    parser.add_argument("--limit", type=int, default=0, help="only the first N model files")
    parser.add_argument("--seconds", type=int, default=120, help="time limit a model")
    options = parser.parse_args()
    try:
        import timm  # noqa: F401
        from timm.models._registry import _module_to_models
    except ImportError as exc:
        print(f"timm is not importable ({exc}): put its source and dependencies on PYTHONPATH")
        return
    from migrator.memory.measure import FactoryError, measure_activations, model_facts

    modules = sorted(m for m, names in _module_to_models.items() if names)
    if options.limit:
        modules = modules[:options.limit]
    reasons: collections.Counter = collections.Counter()
    estimated = 0
    signal.signal(signal.SIGALRM, _alarm)
    for module in modules:
        name = sorted(_module_to_models[module])[0]
        factory = functools.partial(timm.create_model, name, pretrained=False)
        started = time.perf_counter()
        signal.alarm(options.seconds)
        try:
            facts = model_facts(factory, options.batch, None)
            acts = measure_activations(factory, options.batch, None, "bf16")
            estimated += 1
            line = (f"{facts.params / 1e6:8.1f}M  acts {acts.bytes / 1e9:6.2f} GB  ckpt {acts.checkpointed / 1e9:6.2f}"
                    f" GB  copies {acts.weight_copies / 1e9:5.2f} GB  built {facts.counted_on.split(' (')[0]}")
        except Timeout as exc:
            reasons["no estimate within the time limit"] += 1
            line = f"cannot: {exc}"
        except FactoryError as exc:
            if isinstance(exc.__cause__, Timeout):
                reasons["no estimate within the time limit"] += 1
                line = "cannot: no estimate within the time limit"
                print(f"{module:<28}{name:<36}{time.perf_counter() - started:6.1f}s  {line}", flush=True)
                continue
            text = str(exc)
            reasons[text.split(":")[0] if "cannot estimate" not in text else text.split(" at ")[0]] += 1
            line = f"cannot: {text[:150]}"
        except Exception as exc:  # migrator's own failure, not a reason: printed as a crash to fix
            reasons[f"CRASH {type(exc).__name__}"] += 1
            line = f"CRASH: {type(exc).__name__}: {str(exc)[:150]}"
        finally:
            signal.alarm(0)
        print(f"{module:<28}{name:<36}{time.perf_counter() - started:6.1f}s  {line}", flush=True)
    print(f"\nestimated {estimated} of {len(modules)} model files")
    for reason, count in reasons.most_common():
        print(f"{count:4d}  {reason}")


if __name__ == "__main__":
    sys.exit(main())
