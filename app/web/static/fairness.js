// The fairness panel: epochs with their commitments and revealed seeds, the client seed (set
// by any member before the epoch's first roll; the GM rotates), and the verification of the
// export in this browser by ./verify.js, which trusts nothing the server says of the result.
import { el, clear } from "./dom.js";

// The checks the verifier counts, in the order a reader takes them; any other it reports
// follows under its own name.
const CHECKS = [
  "seq",
  "content_hashes",
  "chain",
  "commitments",
  "epochs_closed",
  "draws",
  "hidden_keys",
  "disclosures",
];

function field(t, key, value, className = "hash") {
  return [el("dt", { text: t(key) }), el("dd", { class: className, text: value })];
}

function epochRange(epoch) {
  return epoch.last_seq ? `#${epoch.first_seq}–#${epoch.last_seq}` : `#${epoch.first_seq} →`;
}

/** The verifier's report as a reader takes it: the verdict, what was checked, the note that
 * replaying the rules needs nocturne-verify. */
export function renderReport(box, report, t) {
  const failure = report.failure;
  const checked = report.checked || {};
  const names = [...CHECKS.filter((name) => name in checked), ...Object.keys(checked).filter((name) => !CHECKS.includes(name))];
  const label = (name) => {
    const text = t(`verify.check.${name}`);
    return text === `verify.check.${name}` ? name.replaceAll("_", " ") : text;
  };
  // The verifier words its reasons as nocturne-verify does (English), each ending on its rule
  // id: the page says them in its own language when it knows that rule's reason.
  const reasonText = (reason) => {
    const rule = /\((FAIR-\d+)\)$/.exec(reason);
    const key = rule ? `verify.reason.${rule[1]}` : null;
    return key && t(key) !== key ? t(key) : reason;
  };
  const reasons = (key, counts) =>
    Object.entries(counts || {}).map(([reason, count]) =>
      el("li", { class: key }, t(`verify.${key}`, { reason: reasonText(reason), count })),
    );
  clear(box).append(
    el("p", {
      class: report.ok ? "verdict ok" : "verdict failed",
      text: report.ok
        ? t("verify.ok", { entries: report.entries })
        : t("verify.failed", {
            seq: failure ? failure.seq : "?",
            check: failure ? failure.check : "?",
            detail: failure ? failure.detail : "",
          }),
    }),
    el("h4", { text: t("verify.checked") }),
    el(
      "ul",
      { class: "checks" },
      names.map((name) => el("li", { dataset: { check: name } }, `${checked[name]} × ${label(name)}`)),
      reasons("not_rederived", report.not_rederived),
      reasons("chain_only", report.chain_only),
    ),
    el("p", { class: "note", text: t("verify.replay") }),
  );
}

async function verifyText(text, box, ctx, head) {
  const { t } = ctx;
  box.hidden = false;
  clear(box).append(el("p", { class: "progress", text: t("verify.running", { done: 0, total: "…" }) }));
  let verifier;
  try {
    verifier = await import("./verify.js");
  } catch (error) {
    clear(box).append(el("p", { class: "error", text: t("verify.unavailable", { detail: error.message }) }));
    return;
  }
  const progress = box.querySelector(".progress");
  try {
    const report = await verifier.verifyExport(text, {
      campaignId: ctx.campaign.id,
      head: head || undefined, // the live export's Log-Head: proves nothing was cut from its end
      onProgress(done, total) {
        progress.textContent = t("verify.running", { done, total });
      },
    });
    renderReport(box, report, t);
  } catch (error) {
    clear(box).append(el("p", { class: "error", text: t("error.generic", { detail: error.message }) }));
  }
}

