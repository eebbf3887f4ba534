"""The entries the service writes itself (epochs, sheet edits, encounters): their summaries.

They carry no rule to replay; the audit checks them by structure (FAIR-14).
"""

from __future__ import annotations

from typing import Any

from app.engine.contract import Language


def _words(language: Language, en: str, fr: str) -> str:
    return fr if language == "fr" else en


def structural_summary(entry: dict[str, Any], language: Language) -> str | None:
    """One line for a structural entry; None for an entry the rules resolved."""
    kind = entry.get("kind")
    request = entry.get("request") or {}
    result = entry.get("result") or {}
    epoch = entry.get("epoch")
    if kind == "epoch_opened":
        digest = str(result.get("commitment", ""))[:12]
        return _words(
            language,
            f"Epoch {epoch} opened, seed committed as {digest}…",
            f"Époque {epoch} ouverte, graine engagée sous {digest}…",
        )
    if kind == "epoch_closed":
        return _words(
            language,
            f"Epoch {epoch} closed, its seed revealed",
            f"Époque {epoch} close, sa graine révélée",
        )
    if kind == "client_seed_set":
        seed = result.get("client_seed", "")
        return _words(language, f"Client seed set: «{seed}»", f"Graine client : «{seed}»")
    if kind in ("sheet_edit", "sheet_override"):
        fields = ", ".join(str(name) for name in request.get("fields", []))
        if kind == "sheet_override":
            return _words(language, f"GM override: {fields}", f"Correction du MJ : {fields}")
        return _words(language, f"Sheet edited: {fields}", f"Fiche modifiée : {fields}")
    if kind == "roll_requested":
        count = len(request.get("character_ids", []))
        what = request.get("kind", "")
        return _words(
            language,
            f"The GM asks {count} character(s) for a {what} roll",
            f"Le MJ demande un jet {what} à {count} personnage(s)",
        )
    if kind == "roll_request_cancelled":
        return _words(
            language, "The GM withdraws a roll request", "Le MJ retire une demande de jet"
        )
    if kind == "options_changed":
        return _words(language, "Campaign options changed", "Options de la campagne modifiées")
    round_ = result.get("round")
    if kind == "encounter.created":
        name = request.get("name", "")
        return _words(language, f"Encounter «{name}» set up", f"Rencontre «{name}» préparée")
    if kind == "encounter.joined":
        return _words(
            language,
            f"A combatant joins the fight (round {round_})",
            f"Un combattant entre dans le combat (round {round_})",
        )
    if kind == "encounter.left":
        return _words(
            language,
            f"A combatant leaves the fight (round {round_})",
            f"Un combattant quitte le combat (round {round_})",
        )
    if kind == "encounter.turn":
        return _words(
            language,
            f"Round {round_}, the turn passes",
            f"Round {round_}, le tour passe",
        )
    if kind == "encounter.ended":
        return _words(language, "Encounter ended", "Rencontre terminée")
    if kind == "effects_applied":
        seq = request.get("seq")
        return _words(
            language,
            f"The GM applies the effects of entry {seq}",
            f"Le MJ applique les effets de l'entrée {seq}",
        )
    if kind == "disclosed":
        seqs = ", ".join(str(seq) for seq in request.get("seqs", []))
        return _words(
            language, f"The GM disclosed entries {seqs}", f"Le MJ dévoile les entrées {seqs}"
        )
    return None
