"""HTTP routes a file serves or calls, normalized so a handler and its clients meet.

Servers: decorators (``@Get(':id')`` under ``@Controller('orders')``, ``@app.post``,
``@router.get``), router calls (``router.post('/orders', h)``, ``mux.HandleFunc``,
gin/chi/echo verbs), Django ``path()`` and Next.js file routes. Clients: ``fetch``,
axios-style ``api.get``, ``requests``/``httpx``, ``http.NewRequest`` and API-looking
URL literals. Paths become segment tuples with every parameter spelled ``:``
(``:id``, ``{id}``, ``<int:pk>``, ``[id]``, ``${id}``, digits), and two routes match
when they agree from their last segment backwards, which tolerates mount prefixes.
"""

from __future__ import annotations

import re
from typing import NamedTuple

VERBS = ("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS")
CLIENTS = frozenset(
    {
        "axios",
        "api",
        "client",
        "http",
        "httpclient",
        "apiclient",
        "ky",
        "request",
        "requests",
        "httpx",
        "session",
        "superagent",
        "$http",
        "fetcher",
        "this.http",
        "this.api",
        "this.client",
        "got",
        "agent",
        "s.client",
        "c.client",
        "resty",
    }
)
MOUNTS = frozenset({"use", "route", "group", "mount", "include_router", "register_blueprint"})


class Route(NamedTuple):
    """``role`` is ``serve``, ``call`` or ``mount``; ``method`` is upper-case or ``""``."""

    role: str
    method: str
    segments: tuple[str, ...]
    handler: str = ""


_STR = r"""f?(?P<q>['"`])(?P<path>[^'"`\n]*)(?P=q)"""
# A path argument as routers and clients write it: absolute, a URL, a template, or Go's "VERB /path".
_URL_STR = r"""f?(?P<q>['"`])(?P<path>(?:/|https?:|\$\{[\w.]*\}/|\{\w*\}/|[A-Z]{3,7} /)[^'"`\n]*)(?P=q)"""
_ROUTE_STR = r"""(?P<q>['"`])(?P<path>[\w/:{}<>\[\]*.$-]*)(?P=q)"""
_DECORATOR = re.compile(
    r"@(?:(?:[\w.]+\.)(?P<verb>get|post|put|patch|delete|head|options|route|api_route|websocket)|"
    r"(?P<nest>Get|Post|Put|Patch|Delete|Head|Options|All))\(\s*(?:" + _ROUTE_STR + r")?(?P<rest>[^\n]{0,200})"
)
_PREFIX = re.compile(
    r"@Controller\(\s*(?:\{\s*path:\s*)?['\"`](?P<path>[^'\"`]*)['\"`]|"
    r"(?:APIRouter|Blueprint)\([^)]*?(?:url_)?prefix\s*=\s*['\"](?P<path2>[^'\"]*)['\"]"
)
_CALL = re.compile(
    r"\.(?P<verb>get|post|put|patch|delete|all|use|route|options|head|handle|handlefunc|any|"
    r"group|mount|request|GET|POST|PUT|PATCH|DELETE|Get|Post|Put|Patch|Delete|Handle|HandleFunc|Any|"
    r"Group|Mount|Route|Use|Options|Head)(?:<[^<>()]*>)?\(\s*"  # generic type args: post<T>(
    + _URL_STR
    + r"(?=(?P<rest>[^\n]{0,200}))"
)
_RECEIVER = re.compile(r"(?:[\w$]+\.)?[\w$]+$")
_FETCH = re.compile(r"(?:fetch|useFetch|useSWR|request)\(\s*" + _URL_STR + r"(?=(?P<rest>.{0,300}))", re.DOTALL)
_NEW_REQUEST = re.compile(
    r"NewRequest(?:WithContext)?\([^\"]*\"(?P<verb>[A-Z]+)\"\s*,\s*" + _URL_STR + r"(?=(?P<rest>[^\n]{0,200}))"
)
_DJANGO = re.compile(r"\b(?:re_)?path\(\s*r?" + _STR + r"\s*,\s*(?P<handler>[\w.]+)")
_API_LITERAL = re.compile(r"""(?<![\w.])['"`](?P<path>(?:https?://[^/'"`\s]+)?/(?:api|v\d+)/[^'"`\s]*)['"`]""")
_API_HINT = re.compile(r"/(?:api|v\d+)/")
# Routers and clients both pass the path as the first argument: without "(" then such a
# string somewhere in the file, neither pattern can match, and the file is skipped quickly.
_CALL_HINT = re.compile(r"""\((?:<[^<>()]*>)?\s*f?['"`](?:/|https?:|\$\{|\{\w*\}/|[A-Z]{3,7} /)""")
_METHOD_KEY = re.compile(r"method:\s*['\"`](?P<verb>\w+)['\"`]", re.IGNORECASE)
_METHODS_LIST = re.compile(r"methods\s*=\s*[\[(]\s*['\"](?P<verb>\w+)['\"]")
_GO_METHODS = re.compile(r"\.Methods\(\s*\"(?P<verb>\w+)\"")
_HANDLER = re.compile(r",\s*(?:[\w.]+\s*,\s*)*(?P<handler>[A-Za-z_$][\w$.]*)\s*\)")
_CONCAT = re.compile(r"""\s*\+\s*[\w$.()\[\]]+(?:\s*\+\s*(?P<q>['"`])(?P<tail>[^'"`\n]*)(?P=q))?""")
_URLISH = ("/", "http", "${", "{")
_PARAM = re.compile(r"^(?::|\{|<|\[|\$\{|%|\*)|\$\{|^\d+$|^[0-9a-f]{8}-[0-9a-f-]{27,}$", re.IGNORECASE)
_NEXT_ROUTE = re.compile(r"(?:^|/)(?:pages|app)/(?P<path>api/.*?)(?:/route|/index)?\.(?:ts|tsx|js|jsx)$")


