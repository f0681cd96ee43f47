"""Loading a student's file of the Python track, and saying where in it an exception came from."""
import ast
import importlib.util
import os
import sys
import traceback


class Todo(Exception):
    """The variant is not written yet (the student file raised NotImplementedError)."""


def load_module(path):
    name = "student_" + os.path.splitext(os.path.basename(path))[0].replace("-", "_")
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None:
        raise RuntimeError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def where(error, code_dir):
    """"file.py:LINE: Type: message", naming the last frame in a student file when there is one."""
    frames = traceback.extract_tb(error.__traceback__)
    own = [f for f in frames if os.path.dirname(os.path.abspath(f.filename)) == os.path.abspath(code_dir)]
    place = ""
    if own:
        place = f"{os.path.basename(own[-1].filename)}:{own[-1].lineno}: "
    elif isinstance(error, SyntaxError) and error.filename:
        place = f"{os.path.basename(error.filename)}:{error.lineno}: "
    return f"{place}{type(error).__name__}: {error}"


def first_todo(path, functions):
    """Without the file's driver installed: the message of the first of `functions` whose body
    starts with `raise NotImplementedError(...)` (a starter's TODO), else None. Read, not run."""
    with open(path, encoding="utf-8") as f:
        tree = ast.parse(f.read(), filename=path)
    for node in tree.body:
        if not isinstance(node, ast.FunctionDef) or node.name not in functions:
            continue
        body = [n for n in node.body if not (isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant))]
        first = body[0] if body else None
        if isinstance(first, ast.Raise) and first.exc is not None:
            call = first.exc
            name = call.func if isinstance(call, ast.Call) else call
            if isinstance(name, ast.Name) and name.id == "NotImplementedError":
                args = call.args if isinstance(call, ast.Call) else []
                text = args[0].value if args and isinstance(args[0], ast.Constant) else ""
                return text or f"{os.path.basename(path)}: {node.name}() not written yet"
    return None
