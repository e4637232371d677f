"""Run one golden case (a chat, a version, a strategy list, environment settings) through the engine."""

from __future__ import annotations

import json

from inspector.core.io.formats import json_array
from inspector.core.io.printers import print_json
from inspector.core.scout import versions
from inspector.core.scout.prepare import prepare_prompt
from inspector.core.scout.settings import resolve, resolve_settings
from inspector.core.scout.strategies.shorten_tools_epoch import EpochSettings
from inspector.core.scout.strategies.shorten_tools_epoch_increment import DEFAULTS, IncrementSettings


def run_case(case: dict) -> tuple[str | None, str | None]:
    """(printed JSON, None) or (None, the Ruby exception class scout-ai would raise)."""
    env = case["env"]
    chat = json_array.load(json.dumps(case["input"], ensure_ascii=False), "case.json")
    thresholds = resolve(env=env, config_files=[]).as_tuple()
    epoch = EpochSettings.resolve(env=env, config_files=[])
    values, _ = resolve_settings(DEFAULTS, env=env, config_files=[])
    increment = IncrementSettings.from_values({k: v.value for k, v in values.items()})
    version = versions.VERSIONS[case["version"]]
    prompt = prepare_prompt(chat.messages, case["strategies"], thresholds, None, epoch, version, increment)
    if prompt.error is not None:
        return None, prompt.error.exception
    return print_json(prompt.messages()), None
