"""`labkit datasets`: test images from build/datasets/generate_dataset, patterns x sizes."""

import os
import time

from .build import build_dir_of, build_targets, ensure_configured, ninja
from .proc import capture
from .util import LabkitError, UsageError, first_errors, kit_path, parse_sizes, rel, say

GENERATOR = "datasets/generate_dataset"  # ninja target, relative to the build folder
PHOTO_PATTERN = "photo"  # common/labkit/generators.hpp: a photo, mirrored to the size, shifted by the seed
PHOTOS = "datasets/photos"  # where `grade --photos` looks by default; the generator mirrors its first image


def build_generator(build_dir):
    if GENERATOR in build_targets(build_dir):
        ok, out = ninja(build_dir, [GENERATOR], echo=False)
        if not ok:
            say(first_errors(out))
            raise LabkitError(f"could not build {GENERATOR}")
    elif not (build_dir / GENERATOR).is_file():
        raise LabkitError(f"{GENERATOR} is not part of this build")
    return build_dir / GENERATOR


def cmd_datasets(args):
    build_dir = build_dir_of(args)
    ensure_configured(build_dir)
    generator = build_generator(build_dir)
    sizes = parse_sizes(args.sizes)
    patterns = [p for p in args.patterns.split(",") if p]
    out_dir = kit_path(args.out)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as e:
        raise UsageError(f"--out {args.out}: cannot make that folder ({e.strerror})") from None
    if not os.access(out_dir, os.W_OK):
        raise UsageError(f"--out {args.out}: cannot write into that folder")
    photo = ["--photo", kit_path(args.photo or PHOTOS)] if PHOTO_PATTERN in patterns else []
    if photo:
        say(f"the {PHOTO_PATTERN} pattern mirrors {rel(photo[1])}" + (" (its first image)" if photo[1].is_dir() else "")
            + " to each size, shifted by the seed")
    elif args.photo:
        say(f"note: --photo is for the {PHOTO_PATTERN} pattern, which --patterns does not name: left unused")
    jobs = [(p, w, h) for p in patterns for (w, h) in sizes]
    width = len(str(len(jobs)))
    failed = 0
    for i, (pattern, w, h) in enumerate(jobs, 1):
        dest = out_dir / f"{pattern}-{w}x{h}.png"
        started = time.monotonic()
        rc, text, timed_out = capture([generator, "--pattern", pattern, "--width", w,
                                       "--height", h, "--seed", args.seed, "--output", dest]
                                      + (photo if pattern == PHOTO_PATTERN else []),
                                      timeout=600)
        took = time.monotonic() - started
        status = "ok" if rc == 0 and not timed_out else ("TIMEOUT" if timed_out else f"FAILED (exit {rc})")
        say(f"[{i:{width}}/{len(jobs)}] {pattern:<13} {w}x{h:<6} -> {rel(dest)}  {status} ({took:.1f} s)")
        if status != "ok":
            failed += 1
            say("    " + text.strip().replace("\n", "\n    "))
    say(f"{len(jobs) - failed} of {len(jobs)} images written to {rel(out_dir)} (seed {args.seed})")
    return 1 if failed else 0
