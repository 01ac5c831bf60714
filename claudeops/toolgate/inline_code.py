"""Whether inline code (``python3 -c``, ``perl -e``, ``awk 'PROGRAM'``…) can run commands or change files.

An interpreter is a program whose sub-commands are a whole language, so the read-only check
cannot list what it does the way it lists ``docker restart``. What it can do is look for the
few ways a one-liner reaches outside itself: starting a process, writing, moving or removing
a file, sending a request that writes. Each language's set of such signals is written down
here, and code that shows none of them is taken to only read and print, which is what a
health check does with an interpreter (``python3 -c 'import json,sys; print(…)'``,
``awk '{print $1}'``, ``perl -ne 'print if /error/'``).

This is a heuristic against accidents and an agent that means no harm, not a sandbox: code
that builds its calls from strings (``getattr(os, 'sys' + 'tem')``) is not recognised, and a
signal inside a string or a comment counts (a wrongly refused one-liner costs a rephrasing).
Matching is textual, so the signals are written to need the call's shape (``system(``,
``system "…"``) where a bare word would also match log searches (``perl -ne 'print if /system/'``).
"""

from __future__ import annotations

import re

_METHODS_THAT_WRITE = r"""['"](?:POST|PUT|PATCH|DELETE)['"]"""
"""An HTTP method that writes, quoted as every client library takes it (``method='POST'``, ``request("DELETE", …)``)."""

_PYTHON = re.compile(rf"""
    subprocess | \bpty\b | \bctypes\b | \bsmtplib\b | \bimportlib\b | __import__
  | (?<![.\w])(?:exec|eval|compile)\s*\(
  | \bos\s*\.\s*(?:system|popen|exec\w*|spawn\w*|posix_spawn\w*|fork\w*|kill\w*|remove\w*|unlink|rename\w*|replace
                  |mkdir|makedirs|rmdir|chmod|lchmod|fchmod|chown|lchown|fchown|truncate|ftruncate|symlink|link
                  |mkfifo|mknod|write|utime|O_(?:WRONLY|RDWR|CREAT|APPEND|TRUNC))\b
  | \bfrom\s+(?:os|posix|shutil)\s+import\b[^;\n]*(?:\*|\b(?:system|popen|exec\w*|spawn\w*|kill|remove|unlink
                  |rename|replace|mkdir|makedirs|rmdir|chmod|chown|truncate|symlink|link|write|rmtree|move|copy\w*)\b)
  | \bshutil\s*\.\s*(?:rmtree|move|copy\w*|chown|make_archive|unpack_archive)\b
  | \.\s*(?:write_text|write_bytes|unlink|mkdir|rename|touch|rmdir|symlink_to|hardlink_to|chmod|lchmod)\s*\(
  | \bopen\s*\([^()]*?\bmode\s*=\s*['"][^'"]*[wax+]
  | \bopen\s*\([^(),]*(?:\([^()]*\)[^(),]*)*,\s*['"][rbtU]*[wax+]
  | \.\s*open\s*\(\s*['"][rbtU]*[wax+]
  | \binplace\s*=\s*(?:True|1)
  | \.\s*(?:post|put|patch|delete|send|sendall|sendto|sendmsg|sendfile)\s*\(
  | {_METHODS_THAT_WRITE}
  | \b(?:urlopen|Request)\s*\([^)]*\bdata\s*=
  | \bimport\b[^;\n]*\b(?:sqlite3|psycopg2?|pymysql|MySQLdb|mysql|redis|pymongo)\b
""", re.VERBOSE)
"""Python: processes (subprocess, os.system/popen/exec*/spawn*, pty), file changes (os, shutil, pathlib,
``open`` with a mode holding w/a/x/+, fileinput's ``inplace``), requests that write (``.post(``, a writing
method, ``urlopen(…, data=…)``, socket sends, smtplib), database drivers, and code that builds code
(``exec(``, ``eval(``, ``__import__``, importlib, ctypes)."""

_PERL_CALLS = (r"system|exec|fork|kill|unlink|rename|mkdir|rmdir|chmod|chown|symlink|link|truncate|utime|syscall"
               r"|copy|move|cp|mv|rmtree|mkpath|make_path|remove_tree|getstore|mirror")
_PERL = re.compile(rf"""
    ` | \bqx\s*\W
  | \b(?:{_PERL_CALLS})\s*(?:[(\$@%&'"{{<0-9]|q[qw]?\s*\W)
  | \bopen\b[^;]*?(?:['"]\s*(?:\+?[>|]|\+<|-\|)|\|\s*['"])
""", re.VERBOSE)
"""Perl: backticks, ``qx``, the built-ins that start processes or change files called on an argument
(``system "…"``, ``unlink $f`` — not the word in ``/system error/``), the same from File::Copy, File::Path
and LWP::Simple (``perl -MFile::Copy -e 'copy(…)'``), and ``open`` for writing or a pipe."""

