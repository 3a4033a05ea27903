"""`envs install|list|remove`: the isolated engine environments (harness/envs)."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import datetime
from pathlib import Path

from harness.atomic import write_text
from harness.commands.common_args import add_json, example_releases
from harness.engines import get_engine
from harness.engines.cli_flags import write_bundled
from harness.envs import (
    env_name,
    envs_dir,
    host_is_cpu_only,
    incomplete_envs,
    install_env,
    list_envs,
    parse_spec,
    remove_env,
    remove_env_named,
)
from harness.envs.flags import choose_donor, read_engine_flags, read_wheel_flags
from harness.envs.index import index_note
from harness.envs.installer import choose_installer
from harness.envs.lock import lock_text, locks_in
from harness.envs.lock_record import ensure_lock, marker_lock
from harness.envs.locked_install import LockedBuild, install_from_lock
from harness.envs.manage import dir_size, env_info
from harness.envs.model import env_summary
from harness.errors import HarnessError, InputError
from harness.formatting import text_table

EPILOG = """\
examples:
  python -m harness envs install {all}
  python -m harness envs list
  python -m harness envs lock {first} -o env.lock.json
  python -m harness envs install --lock results/RUN/run.json     (the envs a run used, package for package)
  python -m harness envs remove {first}        (or the name shown by list: {first_name}-cpu)

