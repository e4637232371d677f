"""What scout-ai does to a parsed chat before ``Chat.prepare_prompt`` (reference §2.1/§2.2), in its order.

``LLM.chat``: imports, clear, clean (empty messages), config, tasks/jobs, files;
then ``LLM.ask``: options, meta, previous_response_id. Each message removed or
rewritten leaves a ``Consumed`` record, since several of these steps are where a
model "forgets": the app shows them beside what the strategies did.

Items carry a sort key (a tuple: the position in the file, extended by the position
inside an import or a directory) so a consumed message can be placed before the
prompt message that followed it, however the list was expanded.
"""

from __future__ import annotations

import os
import re
from bisect import bisect_left
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspector.core.errors import InputError, ScoutRaises
from inspector.core.files import DIRECTORY_LIMIT, INCLUDE_BUDGET, Refused, size_text
from inspector.core.model import Chat, Consumed, Finding, Message
from inspector.core.scout.named_files import (
    MAX_DIRECTORY_FILES,
    MAX_IMPORT_DEPTH,
    directory_files,
    file_message,
    find_file,
    is_remote,
    read_chat_file,
)
from inspector.core.scout.parser import parse
from inspector.core.scout.settings import SETTING_KEYS, TOKENS

OPTION_ROLES = ("endpoint", "model", "backend", "agent")  # sticky
PLAIN_OPTION_ROLES = ("persist", "format")
WORKFLOW_ROLES = ("task", "inline_task", "exec_task", "job", "inline_job", "step")


@dataclass(slots=True)
class Item:
    key: tuple[Any, ...]
    message: Message


@dataclass(slots=True)
class _Budget:
    """What is left of ``INCLUDE_BUDGET`` for the files one chat pulls in: shared by its imports, so a 4 KB
    chat naming one 50 MB file 300 times (each directive its own copy) stays bounded."""

    left: int = field(default_factory=lambda: INCLUDE_BUDGET)

    def check(self, path: str) -> None:
        """Refuse ``path`` (before reading it) when it is larger than what is left."""
        try:
            size = os.stat(path).st_size
        except (OSError, ValueError):
            return  # the read says why
        if size > self.left:
            raise Refused(
                f"past the inspector's {size_text(INCLUDE_BUDGET)} limit for all the files one chat pulls in "
                "(imports, `file:` and `directory:` together): not read",
                path,
            )

    def spend(self, count: int) -> None:
        self.left -= count


@dataclass(slots=True)
class _Work:
    """What one compile pass collects besides the messages."""

    chat_path: str | None
    consumed: list[tuple[tuple[Any, ...], Consumed]] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    config: dict[str, tuple[str, int | None]] = field(default_factory=dict)
    chain: tuple[str, ...] = ()
    read: list[str] = field(default_factory=list)  # the files it read (imports, file:, directory:)
    synthetic_key: tuple[Any, ...] | None = (
        None  # the parser's leading empty message: never in the file, never reported
    )
    budget: _Budget = field(default_factory=_Budget)  # shared with the imports' own passes

    def consume(self, item: Item, step: str, reason: str) -> None:
        if item.key != self.synthetic_key:
            self.consumed.append((item.key, Consumed(item.message, step, reason, 0)))


def _line(message: Message) -> str:
    where = f"line {message.line}" if message.line is not None else "no line"
    return f"{message.source}:{message.line}" if message.source else where


def _text(message: Message) -> str:
    content = message.fields.get("content")
    return content if isinstance(content, str) else "" if content is None else str(content)


# -- LLM.chat ---------------------------------------------------------------------------------
def compile_chat(items: list[Item], work: _Work, path: str | None) -> list[Item]:
    items = _imports(items, work, path)
    items = _clear(items, work)
    items = _clean(items, work)
    items = _config(items, work)
    _workflows(items, work)
    return _files(items, work, path)


