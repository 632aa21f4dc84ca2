#!/usr/bin/env python3
"""Makes syntactically valid variants of a C++ program for the mutation sweep.

    bench/mutate.py SOURCE SEED [COUNT]

Prints a JSON object: the variant's text and the mutations applied. Each
mutation works on the program's statements as a light scanner sees them
(comments, strings and preprocessor lines masked; parentheses and braces
matched), not on an AST: the variants are meant to be odd, often ill-typed,
code that the analyzer must survive, and clang's own error recovery is part
of what they exercise.
"""
import json
import random
import re
import sys

CONTROL_KEYWORDS = ("if", "for", "while", "switch", "catch")
BLOCK_OPENERS = ("else", "do", "try")


def masked(text):
    """The text with comments, literals and preprocessor lines blanked out,
    offsets unchanged."""
    out = list(text)
    i, n = 0, len(text)
    at_line_start = True
    while i < n:
        c = text[i]
        if at_line_start and c == "#":
            j = i
            while j < n and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 1
                j += 1
            for k in range(i, j):
                out[k] = " "
            i = j
            continue
        if c == "\n":
            at_line_start = True
            i += 1
            continue
        if not c.isspace():
            at_line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
            continue
        if text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        if c == 'R' and text.startswith('R"', i):
            m = re.match(r'R"([^(]*)\(', text[i:])
            if m:
                end = text.find(")" + m.group(1) + '"', i)
                j = n if end < 0 else end + len(m.group(1)) + 2
                for k in range(i + 1, j):
                    if out[k] != "\n":
                        out[k] = " "
                i = j
                continue
        if c in "\"'":
            # A digit separator (1'000) is not a character literal.
            if c == "'" and i > 0 and text[i - 1].isalnum():
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                out[k] = " "
            i = j + 1
            continue
        i += 1
    return "".join(out)


