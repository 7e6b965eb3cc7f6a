"""Where the end-to-end tests find the repository and the built binaries:
$AGT_BUILD_DIR (scripts/test sets it), else build/ in the repository."""
import os

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(HERE)
BUILD = os.environ.get("AGT_BUILD_DIR") or os.path.join(TOP, "build")
SHIM = os.path.join(BUILD, "shim", "agt-deny-shim")
COLLECTOR = os.path.join(BUILD, "collector", "agt-collector")