def _imports(items: list[Item], work: _Work, path: str | None) -> list[Item]:

    out: list[Item] = []
    for item in items:
        role = item.message.fields.get("role")
        if role not in ("import", "continue", "last"):
            out.append(item)
            continue
        name = _text(item.message).strip(" \t\n\v\f\r\0")
        where = item.message.source or work.chat_path
        found = find_file(name, path)
        if found is None and is_remote(name):
            raise InputError(
                f"{role}: {name!r} is a URL: scout-ai fetches it, the inspector does not", where, item.message.line
            )
        if found is None:
            raise InputError(
                f"{role}: {name!r} not found (scout-ai raises 'Import not found: {name}')", where, item.message.line
            )
        resolved = str(Path(found).resolve())
        if resolved in work.chain:
            # scout-ai recurses until its stack overflows: Ruby's SystemStackError (exit 3, what scout-ai raises)
            raise ScoutRaises(
                f"{role}: {name!r} imports itself: scout-ai recurses until its stack overflows and would raise "
                "SystemStackError (stack level too deep)",
                where,
                item.message.line,
            )
        if len(work.chain) >= MAX_IMPORT_DEPTH:  # the inspector's own bound: scout-ai would go on
            raise InputError(
                f"{role}: {name!r} nests imports deeper than {MAX_IMPORT_DEPTH}, the inspector's limit",
                where,
                item.message.line,
            )
        try:
            work.budget.check(found)
            text, note = read_chat_file(found)
            work.budget.spend(len(text))
            work.read.append(found)
        except Refused as exc:
            if exc.errno in _RUBY_ERRNO:
                # scout-ai's Open.read raises on a directory or an unreadable file
                raise ScoutRaises(
                    f"{role}: {name!r} is {_ERRNO_WORDS[exc.errno]}: scout-ai would raise {_RUBY_ERRNO[exc.errno]}",
                    where,
                    item.message.line,
                ) from None
            work.findings.append(
                Finding(
                    "file",
                    f"`{role}: {name}` at {_line(item.message)}: {found} is {exc.reason}; scout-ai would try to read it, "
                    "so what it sends differs here (the directive is left as stored)",
                    item.message.line,
                )
            )
            out.append(item)
            continue
        if note:
            work.findings.append(Finding("encoding", f"{found}: {note}", item.message.line))
        parsed = parse(text)
        for finding in parsed.findings:
            at = f"{found}:{finding.line}: " if finding.line else f"{found}: "
            work.findings.append(Finding(finding.kind, at + finding.message, item.message.line, finding.swallowed))
        new = [Item(item.key + (j,), _sourced(m, found)) for j, m in enumerate(parsed.messages)]
        if role == "continue":
            chosen = [
                m
                for m in new
                if m.message.fields.get("content") is not None and _text(m.message).strip(" \t\n\v\f\r\0")
            ]
            new = chosen[-1:]
        elif role == "last":
            chosen = [
                m for m in new if m.message.fields.get("role") != "previous_response_id" and _text(m.message) != ""
            ]
            new = chosen[-1:]
        else:
            new = [m for m in new if m.message.fields.get("role") != "previous_response_id"]
        if role != "import" and not new:
            raise InputError(
                f"{role}: {name!r} has no message to take (scout-ai fails on nil)", where, item.message.line
            )
        synthetic = item.key + (0,) if role == "import" and parsed.synthetic_first else None
        sub = _Work(work.chat_path, chain=work.chain + (resolved,), synthetic_key=synthetic, budget=work.budget)
        compiled = compile_chat(new, sub, found)
        work.consumed.extend(sub.consumed)
        work.findings.extend(sub.findings)
        work.read.extend(sub.read)
        for key, (value, _) in sub.config.items():
            work.config[key] = (value, item.message.line)
        what = {
            "import": f"replaced by the {len(compiled)} messages of {found}",
            "continue": f"replaced by the last non-empty message of {found}",
            "last": f"replaced by the last message of {found}",
        }[role]
        work.consume(item, role, what)
        out.extend(compiled)
    return out


def _sourced(message: Message, source: str) -> Message:
    message.source = source
    return message


