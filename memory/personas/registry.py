"""The demo personas, in load order."""

from __future__ import annotations

from .lena import PERSONA as LENA
from .maya import PERSONA as MAYA
from .ravi import PERSONA as RAVI

PERSONAS = (MAYA, RAVI, LENA)
