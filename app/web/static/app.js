// The page: sign in with an API key, list the user's campaigns, open one on its log, its
// fairness, its statistics or its encounters. Routes live in the URL's fragment (a campaign
// and a tab, never the key).
import { Api, forgetKey, storeKey, storedKey } from "./api.js";
import { clear, el } from "./dom.js";
import { showEncounters } from "./encounters.js";
import { showDetail } from "./entry.js";
import { showFairness } from "./fairness.js";
import { known, language, number, plural, setLanguage, t, translate } from "./i18n.js";
import { showStats } from "./stats.js";
import { Follower, Timeline } from "./timeline.js";
// Entries every campaign logs besides its system's kinds: the verifier's list, which the
// browser tests keep equal to the registry's.
import { STRUCTURAL_KINDS } from "./verify.js";

const TABS = ["log", "fairness", "stats", "encounters"];
const VISIBILITIES = ["public", "gm", "self", "blind"];
const ROUTE = /^#\/campaigns\/([0-9a-fA-F-]{36})(?:\/(log|fairness|stats|encounters))?$/;

const $ = (id) => document.getElementById(id);
const state = { api: null, me: null, ctx: null, timeline: null, follower: null, tab: "log" };

function showError(error) {
  const box = $("error");
  if (!error) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  box.textContent = t("error.generic", { detail: error.message || String(error) });
}

function show(section) {
  for (const id of ["signin", "campaigns", "campaign"]) $(id).hidden = id !== section;
  $("signout").hidden = section === "signin";
}

function stopFollowing() {
  if (state.follower) state.follower.stop();
  state.follower = null;
  state.ctx = null;
  state.timeline = null;
}

async function signIn(key) {
  const api = new Api(key, language());
  state.me = await api.get("/users/me");
  storeKey(key);
  state.api = api;
  $("whoami").textContent = t("signed.as", { name: state.me.name });
}

function signOut() {
  stopFollowing();
  forgetKey();
  state.api = null;
  state.me = null;
  $("whoami").textContent = "";
  $("api-key").value = "";
  location.hash = "";
  show("signin");
}

async function listCampaigns() {
  stopFollowing();
  const [campaigns, systems] = await Promise.all([
    state.api.get("/campaigns", { limit: 200 }),
    state.api.get("/systems").catch(() => ({ data: [] })),
  ]);
  const systemNames = new Map(systems.data.map((system) => [system.id, system.name]));
  const list = clear($("campaign-list"));
  if (!campaigns.data.length) list.append(el("li", { class: "note", text: t("campaigns.none") }));
  for (const campaign of campaigns.data) {
    const head = campaign.log_head ? campaign.log_head.seq : 0;
    list.append(
      el(
        "li",
        { dataset: { campaign: campaign.id } },
        el("a", { href: `#/campaigns/${campaign.id}/log`, class: "campaign-link", text: campaign.name }),
        el("span", { class: "system", text: systemNames.get(campaign.system) || campaign.system }),
        el("span", { class: "role", text: t(`campaigns.role.${campaign.role}`) }),
        el("span", {
          class: "count",
          text: plural("campaigns.entries", head, { count: head }),
        }),
      ),
    );
  }
  show("campaigns");
}

function options(select, choices, selected) {
  clear(select).append(el("option", { value: "", text: t("filters.any") }));
  for (const [value, label] of choices) {
    select.append(el("option", { value, text: label, selected: value === selected }));
  }
}

function readFilters() {
  const form = $("filters");
  const filters = {};
  for (const element of form.elements) {
    if (element.name && element.value !== "") filters[element.name] = element.value;
  }
  return filters;
}

function fillFilters(ctx) {
  const current = readFilters();
  options(
    $("filter-player"),
    [...ctx.members.entries()].map(([id, name]) => [id, name]),
    current.actor_id,
  );
  options($("filter-character"), [...ctx.characters.entries()], current.character_id);
  options(
    $("filter-kind"),
    [...ctx.kinds.keys()]
      .map((kind) => [kind, ctx.kindTitle(kind)])
      .sort((a, b) => a[1].localeCompare(b[1], language())),
    current.kind,
  );
  options(
    $("filter-visibility"),
    VISIBILITIES.map((v) => [v, t(`visibility.${v}`)]),
    current.visibility,
  );
  // A player sees GM-only entries as hidden entries, which the API leaves out of a filtered
  // listing: the filter would show nothing. Rather than a filter that looks broken, the option
  // is disabled for a player and says why (the timeline unfiltered shows them, hidden).
  if (ctx.campaign.role !== "gm") {
    const gmOnly = $("filter-visibility").querySelector('option[value="gm"]');
    gmOnly.disabled = true;
    gmOnly.textContent = t("filters.visibility.gm_hidden");
    gmOnly.title = t("filters.visibility.gm_note");
  }
}

function liveStatus(status) {
  const box = $("live-status");
  box.dataset.status = status;
  box.textContent = t(`live.${status}`);
}

async function onNews(type, head) {
  const ctx = state.ctx;
  if (!ctx) return;
  try {
    if (type !== "encounter" && type !== "roll_request" && state.timeline) {
      await state.timeline.catchUp(head);
    }
    if (state.tab === "encounters" && (type === "encounter" || type.startsWith("encounter."))) {
      await showEncounters($("tab-encounters"), ctx);
    }
    if (state.tab === "fairness" && (type.startsWith("epoch_") || type === "client_seed_set")) {
      await showFairness($("tab-fairness"), ctx);
    }
  } catch (error) {
    showError(error);
  }
}

