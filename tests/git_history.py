"""Build small git histories in a temp dir for the mining tests (no network, no shared repos)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

BASE_TIME = 1_700_000_000  # fixed author/committer times: the same history every run


def git(repo: Path, *args: str, env: dict[str, str] | None = None) -> str:
    full = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": str(repo.parent), **(env or {})}
    return subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True, env=full).stdout


def commit(
    repo: Path, message: str, files: dict[str, str | None], step: int, author: str = "Dev Eloper <dev@example.com>"
) -> str:
    """Write (or, with None, delete) ``files`` and commit them at BASE_TIME + step hours."""
    for rel, text in files.items():
        path = repo / rel
        if text is None:
            path.unlink()
            continue
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    git(repo, "add", "-A")
    name, email = author.rsplit(" <", 1)
    stamp = f"{BASE_TIME + step * 3600} +0000"
    git(
        repo,
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        message,
        env={
            "GIT_AUTHOR_NAME": name,
            "GIT_AUTHOR_EMAIL": email.rstrip(">"),
            "GIT_COMMITTER_NAME": name,
            "GIT_COMMITTER_EMAIL": email.rstrip(">"),
            "GIT_AUTHOR_DATE": stamp,
            "GIT_COMMITTER_DATE": stamp,
        },
    )
    return git(repo, "rev-parse", "HEAD").strip()


def init(repo: Path) -> Path:
    repo.mkdir(parents=True, exist_ok=True)
    git(repo, "init", "-q", "-b", "main")
    git(repo, "config", "user.name", "Dev")
    git(repo, "config", "user.email", "dev@example.com")
    return repo


def shop_history(repo: Path) -> dict[str, str]:
    """A history with one commit of each kind the filters tell apart; returns label -> sha."""
    init(repo)
    shas = {
        "root": commit(
            repo,
            "initial import",
            {
                "src/orders.py": "class OrderBook:\n    def refund_payment(self, order):\n        return order\n",
                "src/users.py": "def find_user(name):\n    return name\n",
                "src/billing/invoice.py": "def render_invoice(total):\n    return str(total)\n",
                "tests/test_orders.py": "def test_refund():\n    pass\n",
                "README.md": "# shop\n",
                "package.json": "{}\n",
            },
            0,
        )
    }
    shas["task"] = commit(
        repo,
        "fix(orders): refund fails for partially shipped orders (#12)",
        {
            "src/orders.py": "class OrderBook:\n    def refund_payment(self, order):\n        return order or None\n",
            "tests/test_orders.py": "def test_refund():\n    assert True\n",
        },
        1,
    )
    shas["symbol"] = commit(
        repo,
        "make find_user ignore case. Closes #7",
        {"src/users.py": "def find_user(name):\n    return name.lower()\n"},
        2,
    )
    shas["words"] = commit(
        repo,
        "totals on printed receipts are rounded twice",
        {"src/billing/invoice.py": "def render_invoice(total):\n    return f'{total:.2f}'\n"},
        3,
    )
    shas["docs"] = commit(repo, "docs: explain refunds", {"README.md": "# shop\nrefunds\n"}, 4)
    shas["release"] = commit(repo, "Release 1.2.0", {"src/users.py": "def find_user(name):\n    return name\n"}, 5)
    shas["bot"] = commit(
        repo,
        "update the lookup of accounts by e-mail address",
        {"src/users.py": "def find_user(name):\n    return name.strip()\n"},
        6,
        author="dependabot[bot] <bot@example.com>",
    )
    shas["revert"] = commit(
        repo,
        'Revert "totals on printed receipts are rounded twice"',
        {"src/billing/invoice.py": "def render_invoice(total):\n    return str(total)\n"},
        7,
    )
    shas["new-file"] = commit(
        repo,
        "add a tax calculator for invoices",
        {
            "src/billing/tax.py": "def tax(x):\n    return x\n",
            "src/billing/invoice.py": "def render_invoice(total):\n    return str(total) + ' incl. tax'\n",
        },
        8,
    )
    shas["vague"] = commit(repo, "minor fixes", {"src/orders.py": "class OrderBook:\n    pass\n"}, 9)
    shas["many"] = commit(
        repo,
        "rename the customer identifier everywhere it appears",
        {
            "src/orders.py": "class OrderBook:\n    customer = 1\n",
            "src/users.py": "customer = 1\n",
            "src/billing/invoice.py": "customer = 1\n",
            "src/billing/tax.py": "customer = 1\n",
        },
        10,
    )
    shas["tests-only"] = commit(
        repo, "cover the refund of an empty order", {"tests/test_orders.py": "def test_refund():\n    assert 1\n"}, 11
    )
    shas["duplicate"] = commit(
        repo,
        "Totals on printed receipts are rounded twice!",
        {"src/billing/invoice.py": "def render_invoice(total):\n    return f'{total:.2f}'\n"},
        12,
    )
    return shas


_TEMPLATES = (
    "Handle empty input in {func}",
    "Fix off-by-one error when {func} reads the last item",
    "Make {mod} tolerate missing values",
    "Speed up the lookup in {func} for large inputs",
    "Return a copy from {cls} instead of the shared list",
    "Validate arguments before calling {func}",
    "Improve error message for invalid {noun} values",
    "Avoid a crash when the {noun} cache is cold",
)
_NOUNS = ("header", "cookie", "session", "route", "token", "buffer", "stream", "config")


def _module_text(index: int, values: list[int], ext: str = ".py") -> bytes:
    if ext == ".go":
        lines = [f"// Package pkg is module {index}.\npackage pkg\n\ntype Store{index} struct{{}}\n\n"]
        lines.append(f"func (s *Store{index}) items() []int {{\n\treturn nil\n}}\n")
        for j, value in enumerate(values):
            lines.append(f"\nfunc func_{index}_{j}(x int) int {{\n\treturn x + {value}\n}}\n")
        return "".join(lines).encode()
    if ext in (".ts", ".js"):
        typed = ": number" if ext == ".ts" else ""
        lines = [f"/** Module {index}. */\nexport class Store{index} {{\n  items() {{\n    return []\n  }}\n}}\n"]
        for j, value in enumerate(values):
            lines.append(f"\nexport function func_{index}_{j}(x{typed}) {{\n  return x + {value}\n}}\n")
        return "".join(lines).encode()
    lines = [f'"""Module {index}."""\n', f"class Store{index}:\n", "    def items(self):\n", "        return []\n"]
    for j, value in enumerate(values):
        lines += [f"\n\ndef func_{index}_{j}(x):\n", f"    return x + {value}\n"]
    return "".join(lines).encode()


# Decorations a real history's messages carry, for ``varied`` histories (what the query cleaning removes).
_DECORATIONS = ("fix(core): {}", "{} (#{n})", "{}. Closes #{n}", ":bug: {}", "[fix] {}", "{} (see GH-{n})", "{}.")


def fast_import_history(
    repo: Path,
    commits: int,
    files: int = 300,
    seed: int = 0,
    languages: tuple[str, ...] = (".py",),
    varied: bool = False,
) -> Path:
    """A seeded ``commits``-long linear history written with ``git fast-import`` (one process, seconds
    for tens of thousands of commits): one root adding ``files`` modules, then commits that each
    modify one or two modules with a task-like message, plus docs, test and release commits for the
    filters to drop. Module ``i`` is written in ``languages[i % len(languages)]`` (``.py``, ``.ts``,
    ``.js``, ``.go``); ``varied`` decorates some messages as real ones are (``fix(core): ``, ``(#12)``,
    ...), drawn from a second generator so the rest of the history is the same. The same arguments
    give the same commit ids."""
    import random

    rng = random.Random(seed)
    decorate = random.Random(seed + 1)
    init(repo)
    values = [[rng.randrange(100) for _ in range(6)] for _ in range(files)]
    exts = [languages[i % len(languages)] for i in range(files)]
    path = [f"src/pkg{i % 10}/mod_{i}{exts[i]}" for i in range(files)]
    process = subprocess.Popen(["git", "-C", str(repo), "fast-import", "--quiet"], stdin=subprocess.PIPE)
    out = process.stdin
    assert out is not None  # a test helper: Popen with stdin=PIPE always has one

    def blob(name: str, data: bytes) -> None:
        out.write(b"M 100644 inline %s\ndata %d\n%s\n" % (name.encode(), len(data), data))

    for n in range(commits):
        stamp = BASE_TIME + n * 60
        kind = "root" if n == 0 else rng.choices(("fix", "docs", "test", "release"), (80, 10, 7, 3))[0]
        touched: list[int] = []
        if kind == "root":
            message, touched = "Initial import", list(range(files))
        elif kind == "fix":
            touched = rng.sample(range(files), rng.choice((1, 1, 1, 2)))
            first = touched[0]
            func = f"func_{first}_{rng.randrange(6)}"
            message = rng.choice(_TEMPLATES).format(
                func=func, mod=f"mod_{first}", cls=f"Store{first}", noun=rng.choice(_NOUNS)
            )
            if varied and decorate.random() < 0.5:
                message = decorate.choice(_DECORATIONS).format(message, n=decorate.randrange(1, 999))
        elif kind == "release":
            message = f"Release 1.{n}.0"
        else:
            message = "docs: update the guide" if kind == "docs" else "Add a test for the parser"
        text = message.encode()
        out.write(b"commit refs/heads/main\nmark :%d\n" % (n + 1))
        out.write(b"author Dev Eloper <dev@example.com> %d +0000\n" % stamp)
        out.write(b"committer Dev Eloper <dev@example.com> %d +0000\n" % stamp)
        out.write(b"data %d\n%s\n" % (len(text), text))
        if n:
            out.write(b"from :%d\n" % n)
        for index in touched:
            if kind == "fix":
                values[index][rng.randrange(6)] = rng.randrange(1000)
            blob(path[index], _module_text(index, values[index], exts[index]))
        if kind == "docs":
            blob("docs/guide.md", f"# Guide\n\nRevision {n}.\n".encode())
        elif kind == "test":
            blob(f"tests/test_mod_{n % files}.py", f"def test_{n}():\n    assert True\n".encode())
        out.write(b"\n")
    out.close()
    if process.wait() != 0:
        raise RuntimeError(f"git fast-import failed in {repo}")
    return repo
