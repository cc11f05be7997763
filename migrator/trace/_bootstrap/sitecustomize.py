"""migrator trace's bootstrap: on PYTHONPATH only for a traced command. Starts the tracing session when
MIGRATOR_TRACE_CONFIG names a configuration, then runs the sitecustomize this one shadows, if any."""
import os
import sys

if os.environ.get("MIGRATOR_TRACE_CONFIG"):
    _here = os.path.dirname(os.path.abspath(__file__))
    try:
        import migrator  # noqa: F401
    except ImportError:  # another interpreter than migrator's: reach migrator where the parent found it
        sys.path.append(os.environ.get("MIGRATOR_TRACE_HOME", ""))
    from migrator.trace.session import start_from_environment

    _session = start_from_environment()
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _here]
    _ours = sys.modules.pop("sitecustomize", None)
    try:
        import sitecustomize  # noqa: F401  - the environment's own, now that ours is off the path
    except ImportError:
        pass
    _theirs = sys.modules.get("sitecustomize") or _ours
    if _theirs is not None:
        sys.modules["sitecustomize"] = _theirs
