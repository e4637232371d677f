"""Roles scout-ai knows; any other role reaches the provider unchanged, usually by accident."""

from __future__ import annotations

from itertools import repeat
from operator import attrgetter

from inspector.core.model import Finding, Message
from inspector.core.policies.decision import ToolKind

CALL_ROLE, OUTPUT_ROLE = "function_call", "function_call_output"


def tool_kind(role: object) -> ToolKind:
    """The one place a role is read as a tool call or output (any value: roles are data)."""
    if role == CALL_ROLE:
        return ToolKind.CALL
    if role == OUTPUT_ROLE:
        return ToolKind.OUTPUT
    return ToolKind.NONE


def is_tool(message: Message) -> bool:
    return tool_kind(message.fields.get("role")) is not ToolKind.NONE


CONVERSATION = ("user", "system", "assistant", "function_call", "function_call_output")
# present when prepare_prompt runs, handled by the backend afterwards (reference §2.2)
BACKEND = (
    "tool",
    "mcp",
    "kb",
    "association",
    "clear_associations",
    "introduce",
    "websearch",
    "image",
    "pdf",
    "skip",
    "cmd",
    "previous_response_id",
)
DIRECTIVES = (
    "import",
    "continue",
    "last",
    "clear",
    "clear_tools",
    "clear_role",
    "clean_role",
    "config",
    "task",
    "inline_task",
    "exec_task",
    "job",
    "inline_job",
    "file",
    "directory",
    "step",
    "allow_path",
    "allow_read_path",
    "endpoint",
    "model",
    "backend",
    "agent",
    "persist",
    "format",
    "option",
    "sticky_option",
    "meta",
    "socialize",
)
KNOWN = frozenset(CONVERSATION + BACKEND + DIRECTIVES)


def unknown_role_findings(messages: list[Message], text_format: bool) -> list[Finding]:
    try:  # the roles read in C (a million messages); a role that is an object or an array cannot be in a set
        found = set(map(dict.get, map(attrgetter("fields"), messages), repeat("role")))
        roles = {role for role in found if isinstance(role, str)}
    except TypeError:
        roles = {role for m in messages if isinstance(role := m.fields.get("role"), str)}
    if roles <= KNOWN:
        return []  # the common case, without the per-message walk below
    seen: dict[str, list[int | None]] = {}
    for _index, message in enumerate(messages):
        role = message.fields.get("role")
        if isinstance(role, str) and role not in KNOWN:
            seen.setdefault(role, []).append(message.line if message.line is not None else None)
    findings = []
    for role, lines in seen.items():
        count = f"{len(lines)} message{'s' if len(lines) != 1 else ''}"
        first = next((line for line in lines if line is not None), None)
        where = f", first at line {first}" if first is not None else ""
        hint = (
            (
                f" (any `{role}:` at the start of a line begins a new message; indent it or write `\\{role}:` "
                "to keep it as text)"
            )
            if text_format
            else ""
        )
        findings.append(
            Finding(
                "unknown_role",
                f"role `{role}` ({count}{where}) is not a scout-ai role: it is sent to the model as is{hint}",
                first,
            )
        )
    return findings
