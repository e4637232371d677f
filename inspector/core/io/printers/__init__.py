"""Export printers: prepared messages to bytes-ready text, one function per format."""

from __future__ import annotations

from collections.abc import Callable, Iterator

from inspector.core.model import Message
from inspector.core.ruby.json import dumps, dumps_messages, dumps_messages_bytes, dumps_messages_chunks


def print_json(messages: list[Message]) -> str:
    """``JSON.generate(prompt)`` plus a newline, as the reference prints it."""
    return dumps_messages([m.fields for m in messages]) + "\n"


def print_jsonl(messages: list[Message]) -> str:
    return "".join(dumps(m.fields) + "\n" for m in messages)


PRINTERS: dict[str, Callable[[list[Message]], str]] = {"json": print_json, "jsonl": print_jsonl}


def print_openai(messages: list[Message]) -> str:
    """The Chat Completions ``messages``: a response's text and calls in one assistant message, each
    output a ``tool`` message with its call's id (``peers.wire``)."""
    from inspector.core.peers.wire import Conversation, as_openai

    return print_openai_items([as_openai(i) for i in Conversation(messages).items])


def print_openai_items(items: list[dict[str, object]]) -> str:
    return dumps_messages(items) + "\n"


def _register_exports() -> None:
    from inspector.core.io.printers.chat import print_chat
    from inspector.core.io.printers.responses import print_responses

    PRINTERS["chat"] = print_chat
    PRINTERS["responses"] = print_responses
    PRINTERS["openai"] = print_openai


_register_exports()


def register_printer(name: str, fn: Callable[[list[Message]], str]) -> None:
    PRINTERS[name] = fn


def printer_names() -> list[str]:
    return list(PRINTERS)


def render(name: str, messages: list[Message]) -> bytes:
    """The bytes a printer writes: what `prepare` prints and what an export file holds."""
    if name == "json" and PRINTERS.get("json") is print_json:
        return dumps_messages_bytes([m.fields for m in messages]) + b"\n"  # skips a str round trip on large chats
    return PRINTERS[name](messages).encode("utf-8", "surrogatepass")


def render_chunks(name: str, messages: list[Message]) -> Iterator[bytes]:
    """``render`` as pieces of bytes: the JSON of a large prompt is written without one copy of it all."""
    if name == "json" and PRINTERS.get("json") is print_json:
        chunks: Iterator[bytes] = dumps_messages_chunks([m.fields for m in messages], b"\n")
        return chunks
    return iter((render(name, messages),))
