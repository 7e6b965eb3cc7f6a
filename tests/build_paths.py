"""Where the end-to-end tests find the repository and the built binaries:
$AGT_BUILD_DIR (scripts/test sets it), else build/ in the repository."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
BUILD = os.environ.get("AGT_BUILD_DIR") or os.path.join(TOP, "build")
SHIM = os.path.join(BUILD, "shim", "agt-deny-shim")
COLLECTOR = os.path.join(BUILD, "collector", "agt-collector")


def copied_build(test, *programs):
    """A directory holding copies of `programs` (paths under BUILD) and
    nothing else: a build directory copied from another tree, with no
    build.ninja for scripts/build to use (it would set one up and build).
    Removed when `test` ends: a test, or a test class (its set-up made it)."""
    import shutil
    import tempfile
    copy = tempfile.mkdtemp(prefix="agt-copied-build-")
    cleanup = test.addClassCleanup if isinstance(test, type) else test.addCleanup
    cleanup(shutil.rmtree, copy, ignore_errors=True)
    for program in programs:
        os.makedirs(os.path.join(copy, os.path.dirname(program)), exist_ok=True)
        shutil.copy2(os.path.join(BUILD, program), os.path.join(copy, program))
    return copy
