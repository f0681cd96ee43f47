"""GPU Labkit command line: every subcommand but `setup` and `bundle` (those live in ../../labkit,
in bash, so that they work before python3 is installed). Run as `python3 -m labkit` with cli/
on PYTHONPATH; the ./labkit front does that.

Python standard library only. Each lab has two C++ programs, both listed by the build in
<build_dir>/labkit-build.json:

  the grader (kit code only; never links student code)
    <grader> list --runner R         name<TAB>kind<TAB>summary[<TAB>...] per variant
    <grader> list-files              the student-editable file names of the lab
    <grader> grade --runner R [...] --json FILE --label NAME
                                     exit 0 pass, 1 some failed, 2 usage error
    <grader> run VARIANT --runner R --input IMG --output OUT.png [--raw FILE]
  the runner (the student's code, the reference's, or a submission's), which only the grader
  starts: labkit hands its path over with --runner.

This package builds them, runs the grader under a wall-clock timeout, collects its JSON and
prints summaries.
"""
