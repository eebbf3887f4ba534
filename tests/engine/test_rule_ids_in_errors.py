"""Every error that cites a rule names it in `rule`, so its problem links to the rule
(`rule_url`): checked on the source, for every raise of an error with a detail that starts
with a rule id."""

from __future__ import annotations

import ast
import re
from pathlib import Path

APP = Path(__file__).resolve().parents[2] / "app"
RULE_FIRST = re.compile(r"[A-Z]+-\d+")
ERRORS = {
    "InvalidInput",
    "NotPermitted",
    "RuleRefusal",
    "EngineError",
    "Conflict",
    "Unprocessable",
    "Forbidden",
    "NotFound",
}


def leading_text(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr) and node.values:
        return leading_text(node.values[0])
    if isinstance(node, ast.BinOp):  # implicit concatenation across lines stays a Constant
        return leading_text(node.left)
    return ""


def test_every_error_citing_a_rule_names_it() -> None:
    unnamed = []
    for source in APP.rglob("*.py"):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)):
                continue
            if node.func.id not in ERRORS or not node.args:
                continue
            cites = RULE_FIRST.match(leading_text(node.args[0]))
            if cites and not any(keyword.arg == "rule" for keyword in node.keywords):
                unnamed.append(f"{source.relative_to(APP.parent)}:{node.lineno} {cites[0]}")
    assert not unnamed, unnamed