Envs live in <cache>/envs/<engine>-<version>[-cpu]; the cache dir is --cache-dir, else
$KV_HARNESS_CACHE_DIR, else ~/.cache/kv-budget-harness. On a host without an NVIDIA driver
the CPU builds are installed (-cpu); --device or $KV_HARNESS_DEVICE overrides the detection.
uv is used when found (much faster), else venv + pip; --installer or $KV_HARNESS_INSTALLER forces one.
"""


def register(subparsers) -> None:
    examples = example_releases()
    first = examples[0]
    p = subparsers.add_parser("envs", help="install, list and remove engine environments",
                              description="One isolated venv per engine version, reused by every run.",
                              epilog=EPILOG.format(all=" ".join(examples), first=first,
                                                   first_name=first.replace("==", "-")),
                              formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="envs_command", metavar="ACTION", required=True)

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--cache-dir", type=Path, default=None, help="cache root (envs go in its envs/ folder)")
    common.add_argument("--device", choices=("cpu", "gpu"), default=None,
                        help="build for this device instead of detecting the NVIDIA driver")

    i = sub.add_parser("install", parents=[common], help="install engine versions (ENGINE==VERSION ...)",
                       epilog=f"example: python -m harness envs install {' '.join(examples)}")
    i.add_argument("specs", nargs="*", metavar="ENGINE==VERSION")
    i.add_argument("--force", action="store_true", help="rebuild an env that is already installed")
    i.add_argument("--lock", type=Path, default=None, metavar="FILE",
                   help="rebuild the envs of a lock file or a run.json with exactly its packages (uv); a package "
                        "no index has stops it (exit 2), nothing half-built is left")
    i.add_argument("--allow-drift", action="store_true",
                   help="with --lock: build a package no index has at its nearest release, recorded in the lock")
    i.add_argument("--resolved-at", type=_date, default=None, metavar="DATE",
                   help="resolve as the package index stood on DATE (YYYY-MM-DD or an RFC 3339 time; uv's "
                        "--exclude-newer), e.g. the engine release's date; recorded in the env's lock")
    i.add_argument("--python", dest="base_python", default=None,
                   help="interpreter to make the venv from (default: the one running the harness)")
    i.add_argument("--installer", choices=("uv", "pip"), default=None, help="force a back end")
    i.set_defaults(func=cmd_install)

    lk = sub.add_parser("lock", parents=[common],
                        help="an installed env's lock: every distribution in it (derived once for an env built "
                             "before locks)", epilog=f"example: python -m harness envs lock {first} -o env.lock.json")
    lk.add_argument("specs", nargs="+", metavar="ENGINE==VERSION|NAME")
    lk.add_argument("-o", "--output", type=Path, default=None, help="write the lock(s) here (default: stdout)")
    lk.set_defaults(func=cmd_lock)

    ls = sub.add_parser("list", parents=[common], help="list installed envs with versions, path and size",
                        epilog="example: python -m harness envs list --json")
    add_json(ls, "one JSON object per env")
    ls.set_defaults(func=cmd_list)

    rm = sub.add_parser("remove", parents=[common], help="remove envs (ENGINE==VERSION or an env name)",
                        epilog=f"example: python -m harness envs remove {examples[-1]}")
    rm.add_argument("specs", nargs="+", metavar="ENGINE==VERSION|NAME")
    rm.set_defaults(func=cmd_remove)

    fl = sub.add_parser("flags", parents=[common],
                        help="a release's server flags (hidden ones too): from its env, else from its downloaded wheel",
                        epilog=f"example: python -m harness envs flags {first} --write")
    fl.add_argument("spec", metavar="ENGINE==VERSION")
    fl.add_argument("--write", action="store_true",
                    help="store them as the bundled list validate checks scenario keys against")
    fl.set_defaults(func=cmd_flags)


def _cpu(device: str | None) -> bool | None:
    return None if device is None else device == "cpu"


def _say(msg: str) -> None:
    print(msg, file=sys.stderr, flush=True)


def _date(text: str) -> str:
    try:
        datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a date (2026-10-01) or an RFC 3339 time") from None
    return text


def cmd_install(args: argparse.Namespace) -> int:
    if args.lock is not None:
        return _install_locked(args)
    if not args.specs:
        raise InputError("envs install: name ENGINE==VERSION, or --lock FILE")
    if args.allow_drift:
        raise InputError("--allow-drift goes with --lock FILE")
    specs = []
    for spec in args.specs:
        engine, version = parse_spec(spec)
        if version is None:
            raise InputError(f"{spec!r}: name the version, e.g. {engine}==0.32.0")
        specs.append((engine, version))

    installer = choose_installer(args.installer)
    for engine, version in specs:
        env = install_env(engine, version, args.cache_dir, cpu=_cpu(args.device), base_python=args.base_python,
                          force=args.force, installer=installer, progress=_say, resolved_at=args.resolved_at)
        print(f"{env.name}\t{env.engine} {env.engine_version}\ttorch {env.torch_version}\t{env.python}")
    return 0


def _install_locked(args: argparse.Namespace) -> int:
    if args.specs or args.resolved_at or args.device:
        raise InputError("envs install --lock takes no ENGINE==VERSION, --resolved-at or --device: the lock says them")
    installer = choose_installer(args.installer or "uv")
    for lock in locks_in(args.lock):
        env = install_from_lock(LockedBuild(lock, allow_drift=args.allow_drift), args.cache_dir, force=args.force,
                                installer=installer, base_python=args.base_python, progress=_say)
        drift = (marker_lock(env.path) or lock).drift
        print(f"{env.name}\t{env.engine} {env.engine_version}\ttorch {env.torch_version}\tlock {env.lock_digest}"
              + (f"\tdrift: {'; '.join(drift)}" if drift else "") + f"\t{env.python}")
    return 0


def cmd_lock(args: argparse.Namespace) -> int:
    envs = {env.name: env for env in list_envs(args.cache_dir)}
    locks = []
    for spec in args.specs:
        name = spec
        if "==" in spec:
            engine, version = parse_spec(spec)
            name = env_name(engine, version, host_is_cpu_only() if args.device is None else args.device == "cpu")
        if name not in envs:
            raise InputError(f"no installed env {name!r} (see `envs list`)")
        env = ensure_lock(envs[name])
        locks.append(marker_lock(env.path))
    text = lock_text(locks)
    if args.output is None:
        sys.stdout.write(text)
    else:
        write_text(args.output, text)
        _say(f"wrote {len(locks)} lock{'s' if len(locks) > 1 else ''} to {args.output}")
    return 0


def _human(n: int) -> str:
    return f"{n / 2**30:.1f} GiB" if n >= 2**30 else f"{n / 2**20:.0f} MiB"


def cmd_list(args: argparse.Namespace) -> int:
    envs = list_envs(args.cache_dir)
    broken = incomplete_envs(args.cache_dir)
    if args.json:
        records = [{**env_summary(env), "name": env.name, "status": "ready", "size_bytes": dir_size(env.path),
                    "install_seconds": env_info(env).get("install_seconds"),
                    "installer": env_info(env).get("installer")} for env in envs]
        records += [{"name": d.name, "path": str(d), "status": "incomplete"} for d in broken]
        for rec in sorted(records, key=lambda r: r["name"]):
            print(json.dumps(rec))
        return 0
    if not envs and not broken:
        print(f"no engine environments under {envs_dir(args.cache_dir)}", file=sys.stderr)
        return 0
    rows = [(env.name, env.engine, env.engine_version, env.torch_version, _human(dir_size(env.path)), str(env.path))
            for env in envs]
    rows += [(d.name, "-", "incomplete", "-", _human(dir_size(d)), str(d)) for d in broken]
    print(text_table(("NAME", "ENGINE", "VERSION", "TORCH", "SIZE", "PATH"), sorted(rows)))
    return 0


def cmd_remove(args: argparse.Namespace) -> int:
    for spec in args.specs:
        if "==" in spec:
            engine, version = parse_spec(spec)
            remove_env(engine, version, args.cache_dir, cpu=_cpu(args.device), progress=_say)
        else:
            remove_env_named(spec, args.cache_dir, progress=_say)
    return 0


def cmd_flags(args: argparse.Namespace) -> int:
    engine, version = parse_spec(args.spec)
    if version is None:
        raise InputError(f"{args.spec!r}: name the release, e.g. {example_releases()[0]}")
    eng = get_engine(engine)
    note = index_note(engine, version)
    if note is not None and note.is_error:
        raise InputError(note.text)
    envs = list_envs(args.cache_dir)
    own = [e for e in envs if e.engine == engine and e.engine_version.split("+")[0] == version]
    try:
        if own:
            flags = read_engine_flags(engine, str(own[0].python), own[0].env_vars)
            source = f"read from the installed {own[0].name}"
        else:
            donor = choose_donor(engine, version, envs)
            if donor is None:
                raise HarnessError(f"{engine} {version} is not installed and no {engine} env is there to read its "
                                   f"wheel with; install any release first, e.g. "
                                   f"python -m harness envs install {engine}=={eng.flag_releases()[-1]}", exit_code=3)
            flags, wheel = read_wheel_flags(engine, version, str(donor.python), donor.env_vars, progress=_say)
            source = f"read from {wheel} over {donor.name}"
    except (RuntimeError, OSError) as exc:
        raise HarnessError(f"{engine} {version}: {exc}", exit_code=3) from None
    if args.write:
        path = write_bundled(eng.flags_dir(), engine, version, flags, source)
        _say(f"wrote {len(flags)} flags of {engine} {version} ({source}) to {path}: part of the harness package, "
             "commit it with the code")
    else:
        print("\n".join(sorted(flags)))
    return 0
