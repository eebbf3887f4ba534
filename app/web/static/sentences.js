// The page's own sentences for entries whose API summary does not read as one: a turn passing
// (« Round 2, le tour passe » names nobody), a new Fabulae round (a player reads it from what
// they may see, which is only its names), and a Fabulae initiative (its draws are positions in a
// shrinking deck, not the cards). Any other entry keeps the API's summary.
import { el } from "./dom.js";

/** A Fabulae initiative's rows in turn order: name and card, or null for a card kept secret. */
export function initiativeCards(entry) {
  if (entry.kind !== "fabulae.initiative") return null;
  const order = entry.result && Array.isArray(entry.result.order) ? entry.result.order : null;
  if (!order) return null;
  return [...order]
    .sort((a, b) => (a.rank ?? 0) - (b.rank ?? 0))
    .map((row) => ({
      name: row.name,
      card: typeof row.card === "number" ? row.card : null,
      cards: Array.isArray(row.cards) ? row.cards : null,
      deck: typeof row.deck === "number" ? row.deck : null,
    }));
}

/** The cards as little cards, in turn order; an NPC's secret card as "?". */
export function drawCards(rows, t) {
  return el(
    "ul",
    { class: "init-cards" },
    rows.map((row) =>
      el(
        "li",
        {
          class: row.card === null ? "init-card secret" : "init-card",
          title: row.cards && row.cards.length > 1 ? row.cards.join(", ") : null,
          dataset: { card: row.card === null ? "" : row.card },
        },
        row.name,
        el("span", { class: "card-value", text: row.card === null ? t("entry.card.secret") : String(row.card) }),
      ),
    ),
  );
}

function characterNames(list) {
  return (Array.isArray(list) ? list : []).map((c) => c && c.name).filter((name) => typeof name === "string");
}

/** The page's sentence for the entry, or null to keep the API's summary. */
export function pageSentence(entry, ctx) {
  const { t } = ctx;
  const request = entry.request || {};
  const result = entry.result || {};
  if (entry.kind === "encounter.turn" && typeof result.round === "number") {
    const name = ctx.characterName(request.character_id);
    return name ? t("entry.turn", { round: result.round, name }) : null;
  }
  if (entry.kind === "fabulae.round") {
    const names = characterNames(request.characters);
    return names.length ? t("entry.round", { names: names.join(", ") }) : null;
  }
  const cards = initiativeCards(entry);
  if (cards) {
    const order = cards.map((row) => `${row.name} ${row.card === null ? t("entry.card.secret") : row.card}`);
    return t("entry.initiative", { order: order.join(", ") });
  }
  return null;
}
