"""CLI: python -m mfusim_tools.importers {aiconfigurator,vidur} SRC --out DIR [--gpu PROFILE] [--gpu-name NAME]"""

from __future__ import annotations

import argparse
import sys

from .. import gpus, validate
from .aiconfigurator import import_aiconfigurator
from .records import SourceError
from .vidur import import_vidur


def _versions(pairs: list[str]) -> dict[str, str] | None:
    if not pairs:
        return None
    versions = {}
    for pair in pairs:
        name, sep, version = pair.partition("=")
        if not sep or not name or not version:
            raise SystemExit(f"--library-version takes NAME=VERSION, got {pair!r}")
        versions[name] = version
    return versions


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m mfusim_tools.importers",
                                     description="Convert public measured kernel databases into bench_data tables.")
    parser.add_argument("source", choices=("aiconfigurator", "vidur"), help="format of SRC")
    parser.add_argument("src", help="folder with the source files (AIConfigurator: one <gpu>/<framework>/<version> "
                                    "folder; Vidur: a folder searched for mlp.csv and attention.csv)")
    parser.add_argument("--out", required=True, help="bench_data directory to write into")
    parser.add_argument("--gpu", default=None, help=f"GPU profile ({', '.join(sorted(gpus.PROFILES))}); "
                                                    "aiconfigurator default h100, required for vidur")
    parser.add_argument("--gpu-name", default=None, help="GPU name as the driver reports it, for the manifest")
    parser.add_argument("--library-version", action="append", default=[], metavar="NAME=VERSION",
                        help="record a library version in the manifests (repeatable)")
    parser.add_argument("--no-validate", action="store_true", help="skip validating the written tables")
    args = parser.parse_args(argv)

    try:
        if args.source == "aiconfigurator":
            report = import_aiconfigurator(args.src, args.out, args.gpu or "h100", args.gpu_name,
                                           _versions(args.library_version))
        else:
            if not args.gpu:
                parser.error("vidur imports need --gpu (the GPU the profiles were taken on)")
            report = import_vidur(args.src, args.out, args.gpu, args.gpu_name, _versions(args.library_version))
    except (SourceError, KeyError, ValueError) as err:
        print(f"error: {err}", file=sys.stderr)
        return 1
    for line in report.lines():
        print(line)
    if args.no_validate:
        return 0
    problems = validate.validate_dir(args.out)
    for problem in problems:
        print(problem)
    print(f"{args.out}: {validate.summarize(problems)}")
    return 1 if any(p.severity == "error" for p in problems) else 0


if __name__ == "__main__":
    sys.exit(main())
