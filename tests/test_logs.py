"""What a log pipeline reads from `--log-format json`."""

from __future__ import annotations

import json
import logging

from ragmon.logs import JsonFormatter


def test_json_time_is_utc_rfc3339_with_milliseconds() -> None:
    # 1,764,596,559.1234 s after the epoch is 2025-12-01 13:42:39.123 UTC (20,423 days, 49,359.1234 s),
    # whatever the process's time zone.
    record = logging.LogRecord("ragmon.service", logging.INFO, __file__, 1, "ready", None, None)
    record.created = 1_764_596_559.1234
    doc = json.loads(JsonFormatter().format(record))
    assert doc["time"] == "2025-12-01T13:42:39.123Z"
    assert (doc["level"], doc["logger"], doc["message"]) == ("info", "ragmon.service", "ready")
