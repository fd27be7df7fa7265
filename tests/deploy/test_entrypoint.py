"""The image's entrypoint runs, checked without Docker: the Dockerfile's own build steps replayed into a
scratch root, then its ENTRYPOINT + CMD started with its ENV, as the container would start, with the
Claude lane on (an API key that is never used: the lane samples 1% of traces), so the image must hold the
extras it installs: serve, claude, and demo, whose app the compose file and the Kubernetes manifest run
from this image as stand-in traffic.

What is replayed: the build stage (WORKDIR, COPY from the build context filtered by .dockerignore, RUN:
wheel build, fresh venv, `pip install` of the wheel and its extras from the index) and the runtime stage's
COPY --from, ENV, ENTRYPOINT and CMD. Container paths (/src, /wheels, /opt/venv) are mapped under the
scratch root. Not replayed: the runtime stage's user creation (it would edit this machine's
/etc/passwd) and the base image itself (`python` is this interpreter, of the Python the image names:
tests/deploy/test_dockerfile.py).

Dependencies come from pip's configured index, as in `docker build`; measured here at about 20 s
for the fresh venv, well under the 90 s where reusing a cache would pay for its staleness, so nothing
is cached between runs and a dependency missing from pyproject.toml shows up as a failure.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import pytest
from dockerfile_model import Dockerfile

ROOT = Path(__file__).resolve().parents[2]
LISTENERS = ("RAGMON_HTTP_LISTEN", "RAGMON_GRPC_LISTEN", "RAGMON_METRICS_LISTEN")

pytestmark = pytest.mark.timeout(240)

_ABSOLUTE = re.compile(r"""(?:^|(?<=[\s=:"']))/(?=[\w.])""")
_SETUP_ONLY = re.compile(r"^(groupadd\b|useradd\b|install -d -o 10001 -g 10001 )")
"""Runtime RUN steps that only create the service user and its state directory: the one kind this replay
may leave out."""


def dockerignore_patterns(root: Path) -> list[tuple[bool, re.Pattern[str]]]:
    """(is_exception, regex) per .dockerignore line, in Docker's pattern language (`*`, `**`, `?`, `!`)."""
    rules = []
    for line in (root / ".dockerignore").read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        exception = line.startswith("!")
        pattern = line.lstrip("!").strip("/")
        regex = ""
        for part in re.split(r"(\*\*/?|\*|\?)", pattern):
            regex += {"**/": "(?:.*/)?", "**": ".*", "*": "[^/]*", "?": "[^/]"}.get(part, re.escape(part))
        rules.append((exception, re.compile(regex + "$")))
    return rules


def ignored(relative: str, rules: list[tuple[bool, re.Pattern[str]]]) -> bool:
    """Docker's rule: the last pattern matching the path or one of its parent directories wins."""
    parts = relative.split("/")
    candidates = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    verdict = False
    for exception, regex in rules:
        if any(regex.match(c) for c in candidates):
            verdict = not exception
    return verdict


def copy_from_context(sources: list[str], dest: Path, context: Path) -> None:
    rules = dockerignore_patterns(context)
    for source in sources:
        src = context / source
        files = [src] if src.is_file() else sorted(p for p in src.rglob("*") if p.is_file())
        kept = [f for f in files if not ignored(f.relative_to(context).as_posix(), rules)]
        assert kept, f"COPY {source}: nothing left in the build context after .dockerignore"
        for file in kept:
            target = dest / file.name if src.is_file() else dest / file.relative_to(src)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(file, target)


def replay_build(dockerfile: Dockerfile, rootfs: Path, shim: Path) -> None:
    def remap(text: str) -> str:
        return _ABSOLUTE.sub(str(rootfs) + "/", text)

    build = dockerfile.stage("build")
    workdir = rootfs
    env = {**os.environ, **{k: remap(v) for k, v in build.env().items()},
           "PATH": f"{shim}:/usr/bin:/bin"}
    for instruction in build.instructions:
        if instruction.keyword == "WORKDIR":
            workdir = Path(remap(instruction.args))
            workdir.mkdir(parents=True, exist_ok=True)
        elif instruction.keyword == "COPY":
            *sources, dest = instruction.args.split()
            copy_from_context(sources, workdir / dest, ROOT)
        elif instruction.keyword == "RUN":
            done = subprocess.run(["bash", "-euo", "pipefail", "-c", remap(instruction.args)], cwd=workdir,
                                  env=env, capture_output=True, text=True, timeout=200)
            assert done.returncode == 0, f"line {instruction.line}: RUN failed\n{done.stdout}\n{done.stderr}"
    for instruction in dockerfile.runtime.all("COPY"):
        flag, src, dest = instruction.args.split()
        assert flag == "--from=build" and src == dest, "runtime COPY expected to move the venv as is"
    for instruction in dockerfile.runtime.all("RUN"):
        for command in re.split(r"&&", instruction.args):
            assert _SETUP_ONLY.match(command.strip()), f"line {instruction.line}: cannot replay {command!r}"


def http_status(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return int(response.status)
    except urllib.error.HTTPError as exc:
        return exc.code
    except OSError:
        return None


def test_image_entrypoint_serves_health_with_claude_on_and_stops_cleanly_on_sigterm(
        dockerfile: Dockerfile, tmp_path: Path, loopback_ports: Callable[[int], list[int]]) -> None:
    rootfs = tmp_path / "rootfs"
    shim = tmp_path / "shim"
    shim.mkdir()
    (shim / "python").symlink_to(sys.executable)
    replay_build(dockerfile, rootfs, shim)

    runtime = dockerfile.runtime
    image_env = {k: _ABSOLUTE.sub(str(rootfs) + "/", v).replace("$PATH", "/usr/bin:/bin")
                 for k, v in runtime.env().items()}
    ports = dict(zip(LISTENERS, loopback_ports(len(LISTENERS)), strict=True))
    assert set(ports) <= set(image_env), "the image is expected to set its listeners through ENV"
    env = {**image_env, "HOME": str(tmp_path), "TMPDIR": str(tmp_path),
           "RAGMON_LLM_SAMPLE_RATE": "0.01", "ANTHROPIC_API_KEY": "never-used",
           "ANTHROPIC_BASE_URL": "http://127.0.0.1:9",  # a demo trace the lane samples stays on loopback
           **{name: f"127.0.0.1:{port}" for name, port in ports.items()}}
    entrypoint = runtime.all("ENTRYPOINT")[-1].exec_form()
    cmd = runtime.all("CMD")[-1].exec_form()
    assert entrypoint is not None and cmd is not None, "ENTRYPOINT and CMD must use the exec form"
    command = entrypoint + cmd
    resolved = shutil.which(command[0], path=env["PATH"])
    assert resolved is not None and Path(resolved).is_relative_to(rootfs), resolved

    process = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        base = f"http://127.0.0.1:{ports['RAGMON_METRICS_LISTEN']}"
        deadline = time.monotonic() + 60
        status = None
        while time.monotonic() < deadline and process.poll() is None:
            status = http_status(base + "/healthz")
            if status == 200:
                break
            time.sleep(0.1)
        assert status == 200, f"/healthz never answered 200 (last {status}, exit {process.poll()})"
        # The stand-in app of the compose file and the Kubernetes manifest is this image's `ragmon demo`.
        demo = subprocess.run(
            [str(Path(resolved).with_name("ragmon")), "demo", "--phase", "healthy", "--requests", "2",
             "--endpoint", f"http://127.0.0.1:{ports['RAGMON_HTTP_LISTEN']}"],
            env=env, capture_output=True, text=True, timeout=60)
        assert demo.returncode == 0, demo.stdout + demo.stderr
        process.send_signal(signal.SIGTERM)
        output, _ = process.communicate(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.communicate()
    assert process.returncode == 0, output
