"""The scout chat text printer, ``Chat.print`` (reference §1.6), so a prepared prompt can be saved as ``.chat``.

The round trip through the parser is lossy exactly where scout-ai's printer is:

- a content line ``foo:bar`` (no white space after the colon) or ``http://x`` is not
  escaped and comes back as a header;
- a last content line that is exactly ``word:`` is not escaped either;
- an escaped line inside a fence keeps its backslash on re-reading;
- a message with empty content, printed as a bare ``role:``, disappears;
- content is stripped at both ends;
- protected-block openers in content (a line starting ``[[``, an XML tag closed
  elsewhere, an odd fence, ``:-- ... {{{``) change how the following lines parse;
- inline roles (``function_call`` and the like) with a newline in their content
  lose everything after the first line's header;
- Hash/Array content is written as JSON text and comes back as a string, other
  non-string content as its Ruby ``to_s``;
- keys other than role and content are not written.
"""

from __future__ import annotations

import re
from typing import Any

from inspector.core.lazy_re import lazy
from inspector.core.model import Message
from inspector.core.ruby import json as rubyjson

INLINE = ("option", "previous_response_id", "function_call", "function_call_output", "meta")
ESCAPE = lazy(r"^([a-z]+:)(\s)", re.ASCII | re.M)


def ruby_to_s(value: Any) -> str:
    if isinstance(value, str):
        return value
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, float):
        return rubyjson.ruby_float(value)
    return str(value)


def print_message(message: Message) -> str:
    role = ruby_to_s(message.fields.get("role")) if message.fields.get("role") is not None else ""
    content = message.fields.get("content")
    if isinstance(content, (dict, list)):
        return role + ":\n\n" + rubyjson.dumps(content)
    if content is None or content == "":
        return role + ":"
    text = ruby_to_s(content)
    if role in INLINE:
        return role + ": " + text
    return role + ":\n\n" + ESCAPE.sub(r"\\\1\2", text)


def print_chat(messages: list[Message]) -> str:
    return "\n" + "\n\n".join(print_message(m) for m in messages)
