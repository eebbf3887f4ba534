// The log as a timeline: each entry as the sentence a player reads at the table, its dice
// drawn, follow-ups attached under the roll they changed, hidden entries shown as hidden.
import { drawDice } from "./dice.js";
import { el, clear, markedText } from "./dom.js";
import { drawCards, initiativeCards, pageSentence } from "./sentences.js";

const FILTERS = ["actor_id", "character_id", "kind", "session", "scene", "visibility"];

export function timeOf(entry, language) {
  if (!entry.created_at) return "";
  return new Date(entry.created_at).toLocaleString(language, {
    dateStyle: "short",
    timeStyle: "short",
  });
}

/** What an entry drew: a Fabulae initiative's cards, or the dice. */
export function drawn(entry, t) {
  const cards = initiativeCards(entry);
  if (cards) return drawCards(cards, t);
  return entry.draws && entry.draws.length ? drawDice(entry, t) : null;
}

export class Timeline {
  /** `ctx`: {api, campaign, names(user id), characterName(id), t, number, language, onOpen(entry)} */
  constructor(list, ctx) {
    this.list = list;
    this.ctx = ctx;
    this.entries = new Map();
    this.filters = {};
    this.cursor = 0; // the last seq this listing has read past
  }

  get path() {
    return `/campaigns/${this.ctx.campaign.id}/log`;
  }

  async load(filters) {
    this.filters = Object.fromEntries(
      FILTERS.filter((name) => filters[name] !== undefined && filters[name] !== "").map(
        (name) => [name, filters[name]],
      ),
    );
    clear(this.list).append(el("li", { class: "note", text: this.ctx.t("log.loading") }));
    const entries = await this.ctx.api.allPages(this.path, { ...this.filters, with_odds: true });
    this.entries.clear();
    this.cursor = 0;
    this.add(entries);
    this.render();
  }

  add(entries) {
    for (const entry of entries) {
      this.entries.set(entry.seq, entry);
      this.cursor = Math.max(this.cursor, entry.seq);
    }
  }

  /** What the log holds past this listing's cursor; the entries new follow-ups changed. */
  async catchUp(head) {
    const fresh = await this.ctx.api.allPages(this.path, {
      ...this.filters,
      with_odds: true,
      after_seq: this.cursor,
    });
    this.add(fresh);
    if (head) this.cursor = Math.max(this.cursor, head);
    const changed = new Set(fresh.map((entry) => entry.follows).filter((seq) => this.entries.has(seq)));
    for (const seq of changed) {
      // An entry's `final` and follow-up list move with its follow-ups: read it again.
      try {
        const page = await this.ctx.api.get(this.path, {
          after_seq: seq - 1,
          limit: 1,
          with_odds: true,
        });
        if (page.data.length && page.data[0].seq === seq) this.entries.set(seq, page.data[0]);
      } catch {
        // It stays as it was read: the follow-up itself is shown either way.
      }
    }
    if (fresh.length || changed.size) this.render();
    return fresh.length;
  }

  render() {
    const { t } = this.ctx;
    clear(this.list);
    const children = new Map();
    const roots = [];
    for (const entry of [...this.entries.values()].sort((a, b) => a.seq - b.seq)) {
      if (entry.follows && this.entries.has(entry.follows)) {
        if (!children.has(entry.follows)) children.set(entry.follows, []);
        children.get(entry.follows).push(entry);
      } else {
        roots.push(entry);
      }
    }
    if (!roots.length) {
      this.list.append(el("li", { class: "note", text: t("log.empty") }));
      return;
    }
    const build = (entry) => {
      const item = this.card(entry);
      const under = children.get(entry.seq);
      if (under) item.append(el("ol", { class: "follow-ups" }, under.map(build)));
      return item;
    };
    this.list.append(...roots.reverse().map(build));
  }

