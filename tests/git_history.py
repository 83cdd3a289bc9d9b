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
