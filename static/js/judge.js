/* The graded judging screen, keyboard first (DESIGN.md section 6): its rendering and its key
 * map. Keys choose labels (letter or number), S skips, X opens "can't judge", U undoes a skip
 * (on an earlier, skipped document); Backspace, Esc,
 * ?, the queue, the history, the progress and the outbox are the shared core's
 * (judge-core.js, judge-outbox.js). The page works without this file (every button posts a
 * form). No framework, no build step.
 */
(function () {
  "use strict";
  // Messages in the page's language: the catalogue is /jsi18n/ (Django's JavaScriptCatalog,
  // loaded by base.html); without it the English text stands.
  const gettext = window.gettext || ((text) => text);
  const interpolate = (format, values) => format.replace(/%\((\w+)\)s/g, (_, name) => String(values[name]));

  const root = document.getElementById("judge");
  if (!root) return;

  const $ = (id) => document.getElementById(id);
  const el = {
    queryLeft: $("query-left"),
    doc: $("doc"),
    gradeForm: $("grade-form"),
    skip: $("skip-button"),
    cantOpen: $("cant-open"),
    cantForm: $("cant-form"),
    cantReason: $("cant-reason"),
    cantCancel: $("cant-cancel"),
  };
  const labels = Array.from(root.querySelectorAll(".label-button")).map((button) => ({
    id: Number(button.value),
    name: button.dataset.labelName,
    key: button.dataset.key,
    number: button.dataset.number,
    button,
  }));

  function labelForKey(key) {
    return labels.find((label) => label.key === key || label.number === key);
  }

  const page = window.Judging.screen(root);
  if (root.dataset.mode === "change" || root.dataset.mode === "quiz") {
    page.changePage((key) => {
      const label = labelForKey(key);
      if (label && !label.button.disabled) return { run: () => label.button.click() };
      if (key === "s" && el.skip && !el.skip.disabled) return { run: () => el.skip.click() };
      if (key === "x" && el.cantReason) return { run: () => el.cantReason.focus() };
      return null;
    });
    return;
  }

  const screen = page.queue({
    stateId: "judge-state",
    unit: "item", // the payload's key for what is answered
    units: "items", // the state's list of held items
    overall: "campaign", // the state's whole-campaign counts
    word: gettext("document"),
    words: gettext("documents"),
    nouns: gettext("grades"),
    firstInSession: gettext("This is the first document of this session. Older grades are under “My grades”."),
    scrollAnchor: el.doc,
    focus: el.doc,
    render,
    banner,
    describe,
    disable,
    upcomingChanged: () => updateQueryLeft(false),
    payload: (item, choice) => {
      const payload = { item: item.id, action: choice.action };
      if (choice.action === "label") payload.label = choice.label;
      if (choice.comment) payload.comment = choice.comment;
      return payload;
    },
    counts: (choice) => choice.action === "label", // toward the campaign's needed grades
    same: (a, b) => a.action === b.action && a.label === b.label && (a.comment || "") === (b.comment || ""),
    token: (choice) => (choice.action === "label" ? `label:${choice.label}` : choice.action),
    fromStored: (stored) => {
      if (stored.skipped) return { action: "skip" };
      if (stored.cant_judge) return { action: "cant_judge" };
      return { action: "label", label: stored.label };
    },
    isSkip: (choice) => choice.action === "skip",
    unskip: (item) => ({ item: item.id, action: "unskip" }),
    keyAction,
    typingKey: (event) => {
      if (event.target === el.cantReason && event.key === "Escape") closeCant(true);
    },
  });
  if (!screen) return;

  // ---- Rendering -----------------------------------------------------------------------
  function render(item, review) {
    window.Judging.fillCard(el.doc, item, item.query);
    root.querySelectorAll("[data-item-field]").forEach((field) => (field.value = item.id));
    const reviewing = Boolean(review);
    const locked = reviewing && Boolean(review.refused);
    labels.forEach((label) => {
      label.button.disabled = locked;
      if (reviewing) {
        const chosen = review.choice.action === "label" && review.choice.label === label.id;
        label.button.setAttribute("aria-pressed", String(chosen));
      } else {
        label.button.removeAttribute("aria-pressed");
      }
    });
    el.skip.disabled = reviewing;
    el.cantOpen.disabled = locked;
    updateQueryLeft(reviewing);
    closeCant(false);
  }

  function banner(review) {
    if (review.choice.action === "skip") {
      return gettext("You skipped this document. Choose a label to grade it, U to undo the skip, or Esc to return.");
    }
    return interpolate(gettext("Changing an earlier grade (now %(answer)s). Choose a label to change it, or Esc to return."), {
      answer: describe(review.choice),
    });
  }

  function describe(choice) {
    if (choice.action === "skip") return gettext("Skipped");
    if (choice.action === "cant_judge") return gettext("Can't judge");
    const label = labels.find((l) => l.id === choice.label);
    return label ? label.name : gettext("a label");
  }

  function updateQueryLeft(reviewing) {
    if (!el.queryLeft) return;
    const current = screen.current;
    el.queryLeft.hidden = reviewing || !current;
    if (!current) return;
    const same = (item) => item.query === current.query && item.description === current.description;
    const left = 1 + screen.upcoming.filter(same).length;
    el.queryLeft.textContent = interpolate(gettext("· %(left)s left for this query"), { left });
  }

  function disable() {
    labels.forEach((label) => (label.button.disabled = true));
    el.skip.disabled = true;
    el.cantOpen.disabled = true;
  }

  // ---- Choosing ------------------------------------------------------------------------
  function keyAction(key) {
    const label = labelForKey(key);
    if (label) {
      return guarded(() => {
        if (!label.button.disabled) chooseLabel(label.id);
      });
    }
    if (key === "s") {
      return guarded(() => {
        if (!el.skip.disabled || screen.reviewing) skip(); // skip() says why not, when reviewing
      });
    }
    if (key === "x") return guarded(openCant);
    return null;
  }

  // Every key of this screen answers or opens something: a double tap must not repeat it.
  function guarded(run) {
    return { guarded: true, run };
  }

  function chooseLabel(id) {
    screen.choose({ action: "label", label: id });
  }

  function skip() {
    if (screen.reviewing) {
      screen.say(gettext("Only new documents can be skipped."), "warning");
      return;
    }
    screen.choose({ action: "skip" });
  }

  function openCant() {
    if (el.cantOpen.disabled) return;
    el.cantForm.hidden = false;
    const review = screen.review;
    el.cantReason.value = review && review.choice.action === "cant_judge" ? review.choice.comment || "" : "";
    el.cantReason.focus();
  }

  function closeCant(refocus) {
    el.cantForm.hidden = true;
    if (refocus) el.doc.focus({ preventScroll: true });
  }

  // ---- Wiring --------------------------------------------------------------------------
  el.cantOpen.hidden = false;
  el.cantCancel.hidden = false;
  closeCant(false);

  el.gradeForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const button = event.submitter;
    if (!button || button.disabled) return;
    if (button.name === "label") chooseLabel(Number(button.value));
    else if (button.value === "skip") skip();
  });
  el.cantForm.addEventListener("submit", (event) => {
    event.preventDefault();
    screen.choose({ action: "cant_judge", comment: el.cantReason.value.trim() });
  });
  el.cantOpen.addEventListener("click", openCant);
  el.cantCancel.addEventListener("click", () => closeCant(true));

  screen.start();
})();
