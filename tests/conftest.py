"""Test-wide settings: Qt renders offscreen (no display in CI)."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