async function openCampaign(id) {
  const api = state.api;
  const campaign = await api.get(`/campaigns/${id}`);
  const [members, characters, system] = await Promise.all([
    api.get(`/campaigns/${id}/members`, { limit: 200 }),
    api.get(`/campaigns/${id}/characters`, { limit: 200 }),
    api.get(`/systems/${campaign.system}`),
  ]);
  // The API titles its kinds in English only: the French page names them by their id rather
  // than mix languages; the kinds every campaign logs are the page's own words.
  const kinds = new Map(system.kinds.map((kind) => [kind.kind, kind.title]));
  for (const kind of STRUCTURAL_KINDS) if (!kinds.has(kind)) kinds.set(kind, kind);
  const kindTitle = (kind) => {
    if (known(`kind.${kind}`)) return t(`kind.${kind}`);
    const title = kinds.get(kind);
    return title && language() === "en" ? title : kind;
  };
  const ctx = {
    api,
    campaign,
    t,
    number,
    get language() {
      return language();
    },
    members: new Map(members.data.map((m) => [m.user_id, m.name])),
    characters: new Map(characters.data.map((c) => [c.id, c.name])),
    kinds,
    names: (userId) => ctx.members.get(userId) || "",
    characterName: (characterId) => ctx.characters.get(characterId) || "",
    kindTitle,
    outcomeLabel: (code) => {
      // The system's own words for its outcomes, then what the log's entries said.
      for (const group of Object.values(system.labels || {})) {
        const label = group && group[code];
        if (label && typeof label === "object" && label[language()]) return label[language()];
      }
      for (const entry of state.timeline ? state.timeline.entries.values() : []) {
        if (entry.outcome && entry.outcome.code === code) return entry.outcome.label;
      }
      return code.replaceAll("_", " ");
    },
    onOpen: (entry) => showDetail($("detail"), entry, ctx),
  };
  state.ctx = ctx;
  $("campaign-name").textContent = campaign.name;
  $("detail").hidden = true;
  $("filters").reset();
  fillFilters(ctx);
  state.timeline = new Timeline($("timeline"), ctx);
  await state.timeline.load(readFilters());
  // The stream names each event by its entry's kind, or `encounter` and `roll_request`.
  const events = [...kinds.keys(), "encounter", "roll_request"];
  const follower = new Follower(ctx, events, onNews, liveStatus);
  state.follower = follower;
  liveStatus("off");
  follower.start();
}

async function selectTab(tab) {
  state.tab = tab;
  for (const button of document.querySelectorAll(".tabs [data-tab]")) {
    const selected = button.dataset.tab === tab;
    button.setAttribute("aria-selected", String(selected));
    button.classList.toggle("selected", selected);
  }
  for (const name of TABS) $(`tab-${name}`).hidden = name !== tab;
  const ctx = state.ctx;
  if (tab === "fairness") await showFairness($("tab-fairness"), ctx);
  if (tab === "stats") await showStats($("tab-stats"), ctx);
  if (tab === "encounters") await showEncounters($("tab-encounters"), ctx);
}

async function route() {
  showError(null);
  if (!state.api) {
    show("signin");
    return;
  }
  const match = location.hash.match(ROUTE);
  try {
    if (!match) {
      await listCampaigns();
      return;
    }
    if (!state.ctx || state.ctx.campaign.id !== match[1]) {
      stopFollowing();
      await openCampaign(match[1]);
    }
    show("campaign");
    await selectTab(match[2] || "log");
  } catch (error) {
    showError(error);
  }
}

async function switchLanguage(next) {
  setLanguage(next);
  translate();
  if (state.api) {
    state.api.language = next;
    $("whoami").textContent = t("signed.as", { name: state.me.name });
  }
  const ctx = state.ctx;
  try {
    if (ctx && state.timeline) {
      fillFilters(ctx);
      liveStatus($("live-status").dataset.status || "off");
      $("detail").hidden = true;
      await state.timeline.load(readFilters()); // the sentences come in the new language
      await selectTab(state.tab);
    } else if (state.api) {
      await listCampaigns();
    }
  } catch (error) {
    showError(error);
  }
}

function wire() {
  $("language").value = language();
  $("language").addEventListener("change", (event) => switchLanguage(event.target.value));
  $("signin-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const error = $("signin-error");
    error.hidden = true;
    try {
      await signIn($("api-key").value.trim());
      $("api-key").value = "";
      await route();
    } catch (failure) {
      error.hidden = false;
      // The API's words are English: a refused key is said in the page's language.
      const detail = failure.status === 401 ? t("signin.unknown_key") : failure.message;
      error.textContent = t("signin.failed", { detail });
    }
  });
  $("signout").addEventListener("click", signOut);
  $("back").addEventListener("click", (event) => {
    event.preventDefault();
    location.hash = "";
  });
  for (const button of document.querySelectorAll(".tabs [data-tab]")) {
    button.addEventListener("click", () => {
      location.hash = `#/campaigns/${state.ctx.campaign.id}/${button.dataset.tab}`;
    });
  }
  $("filters").addEventListener("submit", async (event) => {
    event.preventDefault();
    $("detail").hidden = true;
    try {
      await state.timeline.load(readFilters());
    } catch (error) {
      showError(error);
    }
  });
  $("filter-clear").addEventListener("click", async () => {
    $("filters").reset();
    for (const select of $("filters").querySelectorAll("select")) select.value = "";
    $("detail").hidden = true;
    try {
      await state.timeline.load({});
    } catch (error) {
      showError(error);
    }
  });
  window.addEventListener("hashchange", route);
}

async function start() {
  translate();
  wire();
  const key = storedKey();
  if (key) {
    try {
      await signIn(key);
    } catch {
      forgetKey();
    }
  }
  await route();
  document.body.dataset.ready = "true";
}

start();
