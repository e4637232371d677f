"""LangChain's policies: ``trim_messages`` (langchain-core 1.8.3) and ``ContextEditingMiddleware`` with
``ClearToolUsesEdit`` (langchain 1.5.2), and its token counter ``count_tokens_approximately``.

Read from langchain_core/messages/utils.py and langchain/agents/middleware/context_editing.py; the
algorithms below follow them step for step (the binary searches included: their answers depend on it).
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections.abc import Callable, Sequence
from itertools import accumulate
from operator import attrgetter, is_, itemgetter
from typing import Any, cast

from inspector.core.peers.outcome import Outcome, PolicyRaises, chat_facts
from inspector.core.peers.wire import Item, WireCall

# -- count_tokens_approximately ---------------------------------------------------------------
ROLE_NAMES = {"system": "system", "user": "user", "assistant": "assistant", "tool": "tool"}
TYPES = {"system": "system", "user": "human", "assistant": "ai", "tool": "tool"}  # start_on / end_on names


def tool_calls_of(item: Item) -> list[dict[str, Any]]:
    """The AIMessage's ``tool_calls`` as convert_to_messages builds them (arguments json.loads-ed)."""
    out = []
    for position, call in enumerate(item.calls):
        if call.raw or not isinstance(call.arguments, dict):
            shown = call.arguments if call.raw else type(call.arguments).__name__
            raise PolicyRaises(
                "ValueError",
                f"tool call {call.id!r} ({call.name!r}): arguments {shown!r} are not a JSON object, which "
                f"convert_to_messages cannot read (call {position + 1} of its message)",
            )
        out.append({"name": call.name, "args": call.arguments, "id": call.id, "type": "tool_call"})
    return out


def approximate(item: Item) -> int:
    """``count_tokens_approximately([message])``: ceil(characters / 4) + 3, images 85 each."""
    content = item.content if item.content is not None else ""
    chars, images = 0, 0
    if isinstance(content, str):
        chars += len(content)
    elif isinstance(content, list):
        for block in content:
            if isinstance(block, str):
                chars += len(block)
            elif isinstance(block, dict):
                kind = block.get("type", "")
                if kind in ("image", "image_url"):
                    images += 85
                elif kind == "text":
                    chars += len(block.get("text", ""))
                else:
                    chars += len(repr(block))
            else:
                chars += len(repr(block))
    else:
        chars += len(repr(content))
    if item.role == "assistant" and not isinstance(content, list) and item.calls:
        chars += len(repr(tool_calls_of(item)))
    if item.role == "tool":
        chars += len(str(item.call_id))
    chars += len(ROLE_NAMES.get(item.role, item.role))
    if item.name:
        chars += len(item.name)
    return images + math.ceil(chars / 4.0) + 3


class Counter:
    """Prefix sums of per-message counts: a list's count is the sum (each message is rounded up on its
    own in count_tokens_approximately, and ``len`` counts one per message)."""

    def __init__(self, counts: Sequence[int]):
        self.counts = list(counts)
        self.prefix = [0, *accumulate(self.counts)]

    def span(self, start: int, stop: int) -> int:
        return self.prefix[stop] - self.prefix[start]


Cache = dict[int, tuple[Item, int]]  # id(item) -> (the item, its count): the item is kept, so the id is its own


def counts(items: list[Item], counter: str, cache: Cache | None = None) -> list[int]:
    if counter == "len":
        return [1] * len(items)
    if cache is None:
        return [approximate(i) for i in items]
    known = list(map(cache.get, map(id, items)))
    if None not in known:  # every item counted before (a re-plan), if each is still its own
        counted = cast(list[tuple[Item, int]], known)
        if all(map(is_, map(_ITEM, counted), items)):
            return list(map(_COUNT, counted))
    out = []
    for item in items:
        found = cache.get(id(item))
        if found is None or found[0] is not item:
            found = cache[id(item)] = (item, approximate(item))
        out.append(found[1])
    return out