def _clear(items: list[Item], work: _Work) -> list[Item]:
    """``Chat.clear`` (clear.rb): one backward walk that stops at the last ``clear``."""
    last = max((i for i, it in enumerate(items) if it.message.fields.get("role") == "clear"), default=None)
    if last is not None:
        mark = items[last].message
        for item in items[: last + 1]:
            if item is items[last]:
                work.consume(item, "clear", f"the `clear` message ({_line(mark)}) itself")
            else:
                work.consume(
                    item, "clear", f"before the `clear` at {_line(mark)}: scout-ai removes everything up to it"
                )
        items = items[last + 1 :]
    kept: list[Item] = []
    clearing: Item | None = None  # the nearest later clear_tools, when it clears
    named: list[tuple[str, Item]] = []
    for item in reversed(items):
        role = item.message.fields.get("role")
        if role == "clear_tools":
            # `content.to_s != 'false'`: the nearest later clear_tools decides, so a `clear_tools: false`
            # protects the tool messages before it even when an earlier-read one said true
            clearing = item if _text(item.message) != "false" else None
            work.consume(
                item,
                "clear_tools",
                "the `clear_tools` message itself"
                if clearing
                else "the `clear_tools: false` message itself; it keeps the tool messages before it",
            )
        elif role in ("function_call", "function_call_output"):
            if clearing is None:
                kept.append(item)
            else:
                work.consume(
                    item, "clear_tools", f"a tool message before the `clear_tools` at {_line(clearing.message)}"
                )
        elif role in ("clear_role", "clean_role"):
            # the whole stripped text is one role name (`clean(new, role)` compares it as is)
            name = _text(item.message).strip(" \t\n\v\f\r\0")
            named.append((name, item))
            work.consume(item, role, f"the `{role}` message itself")
            if any(c in name for c in ", \t"):
                work.findings.append(
                    Finding(
                        role,
                        f"`{role}: {name}` at {_line(item.message)}: scout-ai takes the "
                        "whole text as one role name, so it names no role of the chat",
                        item.message.line,
                    )
                )
        else:
            kept.append(item)
    kept.reverse()
    for name, by in named:  # applied in the walk's order, the last in the file first
        role = str(by.message.fields.get("role"))
        out = []
        for item in kept:
            if item.message.fields.get("role") == name:
                work.consume(item, role, f"role `{name}` removed by the `{role}` at {_line(by.message)}")
            else:
                out.append(item)
        kept = out
    return kept


def _clean(items: list[Item], work: _Work) -> list[Item]:
    out = []
    for item in items:
        content = item.message.fields.get("content")
        if isinstance(content, str) and content == "":
            work.consume(item, "empty", "empty content: scout-ai's Chat.clean removes it")
            continue
        out.append(item)
    return out


def _config(items: list[Item], work: _Work) -> list[Item]:
    out = []
    for item in items:
        if item.message.fields.get("role") != "config":
            out.append(item)
            continue
        parts = _text(item.message).split()
        key = parts[0] if parts else ""
        value = parts[1] if len(parts) > 1 else None
        tokens = {t.partition("::")[0] for t in parts[2:]}
        reason = f"Scout::Config.set({key}={value}" + (f", tokens {' '.join(parts[2:])})" if parts[2:] else ")")
        if key in SETTING_KEYS:
            if value is None:
                work.findings.append(
                    Finding(
                        "config",
                        f"`config: {key}` at {_line(item.message)} has no value; scout-ai sets it to nil",
                        item.message.line,
                    )
                )
            elif tokens & set(TOKENS):
                work.config[key] = (value, item.message.line)
                reason += f": sets the prompt threshold {key}"
            else:
                work.findings.append(
                    Finding(
                        "config",
                        f"`config: {key} {value}` at {_line(item.message)} has no "
                        "'prompt' or 'context' token, so scout-ai's threshold lookup does not "
                        "see it",
                        item.message.line,
                    )
                )
        work.consume(item, "config", reason)
    return out


