"""Gold symbols from hand-made diffs: every expected symbol below is worked out by hand from the
numbered old files (``PY``, ``GO``, ``TS``) and the rule in ``workbench.mining.gold_symbols``."""

from __future__ import annotations

import pytest

from workbench.code.enclosing import definition_ranges, enclosing
from workbench.mining.gold_symbols import Change, diff_changes, old_blob_ids, patch_symbols, symbols_of_changes

PY = b'''import os

LIMIT = 3


class Client:
    """A client."""

    def connect(self, host):
        self.host = host
        return host

    @property
    def name(self):
        return "c"

    class Inner:
        def run(self):
            return 1


def outer(x):
    def helper(y):
        return y + 1

    return helper(x)
'''
# 1 import, 3 LIMIT, 6 class Client, 9-11 connect, 13-15 name (decorator at 13), 17-19 Inner,
# 18-19 Inner.run, 22-26 outer (helper at 23-24 belongs to outer); 12, 16, 20, 21, 25 are blank.

GO = b"""package main

type Server struct {
	port int
}

func (s *Server) Start() error {
	return nil
}

func main() {
}
"""

TS = b"""export class Cache {
  get(key: string) {
    return key;
  }
}
export const load = (x: number) => {
  return x;
};
"""


def diff(old: str, hunks: str, new: str | None = None) -> str:
    return f"diff --git a/{old} b/{new or old}\n--- a/{old}\n+++ b/{new or old}\n{hunks}"


def gold(hunks: str, path: str = "m.py", data: bytes = PY) -> list[str]:
    return patch_symbols(diff(path, hunks), {path: data})


def test_python_definition_ranges_and_innermost() -> None:
    ranges = sorted(definition_ranges("m.py", PY), key=lambda r: r[1])
    assert ranges == [
        ("Client", 6, 19),
        ("Client.connect", 9, 11),
        ("Client.name", 13, 15),
        ("Client.Inner", 17, 19),
        ("Client.Inner.run", 18, 19),
        ("outer", 22, 26),
    ]
    assert enclosing(ranges, 19, 19) == "Client.Inner.run"
    assert enclosing(ranges, 12, 12) == "Client"
    assert enclosing(ranges, 3, 3) is None


@pytest.mark.parametrize(
    ("hunks", "expected"),
    [
        ("@@ -10 +10 @@\n-        self.host = host\n+        self.host = host.lower()\n", ["m.py:Client.connect"]),
        ("@@ -24 +24 @@\n-        return y + 1\n+        return y + 2\n", ["m.py:outer"]),  # nested function
        ("@@ -13 +13 @@\n-    @property\n+    @cached_property\n", ["m.py:Client.name"]),  # decorator
        ("@@ -19 +19 @@\n-            return 1\n+            return 2\n", ["m.py:Client.Inner.run"]),
        ("@@ -3 +3 @@\n-LIMIT = 3\n+LIMIT = 4\n", []),  # module level
        ("@@ -1,0 +2 @@\n+import sys\n", []),  # module-level insertion
        ("@@ -10,0 +11 @@\n+        self.port = 0\n", ["m.py:Client.connect"]),  # between statements
        ("@@ -11,0 +12 @@\n+        print(host)\n", ["m.py:Client.connect"]),  # appended to the body
        ("@@ -11,0 +12,2 @@\n+\n+    def close(self):\n", ["m.py:Client"]),  # a method appended
        ("@@ -26,0 +27,3 @@\n+\n+\n+def added():\n", []),  # a new top-level function
        ("@@ -26,0 +27 @@\n+    print(x)\n", ["m.py:outer"]),  # appended at the end of the file
        ('@@ -13,4 +12,0 @@\n-    @property\n-    def name(self):\n-        return "c"\n-\n', ["m.py:Client.name"]),
        ("@@ -12 +11,0 @@\n-\n", []),  # a blank line removed
        ("@@ -11,0 +12 @@\n+\n", []),  # a blank line added
    ],
)
def test_python_changes_map_to_the_innermost_definition(hunks: str, expected: list[str]) -> None:
    assert gold(hunks) == expected


def test_several_hunks_with_context_keep_first_change_order_without_repeats() -> None:
    hunks = (
        "@@ -22,5 +22,5 @@\n def outer(x):\n     def helper(y):\n-        return y + 1\n+        return y + 2\n \n"
        "     return helper(x)\n"
        "@@ -8,5 +8,6 @@\n \n     def connect(self, host):\n-        self.host = host\n+        self.host = host\n"
        "+        self.port = 1\n         return host\n \n"
        "@@ -26 +27 @@\n-    return helper(x)\n+    return helper(x) or 0\n"
    )
    assert gold(hunks) == ["m.py:outer", "m.py:Client.connect"]