class Program:
    """Statements, blocks and calls of one program text."""

    def __init__(self, text):
        self.text = text
        self.mask = masked(text)
        self.match = {}
        self._match_brackets()
        self.blocks = self._code_blocks()
        self.statements = self._simple_statements()

    def _match_brackets(self):
        stack = []
        for i, c in enumerate(self.mask):
            if c in "({[":
                stack.append(i)
            elif c in ")}]" and stack:
                j = stack.pop()
                self.match[j] = i
                self.match[i] = j

    def _word_before(self, i):
        m = re.search(r"(\w+)\s*$", self.mask[:i])
        return m.group(1) if m else ""

    def _code_blocks(self):
        """Braces that hold statements: function and lambda bodies and the
        blocks of control statements, not classes, namespaces or
        initializer lists."""
        blocks = []
        for i, c in enumerate(self.mask):
            if c != "{" or i not in self.match:
                continue
            before = self.mask[:i].rstrip()
            word = self._word_before(i)
            if before.endswith(")"):
                opener = self.match.get(len(before) - 1)
                if opener is None:
                    continue
                called = self._word_before(opener)
                blocks.append((i, self.match[i], called))
            elif word in BLOCK_OPENERS or word in ("const", "override",
                                                   "noexcept", "mutable"):
                blocks.append((i, self.match[i], word))
            elif before.endswith(("{", "}", ";")) and self._inside_code(i):
                blocks.append((i, self.match[i], "{"))
        return blocks

    def _inside_code(self, i):
        return any(b[0] < i < b[1] for b in getattr(self, "blocks", []))

    def innermost_block(self, i):
        best = None
        for b in self.blocks:
            if b[0] < i < b[1] and (best is None or b[0] > best[0]):
                best = b
        return best

    def _simple_statements(self):
        """Statements that end in ';' at the top of a code block and hold no
        braces: declarations, expressions, returns."""
        found = []
        for start_brace, end_brace, _ in self.blocks:
            i = start_brace + 1
            start = i
            while i < end_brace:
                c = self.mask[i]
                if c in "([" and i in self.match:
                    i = self.match[i] + 1
                    continue
                if c == "{" and i in self.match:
                    # A nested block or a braced initializer: the statement
                    # around it is not simple.
                    close = self.match[i]
                    after = self.mask[close + 1:end_brace].lstrip()
                    if after.startswith((";", ",", ")", ".")):
                        i = close + 1
                        start = -1 if start >= 0 else start
                        continue
                    i = close + 1
                    start = i
                    continue
                if c == ";":
                    if start >= 0:
                        body = self.text[start:i + 1]
                        if body.strip() and not re.match(
                                r"\s*(case|default|public|private|protected|"
                                r"else|do)\b",
                                self.mask[start:i]):
                            lead = len(body) - len(body.lstrip())
                            found.append((start + lead, i + 1))
                    start = i + 1
                elif c == ":" and re.search(r"\b(case\b[^;]*|default\s*)$",
                                            self.mask[start:i + 1]):
                    start = i + 1
                i += 1
        return sorted(set(found))

    def loops(self):
        loops = []
        for m in re.finditer(r"\b(for|while)\s*\(", self.mask):
            paren = m.end() - 1
            close = self.match.get(paren)
            if close is None:
                continue
            rest = self.mask[close + 1:]
            brace = close + 1 + (len(rest) - len(rest.lstrip()))
            if brace < len(self.mask) and self.mask[brace] == "{" and brace in self.match:
                loops.append((brace, self.match[brace]))
        return loops

    def calls_with_arguments(self):
        calls = []
        for m in re.finditer(r"\b\w+\s*\(", self.mask):
            paren = m.end() - 1
            close = self.match.get(paren)
            if close is None or not self._inside_code(paren):
                continue
            commas = []
            depth = 0
            i = paren + 1
            while i < close:
                c = self.mask[i]
                if c in "([{" and i in self.match:
                    i = self.match[i] + 1
                    continue
                if c == "<":
                    depth += 1
                elif c == ">":
                    depth = max(0, depth - 1)
                elif c == "," and depth == 0:
                    commas.append(i)
                elif c == ";":
                    break
                i += 1
            else:
                if commas:
                    bounds = [paren] + commas + [close]
                    args = [(bounds[k] + 1, bounds[k + 1])
                            for k in range(len(bounds) - 1)]
                    calls.append(args)
        return calls

    def declared_names(self):
        names = []
        for s, e in self.statements:
            m = re.match(
                r"\s*(?:const\s+)?(?:auto|[\w:]+(?:<[^;]*>)?)\s*[&*]?\s+(\w+)\s*(=|\(|\{|;)",
                self.mask[s:e])
            if m and m.group(1) not in ("return", "delete", "new", "throw"):
                names.append((m.group(1), s, e))
        return names

    def function_of(self, i):
        """The outermost code block around i: the function body."""
        best = None
        for b in self.blocks:
            if b[0] < i < b[1] and (best is None or b[0] < best[0]):
                best = b
        return best


def edit(text, start, end, replacement):
    return text[:start] + replacement + text[end:]


def delete_statement(p, rng):
    if not p.statements:
        return None
    s, e = rng.choice(p.statements)
    return edit(p.text, s, e, ""), "delete statement at offset %d" % s


def swap_arguments(p, rng):
    calls = p.calls_with_arguments()
    if not calls:
        return None
    args = rng.choice(calls)
    a, b = sorted(rng.sample(range(len(args)), 2))
    (as_, ae), (bs, be) = args[a], args[b]
    text = (p.text[:as_] + p.text[bs:be] + p.text[ae:bs] + p.text[as_:ae] +
            p.text[be:])
    return text, "swap arguments %d and %d at offset %d" % (a, b, as_)


def duplicate_loop_body(p, rng):
    loops = p.loops()
    if not loops:
        return None
    open_, close = rng.choice(loops)
    body = p.text[open_ + 1:close]
    return (edit(p.text, open_ + 1, close, "{" + body + "}{" + body + "}"),
            "duplicate loop body at offset %d" % open_)


def drop_to_device(p, rng):
    moves = [m for m in re.finditer(r"(\.|->)\s*(to|cuda|cpu)\s*\(", p.mask)
             if m.end() - 1 in p.match]
    if not moves:
        return None
    m = rng.choice(moves)
    close = p.match[m.end() - 1]
    return (edit(p.text, m.start(), close + 1, ""),
            "drop %s at offset %d" % (m.group(2), m.start()))


