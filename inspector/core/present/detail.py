"""The detail text for one row: the decision in words, the original and the model-visible content.

Plain text, already safe to display (control characters made visible), so the UI only
has to put it in a read-only text area.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from inspector.core.model import Finding
from inspector.core.policies import decision as d
from inspector.core.present.rows import RowModel, content_text
from inspector.core.present.sanitize import display_text
from inspector.core.present.wording import explain_markers
from inspector.core.ruby.json import RubyJSONError, parse
from inspector.core.scout.decision_text import describe, describe_consumed
from inspector.core.scout.prepare import Prompt
from inspector.core.scout.settings import Thresholds

RULE = "─" * 8


def pretty(content: Any) -> str:
    """JSON pretty-printed where it is JSON; a long string field is shown unescaped after it."""
    if content is None:
        return "(no content)"
    data = content
    if isinstance(content, str):
        stripped = content.lstrip()
        if not stripped.startswith(("{", "[")):
            return content
        try:
            data = parse(content)
        except RubyJSONError:
            return content
    if not isinstance(data, (dict, list)):
        return content_text(content)
    # a multi-line tool output reads as a wall of \n escapes inside JSON: show it as text below instead
    moved = {}
    if isinstance(data, dict):
        for key in ("content", "arguments"):
            inner = data.get(key)
            if isinstance(inner, str) and "\n" in inner:
                moved[key] = inner
        if moved:
            data = {k: (f"⟨{len(v):,} characters, shown below⟩" if k in moved else v) for k, v in data.items()}
    text = json.dumps(data, indent=2, ensure_ascii=False)
    for key, inner in moved.items():
        text += f"\n\n{RULE} {key} {RULE}\n{inner}"
    return text


def detail_text(
    rows: RowModel, prompt: Prompt, thresholds: Thresholds, row: int, findings: Sequence[Finding] = ()
) -> str:
    """``findings``: the loader's; those about this row's message (its line, or its index) are repeated."""
    index = rows.message_index(row)
    role = rows.role(row)
    name, ident = rows.tool(row)
    head = [
        f"#{row}  role {role}"
        + (f"  tool {name}" if name is not None else "")
        + (f"  id {ident}" if ident is not None else "")
    ]
    message = rows.message(row)
    if message.line is not None:
        head[0] += f"  line {message.line}"
    if index is None:
        item = rows.consumed_item(row)
        assert item is not None  # a row is a message or a consumed item
        head.append(describe_consumed(item.step, item.reason))
        visible = None
        tier = d.CONSUMED
    else:
        dec = prompt.decision(index)
        tier = dec.tier
        head.append(describe(dec, thresholds))
        head.append(f"characters: {dec.original_chars:,} original -> {dec.visible_chars:,} sent")
        visible = prompt.visible_content(index)
    line = message.line
    about = [f for f in findings if (line is not None and f.line == line) or (index is not None and index in f.indices)]
    head += [f"loader finding ({f.kind}): {f.message}" for f in about]
    parts = ["\n".join(head)]
    original = rows.original_content(row)
    if tier == d.TRUNCATED and isinstance(visible, str):
        notes = explain_markers(visible)
        if notes:
            parts.append(f"{RULE} truncation marker {RULE}\n" + "\n".join(notes))
    parts.append(f"{RULE} original {RULE}\n{pretty(original)}")
    if tier == d.FULL:
        parts.append(f"{RULE} model-visible: the same, sent in full {RULE}")
    elif tier == d.TRUNCATED:
        parts.append(f"{RULE} model-visible (shortened) {RULE}\n{pretty(visible)}")
    elif tier == d.DROPPED:
        parts.append(f"{RULE} model-visible: nothing, the message is dropped {RULE}")
    elif tier == d.CONSUMED:
        parts.append(f"{RULE} model-visible: nothing, consumed before the strategies ran {RULE}")
    elif tier == d.CLEARED:
        parts.append(f"{RULE} model-visible: the policy's placeholder, none of the text {RULE}\n{pretty(visible)}")
    else:
        parts.append(f"{RULE} model-visible: nothing, scout-ai raises and sends no prompt {RULE}")
    return display_text("\n\n".join(parts))