def _workflows(items: list[Item], work: _Work) -> None:
    for item in items:
        role = item.message.fields.get("role")
        if role in WORKFLOW_ROLES:
            work.findings.append(
                Finding(
                    "workflow",
                    f"`{role}` at {_line(item.message)}: scout-ai runs a workflow "
                    "job here and puts its result in the chat (a job becomes a function_call "
                    "and its output); the inspector does not run workflows, so the message is "
                    "left as stored",
                    item.message.line,
                )
            )


def _files(items: list[Item], work: _Work, path: str | None) -> list[Item]:
    out: list[Item] = []
    for item in items:
        role = item.message.fields.get("role")
        if role in ("allow_path", "allow_read_path"):
            work.consume(item, "files", f"`{role}` only whitelists a path for tools")
            continue
        if role not in ("file", "directory", "pdf", "image"):
            out.append(item)
            continue
        name = _text(item.message).strip(" \t\n\v\f\r\0")
        found = find_file(name, path)
        if found is None and is_remote(name):
            work.findings.append(
                Finding(
                    "file",
                    f"`{role}: {name}` at {_line(item.message)} is a URL: scout-ai "
                    "fetches it, the inspector does not, so it is left as stored",
                    item.message.line,
                )
            )
            out.append(item)
            continue
        if (
            found is None
            or (role == "file" and not Path(found).is_file())
            or (role == "directory" and not Path(found).is_dir())
        ):
            work.findings.append(
                Finding(
                    "file",
                    f"`{role}: {name}` at {_line(item.message)}: not found or not "
                    f"readable here, so it is left as stored (scout-ai raises 'File not found')",
                    item.message.line,
                )
            )
            out.append(item)
            continue
        if role in ("pdf", "image"):
            # `message[:content] = found_file`: the backend later reads that path and sends it base64-encoded
            if found != _text(item.message):
                work.consume(item, role, f"its path resolved to {found}")
                message = item.message
                item = Item(
                    item.key,
                    Message({**message.fields, "content": found}, message.line, message.end_line, message.source),
                )
            out.append(item)
            continue
        try:
            if role == "file":
                work.budget.check(found)
                made = [file_message(found, name, item.message)]
                work.budget.spend(len(made[0].fields["content"]))
                work.read.append(found)
            else:
                # `Path.setup(target).glob('**/*')` globs `target.find`: an unlocated (relative) path is found
                # through the `current` path map, {PWD}/<path>, so the names scout-ai writes are absolute
                base = found if found.startswith(("/", "./")) else re.sub("/+", "/", f"{os.getcwd()}/{found}")
                made = _directory_messages(base, name, item, work)
        except OSError as exc:
            reason = exc.reason if isinstance(exc, Refused) else f"cannot read ({exc.strerror or exc})"
            work.findings.append(
                Finding(
                    "file",
                    f"`{role}: {name}` at {_line(item.message)}: {found} is {reason}; "
                    "scout-ai would try to read it, so what it sends differs here (left as stored)"
                    if isinstance(exc, Refused) and exc.errno is None
                    else f"`{role}: {name}` at {_line(item.message)}: {reason}; left as stored",
                    item.message.line,
                )
            )
            out.append(item)
            continue
        what = "a <file> user message" if role == "file" else f"{len(made)} <file> user messages"
        work.consume(item, role, f"replaced by {what} with the text of {found}")
        if role == "file":
            out.append(Item(item.key, made[0]))
        else:
            out.extend(Item(item.key + (j,), m) for j, m in enumerate(made))
    return out


