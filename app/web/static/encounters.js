// Encounters: the turn order, the round, whose turn it is, and the conditions as the API shows
// them to this member (an NPC's secret values arrive as commitments and stay secret here).
import { el, clear } from "./dom.js";

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

function conditionText(combatant, t) {
  const parts = [];
  for (const condition of combatant.conditions || []) {
    parts.push(typeof condition === "string" ? condition : shown(condition, t));
  }
  if (combatant.condition) parts.push(shown(combatant.condition, t));
  return parts.join(" · ") || "—";
}

function initiativeText(initiative, t) {
  if (!initiative) return "—";
  return shown(initiative.total, t);
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
          el("span", { class: "status", text: t("encounters.status", { status: encounter.status }) }),
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
                el("td", { "data-label": t("encounters.side"), text: combatant.side || "—" }),
                el("td", { "data-label": t("encounters.initiative"), text: initiativeText(combatant.initiative, t) }),
                el("td", { "data-label": t("encounters.conditions"), text: conditionText(combatant, t) }),
              ),
            ),
          ),
        ),
      ),
    );
  }
}
