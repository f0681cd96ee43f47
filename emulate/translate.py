#!/usr/bin/env python3
"""The emulated build's one source rewrite: a CUDA file (.cu) into C++ for HIP-CPU.

    translate.py IN.cu OUT.cpp

Two constructs of the CUDA language are not C++, and no header can map them:
  kernel<<<grid, block, shared, stream>>>(args...)
      -> ::labkit::emu::launch(grid, block, shared, stream, call, args...)
         (emulate/include/cuda_runtime_api.h: checks the configuration, runs every block)
  extern __shared__ T name[];   (dynamic shared memory, inside a kernel)
      -> HIP_DYNAMIC_SHARED(T, name)
Everything else (__global__, __shared__, __constant__, threadIdx, __syncthreads, atomics, the
runtime API) is HIP-CPU's or emulate/include's. Line breaks are kept and a #line names the
original file, so compiler errors and CUDA_CHECK's file:line point into the student's file.
"""
import re
import sys

LAUNCH = re.compile(r"<<<")
DYNAMIC_SHARED = re.compile(
    r"extern\s+__shared__\s+(?:__align__\s*\(\s*\d+\s*\)\s+|alignas\s*\(\s*\d+\s*\)\s+)?"
    r"(?P<type>[A-Za-z_][\w:<>\s]*?)\s+(?:__align__\s*\(\s*\d+\s*\)\s+)?(?P<name>\w+)\s*\[\s*\]\s*;")


class TranslateError(Exception):
    pass


def line_of(text, pos):
    return text.count("\n", 0, pos) + 1


def split_top_level(text):
    """Splits at the commas outside (), [], {} and <...> of a launch configuration."""
    parts, depth, start = [], 0, 0
    for i, c in enumerate(text):
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth -= 1
        elif c == "," and depth == 0:
            parts.append(text[start:i])
            start = i + 1
    parts.append(text[start:])
    return [p.strip() for p in parts]


def matching_paren(text, open_pos):
    depth = 0
    for i in range(open_pos, len(text)):
        if text[i] == "(":
            depth += 1
        elif text[i] == ")":
            depth -= 1
            if depth == 0:
                return i
    return -1


KERNEL_CHARS = set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_:<>, \t")
LEADING_KEYWORD = re.compile(r"(?:(?:else|do|return)\s+)+")


def kernel_start(text, pos):
    """Where the kernel expression before <<< begins: a name, maybe qualified and with template
    arguments (ns::scan<T, 8>), after whatever ends the code before it on its line (a ; { } or
    the ) of `for (...) kernel<<<...>>>(...)`) and any else, do or return."""
    i = pos
    while i > 0 and text[i - 1] in KERNEL_CHARS:
        i -= 1
    while text[i] in " \t,>":
        i += 1
    keyword = LEADING_KEYWORD.match(text, i)
    return keyword.end() if keyword else i


def code_mask(text):
    """Per character, whether it is code: not in a comment, a string or a character literal, so
    that a <<< in a comment (the starter's "the launch's third <<<>>> argument") is left alone.
    A ' after a letter, digit or _ is a digit separator (1'000), not a literal."""
    code = bytearray(b"\x01") * len(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            end = text.find("\n", i)
            end = n if end < 0 else end
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
        elif c == '"' or (c == "'" and not (i and (text[i - 1].isalnum() or text[i - 1] == "_"))):
            j = i + 1
            while j < n and text[j] not in (c, "\n"):
                j += 2 if text[j] == "\\" else 1
            end = min(j + 1, n)
        else:
            i += 1
            continue
        code[i:end] = bytes(end - i)
        i = end
    return code


def translate_launches(text, path):
    out, done = [], 0
    code = code_mask(text)
    for m in LAUNCH.finditer(text):
        if m.start() < done or not code[m.start()]:
            continue
        start = kernel_start(text, m.start())
        kernel = text[start:m.start()].strip()
        close = text.find(">>>", m.end())
        if close < 0 or not kernel:
            raise TranslateError(f"{path}:{line_of(text, m.start())}: a <<< without its kernel or its >>>")
        config = split_top_level(text[m.end():close])
        if not 2 <= len(config) <= 4:
            raise TranslateError(f"{path}:{line_of(text, m.start())}: <<<...>>> takes 2 to 4 values, found {len(config)}")
        config += ["0", "nullptr"][len(config) - 2:]
        open_paren = close + 3
        while text[open_paren].isspace():
            open_paren += 1
        end = matching_paren(text, open_paren) if text[open_paren] == "(" else -1
        if end < 0:
            raise TranslateError(f"{path}:{line_of(text, m.start())}: the kernel's arguments after >>> are not closed")
        args = text[open_paren + 1:end].strip()
        grid, block, shared, stream = config
        call = f"[=](auto&&... xs) {{ {kernel}(static_cast<decltype(xs)&&>(xs)...); }}"
        launch = (f"::labkit::emu::launch(dim3({grid}), dim3({block}), "
                  f"static_cast<std::size_t>({shared}), {stream}, {call}{', ' + args if args else ''})")
        launch += "\n" * text.count("\n", start, end + 1)  # keep the following lines where they were
        out.append(text[done:start])
        out.append(launch.replace("\n", " ", launch.count("\n") - text.count("\n", start, end + 1)))
        done = end + 1
    out.append(text[done:])
    return "".join(out)


def translate(text, path):
    text = DYNAMIC_SHARED.sub(lambda m: f"HIP_DYNAMIC_SHARED({m['type'].strip()}, {m['name']})", text)
    return f'#line 1 "{path}"\n' + translate_launches(text, path)


def main(argv):
    if len(argv) != 3 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) == 2 else 2
    src, dst = argv[1], argv[2]
    try:
        with open(src, encoding="utf-8") as f:
            text = f.read()
        out = translate(text, src)
    except (OSError, UnicodeDecodeError, TranslateError) as e:
        print(f"translate.py: {e}", file=sys.stderr)
        return 1
    with open(dst, "w", encoding="utf-8") as f:
        f.write(out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