_RUBY = re.compile(rf"""
    ` | %x\W
  | \b(?:system|exec|spawn|fork|syscall)\s*[(\$@'"%\[]
  | \b(?:IO\s*\.\s*popen|Open3|PTY|FileUtils|Process\s*\.\s*(?:kill|spawn|exec|fork|daemon))\b
  | \b(?:File|Dir)\s*\.\s*(?:write|binwrite|delete|unlink|rename|symlink|link|chmod|lchmod|chown|lchown|truncate
                             |utime|mkdir|rmdir|mkfifo)\b
  | \bopen\s*\(?\s*['"]\|
  | \bopen\s*\(?[^;]*?,\s*['"][rbt]*[wa+]
  | Net::HTTP\s*(?:\.\s*post|::(?:Post|Put|Patch|Delete))\b | {_METHODS_THAT_WRITE}
""", re.VERBOSE)
"""Ruby: backticks, ``%x``, ``system``/``exec``/``spawn``, IO.popen, Open3, FileUtils, File and Dir
changes, ``open`` of a pipe or for writing, and requests that write."""

_NODE = re.compile(rf"""
    child_process | \bprocess\s*\.\s*(?:kill|binding|dlopen)\b
  | \b(?:writeFile|writeSync|appendFile|unlink|rmdir|rmSync|mkdir|mkdtemp|rename|copyFile|cpSync|createWriteStream
        |symlink|truncate|ftruncate|chmod|lchmod|chown|lchown|utimes|lutimes)(?:Sync)?\s*\(
  | \bfs\s*(?:\.\s*promises\s*)?\.\s*(?:write|rm|cp|link)\w*\s*\(
  | \bopen(?:Sync)?\s*\([^()]*,\s*['"][rs]*[wax+]
  | (?<![.\w])eval\s*\( | \bnew\s+Function\b | \b(?:require|import)\s*\(\s*['"]\.{{0,2}}/
  | {_METHODS_THAT_WRITE}
""", re.VERBOSE)
"""Node: child_process, the fs calls that write, remove, rename or create, ``eval``, local modules
(``require('./fix')``, code this check does not see) and requests that write."""

_PHP = re.compile(rf"""
    `
  | \b(?:exec|system|shell_exec|passthru|proc_open|popen|pcntl_exec|pcntl_fork|posix_kill|file_put_contents|unlink
        |rename|mkdir|rmdir|copy|touch|chmod|chown|chgrp|symlink|link|mail|mb_send_mail|eval)\s*\(
  | \b(?:include|require)(?:_once)?\b
  | \bfopen\s*\([^()]*,\s*['"][rbt]*[waxc+]
  | {_METHODS_THAT_WRITE}
""", re.VERBOSE)
"""PHP: backticks, the functions that run commands or change files, ``fopen`` for writing, included
files (not seen) and requests that write."""

_AWK_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')
_AWK_CALLS = re.compile(r"\bsystem\s*\(|\|&?\s*getline|@(?:load|include)\b")
_AWK_PARENTHESES = re.compile(r"\([^()]*\)")
_AWK_REDIRECTED_PRINT = re.compile(r"\bprintf?\b[^;}\n]*[>|]")
"""awk: ``system(``, ``"cmd" | getline``, gawk's ``@load``/``@include``, and ``print``/``printf`` into a file
or a command (``print > "f"``, ``>>``, ``| "cmd"``). ``>`` elsewhere is a comparison (``$3>1000``), and so
is ``>`` in parentheses or in a string (``print ($2 > 80)``, ``print $1 " -> " $2``)."""

LANGUAGES: dict[str, re.Pattern[str]] = {"python": _PYTHON, "perl": _PERL, "ruby": _RUBY, "node": _NODE,
                                         "php": _PHP}


def code_changes(language: str, code: str) -> bool:
    """Whether inline ``code`` in ``language`` (a key of :data:`LANGUAGES`) shows a signal of running or changing."""
    return LANGUAGES[language].search(code) is not None


def awk_changes(program: str) -> bool:
    """Whether an awk ``program`` runs a command or writes a file (see :data:`_AWK_REDIRECTED_PRINT`)."""
    text = _AWK_STRING.sub('""', program)
    if _AWK_CALLS.search(text):
        return True
    while "(" in text:
        stripped = _AWK_PARENTHESES.sub("", text)
        if stripped == text:
            break
        text = stripped
    return _AWK_REDIRECTED_PRINT.search(text) is not None
