#!/usr/bin/env python3
"""Every relative link and image of every Markdown file the kit tracks resolves: the file (or
folder) it names exists, and a #anchor into a Markdown file names one of its headings, slugged
as GitHub slugs them. Links to other sites are not followed. It first checks itself on a made-up
page with known broken links, so it cannot pass by finding nothing. Pure Python, no build.

    doc_links_selftest.py            # prints FILE:LINE: LINK: WHY for each broken link

In a git checkout the files are those git tracks (a link to an untracked file would break on the
repository's web page); elsewhere (the student tarball) the files on disk, where a link into a
kit-only folder, which the tarball leaves out, is accepted.
"""
import argparse
import posixpath
import re
import shutil
import subprocess
import sys
import tempfile
import unicodedata
from pathlib import Path
from urllib.parse import unquote

sys.dont_write_bytecode = True  # nothing written into the kit, not even __pycache__/
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "cli"))
from labkit.dist import dist_excluded, tracked_files  # noqa: E402
from labkit.util import ROOT  # noqa: E402

FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
ATX = re.compile(r"^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$")
SETEXT = re.compile(r"^ {0,3}(=+|-+)[ \t]*$")
# A code span: a run of backticks up to the same run, not across a blank line.
CODE_SPAN = re.compile(r"(`+)((?:[^`\n]|`(?!\1)|\n(?![ \t]*\n))+?)\1(?!`)")
INLINE = re.compile(r"\]\(\s*(<[^>\n]*>|[^)\s]+)(?:\s+(?:\"[^\"]*\"|'[^']*'))?\s*\)")
REFERENCE = re.compile(r"^ {0,3}\[[^\]\n]+\]:[ \t]*(<[^>\n]*>|\S+)", re.M)
HTML_LINK = re.compile(r"<(?:a|img)\b[^>]*?\b(?:href|src)\s*=\s*[\"']([^\"']*)[\"']", re.I)
HTML_ANCHOR = re.compile(r"<a\b[^>]*?\b(?:name|id)\s*=\s*[\"']([^\"']+)[\"']", re.I)
SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:|^//")
HEADING_LINK = re.compile(r"!?\[([^\]]*)\]\([^)]*\)")
EMPHASIS_UNDERSCORE = re.compile(r"(?<![\w])_+(?=\S)|(?<=\S)_+(?![\w])")


def prose(text):
    """The Markdown text with fenced code blocks and code spans blanked out (spaces, the newlines
    kept, so that offsets and line numbers hold), and the lines inside a fence marked (headings
    there are not headings)."""
    lines = text.split("\n")
    in_code = [False] * len(lines)
    fence = None
    for i, line in enumerate(lines):
        m = FENCE.match(line)
        if fence is None:
            if m:
                fence = m.group(1)
                in_code[i] = True
        else:
            in_code[i] = True
            if m and m.group(1)[0] == fence[0] and len(m.group(1)) >= len(fence) \
                    and not line.strip().lstrip(fence[0]):
                fence = None
    kept = "\n".join(" " * len(line) if code else line for line, code in zip(lines, in_code))
    return CODE_SPAN.sub(lambda m: re.sub(r"[^\n]", " ", m.group(0)), kept), in_code


def slug(heading):
    """GitHub's anchor of a heading: its text as rendered (code spans' backticks, link targets and
    emphasis dropped), lowercased, every character but letters, digits, '_', '-' and spaces
    dropped, spaces made hyphens."""
    parts = re.split(r"(`+[^`]*?`+)", heading)
    text = ""
    for i, part in enumerate(parts):
        if i % 2:
            text += part.strip("`").strip()
        else:
            part = HEADING_LINK.sub(r"\1", part)
            part = re.sub(r"<[^>]+>", "", part)
            text += EMPHASIS_UNDERSCORE.sub("", part)
    kept = "".join(c for c in text.lower()
                   if c in "-_ " or unicodedata.category(c)[0] in "LM" or unicodedata.category(c) == "Nd")
    return kept.replace(" ", "-")


def anchors(text):
    """Every anchor of a Markdown page: its headings' slugs (a repeated one gets -1, -2, ...) and
    HTML anchors (<a name=...> / id=...)."""
    _, in_code = prose(text)
    lines = text.split("\n")
    seen, found = {}, set()
    for i, line in enumerate(lines):
        if in_code[i]:
            continue
        m = ATX.match(line)
        title = None
        if m:
            title = m.group(2) or ""
        elif (i > 0 and SETEXT.match(line) and lines[i - 1].strip() and not in_code[i - 1]
              and not ATX.match(lines[i - 1]) and "|" not in lines[i - 1]):
            title = lines[i - 1].strip()
        if title is None:
            continue
        base = slug(title.strip())
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    found.update(HTML_ANCHOR.findall(text))
    return found


def links(text):
    """(line, target) of every link and image outside code: inline, reference definitions, HTML."""
    kept, _ = prose(text)
    out = []
    for pattern in (INLINE, REFERENCE, HTML_LINK):
        for m in pattern.finditer(kept):
            target = m.group(1)
            if target.startswith("<") and target.endswith(">"):
                target = target[1:-1]
            out.append((m.start(1), kept.count("\n", 0, m.start(1)) + 1, target))
    return [(line, target) for _, line, target in sorted(out)]


