"""The external programs the project starts, read from its files without running them: Python
calls of ``subprocess`` and ``shutil.which`` with a literal program name, and the commands of
shell scripts and Makefile recipes (test_install_guard.py holds each to an install step).

Only literal names count (``/usr/bin/x`` as ``x``): a program named by a variable (``"$PYTHON"``,
``sys.executable``) or by another path (``scripts/stack.sh``) is the project's own or the
virtualenv's. In shell, a command is the
first word of each simple command, also inside ``$(...)``, backticks and ``<(...)``; quoted
text, here-documents, comments, arithmetic and ``[[ ... ]]`` hold none; a word followed by ``(``
is a function's name and one before an unmatched ``)`` a ``case`` pattern. Commands behind
wrappers with options of their own (``taskset -c 0 x``, ``env -i x``) are not followed."""

import ast
import re

SUBPROCESS_CALLS = {"run", "Popen", "check_output", "check_call", "call"}
# Bash's keywords and builtins: never a program of a package.
SHELL_WORDS = set(
    "if then else elif fi for while until do done case esac in function select time { } [[ ]] ! "
    "return exit local export declare readonly unset shift set trap wait eval exec source . cd echo "
    "printf read test [ true false break continue kill command type hash umask ulimit let pwd "
    "builtin getopts jobs disown mapfile readarray alias shopt".split()
)
# After these, the next word is a command too.
WRAPPERS = {
    "{",
    "exec",
    "command",
    "time",
    "!",
    "setsid",
    "nohup",
    "then",
    "do",
    "else",
    "if",
    "elif",
    "while",
    "until",
}
PROGRAM = re.compile(r"(?:/usr)?(?:/s?bin/)?([A-Za-z][A-Za-z0-9._+-]*)")
FUNCTION = re.compile(r"^\s*(?:function\s+)?([A-Za-z_][A-Za-z0-9_-]*)\s*\(\)", re.MULTILINE)
REDIRECT = re.compile(r"\d*(?:&>>|&>|>>|>&|<&|<>|>\||>|<)&?-?")
HEREDOC = re.compile(r"<<-?\s*(['\"]?)(\w+)\1")
ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\[[^]]*\])?\+?=")


