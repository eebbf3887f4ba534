// Encounters: the turn order, the round, whose turn it is, and the conditions as the API shows
// them to this member (an NPC's secret values arrive as commitments and stay secret here).
import { el, clear } from "./dom.js";
import { known } from "./i18n.js";

function isSecret(value) {
  return value !== null && typeof value === "object" && "$commit" in value;
}

function shown(value, t) {
  if (value === null || value === undefined) return "—";
  if (isSecret(value)) return t("encounters.secret");
  if (typeof value !== "object") return String(value);
  if (Array.isArray(value)) return value.map((item) => shown(item, t)).join(", ") || "—";
  return Object.entries(value)
    .map(([key, item]) => `${key}: ${shown(item, t)}`)
    .join(" · ");
}

function isUnset(value) {
  return (
    value === null ||
    value === undefined ||
    value === false ||
    value === "" ||
    (Array.isArray(value) && !value.length) ||
    (typeof value === "object" && !Array.isArray(value) && !isSecret(value) && !Object.keys(value).length)
  );
}

/** One field of a combatant's condition in words ("Stress 0", "Willpower 4/5", "Broken"), or
 * null when it is not set. Codes read as the ruleset labels them; a field the page has no
 * words for keeps its name. */
function conditionPart(key, value, ctx) {
  const { t } = ctx;
  if (isUnset(value)) return null;
  const words = (text) => (known(`condition.${key}`) ? t(`condition.${key}`, { value: text }) : `${key}: ${text}`);
  if (isSecret(value)) return words(t("encounters.secret"));
  if (value === true) return known(`condition.${key}`) ? t(`condition.${key}`, { value: "" }).trim() : key;
  if (key === "grappled_by") return words(ctx.characterName(value) || String(value));
  if (key === "status" && value === "active") return null; // the ordinary state says nothing
  if (typeof value === "string") return words(ctx.outcomeLabel(value));
  if (typeof value === "number") return words(String(value));
  if (Array.isArray(value)) return words(value.map((item) => (typeof item === "string" ? ctx.outcomeLabel(item) : shown(item, t))).join(", "));
  if (typeof value.current === "number" && typeof value.max === "number") return words(`${value.current}/${value.max}`);
  // A track of counters (health: bashing, lethal, aggravated): the ones above zero.
  const counters = Object.entries(value).filter(([, n]) => !(n === 0 || isUnset(n)));
  if (!counters.length) return null;
  return words(counters.map(([name, n]) => conditionPart(name, n, ctx) || `${name} ${shown(n, t)}`).join(", "));
}

function conditionLabel(condition, ctx) {
  if (typeof condition === "string") return ctx.outcomeLabel(condition);
  if (condition.label) return condition.label;
  if (typeof condition.code === "string") {
    const key = `condition.code.${condition.code}`;
    return known(key) ? ctx.t(key) : ctx.outcomeLabel(condition.code);
  }
  return shown(condition, ctx.t);
}

function conditionText(combatant, ctx) {
  const parts = [];
  for (const condition of combatant.conditions || []) parts.push(conditionLabel(condition, ctx));
  const condition = combatant.condition;
  if (isSecret(condition)) parts.push(ctx.t("encounters.secret"));
  else if (condition && typeof condition === "object") {
    for (const [key, value] of Object.entries(condition)) {
      const part = conditionPart(key, value, ctx);
      if (part) parts.push(part);
    }
  }
  return parts.join(" · ") || "—";
}

function sideText(side, t) {
  if (!side) return "—";
  return known(`encounters.side.${side}`) ? t(`encounters.side.${side}`) : side;
}

/** A total (JDR, Vampire) or a Fabulae card (FAB initiative by cards), as the encounter gives it. */
function initiativeText(initiative, t) {
  if (!initiative) return "—";
  if (initiative.total !== undefined) return shown(initiative.total, t);
  if (initiative.card !== undefined) {
    if (isSecret(initiative.card)) return t("encounters.secret");
    return typeof initiative.deck === "number" && initiative.deck > 1
      ? t("encounters.card.deck", { card: initiative.card, deck: initiative.deck })
      : t("encounters.card", { card: initiative.card });
  }
  return "—";
}

export async function showEncounters(panel, ctx) {
  const { api, campaign, t } = ctx;
  const listing = await api.get(`/campaigns/${campaign.id}/encounters`, { limit: 50 });
  clear(panel).append(el("h3", { text: t("encounters.title") }));
  if (!listing.data.length) {
    panel.append(el("p", { class: "note", text: t("encounters.none") }));
    return;
  }
  for (const encounter of listing.data) {
    const currentId = encounter.current ? encounter.current.character_id : null;
    panel.append(
      el(
        "section",
        { class: "encounter", dataset: { encounter: encounter.id } },
        el("h4", { text: encounter.name }),
        el(
          "p",
          { class: "encounter-state" },
          el("span", { class: "round", text: t("encounters.round", { round: encounter.round }) }),
          " · ",
          el("span", { class: "status", text: t("encounters.status", {
              status: known(`encounters.status.${encounter.status}`) ? t(`encounters.status.${encounter.status}`) : encounter.status,
            }),
          }),
          encounter.current
            ? el("strong", { class: "turn", text: ` · ${t("encounters.turn", { name: encounter.current.name })}` })
            : null,
        ),
        el(
          "table",
          { class: "combatants" },
          el(
            "thead",
            {},
            el(
              "tr",
              {},
              ["encounters.name", "encounters.side", "encounters.initiative", "encounters.conditions"].map((key) =>
                el("th", { scope: "col", text: t(key) }),
              ),
            ),
          ),
          el(
            "tbody",
            {},
            (encounter.combatants || []).map((combatant) =>
              el(
                "tr",
                {
                  class: [combatant.character_id === currentId ? "current" : "", combatant.active === false ? "inactive" : ""]
                    .join(" ")
                    .trim(),
                  dataset: { character: combatant.character_id },
                },
                el("td", { "data-label": t("encounters.name"), text: combatant.name }),
                el("td", { "data-label": t("encounters.side"), text: sideText(combatant.side, t) }),
                el("td", { "data-label": t("encounters.initiative"), text: initiativeText(combatant.initiative, t) }),
                el("td", { "data-label": t("encounters.conditions"), text: conditionText(combatant, ctx) }),
              ),
            ),
          ),
        ),
      ),
    );
  }
}