def normalize(path: str) -> tuple[str, ...]:
    """``'https://h/api/orders/${id}/cancel?x=1'`` -> ``('api', 'orders', ':', 'cancel')``."""
    path = re.sub(r"^[a-z][a-z0-9+.-]*://[^/]*", "", path.strip(), flags=re.IGNORECASE)
    path = path.split("?", 1)[0].split("#", 1)[0]
    return tuple(":" if _PARAM.search(seg) else seg.lower() for seg in path.split("/") if seg)


def _joined(m: re.Match[str]) -> str:
    """The path literal plus what string concatenation appends (``'/orders/' + id + '/cancel'``)."""
    path, rest = m.group("path"), m.group("rest") or ""
    while True:
        more = _CONCAT.match(rest)
        if not more:
            return path
        path = f"{path}/:/{more.group('tail') or ''}"
        rest = rest[more.end() :] if more.group("tail") is not None else ""


def _method_path(raw: str, method: str) -> tuple[str, tuple[str, ...]]:
    """Split Go 1.22 ``"POST /orders/{id}"`` patterns into method and path."""
    head, _, tail = raw.partition(" ")
    if head.upper() in VERBS and tail.startswith("/"):
        return head.upper(), normalize(tail)
    return method, normalize(raw)


def _verb(word: str) -> str:
    upper = word.upper()
    return upper if upper in VERBS else ""


def _served(text: str) -> list[Route]:
    found: list[Route] = []
    if "@" not in text and "urlpatterns" not in text:
        return found
    prefix = _PREFIX.search(text)
    base = normalize(prefix.group("path") or prefix.group("path2") or "") if prefix else ()
    for m in _DECORATOR.finditer(text):
        verb = m.group("verb") or m.group("nest")
        if m.group("path") is None and not (m.group("rest") or "").startswith(")"):
            continue  # @patch.object(...) and friends: a call, not a route
        listed = _METHODS_LIST.search(m.group("rest") or "")
        method = _verb(listed.group("verb")) if listed else _verb(verb)
        method, segments = _method_path(m.group("path") or "", method)
        found.append(Route("serve", method or ("GET" if verb.lower() == "route" else ""), base + segments))
    for m in _DJANGO.finditer(text) if "urlpatterns" in text else ():
        found.append(Route("serve", "", normalize(m.group("path")), m.group("handler")))
    return found


