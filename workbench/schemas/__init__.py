"""The corpus JSON Schema (``corpus.schema.json`` beside this file) and its validation as one-line
problems that name the case and the field (``retrieval[3].expectedPrimary: expected a list of
strings, got "a.ts" (case 'shop-refund')``)."""

from __future__ import annotations

import json
import sys
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jsonschema

_FORMAT_ONLY = ("rfc3987_syntax",)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a corpus: where (``retrieval[3].expectedPrimary``) and what."""

    location: str
    message: str
    case: str | None = None

    def __str__(self) -> str:
        where = f"{self.location}: " if self.location else ""
        named = f" (case {self.case!r})" if self.case else ""
        return f"{where}{self.message}{named}"


def _jsonschema() -> Any:
    """The jsonschema module, imported without the format-checker dependencies the schema never uses."""
    if "jsonschema" in sys.modules:
        return sys.modules["jsonschema"]
    blocked = [name for name in _FORMAT_ONLY if name not in sys.modules]
    for name in blocked:
        sys.modules[name] = None  # type: ignore[assignment]  # makes ``import name`` raise ImportError
    try:
        import jsonschema
    finally:
        for name in blocked:
            del sys.modules[name]
    return jsonschema


@lru_cache(maxsize=1)
def schema_bytes() -> bytes:
    """The text of the corpus JSON Schema shipped in ``workbench/schemas``."""
    return resources.files("workbench").joinpath("schemas/corpus.schema.json").read_bytes()


@lru_cache(maxsize=1)
def corpus_schema() -> dict[str, Any]:
    """The corpus JSON Schema shipped in ``workbench/schemas``."""
    return json.loads(schema_bytes())


def _location(parts: Any) -> str:
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _describe(schema: dict[str, Any]) -> str:
    kind = schema.get("type")
    if "$ref" in schema:
        ref = schema["$ref"].rsplit("/", 1)[-1]
        schema = corpus_schema()["$defs"].get(ref, {})
        kind = schema.get("type")
    if kind == "array" and schema.get("items", {}).get("type") == "string":
        return "a list of strings"
    names = {
        "array": "a list",
        "object": "an object",
        "string": "a string",
        "integer": "an integer",
        "number": "a number",
        "boolean": "true or false",
    }
    if isinstance(kind, list):
        return " or ".join(names.get(str(k), str(k)) for k in kind)
    return names.get(str(kind), str(kind))


def _message(error: jsonschema.ValidationError) -> str:
    got = json.dumps(error.instance, ensure_ascii=False)
    got = got if len(got) <= 60 else got[:57] + "..."
    if error.validator == "type":
        return f"expected {_describe(error.schema)}, got {got}"
    if error.validator == "required":
        missing = [r for r in error.validator_value if r not in error.instance]
        return f"missing required field {missing[0]!r}" if missing else error.message
    if error.validator == "enum":
        return f"expected one of {', '.join(map(str, error.validator_value))}, got {got}"
    if error.validator == "oneOf":
        options = [next(iter(s.get("required", ["?"]))) for s in error.validator_value]
        return f"needs exactly one of {' or '.join(options)}"
    if error.validator == "minLength":
        return "must not be empty"
    if error.validator == "minItems":
        return "must not be an empty list"
    if error.validator == "pattern" and isinstance(error.schema.get("description"), str):
        return f"must be {error.schema['description']}, got {got}"
    if error.validator == "pattern":
        return f"must match {error.validator_value}, got {got}"
    if error.validator == "minimum":
        return f"must be at least {error.validator_value}, got {got}"
    if error.validator == "maximum":
        return f"must be at most {error.validator_value}, got {got}"
    return error.message


def _case_name(data: Any, parts: list[Any]) -> str | None:
    if len(parts) >= 2 and isinstance(parts[0], str) and isinstance(parts[1], int):
        try:
            name = data[parts[0]][parts[1]].get("name")
        except (AttributeError, IndexError, KeyError, TypeError):
            return None
        return name if isinstance(name, str) else None
    return None


def schema_problems(data: Any) -> list[Problem]:
    """Every schema violation, in document order, as one-line problems.

    A field of the wrong type reports only that (not the consequential errors at the same spot).
    """
    validator = _jsonschema().Draft202012Validator(corpus_schema())
    errors = list(validator.iter_errors(data))
    mistyped = {tuple(e.absolute_path) for e in errors if e.validator == "type"}
    found = []
    for error in errors:
        parts = list(error.absolute_path)
        if error.validator != "type" and tuple(parts) in mistyped:
            continue
        order = tuple((0, p, "") if isinstance(p, int) else (1, 0, str(p)) for p in parts)
        found.append((order, Problem(_location(parts), _message(error), _case_name(data, parts))))
    return [problem for _, problem in sorted(found, key=lambda item: item[0])]