_ITEM, _COUNT = itemgetter(0), itemgetter(1)
_ORIGIN = attrgetter("origin")


def _is_type(item: Item, types: frozenset[str]) -> bool:
    return TYPES.get(item.role, item.role) in types


def _splits(text: str) -> list[str]:
    """The default text splitter: on newlines, each piece keeping its newline."""
    pieces = text.split("\n")
    return [p + "\n" for p in pieces[:-1]] + pieces[-1:]


def _first_max_tokens(
    items: list[Item],
    tokens: list[int],
    max_tokens: int,
    count_one: Callable[[Item], int],
    partial: str | None,
    end_on: frozenset[str],
) -> tuple[list[Item], int, str | None]:
    """``_first_max_tokens``: the kept items, how many fit (a partial one included) before ``end_on``
    pruned the end, and what a partial kept (None: none)."""
    counter = Counter(tokens)
    n = len(items)
    if not items:
        return [], 0, None
    if counter.span(0, n) <= max_tokens:
        kept = list(items)
        if end_on:
            while kept and not _is_type(kept[-1], end_on):
                kept.pop()
        return kept, n, None
    left, right = 0, n
    for _ in range(n.bit_length()):
        if left >= right:
            break
        mid = (left + right + 1) // 2
        if counter.span(0, mid) <= max_tokens:
            left = mid
        else:
            right = mid - 1
    idx = left
    out = list(items)
    part_note = None
    if partial and idx < n:
        excluded = items[idx]
        included = False
        if isinstance(excluded.content, list):
            blocks = list(excluded.content)
            if partial == "last":
                blocks.reverse()
            for _ in range(1, len(blocks)):
                blocks = blocks[:-1]
                trial = excluded.with_content(list(reversed(blocks)) if partial == "last" else blocks)
                if counter.span(0, idx) + count_one(trial) <= max_tokens:
                    out = [*out[:idx], trial]
                    idx += 1
                    included = True
                    part_note = f"partial: {len(blocks)} of {len(excluded.content)} content blocks kept"
                    break
        if not included:
            text = None
            if isinstance(excluded.content, str):
                text = excluded.content
            elif isinstance(excluded.content, list) and excluded.content:
                for block in excluded.content:
                    if isinstance(block, str):
                        text = block
                        break
                    if isinstance(block, dict) and block.get("type") == "text":
                        text = block.get("text")
                        break
            if text:
                pieces = _splits(text)
                base = counter.span(0, idx)
                if partial == "last":
                    pieces.reverse()
                lo, hi = 0, len(pieces)
                for _ in range(len(pieces).bit_length()):
                    if lo >= hi:
                        break
                    mid = (lo + hi + 1) // 2
                    if base + count_one(excluded.with_content("".join(pieces[:mid]))) <= max_tokens:
                        lo = mid
                    else:
                        hi = mid - 1
                if lo > 0:
                    chosen = pieces[:lo]
                    if partial == "last":
                        chosen.reverse()
                    out = [*out[:idx], excluded.with_content("".join(chosen))]
                    idx += 1
                    side = "last" if partial == "last" else "first"
                    part_note = f"partial: the {side} {lo} of {len(pieces)} lines kept (allow_partial)"
    fit = idx
    if end_on:
        for _ in range(idx):
            if idx > 0 and not _is_type(out[idx - 1], end_on):
                idx -= 1
            else:
                break
    return out[:idx], fit, part_note