def python_programs(source: str) -> set[str]:
    """Programs a Python file starts by a literal name (or checks for with shutil.which)."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call) or not node.args or not isinstance(node.func, ast.Attribute):
            continue
        owner = node.func.value.id if isinstance(node.func.value, ast.Name) else None
        first = node.args[0]
        if (
            owner == "subprocess"
            and node.func.attr in SUBPROCESS_CALLS
            and isinstance(first, ast.List | ast.Tuple)
        ):
            first = first.elts[0] if first.elts else None
        elif not (owner == "shutil" and node.func.attr == "which"):
            continue
        if (
            isinstance(first, ast.Constant)
            and isinstance(first.value, str)
            and PROGRAM.fullmatch(first.value)
        ):
            found.add(PROGRAM.fullmatch(first.value).group(1))
    return found


def makefile_programs(makefile: str) -> set[str]:
    """Programs the recipes of a Makefile start (make's own $(...) expansions are not commands)."""
    recipes = [line[1:].lstrip("@-+") for line in makefile.splitlines() if line.startswith("\t")]
    text = "\n".join(recipes).replace("$$", "\0")
    while re.search(r"\$\([^()]*\)", text):
        text = re.sub(r"\$\([^()]*\)", "MAKEVAR", text)
    return shell_programs(text.replace("\0", "$"))


def shell_programs(script: str, functions: set[str] = frozenset()) -> set[str]:
    """Programs a shell script starts; its own functions and those given are not programs."""
    scanner = _ShellScanner(script)
    scanner.scan()
    defined = set(FUNCTION.findall(script)) | set(functions)
    return {word for word in scanner.commands if word not in SHELL_WORDS and word not in defined}


def shell_functions(script: str) -> set[str]:
    return set(FUNCTION.findall(script))


class _ShellScanner:
    """One pass over a script: words are gathered into simple commands, whose first literal
    word is noted; substitutions are scanned as scripts of their own."""

    def __init__(self, text: str):
        self.text, self.at, self.commands, self.pending = text, 0, set(), set()

    def scan(self, until: str | None = None) -> None:
        self.words, self.word, self.literal, self.skip_next, self.depth = [], "", True, False, 0
        self.heredocs: list[str] = []
        while self.at < len(self.text):
            if until and self.text.startswith(until, self.at) and self.depth == 0:
                self.at += len(until)
                break
            self.step()
        self.end_command()
        self.commands |= self.pending

    def step(self) -> None:
        text, at = self.text, self.at
        char = text[at]
        for opener, closer in (("$((", "))"), ("((", "))"), ("[[", "]]"), ("${", "}")):
            if text.startswith(opener, at) and (opener[0] == "$" or not self.word):
                self.skip_to(closer, at + len(opener))
                self.literal = False
                return
        for opener, closer in (("$(", ")"), ("<(", ")"), (">(", ")"), ("`", "`")):
            if text.startswith(opener, at):
                self.substitution(opener, closer)
                return
        if heredoc := HEREDOC.match(text, at):
            self.heredocs.append(heredoc.group(2))
            self.at = heredoc.end()
        elif redirect := REDIRECT.match(text, at):
            self.end_word()
            self.at, self.skip_next = redirect.end(), True
        elif char == "\\":
            self.word, self.at = self.word + text[at + 1 : at + 2], at + 2
        elif char in "'\"":
            self.quoted(char)
        elif char == "#" and not self.word:
            self.at = text.find("\n", at) if "\n" in text[at:] else len(text)
        else:
            self.plain(char)

    def plain(self, char: str) -> None:
        self.at += 1
        if char == "\n" and self.heredocs:
            self.skip_heredocs()
        if char in " \t":
            self.end_word()
        elif char in "&|":
            self.end_command()
        elif char in ";\n":
            self.end_command()
            self.commands |= self.pending
            self.pending = set()
        elif char == "(" and self.word.endswith("="):
            self.array()
        elif char == "(":
            self.end_word()
            self.words = [] if self.words else self.words  # `name (` : a function's name
            self.depth += 1
        elif char == ")":
            self.end_word()
            if self.depth == 0:
                self.words, self.pending = [], set()  # a case pattern (`a|b)` too)
            self.depth = max(self.depth - 1, 0)
            self.end_command()
        else:
            self.word += char

    def quoted(self, quote: str) -> None:
        self.at += 1
        while self.at < len(self.text) and self.text[self.at] != quote:
            if quote == '"' and self.text.startswith("$((", self.at):
                self.skip_to("))", self.at + 3)
                continue
            if quote == '"' and self.text.startswith("$(", self.at):
                self.substitution("$(", ")")
                continue
            self.at += 2 if quote == '"' and self.text[self.at] == "\\" else 1
        self.at += 1
        self.word, self.literal = self.word + "\0", False

    def array(self) -> None:
        """An array's elements: words, not commands, though their substitutions are."""
        while self.at < len(self.text) and self.text[self.at] != ")":
            if self.text[self.at] in "'\"":
                self.quoted(self.text[self.at])
            elif self.text.startswith("$(", self.at):
                self.substitution("$(", ")")
            elif self.text[self.at] == "#" and self.text[self.at - 1] in " \t\n":
                self.at = self.text.find("\n", self.at)
            else:
                self.at += 1
        self.at += 1
        self.word, self.literal = self.word + "\0", False

    def substitution(self, opener: str, closer: str) -> None:
        inner = _ShellScanner(self.text)
        inner.at = self.at + len(opener)
        inner.scan(until=closer)
        self.commands |= inner.commands
        self.at, self.word, self.literal = inner.at, self.word + "\0", False

    def skip_to(self, closer: str, start: int) -> None:
        end = self.text.find(closer, start)
        self.at = len(self.text) if end < 0 else end + len(closer)
        self.word += "\0"

    def skip_heredocs(self) -> None:
        for delimiter in self.heredocs:
            end = re.compile(rf"^\s*{re.escape(delimiter)}\s*$", re.MULTILINE).search(self.text, self.at)
            self.at = end.end() if end else len(self.text)
        self.heredocs = []

    def end_word(self) -> None:
        if self.word and not self.skip_next:
            self.words.append(self.word if self.literal else "\0")
        self.skip_next = self.skip_next and not self.word
        self.word, self.literal = "", True

    def end_command(self) -> None:
        self.end_word()
        for word in self.words:
            if ASSIGNMENT.match(word):
                continue
            if program := PROGRAM.fullmatch(word):
                self.pending.add(program.group(1))
            if word not in WRAPPERS:
                break
        self.words = []
