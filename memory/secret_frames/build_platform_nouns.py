"""Builds platform_nouns.jsonl (invariant 460): the words for "password", "passphrase" and
"PIN" in every language the operating system's own login and key prompts are translated into —
the gettext catalogues of Linux-PAM ("Password: "), shadow ("Password:"), GTK 2 and 3
("Password:", "_Password"), wget, psql, the printer settings ("Password:") and GnuPG
("Passphrase:", "PIN:") under /usr/share/locale. Run by hand when the catalogues change; the
product only reads the committed file.

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
# (issue 30, seventh pass: GTK 2, the "_Password" labels, wget, psql and the printer settings
# add the languages the first four catalogues lack: Indonesian, Albanian, Welsh, Latvian …)
SOURCES = [("Linux-PAM", "Password: ", "a password"), ("shadow", "Password:", "a password"),
           ("gtk30", "Password:", "a password"), ("gtk30", "_Password", "a password"),
           ("gtk30", "_Password:", "a password"), ("gtk20", "Password:", "a password"),
           ("gtk20", "_Password:", "a password"), ("wget", "Password: ", "a password"),
           ("psql-15", "Password: ", "a password"),
           ("system-config-printer", "Password:", "a password"),
           ("gnupg2", "Passphrase:", "a passphrase"), ("gnupg2", "PIN:", "a PIN")]
# translations that are an everyday word as well, never a secret's noun alone
TOO_BROAD = frozenset({"clau", "code", "kod", "kode", "koda", "sandi", "pass", "key", "pin",
                       "parole"})  # "parole": Latvian for password, English for release


def word(translation: str) -> str:
    """"Mot de passe : " -> "mot de passe"; "密码(_P)：" -> "密码"; "ពាក្យសម្ងាត់ ៖" -> ..."""
    # a label's access key is no part of the word: "Па_рола", "密码(_P)", "_Lykilorð"
    label = re.sub(r"\s*\(_\w\)|_(?=\w)", "", translation.replace("\xa0", " "))
    said = re.sub(r"^[\s:：_]+|[\s:：៖።․._\-–—]+$", "", label).strip()
    return " ".join(said.lower().split())


def rows() -> list[dict]:
    found: dict[tuple[str, str], set[str]] = {}
    for domain, message, kind in SOURCES:
        for mo in sorted(LOCALE.glob(f"*/LC_MESSAGES/{domain}.mo")):
            try:
                with mo.open("rb") as f:
                    said = gettext.GNUTranslations(f)._catalog.get(message)  # type: ignore[attr-defined]
            except (OSError, UnicodeDecodeError):  # a catalogue in a legacy encoding
                continue
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