WRAPPERS = [
    ("if (std::rand() % 2) {", "}"),
    ("if (std::rand() % 2) {} else {", "}"),
    ("try {", "} catch (...) {}"),
    ("[&] {", "}();"),
    ("for (int mutant_i = 0; mutant_i < 2; ++mutant_i) {", "}"),
    ("while (std::rand() % 2) {", "}"),
    ("do {", "} while (false);"),
    ("{", "}"),
]


def wrap_statements(p, rng):
    if not p.statements:
        return None
    k = rng.randrange(len(p.statements))
    s, e = p.statements[k]
    block = p.innermost_block(s)
    # Up to three statements of the same block.
    last = k
    for j in range(k + 1, min(k + 3, len(p.statements))):
        if p.innermost_block(p.statements[j][0]) == block and rng.random() < 0.5:
            last = j
    e = p.statements[last][1]
    head, tail = rng.choice(WRAPPERS)
    return (edit(p.text, s, e, head + " " + p.text[s:e] + " " + tail),
            "wrap %d statements at offset %d in %r" % (last - k + 1, s, head))


def shadow_variable(p, rng):
    names = p.declared_names()
    if len(names) < 2:
        return None
    (a, a_start, _), (b, b_start, b_end) = sorted(rng.sample(names, 2),
                                                   key=lambda x: x[1])
    if a == b:
        return None
    block = p.innermost_block(b_start)
    if block is None:
        return None
    later = [st for st in p.statements if st[0] >= b_end and st[1] < block[1]]
    at = rng.choice(later)[1] if later else b_end
    text = p.text[:at] + " { auto " + a + " = " + b + ";" + \
        p.text[at:block[1]] + "}" + p.text[block[1]:]
    return text, "shadow %s with %s at offset %d" % (a, b, at)


def insert_exit(p, rng):
    if not p.statements:
        return None
    s, e = rng.choice(p.statements)
    function = p.function_of(s)
    name = function[2] if function else ""
    header = p.mask[:function[0]] if function else ""
    header = header[header.rfind(";") + 1:] if header else ""
    if name == "main":
        exit = "return 0;"
    elif re.search(r"\bvoid\b[^(]*$", header.split("(")[0] if "(" in header else header):
        exit = "return;"
    else:
        exit = rng.choice(["throw std::runtime_error(\"mutant\");",
                           "if (std::rand() % 2) throw 1;"])
    if rng.random() < 0.3:
        label = "mutant_exit_%d" % rng.randrange(1 << 30)
        block = p.innermost_block(s)
        if block is None:
            return None
        text = (p.text[:e] + " goto " + label + ";" + p.text[e:block[1]] +
                " " + label + ":;" + p.text[block[1]:])
        return text, "goto the end of the block at offset %d" % e
    return edit(p.text, e, e, " " + exit), "insert %r at offset %d" % (exit, e)


def swap_statements(p, rng):
    pairs = [(x, y) for x, y in zip(p.statements, p.statements[1:])
             if p.innermost_block(x[0]) == p.innermost_block(y[0]) and
             not p.mask[x[1]:y[0]].strip()]
    if not pairs:
        return None
    (as_, ae), (bs, be) = rng.choice(pairs)
    text = (p.text[:as_] + p.text[bs:be] + p.text[ae:bs] + p.text[as_:ae] +
            p.text[be:])
    return text, "swap statements at offset %d" % as_


MUTATIONS = [delete_statement, swap_arguments, duplicate_loop_body,
             drop_to_device, wrap_statements, shadow_variable, insert_exit,
             swap_statements]


def mutate(text, rng, count):
    applied = []
    for _ in range(count):
        for _attempt in range(8):
            result = rng.choice(MUTATIONS)(Program(text), rng)
            if result:
                text, what = result
                applied.append(what)
                break
    return text, applied


def main():
    source, seed = sys.argv[1], int(sys.argv[2])
    count = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    rng = random.Random(seed)
    with open(source, encoding="utf-8") as f:
        text = f.read()
    text, applied = mutate(text, rng, count or rng.randint(1, 3))
    json.dump({"text": text, "mutations": applied}, sys.stdout)


if __name__ == "__main__":
    main()
