"""Role words are file-kind hints, question scaffolding weighs little, templates render from code."""

from __future__ import annotations

from pathlib import Path

import pytest

from workbench.code.kinds import file_kind
from workbench.reference import build_pack
from workbench.reference import pack as pack_module
from workbench.reference.query import analyse
from workbench.reference.templates import template_edges, template_refs

from ..conftest import write_repo


def _weight(query: str, word: str) -> float:
    q = analyse(query)
    return next(w for t, w in zip(q.terms, q.weights, strict=True) if q.sources[t] == word)


def test_scaffolding_weighs_little_only_in_a_question():
    assert _weight("where is the refund computed?", "computed") < _weight("where is the refund computed?", "refund")
    assert _weight("cache computed values", "computed") == _weight("cache computed values", "cache")


def test_role_words_ask_for_kinds_and_weigh_less():
    q = analyse("where is cancelling an order handled by the controller")
    assert "controller" in q.roles
    assert _weight("the order controller", "controller") < _weight("the order controller", "order")
    assert analyse("the order email template").roles == {"template"}


ROUTES = "router.post('/orders/:id/cancel', (req, res) => res.json(cancel(req.params.id)))\n"
STORE = "export function markDone(o) {\n  o.state = 'cancel'\n  return o\n}\n"


@pytest.mark.parametrize("boost, first", [(pack_module.ROLE_BOOST, "src/orders.js"), (1.0, "src/order_store.js")])
def test_a_role_word_lifts_the_file_of_that_kind(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, boost: float, first: str
):
    repo = write_repo(
        tmp_path, {"src/orders.js": ROUTES, "src/order_store.js": STORE, "src/users.js": "export const users = []\n"}
    )
    monkeypatch.setattr(pack_module, "ROLE_BOOST", boost)
    assert build_pack("the endpoint to cancel an order", [repo]).primary[0].path == first


def test_templates_are_a_kind_and_code_names_them():
    assert file_kind("views/emails/welcome.hbs") == "template"
    assert file_kind("app/templates/orders/detail.html") == "template"
    refs = template_refs("res.render('emails/welcome', data)\nreturn render_template(\"orders/detail.html\")\n")
    assert refs == ["orders/detail.html", "emails/welcome"]
    files = ["views/emails/welcome.hbs", "src/mailer.js", "app/templates/orders/detail.html", "app/views.py"]
    edges = template_edges(files, [[], ["emails/welcome"], [], ["orders/detail.html", "missing.html"]])
    assert edges == [set(), {0}, set(), {2}]


def test_a_template_brings_the_code_that_renders_it(tmp_path: Path):
    repo = write_repo(
        tmp_path,
        {
            "views/emails/welcome.hbs": "<h1>Welcome aboard, {{name}}!</h1>\n<p>Your trial lasts 14 days.</p>\n",
            "src/mailer.js": "export function sendSignupMail(user) {\n  return render('emails/welcome', user)\n}\n",
            "src/billing.js": "export function charge(card) { return card }\n",
        },
    )
    pack = build_pack("say the trial lasts 30 days", [repo])
    paths = [ref.path for ref in [*pack.primary, *pack.related]]
    assert paths[0] == "views/emails/welcome.hbs"
    assert "src/mailer.js" in paths and "src/billing.js" not in paths