def trim_messages(items: list[Item], settings: dict[str, Any], cache: Cache | None = None) -> Outcome:
    """``trim_messages(messages, max_tokens=..., token_counter=..., strategy=..., ...)``."""
    strategy, counter = settings["strategy"], settings["token_counter"]
    max_tokens = settings["max_tokens"]
    start_on, end_on = frozenset(settings["start_on"]), frozenset(settings["end_on"])
    include_system, allow_partial = settings["include_system"], settings["allow_partial"]
    if start_on and strategy == "first":
        raise PolicyRaises("ValueError", "start_on parameter is only valid with strategy='last'")
    if include_system and strategy == "first":
        raise PolicyRaises("ValueError", "include_system parameter is only valid with strategy='last'")
    approx = counts(items, "approximate", cache)  # raises, as convert_to_messages does, on arguments it refuses
    tokens = approx if counter != "len" else counts(items, counter, cache)
    unit = "messages" if counter == "len" else "tokens"

    def count_one(item: Item) -> int:
        return 1 if counter == "len" else approximate(item)

    total = sum(tokens)
    notes: dict[int, str] = {}
    if strategy == "first":
        kept, fit, part = _first_max_tokens(
            items, tokens, max_tokens, count_one, "first" if allow_partial else None, end_on
        )
        # the positions past the kept ones, in bulk: a sweep re-plans 20,000 messages per value
        ended = f"dropped by end_on={','.join(sorted(end_on))}: the kept list must end on that type"
        notes.update(dict.fromkeys(range(len(kept), max(fit, len(kept))), ended))
        beyond = f"beyond max_tokens: the first messages that fit in {max_tokens:,} {unit} are kept"
        notes.update(dict.fromkeys(range(max(fit, len(kept)), len(items)), beyond))
        if part is not None and fit - 1 < len(kept):
            notes[fit - 1] = part
        summary = _summary(total, max_tokens, unit, len(items) - len(kept))
        return Outcome(
            kept,
            summary,
            f"within max_tokens ({max_tokens:,} {unit}, strategy first)",
            notes,
            tokens=approx,
            total=sum(approx),
        )
    # strategy "last": what it trims from is the run lo..hi of the messages (end_on pops the end, the
    # system message the start), taken newest first; slices and bulk notes, no Python step per message
    lo, hi = 0, len(items)
    if end_on:
        while hi > lo and not _is_type(items[hi - 1], end_on):
            hi -= 1
            notes[hi] = f"dropped by end_on={','.join(sorted(end_on))}: after the last message of that type"
    system: int | None = None
    remaining = max_tokens
    if include_system and hi > lo and items[lo].role == "system":
        system, lo = lo, lo + 1
        remaining = max(0, max_tokens - tokens[system])
    reversed_positions = range(hi - 1, lo - 1, -1)
    kept, fit, part = _first_max_tokens(
        items[lo:hi][::-1],
        tokens[lo:hi][::-1],
        remaining,
        count_one,
        "last" if allow_partial else None,
        start_on,
    )
    started = f"dropped by start_on={','.join(sorted(start_on))}: the kept list must start on that type"
    notes.update(dict.fromkeys(reversed_positions[len(kept) : max(fit, len(kept))], started))
    beyond = f"beyond max_tokens: the last messages that fit in {remaining:,} {unit} are kept"
    notes.update(dict.fromkeys(reversed_positions[max(fit, len(kept)) :], beyond))
    if part is not None and fit - 1 < len(kept):
        notes[reversed_positions[fit - 1]] = part
    result = kept[::-1]
    if system is not None:
        result = [items[system], *result]
        notes[system] = "include_system: the first system message is always kept"
    summary = _summary(total, max_tokens, unit, len(items) - len(result))
    return Outcome(
        result,
        summary,
        f"within max_tokens ({max_tokens:,} {unit}, strategy last)",
        notes,
        tokens=approx,
        total=sum(approx),
    )


def _summary(total: int, limit: int, unit: str, dropped: int) -> str:
    if total <= limit:
        return f"{total:,} {unit} <= max_tokens {limit:,}: nothing to trim" + (
            f" ({dropped} dropped by start_on/end_on)" if dropped else ""
        )
    return f"{total:,} {unit} > max_tokens {limit:,}: {dropped} message(s) trimmed"