  card(entry) {
    const { t, number, language } = this.ctx;
    const visibility = entry.visibility || "public";
    if (entry.redacted) {
      return el(
        "li",
        { class: "entry redacted", dataset: { seq: entry.seq, kind: entry.kind } },
        el("div", { class: "entry-head" }, el("span", { class: "seq", text: `#${entry.seq}` })),
        el("p", {
          class: "summary",
          text: t("entry.redacted", { seq: entry.seq, visibility: t(`visibility.${visibility}`) }),
        }),
      );
    }
    const who = this.ctx.names(entry.actor_id);
    const head = el(
      "div",
      { class: "entry-head" },
      el("span", { class: "seq", text: `#${entry.seq}` }),
      who && el("span", { class: "who", text: who }),
      el("time", { datetime: entry.created_at, text: timeOf(entry, language) }),
      visibility !== "public" &&
        el("span", { class: `badge visibility-${visibility}`, text: t(`visibility.${visibility}`) }),
      entry.follows && el("span", { class: "follows", text: t("entry.follows", { seq: entry.follows }) }),
    );
    const foot = el(
      "div",
      { class: "entry-foot" },
      entry.outcome &&
        el("span", { class: `outcome outcome-${entry.outcome.code}`, text: entry.outcome.label }),
      entry.final &&
        el("span", {
          class: "final",
          text: t("entry.final", { label: entry.final.label, by: entry.final.by }),
        }),
      entry.luck &&
        el("span", {
          class: "luck",
          text: t("entry.luck", { percentile: number(entry.luck.percentile, 0) }),
        }),
      entry.effects_held && el("span", { class: "held", text: t("entry.held") }),
    );
    const open = el("button", {
      type: "button",
      class: "open",
      text: t("entry.open"),
      onclick: (event) => {
        event.stopPropagation();
        this.ctx.onOpen(entry);
      },
    });
    return el(
      "li",
      { class: "entry", dataset: { seq: entry.seq, kind: entry.kind } },
      head,
      el("p", { class: "summary" }, markedText(pageSentence(entry, this.ctx) || entry.summary || entry.kind)),
      drawn(entry, t),
      el("div", { class: "entry-actions" }, foot, open),
    );
  }
}

/** Follows the campaign: its event stream (with a ticket, as EventSource sends no header),
 * or, when the stream cannot be opened, its Log-Head polled with ETags. */
export class Follower {
  constructor(ctx, kinds, onNews, onStatus) {
    this.ctx = ctx;
    this.kinds = kinds;
    this.onNews = onNews;
    this.onStatus = onStatus;
    this.failures = 0;
    this.stopped = false;
    this.source = null;
    this.timer = null;
    this.etag = null;
    this.head = ctx.campaign.log_head ? ctx.campaign.log_head.seq : 0;
  }

  start() {
    if (typeof EventSource === "undefined") this.poll();
    else this.stream();
  }

  stop() {
    this.stopped = true;
    if (this.source) this.source.close();
    if (this.timer) clearTimeout(this.timer);
  }

  async stream() {
    if (this.stopped) return;
    let ticket;
    try {
      ticket = await this.ctx.api.post(`/campaigns/${this.ctx.campaign.id}/events/ticket`);
    } catch {
      this.poll();
      return;
    }
    if (this.stopped) return;
    const separator = ticket.url.includes("?") ? "&" : "?";
    const source = new EventSource(`${ticket.url}${separator}after_seq=${this.head}`);
    this.source = source;
    const heard = (event) => {
      const seq = Number(event.lastEventId);
      if (Number.isInteger(seq) && seq > this.head) this.head = seq;
      this.onNews(event.type, this.head);
    };
    for (const kind of this.kinds) source.addEventListener(kind, heard);
    source.addEventListener("message", heard);
    source.addEventListener("end", () => {
      source.close();
      this.onStatus("off");
    });
    source.onopen = () => {
      this.failures = 0;
      this.onStatus("stream");
    };
    source.onerror = () => {
      // A ticket opens one stream once: a reconnection needs a new ticket.
      source.close();
      this.failures += 1;
      if (this.failures >= 3) this.poll();
      else this.timer = setTimeout(() => this.stream(), 1000 * this.failures);
    };
  }

  async poll() {
    if (this.stopped) return;
    this.onStatus("polling");
    try {
      const answer = await this.ctx.api.request("GET", `/campaigns/${this.ctx.campaign.id}`, {
        etag: this.etag,
      });
      if (!answer.notModified) {
        this.etag = answer.etag;
        const seq = answer.data.log_head ? answer.data.log_head.seq : 0;
        if (seq > this.head) {
          this.head = seq;
          this.onNews("log", seq);
        }
      }
    } catch {
      // The next poll tries again.
    }
    this.timer = setTimeout(() => this.poll(), 4000);
  }
}