def test_rename_names_the_old_path_and_new_files_give_none() -> None:
    renamed = diff("old.py", "@@ -10 +10 @@\n-        self.host = host\n+        pass\n", new="new.py")
    assert patch_symbols(renamed, {"old.py": PY}) == ["old.py:Client.connect"]
    created = "diff --git a/n.py b/n.py\nnew file mode 100644\n--- /dev/null\n+++ b/n.py\n@@ -0,0 +1 @@\n+x = 1\n"
    assert diff_changes(created) == {}


def test_content_that_looks_like_a_header_is_content() -> None:
    # old line 2 is "-- x" (a SQL comment); removed it reads "--- x", which is not a file header
    sql_like = "@@ -2,2 +2 @@\n--- x\n-+++ y\n"
    assert diff_changes(diff("q.py", sql_like)) == {"q.py": [Change(2), Change(3)]}


def test_the_old_blob_ids_of_a_full_index_diff_are_its_headers_only() -> None:
    a, b, c, d = "a" * 40, "b" * 40, "c" * 40, "d" * 40
    patch = (
        f"diff --git a/q.py b/q.py\nindex {a}..{b} 100644\n--- a/q.py\n+++ b/q.py\n"
        "@@ -2,2 +2 @@\n--- x\n-+++ y\n"  # removed lines that look like a header are content
        f"diff --git a/img.png b/img.png\nindex {c}..{d} 100644\nBinary files a/img.png and b/img.png differ\n"
        "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
        f"diff --git a/n.py b/n.py\nnew file mode 100644\nindex {'0' * 40}..{a}\n--- /dev/null\n+++ b/n.py\n"
        f"diff --git a/m.py b/m.py\nold mode 100644\nnew mode 100755\nindex {c}..{d}\n--- a/m.py\n+++ b/m.py\n"
    )
    assert old_blob_ids(patch) == {"q.py": a, "m.py": c}


def test_go_and_typescript() -> None:
    assert gold("@@ -8,0 +9 @@\n+\ts.port = 1\n", "s.go", GO) == ["s.go:Server.Start"]  # before the brace
    assert gold("@@ -9,0 +10,2 @@\n+\n+func other() {}\n", "s.go", GO) == []  # after it
    assert gold("@@ -4 +4 @@\n-\tport int\n+\tport uint\n", "s.go", GO) == ["s.go:Server"]
    assert gold("@@ -3 +3 @@\n-    return key;\n+    return key + 1;\n", "c.ts", TS) == ["c.ts:Cache.get"]
    assert gold("@@ -7 +7 @@\n-  return x;\n+  return x + 1;\n", "c.ts", TS) == ["c.ts:load"]


def test_unparsed_languages_and_unparsable_files_give_none() -> None:
    assert symbols_of_changes("notes.md", b"# a\n", [Change(1)]) == []
    assert symbols_of_changes("bad.py", b"def (:\n", [Change(1)]) == []


CJS = b"""var app = Application.prototype;
function Application() {
  this.x = 1;
}
app.callback = function(){
  return 1;
};
module.exports = {
  get query() {
    return 2;
  },
  error: function(err){
    throw err;
  },
  plain: 3,
};
"""
# 2-4 Application, 5-7 callback (``app.callback = function``), 9-11 query, 12-14 error; 15 is data


def test_commonjs_definitions() -> None:
    ranges = sorted(definition_ranges("a.js", CJS), key=lambda r: r[1])
    assert ranges == [("Application", 2, 4), ("callback", 5, 7), ("query", 9, 11), ("error", 12, 14)]
    assert gold("@@ -6 +6 @@\n-  return 1;\n+  return 0;\n", "a.js", CJS) == ["a.js:callback"]
    assert gold("@@ -13 +13,2 @@\n-    throw err;\n+    log(err);\n+    throw err;\n", "a.js", CJS) == ["a.js:error"]
    assert gold("@@ -10 +10 @@\n-    return 2;\n+    return 3;\n", "a.js", CJS) == ["a.js:query"]
    assert gold("@@ -15 +15 @@\n-  plain: 3,\n+  plain: 4,\n", "a.js", CJS) == []  # data, not a definition


@pytest.mark.parametrize(
    "patch",
    [
        "",
        "@@ -1 +1 @@\n-x\n",  # a hunk before any file header
        "--- a/m.py\n@@ -1,99999 +1 @@\n-import os\ndiff --git a/z b/z\n",  # counts that run past the hunk
        "--- a/m.py\n@@ -abc @@\n-x\n",  # not a hunk header
        "--- a/m.py\r\n+++ b/m.py\r\n@@ -10 +10 @@\r\n-        self.host = host\r\n+        pass\r\n",  # CRLF
    ],
)
def test_malformed_patches_never_raise(patch: str) -> None:
    expected = ["m.py:Client.connect"] if "\r" in patch else []  # only the CRLF patch is well formed
    assert patch_symbols(patch, {"m.py": PY}) == expected