def _directory_messages(base: str, name: str, item: Item, work: _Work) -> list[Message]:
    """One <file> message per file of a ``directory:``; what is not read or not listed is named in a finding."""
    listing = directory_files(base)
    made: list[Message] = []
    total = 0
    for path in listing.files:
        try:
            if total >= DIRECTORY_LIMIT:
                raise Refused(f"past the inspector's {size_text(DIRECTORY_LIMIT)} limit for one directory", path)
            work.budget.check(path)
            message = file_message(path, path, item.message)
            work.budget.spend(len(message.fields["content"]))
            work.read.append(path)
        except OSError as exc:
            reason = exc.reason if isinstance(exc, Refused) else f"cannot read ({exc.strerror or exc})"
            work.findings.append(
                Finding(
                    "file",
                    f"`directory: {name}` at {_line(item.message)}: {path} is {reason}; "
                    "scout-ai would try to include it, so what it sends differs here",
                    item.message.line,
                )
            )
            continue
        total += len(message.fields["content"])
        made.append(message)
    if listing.more:
        work.findings.append(
            Finding(
                "file",
                f"`directory: {name}` at {_line(item.message)}: only the first {MAX_DIRECTORY_FILES:,} files are "
                f"included; {'' if listing.counted_all else 'at least '}{listing.more:,} more are left "
                "out here, which scout-ai would include",
                item.message.line,
            )
        )
    return made


# -- LLM.ask ----------------------------------------------------------------------------------
def _options(items: list[Item], work: _Work, chat: Chat) -> list[Item]:
    plain: dict[str, tuple[object, Item]] = {}
    sticky: dict[str, tuple[object, Item]] = {}
    out = []
    for item in items:
        fields = item.message.fields
        role = fields.get("role")
        content = fields.get("content")
        if role in OPTION_ROLES:
            sticky[role] = (content, item)
            work.consume(item, "option", f"sticky option {role}={_show(content)}")
            continue
        if role in PLAIN_OPTION_ROLES:
            plain[role] = (content, item)
            work.consume(item, "option", f"option {role}={_show(content)} (until the next assistant message)")
            continue
        if role == "previous_response_id":
            sticky[role] = (content, item)
        elif role in ("option", "sticky_option"):
            key, _, text = _text(item.message).partition(" ")
            (plain if role == "option" else sticky)[key] = (text, item)
            kind = "option" if role == "option" else "sticky option"
            work.consume(
                item,
                "option",
                f"{kind} {key}={_show(text)}" + (" (until the next assistant message)" if role == "option" else ""),
            )
            continue
        elif role == "assistant":
            for key, (_value, source) in plain.items():
                _note_reset(work, key, source, item)
            plain.clear()
        out.append(item)
    merged = {**sticky, **plain}
    for key, (value, source) in list(merged.items()):
        # `options.delete_if{|k,v| v.nil? || v == 'nil' }`: a nil value unsets the option (after the merge,
        # so a plain `option: k nil` also unsets a sticky k)
        if value is None or value == "nil":
            del merged[key]
            _note(work, source, "the value nil unsets it")
    for key, (value, source) in merged.items():
        chat.options[key] = (value, source.message.line)
    if "prompt_strategies" in merged:
        value, source = merged["prompt_strategies"]
        chat.strategies = value if isinstance(value, str) else str(value)
        chat.strategies_line = source.message.line
    if "endpoint" in merged:
        value, source = merged["endpoint"]
        work.findings.append(
            Finding(
                "endpoint",
                f"`endpoint: {_show(value)}` at {_line(source.message)}: scout-ai also "
                f"reads ~/.scout/etc/AI/{_show(value)}.yaml, whose backend or prompt_strategies "
                "keys would change what is sent; the inspector does not read it",
                source.message.line,
            )
        )
    # LLM.ask: `agent_name = nil if %(none false nil).include?(agent_name.to_s)`; %() is one String, so
    # any substring of it (an empty value, `no`, `one`...) means no agent
    if "agent" in merged and _show(merged["agent"][0]) not in "none false nil":
        value, source = merged["agent"]
        work.findings.append(
            Finding(
                "agent",
                f"`agent: {_show(value)}` at {_line(source.message)}: scout-ai hands "
                "the chat to that agent, whose start_chat (not in this file) goes first",
                source.message.line,
            )
        )
    return out


def _note(work: _Work, source: Item, text: str) -> None:
    for index in range(len(work.consumed) - 1, -1, -1):
        _, record = work.consumed[index]
        if record.message is source.message:
            record.reason += f"; {text}"
            break