# -- ContextEditingMiddleware + ClearToolUsesEdit -------------------------------------------------
class ClearFacts:
    """What ClearToolUsesEdit reads of a chat, whatever its settings: each tool result's nearest AI message
    before it and the call there with its id (None: none), and the placeholders already made."""

    def __init__(self, work: list[Item]):
        self.pairs: list[tuple[int, WireCall] | int | None] = []
        last_ai = -1
        for k, item in enumerate(work):
            if item.role == "assistant":
                last_ai = k
            if item.role != "tool":
                self.pairs.append(None)
                continue
            if last_ai < 0:
                self.pairs.append(-1)  # no AI message before it
                continue
            call = next((c for c in work[last_ai].calls if c.id == item.call_id), None)
            self.pairs.append((last_ai, call) if call is not None else -2)
        self.placeholders: dict[tuple[int, str], Item] = {}
        self.tools = [k for k, m in enumerate(work) if m.role == "tool"]  # the candidates, oldest first
        # the candidates it clears when no tool is excluded (their ranks among the candidates), and the others
        self.ranks: list[int] = []
        self.clears: list[int] = []
        self.skips: list[tuple[int, int]] = []
        for rank, k in enumerate(self.tools):
            if work[k].extra.get("cleared") or not isinstance(self.pairs[k], tuple):
                self.skips.append((rank, k))
            else:
                self.ranks.append(rank)
                self.clears.append(k)
        self.shown: dict[str, list[Item]] = {}  # placeholder -> each of ``clears`` holding it

    def placeheld(self, work: list[Item], placeholder: str) -> list[Item]:
        found = self.shown.get(placeholder)
        if found is None:
            found = self.shown[placeholder] = []
            for k in self.clears:
                shown = self.placeholders.get((k, placeholder))
                if shown is None:
                    shown = self.placeholders[(k, placeholder)] = work[k].cleared(placeholder)
                found.append(shown)
        return found