def _classify(m: re.Match[str], text: str) -> Route | None:
    before = _RECEIVER.search(text, max(0, m.start() - 40), m.start())
    recv = before.group(0) if before else ""
    if before is not None and text[max(0, before.start() - 1) : before.start()] == "@":
        return None  # a decorator, already read by _served
    verb, rest = m.group("verb").lower(), m.group("rest")
    handler = _HANDLER.match(rest)
    name = handler.group("handler") if handler else ""
    if verb in MOUNTS:
        return Route("mount", "", normalize(m.group("path")), name) if name else None
    method, segments = _method_path(_joined(m), _verb(verb))
    if verb in ("handle", "handlefunc"):
        go = _GO_METHODS.search(rest)
        return Route("serve", _verb(go.group("verb")) if go else method, segments, name)
    if recv.lower() in CLIENTS or not rest.lstrip().startswith(","):
        if not m.group("path").startswith(_URLISH):
            return None
        return Route("call", method, segments)
    return Route("serve", method, segments, name)


def _fetched(text: str) -> list[Route]:
    found: list[Route] = []
    for m in _FETCH.finditer(text) if ("fetch(" in text or "request(" in text or "SWR(" in text) else ():
        if m.group("path").startswith(_URLISH):
            key = _METHOD_KEY.search(m.group("rest").split("fetch(", 1)[0])
            found.append(Route("call", _verb(key.group("verb")) if key else "GET", normalize(_joined(m))))
    return found


def extract_routes(rel: str, text: str) -> list[Route]:
    """Every route ``text`` (the file at ``rel``) serves, calls or mounts, without duplicates."""
    routes = _served(text)
    if _CALL_HINT.search(text):
        routes += [r for r in (_classify(m, text) for m in _CALL.finditer(text)) if r is not None]
        routes += _fetched(text)
    routes += [
        Route("call", _verb(m.group("verb")), normalize(_joined(m)))
        for m in (_NEW_REQUEST.finditer(text) if "NewRequest" in text else ())
    ]
    seen = {r.segments for r in routes}
    for m in _API_LITERAL.finditer(text) if _API_HINT.search(text) else ():
        segments = normalize(m.group("path"))
        if not any(known[: len(segments)] == segments for known in seen):
            routes.append(Route("call", "", segments))
    file_route = path_route(rel)
    if file_route is not None:
        routes.append(Route("serve", "", normalize(file_route)))
    return [r for r in dict.fromkeys(routes) if r.segments or r.role == "serve"]


def path_route(rel: str) -> str | None:
    """The route a file's path serves (a Next.js page or API route), None when it serves none: the
    one thing ``extract_routes`` reads from the path rather than the text."""
    found = _NEXT_ROUTE.search(rel)
    return found.group("path") if found else None


def match(query: tuple[str, ...], route: tuple[str, ...]) -> float:
    """How well two normalized routes agree, aligned from the end; 0 when they conflict.

    Equal literals score 1, a parameter against anything 0.5; the longer route's extra
    leading segments (a mount prefix, ``/api``) cost 0.1 each. At least one literal
    must agree, so ``/:id`` alone never matches everything.
    """
    score, literals = 0.0, 0
    for a, b in zip(reversed(query), reversed(route)):
        if a == b and a != ":":
            score, literals = score + 1.0, literals + 1
        elif a == ":" or b == ":":
            score += 0.5
        else:
            return 0.0
    if literals == 0:
        return 0.0
    return score - 0.1 * abs(len(query) - len(route))


def render(route: Route) -> str:
    """``POST /orders/:/cancel`` for reasons and pack text."""
    path = "/" + "/".join(route.segments)
    return f"{route.method} {path}" if route.method else path