def _note_reset(work: _Work, key: str, source: Item, assistant: Item) -> None:
    _note(work, source, f"reset by the assistant message at {_line(assistant.message)}, so it has no effect")
    if key == "prompt_strategies":
        work.findings.append(
            Finding(
                "option",
                f"`option: prompt_strategies` at {_line(source.message)} is reset by "
                f"the assistant message at {_line(assistant.message)}: scout-ai uses the default "
                "strategies (use sticky_option, or put it after the last assistant message)",
                source.message.line,
            )
        )


def _show(value: Any) -> str:
    return value if isinstance(value, str) else repr(value)


def _meta(items: list[Item], work: _Work) -> list[Item]:
    out = []
    for item in items:
        if item.message.fields.get("role") == "meta":
            work.consume(item, "meta", "token and timing record; scout-ai removes meta messages before asking")
        else:
            out.append(item)
    return out


def previous_response_findings(messages: list[Message], chat_path: str | None) -> list[Finding]:
    """What the `previous_response_id` lines among ``messages`` are noted as when scout-ai keeps them
    (no responses backend chosen): the findings a chat cut before a call reports for them."""
    items = [Item((i,), m) for i, m in enumerate(messages) if m.fields.get("role") == "previous_response_id"]
    if not items:
        return []
    work = _Work(chat_path)
    _previous_response(items, work, Chat([]))
    return work.findings


def _previous_response(items: list[Item], work: _Work, chat: Chat) -> list[Item]:
    ids = [i for i, it in enumerate(items) if it.message.fields.get("role") == "previous_response_id"]
    backend = chat.options.get("backend", (None, None))[0]
    keep_history = chat.options.get("previous_response", (None, None))[0]
    if backend == "responses" and keep_history not in (False, "false"):
        if not ids:
            return items
        last = items[ids[-1]].message
        for item in items[: ids[-1] + 1]:
            work.consume(
                item,
                "previous_response_id",
                f"before the last previous_response_id ({_line(last)}): with backend responses scout-ai "
                "sends only what follows it and the server keeps the rest",
            )
        return items[ids[-1] + 1 :]
    chat.options.pop("previous_response_id", None)  # `options.delete :previous_response_id`
    for i in ids:
        work.consume(items[i], "previous_response_id", "removed: the backend is not explicitly `responses`")
    if ids:
        last = items[ids[-1]].message
        work.findings.append(
            Finding(
                "previous_response_id",
                f"the chat stores previous_response_id lines (last at "
                f"{_line(last)}); `scout-ai agent ask -c` would send only the messages after it, "
                "forgetting everything before (`llm ask -c` keeps the whole history)",
                last.line,
            )
        )
    gone = set(ids)
    return [it for i, it in enumerate(items) if i not in gone]


# Open.read's exception for an errno the inspector meets on an import target
_RUBY_ERRNO = {21: "Errno::EISDIR", 13: "Errno::EACCES", 2: "Errno::ENOENT"}
_ERRNO_WORDS = {21: "a directory", 13: "not readable (permission denied)", 2: "gone (no such file)"}


# -- entry point --------------------------------------------------------------------------------
def preprocess(chat: Chat, synthetic_first: bool = False) -> None:
    """Replace ``chat.messages`` by what reaches prepare_prompt; fill consumed, findings, config, options."""
    work = _Work(
        chat.path,
        chain=(str(Path(chat.path).resolve()),) if chat.path else (),
        synthetic_key=(0,) if synthetic_first else None,
    )
    items = [Item((i,), m) for i, m in enumerate(chat.messages)]
    items = compile_chat(items, work, chat.path)
    items = _options(items, work, chat)
    items = _meta(items, work)
    items = _previous_response(items, work, chat)
    keys = [it.key for it in items]
    chat.messages = [it.message for it in items]
    records = sorted(work.consumed, key=lambda pair: pair[0])
    chat.consumed = []
    for key, record in records:
        record.before = bisect_left(keys, key)
        chat.consumed.append(record)
    chat.findings.extend(work.findings)
    chat.read_files.extend(work.read)
    chat.config.update(work.config)
