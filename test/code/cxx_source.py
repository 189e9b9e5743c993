"""Reading C++ sources as the code checks need them: comments, string literals and preprocessor
lines blanked out (newlines kept, so offsets and line numbers stay those of the file), and the
function definitions found by brace matching.

This is not a C++ parser. It knows what the sources of lib/ and tools/ use: namespaces,
classes, structs, enums, functions and constructors with member-initializer lists, lambdas
(counted as part of the function they stand in) and brace-initialized variables at namespace
scope (not functions).
"""
import re


def blank(text):
    """The text with comments, string and character literals and preprocessor lines replaced by
    spaces (quotes kept, newlines kept)."""
    out = list(text)
    i, n = 0, len(text)
    at_line_start = True

    def wipe(a, b):
        for k in range(a, b):
            if out[k] != "\n":
                out[k] = " "

    while i < n:
        c = text[i]
        if c == "\n":
            at_line_start = True
            i += 1
            continue
        if at_line_start and c == "#":
            j = i
            while j < n and text[j] != "\n":
                j = j + 2 if text[j] == "\\" and j + 1 < n else j + 1
            wipe(i, j)
            i = j
            continue
        if not c.isspace():
            at_line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            wipe(i, j)
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            wipe(i, j)
            i = j
        elif c == "R" and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            open_paren = text.find("(", i + 2)
            delim = text[i + 2:open_paren]
            j = text.find(")" + delim + '"', open_paren)
            j = n if j < 0 else j + len(delim) + 2
            wipe(i + 2, j - 1)
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # digit separator: 1'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            wipe(i + 1, j)
            i = j + 1
        else:
            i += 1
    return "".join(out)


class Function:
    def __init__(self, name, path, start_line, body_line, end_line):
        self.name = name
        self.path = path
        self.start_line = start_line  # the signature's first line
        self.body_line = body_line  # the line of the opening brace
        self.end_line = end_line  # the line of the closing brace

    @property
    def length(self):
        """Lines from the opening brace to the closing one, both counted."""
        return self.end_line - self.body_line + 1


CONTAINER = re.compile(r'^(?:namespace\b|(?:class|struct|union)\b|extern\s*"\s*"\s*$)')
ACCESS = re.compile(r"^\s*(?:public|private|protected)\s*:(?!:)")
NOT_A_BODY_BEFORE = {"const", "noexcept", "override", "final", "mutable", "volatile"}


def _without_template(header):
    """The header without a leading `template <...>`."""
    m = re.match(r"template\s*<", header)
    if not m:
        return header
    depth = 0
    for k in range(m.end() - 1, len(header)):
        depth += {"<": 1, ">": -1}.get(header[k], 0)
        if depth == 0:
            return header[k + 1:].lstrip()
    return header


def _matching(code, open_at):
    depth = 0
    for k in range(open_at, len(code)):
        if code[k] == "{":
            depth += 1
        elif code[k] == "}":
            depth -= 1
            if depth == 0:
                return k
    return len(code) - 1


def _name(header):
    paren = header.find("(")
    before = header[:paren].rstrip()
    m = re.search(r"(operator\s*\S+|~?[A-Za-z_][\w:<>,~ ]*?)$", before)
    name = m.group(1) if m else before
    return re.sub(r"\s+", " ", name.split()[-1] if name and not name.startswith("operator") else name)


def _in_initializer_list(header):
    """A constructor's member-initializer list has begun: `) : member(`."""
    return re.search(r"\)\s*(?:noexcept\s*)?:(?!:)", header) is not None


def functions(path, text):
    """Every function definition in the file (not those nested in another function)."""
    code = blank(text)
    line_of = [0] * (len(code) + 1)
    line = 1
    for k, ch in enumerate(code):
        line_of[k] = line
        if ch == "\n":
            line += 1
    line_of[len(code)] = line
    found = []

    def scan(begin, end):
        header_start = begin
        k = begin
        while k < end:
            ch = code[k]
            if ch in ";}":
                header_start = k + 1
                k += 1
                continue
            if ch != "{":
                k += 1
                continue
            header = ACCESS.sub(" ", code[header_start:k]).strip()
            close = _matching(code, k)
            if CONTAINER.match(_without_template(header)):
                scan(k + 1, close)
                header_start = close + 1
                k = close + 1
                continue
            if "(" not in header or header.rstrip().endswith("="):
                k = close + 1  # a brace initializer or an enum: not a function
                continue
            last = re.search(r"(\w+)\s*$", header)
            if _in_initializer_list(header) and last and last.group(1) not in NOT_A_BODY_BEFORE:
                k = close + 1  # member{init} in a constructor's initializer list
                continue
            offset = len(code[header_start:k]) - len(code[header_start:k].lstrip())
            start = header_start + offset
            found.append(Function(_name(header), path, line_of[start], line_of[k], line_of[close]))
            header_start = close + 1
            k = close + 1

    scan(0, len(code))
    return found


def comment_above(text_lines, fn, window=None):
    """The comment lines directly above the function's signature and those in its signature up
    to the opening brace's line (1-based line numbers)."""
    lines = []
    k = fn.start_line - 2
    while k >= 0 and text_lines[k].strip().startswith("//"):
        lines.insert(0, text_lines[k])
        k -= 1
    lines.extend(text_lines[fn.start_line - 1:fn.body_line])
    return lines