def clear_tool_uses(
    items: list[Item],
    settings: dict[str, Any],
    cache: Cache | None = None,
    *,
    who: str = "LangChain",
    facts_cache: Any = None,
) -> Outcome:
    """``ContextEditingMiddleware(edits=[ClearToolUsesEdit(...)])`` around one model call: the request's
    messages (the system prompt apart: it is not counted) deep-copied and edited."""
    trigger, keep = settings["trigger"], settings["keep"]
    clear_at_least, clear_inputs = settings["clear_at_least"], settings["clear_tool_inputs"]
    exclude, placeholder = set(settings["exclude_tools"]), settings["placeholder"]
    lead = 1 if items and items[0].role == "system" else 0  # ModelRequest.system_message
    work = list(items[lead:])
    approx = counts(items, "approximate", cache)  # raises, as convert_to_messages does, on arguments it refuses
    if not work:
        return Outcome(list(items), "no messages: nothing to edit", "not edited", tokens=approx, total=0)
    tokens = sum(approx[lead:])
    if tokens <= trigger:
        return Outcome(
            list(items),
            f"{tokens:,} <= trigger {trigger:,} tokens: nothing cleared",
            f"under the trigger ({tokens:,} <= {trigger:,} tokens)",
            tokens=approx,
            total=tokens,
        )
    facts = chat_facts(work, ClearFacts, facts_cache)
    candidates = facts.tools
    kept_tail = (
        candidates[-keep:] if keep and keep < len(candidates) else (candidates if keep >= len(candidates) else [])
    )
    if keep >= len(candidates):
        candidates = []
    elif keep:
        candidates = candidates[:-keep]
    notes: dict[int, str] = {}
    newest = f"one of the {keep} newest tool results (keep={keep})"
    for k in kept_tail:
        notes[lead + k] = newest
    cleared_ids: set[int] = set()
    by_origin: dict[int, str] = {}
    cleared_count = 0
    head = f"trigger exceeded: {tokens:,} > {trigger:,} tokens"
    older = f"older than the {keep} newest tool results" if keep else "keep=0: every tool result"
    cleared_note = f"{head}; {older}; replaced by {placeholder!r}"
    inputs_note = f"{head}; clear_tool_inputs: its arguments replaced by {{}}"
    now = tokens  # the list's count as it is edited: a message's count changes, the others stay
    counted = approx[lead:]
    stopped_at: int | None = None
    pairs, made = facts.pairs, facts.placeholders
    if clear_at_least <= 0 and not clear_inputs and not exclude:
        # every candidate it can clear is cleared, in one pass: the loop below would never stop early,
        # count again nor touch another message
        chosen = bisect_left(facts.ranks, len(candidates))
        clears = facts.clears[:chosen]
        work = list(map(dict(zip(clears, facts.placeheld(work, placeholder))).get, range(len(work)), work))
        cleared_ids.update(map(_ORIGIN, map(work.__getitem__, clears)))
        cleared_count = chosen
        notes.update(dict.fromkeys(map(lead.__add__, clears), cleared_note))
        candidates = [k for rank, k in facts.skips if rank < len(candidates)]
    for rank, k in enumerate(candidates):
        message = work[k]
        if message.extra.get("cleared"):
            notes[lead + k] = "already cleared"
            continue
        pair = pairs[k]
        if pair == -1:
            notes[lead + k] = f"{head}; no AI message before it, so not cleared"
            continue
        if not isinstance(pair, tuple):
            notes[lead + k] = (
                f"{head}; the nearest AI message before it did not call {message.call_id!r}, so not cleared"
            )
            continue
        ai_at, call = pair
        name = message.name or call.name
        if name in exclude:
            notes[lead + k] = f"{head}; {name} is in exclude_tools"
            continue
        shown = made.get((k, placeholder))
        if shown is None or work[k] is not items[lead + k]:
            shown = message.cleared(placeholder)
            if work[k] is items[lead + k]:
                made[(k, placeholder)] = shown  # the same placeholder item at every plan: its counts are kept
        work[k] = shown
        cleared_ids.add(message.origin)
        cleared_count += 1
        notes[lead + k] = cleared_note
        if clear_at_least > 0:
            changed = approximate(work[k])
            now += changed - counted[k]
            counted[k] = changed
        if clear_inputs:
            ai = work[ai_at]
            first = next((j for j, m in enumerate(work) if _same_message(m, ai)), ai_at)
            target = work[first]
            calls = tuple(
                c.__class__(c.id, c.name, {}, c.origin) if c.id == message.call_id else c for c in target.calls
            )
            work[first] = target.with_content(target.content, calls=calls)
            by_origin[call.origin] = inputs_note
            if clear_at_least > 0:
                changed = approximate(work[first])
                now += changed - counted[first]
                counted[first] = changed
        if clear_at_least > 0 and max(0, tokens - now) >= clear_at_least:
            stopped_at = rank
            break
    if stopped_at is not None:
        for k in candidates[stopped_at + 1 :]:
            notes[lead + k] = f"{head}; clear_at_least={clear_at_least:,} reached before it, so not cleared"
    out = [*items[:lead], *work]
    summary = f"{head}: {cleared_count} tool result(s) cleared" + (f" ({who})" if who != "LangChain" else "")
    outcome = Outcome(
        out, summary, "not a tool result the edit clears", notes, cleared_ids, tokens=approx, total=tokens
    )
    outcome.by_origin = by_origin
    return outcome


def _same_message(a: Item, b: Item) -> bool:
    """``messages.index(ai_message)``: the first message *equal* to it (pydantic compares the fields)."""
    if a is b:
        return True
    return (
        a.role == b.role
        and a.content == b.content
        and [(c.id, c.name, c.arguments) for c in a.calls] == [(c.id, c.name, c.arguments) for c in b.calls]
        and a.origin == b.origin
    )
