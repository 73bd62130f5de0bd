"""CI: the dependency set resolves for Linux aarch64 (GH200, GB200, GB300 servers).

``pip install --dry-run --only-binary=:all: --platform manylinux_2_28_aarch64`` of every
runtime dependency in pyproject.toml: each must have an aarch64 wheel, except those listed in
FROM_SOURCE, which ship an sdist that pip builds there (checked to exist). ncu-report is an
extra and is not part of the set.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

import tomllib

FROM_SOURCE = {"plotext": "plotext 6.x ships an x86-64 wheel and an sdist (a C++ kernel)"}
PLATFORM = ("--platform", "manylinux_2_28_aarch64", "--python-version", "3.12")


def main() -> int:
    project = tomllib.loads(Path("pyproject.toml").read_text(encoding="utf-8"))["project"]
    deps = list(project["dependencies"])
    wheels = [d for d in deps if not any(d.startswith(name) for name in FROM_SOURCE)]
    sources = [d for d in deps if d not in wheels]
    with tempfile.TemporaryDirectory() as target:
        done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--dry-run",
                               "--only-binary=:all:", *PLATFORM, "--target", target, *wheels],
                              check=False)
        if done.returncode:
            return done.returncode
        for dep in sources:
            done = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                                   "--no-binary=:all:", "-d", target, dep], check=False)
            if done.returncode:
                return done.returncode
    print(f"aarch64: {len(wheels)} dependencies resolve as wheels; built from source there: "
          + "; ".join(FROM_SOURCE[d.split('>')[0].split('<')[0].split('=')[0]] for d in sources))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