/** The panel; `notice` says what the member's last action did. */
export async function showFairness(panel, ctx, notice = null) {
  const { api, campaign, t } = ctx;
  const fairness = await api.get(`/campaigns/${campaign.id}/fairness`);
  const current = fairness.current;
  const message = el("p", { class: "message", role: "status", hidden: !notice, text: notice });
  const say = (text, isError = false) => {
    message.hidden = false;
    message.className = isError ? "message error" : "message";
    message.textContent = text;
  };
  const rerender = (done) => showFairness(panel, ctx, done).catch((error) => say(error.message, true));

  let seedControl;
  if (current && current.first_roll_seq === null) {
    const input = el("input", {
      id: "client-seed",
      name: "client_seed",
      maxlength: 64,
      pattern: "[A-Za-z0-9_\\-]*",
      value: current.client_seed || "",
    });
    seedControl = el(
      "form",
      {
        id: "client-seed-form",
        class: "inline-form",
        onsubmit: async (event) => {
          event.preventDefault();
          try {
            await api.put(`/campaigns/${campaign.id}/fairness/client-seed`, { client_seed: input.value });
            await rerender(t("fairness.client_seed.done"));
          } catch (error) {
            say(error.message, true);
          }
        },
      },
      el("label", { for: "client-seed", text: t("fairness.client_seed") }),
      input,
      el("button", { type: "submit", text: t("fairness.client_seed.set") }),
    );
  } else if (current) {
    seedControl = el("p", { class: "note", text: t("fairness.client_seed.closed", { seq: current.first_roll_seq }) });
  }

  // Rotating reveals the seed and cannot be undone: the button asks first, in the page (a
  // stray tap on a phone then costs nothing).
  let rotate = null;
  if (campaign.role === "gm") {
    const confirmBox = el(
      "div",
      { id: "rotate-confirm", class: "confirm", role: "alertdialog", hidden: true },
      el("p", { class: "warning", text: t("fairness.rotate.confirm") }),
      el("button", {
        id: "rotate-yes",
        type: "button",
        class: "primary",
        text: t("fairness.rotate.yes"),
        onclick: async (event) => {
          event.target.disabled = true;
          try {
            await api.post(`/campaigns/${campaign.id}/fairness/rotate`);
            await rerender(t("fairness.rotated"));
          } catch (error) {
            event.target.disabled = false;
            say(error.message, true);
          }
        },
      }),
      " ",
      el("button", {
        id: "rotate-cancel",
        type: "button",
        text: t("fairness.rotate.cancel"),
        onclick: () => {
          confirmBox.hidden = true;
          askButton.hidden = false;
        },
      }),
    );
    const askButton = el("button", {
      id: "rotate",
      type: "button",
      text: t("fairness.rotate"),
      onclick: () => {
        askButton.hidden = true;
        confirmBox.hidden = false;
      },
    });
    rotate = [askButton, confirmBox];
  }

  const report = el("div", { id: "verify-report", class: "report", hidden: true, "aria-live": "polite" });
  const verifyButton = el("button", {
    id: "verify",
    type: "button",
    class: "primary",
    text: t("verify.button"),
    onclick: async () => {
      verifyButton.disabled = true;
      try {
        const { text, head } = await api.exportText(campaign.id);
        await verifyText(text, report, ctx, head);
      } catch (error) {
        report.hidden = false;
        clear(report).append(el("p", { class: "error", text: t("error.generic", { detail: error.message }) }));
      } finally {
        verifyButton.disabled = false;
      }
    },
  });
  const file = el("input", {
    id: "verify-file",
    type: "file",
    accept: ".ndjson,.jsonl,application/x-ndjson,text/plain",
    onchange: async () => {
      if (file.files && file.files[0]) await verifyText(await file.files[0].text(), report, ctx);
    },
  });

  const past = fairness.past || [];
  clear(panel).append(
    el("h3", { text: t("fairness.title") }),
    el("p", { class: "intro", text: t("fairness.intro") }),
    message,
    el(
      "section",
      { class: "verify" },
      el("h4", { text: t("verify.title") }),
      el("p", { class: "intro", text: t("verify.intro") }),
      el("div", { class: "verify-buttons" }, verifyButton, el("label", { class: "file" }, t("verify.file"), file)),
      report,
    ),
    current
      ? el(
          "section",
          { class: "epoch current", dataset: { epoch: current.epoch } },
          el("h4", { text: t("fairness.current", { epoch: current.epoch }) }),
          el(
            "dl",
            { class: "fields" },
            field(t, "fairness.entries", epochRange(current), ""),
            field(t, "fairness.commitment", current.commitment),
            field(t, "fairness.seed", t("fairness.not_revealed"), ""),
            field(t, "fairness.client_seed", current.client_seed || t("fairness.no_client_seed"), ""),
            current.hidden_root ? field(t, "fairness.hidden_root", current.hidden_root) : [],
          ),
          el("p", { class: "help", text: t("fairness.client_seed.help") }),
          seedControl,
          rotate,
        )
      : null,
    el("h4", { text: t("fairness.past") }),
    past.length
      ? el(
          "div",
          { class: "epochs" },
          past.map((epoch) =>
            el(
              "section",
              { class: "epoch closed", dataset: { epoch: epoch.epoch } },
              el("h5", { text: `${t("fairness.epoch")} ${epoch.epoch}` }),
              el(
                "dl",
                { class: "fields" },
                field(t, "fairness.entries", epochRange(epoch), ""),
                field(t, "fairness.commitment", epoch.commitment),
                field(t, "fairness.seed", epoch.server_seed || t("fairness.not_revealed")),
                field(t, "fairness.client_seed", epoch.client_seed || t("fairness.no_client_seed"), ""),
              ),
            ),
          ),
        )
      : el("p", { class: "note", text: t("fairness.none_closed") }),
  );
}
