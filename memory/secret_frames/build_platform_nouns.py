"""Builds platform_nouns.jsonl (invariant 460): the words for "password", "passphrase" and
"PIN" in every language the operating system's own login and key prompts are translated into —
the gettext catalogues of Linux-PAM ("Password: "), shadow ("Password:"), GTK 3 ("Password:")
and GnuPG ("Passphrase:", "PIN:") under /usr/share/locale. Run by hand when the catalogues
change; the product only reads the committed file.

    python -m memory.secret_frames.build_platform_nouns
"""

from __future__ import annotations

import gettext
import json
import re
from pathlib import Path

HERE = Path(__file__).parent
LOCALE = Path("/usr/share/locale")
# (catalogue, its message, the kind of secret its translation names)
SOURCES = [("Linux-PAM", "Password: ", "a password"), ("shadow", "Password:", "a password"),
           ("gtk30", "Password:", "a password"), ("gnupg2", "Passphrase:", "a passphrase"),
           ("gnupg2", "PIN:", "a PIN")]
# translations that are an everyday word as well, never a secret's noun alone
TOO_BROAD = frozenset({"clau", "code", "kod", "kode", "koda", "sandi", "pass", "key", "pin",
                       "parole"})  # "parole": Latvian for password, English for release


def word(translation: str) -> str:
    """"Mot de passe : " -> "mot de passe"; "密码：" -> "密码"; "ពាក្យសម្ងាត់ ៖" -> ..."""
    said = re.sub(r"[\s:：៖።․.\-–—]+$", "", translation.replace("\xa0", " ")).strip()
    return " ".join(said.lower().split())


def rows() -> list[dict]:
    found: dict[tuple[str, str], set[str]] = {}
    for domain, message, kind in SOURCES:
        for mo in sorted(LOCALE.glob(f"*/LC_MESSAGES/{domain}.mo")):
            with mo.open("rb") as f:
                said = gettext.GNUTranslations(f)._catalog.get(message)  # type: ignore[attr-defined]
            lang = mo.parts[-3]
            if isinstance(said, str) and (w := word(said)) and w not in TOO_BROAD \
                    and w != word(message) and len(w) >= 3:
                found.setdefault((kind, lang), set()).add(w)
    return [{"kind": kind, "lang": lang, "nouns": sorted(nouns)}
            for (kind, lang), nouns in sorted(found.items())]


if __name__ == "__main__":
    out = HERE / "platform_nouns.jsonl"
    out.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows()),
                   encoding="utf-8")
    print(f"{out}: {sum(len(r['nouns']) for r in rows())} words")
