#!/usr/bin/env python3
"""Symbolica's regeneration of the committed Cayley programs, run only when its inputs changed.

    python3 .ci/symbolica.py            # .ci/run's step: skip if the inputs are those recorded
    python3 .ci/symbolica.py --record   # run it whatever the record says; if it passes, record

The regeneration (`derive --check`: Symbolica re-derives `codegen/programs/cayley_T.txt` and
compares them byte for byte) takes about 15 minutes on 2 cores, almost all of it building
Symbolica. Its result is a function of its inputs, hashed here (SHA-256):

- the derivation's code: `codegen/Cargo.toml` and everything under `codegen/src/`, and the same of
  each crate of this repository it depends on (`gml-file/`, the GML file reader of `embed_gml!`);
- what it is compared with, and what is emitted from it: `codegen/programs/`, `codegen/gen/`;
- how it is built: the root `Cargo.toml` (workspace dependencies, profiles),
  `rust-toolchain.toml`, and the `Cargo.lock` entries of every package `geomattn-codegen` can
  reach (Symbolica's pinned version among them, with their checksums).

`.ci/symbolica.sha256` holds the hash of the inputs of the last run that regenerated and
compared them, written only by `--record` after that run passed (and only if the inputs did not
change while it ran). Without `--record` the step is skipped exactly when the tree's hash equals
the recorded one; otherwise the regeneration runs, and the step fails if it fails. A recorded
hash that is not 64 hex digits fails the step: it is never read as "skipped".
"""

import hashlib
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORD = ROOT / ".ci" / "symbolica.sha256"
FILES = ["Cargo.toml", "rust-toolchain.toml", "codegen/Cargo.toml"]
FOLDERS = ["codegen/src", "codegen/programs", "codegen/gen"]
COMMAND = [
    "cargo", "run", "--release", "-p", "geomattn-codegen", "--features", "symbolica",
    "--bin", "derive", "--", "--check",
]


def locked_closure() -> list[str]:
    """The `Cargo.lock` entries reachable from geomattn-codegen, one canonical line each."""
    packages = tomllib.loads((ROOT / "Cargo.lock").read_text())["package"]
    by_name: dict[str, list[dict]] = {}
    for package in packages:
        by_name.setdefault(package["name"], []).append(package)

    def resolve(dependency: str) -> list[dict]:
        # A lock file names a dependency "name" or, when versions of it coexist, "name version".
        name, _, version = dependency.partition(" ")
        return [p for p in by_name[name] if not version or p["version"] == version.split(" ")[0]]

    ours = [name for name, _ in path_dependencies()]
    seen: dict[tuple[str, str], dict] = {}
    todo = list(by_name["geomattn-codegen"])
    while todo:
        package = todo.pop()
        key = (package["name"], package["version"])
        # The workspace's own packages that the lock file lists under geomattn-codegen are its
        # normal dependencies (`path_dependencies`, whose sources are hashed) and its
        # dev-dependencies (the runtime, the test kit), which the derivation does not build.
        own = "source" not in package
        if key in seen or (own and package["name"] not in ["geomattn-codegen", *ours]):
            continue
        seen[key] = package
        for dependency in package.get("dependencies", []):
            todo.extend(resolve(dependency))
    return [
        " ".join([p["name"], p["version"], p.get("source", "path"), p.get("checksum", "-")])
        for _, p in sorted(seen.items())
    ]


def path_dependencies() -> list[tuple[str, str]]:
    """geomattn-codegen's normal dependencies that are crates of this repository: (name, folder).
    None of them may depend on another crate of the repository (its sources would go unhashed)."""
    workspace = tomllib.loads((ROOT / "Cargo.toml").read_text())["workspace"]["dependencies"]

    def local(folder: str) -> list[tuple[str, str]]:
        manifest = tomllib.loads((ROOT / folder / "Cargo.toml").read_text())
        found = []
        for name, spec in manifest.get("dependencies", {}).items():
            if isinstance(spec, dict) and spec.get("workspace"):
                spec = workspace.get(name, {})
            if isinstance(spec, dict) and "path" in spec:
                found.append((name, spec["path"]))
        return found

    found = local("codegen")
    for name, folder in found:
        if deeper := local(folder):
            sys.exit(f"{name} depends on {deeper} by path: hash their sources too")
    return found


def inputs_hash() -> str:
    digest = hashlib.sha256()
    paths = [ROOT / f for f in FILES]
    folders = FOLDERS + [f"{folder}/src" for _, folder in path_dependencies()]
    paths.extend(ROOT / folder / "Cargo.toml" for _, folder in path_dependencies())
    for folder in folders:
        paths.extend(p for p in (ROOT / folder).rglob("*") if p.is_file())
    for path in sorted(paths):
        content = path.read_bytes()
        name = path.relative_to(ROOT).as_posix()
        digest.update(f"{name}\0{len(content)}\0".encode())
        digest.update(content)
    for line in locked_closure():
        digest.update(f"Cargo.lock\0{line}\n".encode())
    return digest.hexdigest()


def recorded_hash() -> str | None:
    if not RECORD.exists():
        return None
    lines = [l for l in RECORD.read_text().splitlines() if l and not l.startswith("#")]
    if len(lines) != 1 or len(lines[0]) != 64 or any(c not in "0123456789abcdef" for c in lines[0]):
        sys.exit(f"{RECORD.relative_to(ROOT)} is malformed: one line of 64 hex digits expected")
    return lines[0]


def main() -> int:
    record = sys.argv[1:] == ["--record"]
    if sys.argv[1:] not in ([], ["--record"]):
        sys.exit("usage: symbolica.py [--record]")
    before = inputs_hash()
    recorded = recorded_hash()
    print(f"inputs {before}\nrecord {recorded}")
    if before == recorded and not record:
        print("skipped: the inputs are those of the last run that regenerated and compared them")
        return 0
    print("running: " + ("--record" if record else "the inputs differ from the record"), flush=True)
    subprocess.run(COMMAND, cwd=ROOT, check=True)
    if inputs_hash() != before:
        sys.exit("the inputs changed while the regeneration ran: nothing recorded")
    if record:
        RECORD.write_text(
            "# SHA-256 of the inputs of Symbolica's regeneration (.ci/symbolica.py) when it last\n"
            "# ran and reproduced codegen/programs/ byte for byte. Written by\n"
            "# `python3 .ci/symbolica.py --record` after that run passed; never by hand.\n"
            f"{before}\n"
        )
        print(f"recorded in {RECORD.relative_to(ROOT)}")
    else:
        print(
            "passed; the record is stale, so later runs will run it again: "
            "`python3 .ci/symbolica.py --record` records it"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