class Tree:
    """The kit's files. tracked: they are what git tracks, so a file on disk outside them is an
    error; else they are the files on disk (the student tarball), where a kit-only path may be
    absent."""

    def __init__(self, root, files, tracked):
        self.root, self.files, self.tracked = Path(root), set(files), tracked
        self.dirs = {""}
        for f in self.files:
            d = posixpath.dirname(f)
            while d not in self.dirs:
                self.dirs.add(d)
                d = posixpath.dirname(d)
        self._anchors = {}

    @classmethod
    def of_kit(cls):
        if (ROOT / ".git").exists() and shutil.which("git"):
            run = subprocess.run(["git", "-C", str(ROOT), "ls-files", "-z"], capture_output=True)
            if run.returncode == 0:
                files = [f for f in run.stdout.decode().split("\0") if f and (ROOT / f).is_file()]
                return cls(ROOT, files, True)
            raise SystemExit(f"FAILED: git ls-files in {ROOT}: {run.stderr.decode(errors='replace').strip()}")
        return cls(ROOT, tracked_files(), False)

    def why_missing(self, path):
        """None when path (from the root) is a file or folder of the kit, else why not."""
        if path in self.files or path in self.dirs:
            return None
        on_disk = (self.root / path).exists()
        if self.tracked:
            return "exists, but git does not track it" if on_disk else "no such file"
        return None if on_disk or dist_excluded(path) else "no such file"

    def anchors_of(self, path):
        if path not in self._anchors:
            self._anchors[path] = anchors((self.root / path).read_text(errors="replace"))
        return self._anchors[path]


def check_file(tree, md):
    """The broken links of one Markdown file, as 'FILE:LINE: LINK: WHY'."""
    problems = []
    text = (tree.root / md).read_text(errors="replace")
    for line, target in links(text):
        if not target or SCHEME.match(target):
            continue
        path, _, fragment = target.partition("#")
        path = unquote(path.split("?")[0])
        if path:
            resolved = posixpath.normpath(path.lstrip("/") if path.startswith("/")
                                          else posixpath.join(posixpath.dirname(md), path))
            if resolved == ".." or resolved.startswith("../"):
                problems.append(f"{md}:{line}: {target}: points outside the repository")
                continue
            why = tree.why_missing(resolved)
            if why:
                problems.append(f"{md}:{line}: {target}: {why} ({resolved})")
                continue
        else:
            resolved = md
        if fragment and resolved.endswith(".md") and (tree.root / resolved).is_file():
            if unquote(fragment) not in tree.anchors_of(resolved):
                problems.append(f"{md}:{line}: {target}: no heading of {resolved} has the anchor #{fragment}")
    return problems


def pages(tree):
    """The Markdown files to check: all but vendored code's (third_party/), kept as upstream wrote
    it, links into upstream's repository included."""
    return sorted(f for f in tree.files if f.endswith(".md") and not f.startswith("third_party/"))


def check_tree(tree):
    return [p for md in pages(tree) for p in check_file(tree, md)]


# The checker on a page whose broken links are known: it must find exactly these.
SAMPLE = {
    "docs/guide.md": """# Guide: the `grade` command

See [the other page](other.md), [its part](other.md#second-part--2d-and-more), [a folder](../labs/)
and [this page's part](#guide-the-grade-command), ![a picture](img/p.png), [a link
that wraps](other.md#repeated-1) and [far away](https://example.com/x.md).

```
[in a fence](missing_in_fence.md)
```
Not a link: `[in code](missing_in_code.md)`.

[missing file](nothing.md) and [missing anchor](other.md#no-such-part), [outside](../../x.md),
[untracked](untracked.md).

[ref]: gone.md
""",
    "docs/other.md": "# Other\n## Second part — 2D and more\n## Repeated\n## Repeated\n```\n## not a heading\n```\n",
    "docs/img/p.png": "",
    "labs/lab/a.cpp": "",
    "docs/untracked.md": "",
}
SAMPLE_BROKEN = [
    "docs/guide.md:12: nothing.md: no such file (docs/nothing.md)",
    "docs/guide.md:12: other.md#no-such-part: no heading of docs/other.md has the anchor #no-such-part",
    "docs/guide.md:12: ../../x.md: points outside the repository",
    "docs/guide.md:13: untracked.md: exists, but git does not track it (docs/untracked.md)",
    "docs/guide.md:15: gone.md: no such file (docs/gone.md)",
]


def self_check():
    """The checker finds the sample's broken links and nothing else; [] when it does."""
    with tempfile.TemporaryDirectory(prefix="labkit-doc-links-") as tmp:
        root = Path(tmp)
        for name, text in SAMPLE.items():
            (root / name).parent.mkdir(parents=True, exist_ok=True)
            (root / name).write_text(text)
        got = check_tree(Tree(root, [n for n in SAMPLE if n != "docs/untracked.md"], True))
    if got == SAMPLE_BROKEN:
        return []
    return [f"the checker itself is wrong on its sample page: found {got}, expected {SAMPLE_BROKEN}"]


def main():
    argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter).parse_args()
    problems = self_check()
    if problems:
        print("\n".join(problems))
        return 1
    tree = Tree.of_kit()
    mds = pages(tree)
    problems = check_tree(tree)
    for p in problems:
        print(p)
    count = sum(len(links((ROOT / md).read_text(errors="replace"))) for md in mds)
    if problems:
        print(f"FAILED: {len(problems)} broken link(s) in {len(mds)} Markdown files")
        return 1
    print(f"doc links: {count} links in {len(mds)} Markdown files, every relative one resolves")
    return 0


if __name__ == "__main__":
    sys.exit(main())
