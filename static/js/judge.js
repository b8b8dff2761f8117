/* The judging screen, keyboard first (DESIGN.md section 6).
 *
 * The page works without this file (every button posts a form). With it:
 *  - keys choose labels (letter or number), S skips, X opens "can't judge", Backspace goes
 *    back to change an earlier grade, Esc returns, ? shows the keys;
 *  - the next item is already on the client (the server leases ahead), so a key press shows
 *    it at once while the grade is sent in the background;
 *  - grades wait in an outbox (judge-outbox.js) until the server has answered: retried on
 *    network errors with the same payload, a 4xx refusal shown as a message while the rater
 *    moves on.
 * No framework, no build step.
 */
(function () {
  "use strict";

  const root = document.getElementById("judge");
  if (!root) return;

  const $ = (id) => document.getElementById(id);
  const el = {
    notice: $("notice"),
    saveStatus: $("save-status"),
    banner: $("change-banner"),
    queryText: $("query-text"),
    queryLeft: $("query-left"),
    queryDesc: $("query-desc"),
    queryDescText: $("query-desc-text"),
    doc: $("doc"),
    docTitle: $("doc-title"),
    docUrl: $("doc-url"),
    docSnippet: $("doc-snippet"),
    gradeForm: $("grade-form"),
    skip: $("skip-button"),
    back: $("back-button"),
    cantOpen: $("cant-open"),
    cantForm: $("cant-form"),
    cantReason: $("cant-reason"),
    cantCancel: $("cant-cancel"),
    helpOpen: $("help-open"),
    help: $("help-dialog"),
    raterProgress: $("rater-progress"),
    raterCount: $("rater-count"),
    campaignProgress: $("campaign-progress"),
    campaignCount: $("campaign-count"),
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

  function isTyping(target) {
    return target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName));
  }

  // A refusal stays readable for a while even as the rater keeps going; routine notes
  // ("Previous document: Good") do not push it away.
  let stickyUntil = 0;
  function say(text, tone) {
    const now = performance.now();
    if (!tone && now < stickyUntil) return;
    stickyUntil = tone === "error" ? now + 8000 : 0;
    el.notice.textContent = text;
    el.notice.classList.toggle("is-error", tone === "error");
    el.notice.classList.toggle("is-warning", tone === "warning");
  }

  // ---- Help: the same on both kinds of page --------------------------------------------
  function toggleHelp() {
    if (el.help.open) el.help.close();
    else el.help.showModal();
  }
  el.helpOpen.hidden = false;
  el.helpOpen.addEventListener("click", toggleHelp);

  if (root.dataset.mode === "change") {
    enhanceChangePage();
    return;
  }
  const stateNode = $("judge-state");
  if (!stateNode) return;
  const initial = JSON.parse(stateNode.textContent);
  const urls = initial.urls;
  const { request, createOutbox } = window.Judge;

  // ---- State ---------------------------------------------------------------------------
  const outbox = createOutbox({
    url: urls.api,
    storageKey: initial.storageKey, // per rater and campaign: survives a reload or a closed tab
    onAnswer: taken,
    onRefusal: refused,
    onChange: updateProgress,
  });
  const answered = new Set(outbox.entries.map((entry) => entry.payload.item));
  let upcoming = initial.items.filter((item) => !answered.has(item.id));
  let current = upcoming.shift() || null; // the front item, not yet answered
  let currentShownAt = performance.now();
  const history = []; // [{item, choice, refused}] of this session, oldest first
  let reviewIndex = null; // index into history while the rater changes an earlier grade
  let server = { progress: initial.progress, campaign: initial.campaign };
  let lastKey = { key: "", at: 0 };
  let confirmedCount = 0; // answers to sent grades so far, to tell a stale progress count
  let progressWanted = false;
  const pendingEntries = new WeakMap(); // outbox entry -> {entry, previous} in the history

  // ---- Rendering -----------------------------------------------------------------------
  function render(item, review) {
    el.queryText.textContent = item.query;
    el.queryDescText.textContent = item.description || "";
    el.queryDesc.hidden = !item.description;
    el.docTitle.textContent = item.title;
    if (item.url) el.docTitle.href = item.url;
    else el.docTitle.removeAttribute("href");
    el.docUrl.textContent = item.url || "";
    el.docSnippet.textContent = item.snippet || "";
    root.querySelectorAll("[data-item-field]").forEach((field) => (field.value = item.id));
    const reviewing = Boolean(review);
    const locked = reviewing && (review.refused || review.choice.action === "skip");
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
    el.banner.hidden = !reviewing;
    if (reviewing) el.banner.textContent = bannerText(review);
    updateQueryLeft(reviewing);
    closeCant(false);
    root.classList.remove("is-waiting");
    if (el.notice.textContent === LOADING) el.notice.textContent = "";
    // Back is a link to the last grade's page, or (nothing graded yet) a button.
    if (el.back.tagName === "BUTTON") el.back.disabled = !canGoBack();
    else el.back.setAttribute("aria-disabled", String(!canGoBack()));
    if (el.doc.getBoundingClientRect().top < 0) root.scrollIntoView({ block: "start" });
    // Focus leaves the button that was clicked, so Enter or Space cannot grade the next
    // document by accident.
    el.doc.focus({ preventScroll: true });
  }

  function bannerText(review) {
    if (review.refused) return `Not stored: ${review.refused}`;
    const was = describe(review.choice);
    if (review.choice.action === "skip") return "You skipped this document. Esc returns.";
    return `Changing an earlier grade (now ${was}). Choose a label to change it, or Esc to return.`;
  }

  function describe(choice) {
    if (choice.action === "skip") return "Skipped";
    if (choice.action === "cant_judge") return "Can't judge";
    const label = labels.find((l) => l.id === choice.label);
    return label ? label.name : "a label";
  }

  function updateQueryLeft(reviewing) {
    if (!el.queryLeft) return;
    el.queryLeft.hidden = reviewing || !current;
    if (!current) return;
    const same = (item) => item.query === current.query && item.description === current.description;
    const left = 1 + upcoming.filter(same).length;
    el.queryLeft.textContent = `· ${left} left for this query`;
  }

  const LOADING = "Loading the next document…";
  function showWaiting() {
    root.classList.add("is-waiting");
    labels.forEach((label) => (label.button.disabled = true));
    el.skip.disabled = true;
    el.cantOpen.disabled = true;
    say(LOADING);
  }

  function updateProgress() {
    const pendingNew = outbox.entries.filter((entry) => entry.isNew).length;
    const pendingCounted = outbox.entries.filter((entry) => entry.isNew && entry.counts).length;
    const p = server.progress;
    const done = Math.min(p.done + pendingNew, p.assigned);
    el.raterProgress.max = Math.max(p.assigned, 1);
    el.raterProgress.value = done;
    el.raterProgress.textContent = `${done} of ${p.assigned}`;
    el.raterCount.textContent = `${done} of ${p.assigned} done · ${p.assigned - done} left`;
    const c = server.campaign;
    const counted = Math.min(c.counted + pendingCounted, c.needed);
    el.campaignProgress.max = Math.max(c.needed, 1);
    el.campaignProgress.value = counted;
    el.campaignProgress.textContent = `${counted} of ${c.needed}`;
    el.campaignCount.textContent = `${counted} of ${c.needed} grades`;
    showSaveStatus();
  }

  function showSaveStatus() {
    const waiting = outbox.entries.length;
    const trouble = outbox.trouble;
    let text = waiting ? `Saving ${waiting}…` : "All grades saved";
    if (trouble) text = `${trouble} ${waiting} grade(s) kept, sending again…`;
    el.saveStatus.textContent = text;
    el.saveStatus.classList.toggle("is-trouble", Boolean(trouble));
  }

  // ---- Choosing ------------------------------------------------------------------------
  function choose(choice) {
    if (reviewIndex !== null) return change(choice);
    if (!current) return;
    const seconds = Math.round((performance.now() - currentShownAt) / 100) / 10;
    const entry = { item: current, choice, refused: null };
    history.push(entry);
    if (history.length > 100) history.shift();
    answered.add(current.id);
    send({ ...payloadFor(current, choice), seconds }, true, choice.action === "label", { entry });
    say(`Previous document: ${describe(choice)}.`);
    advance();
  }

  function change(choice) {
    const entry = history[reviewIndex];
    if (entry.refused || entry.choice.action === "skip") return;
    const same =
      entry.choice.action === choice.action &&
      entry.choice.label === choice.label &&
      (entry.choice.comment || "") === (choice.comment || "");
    if (!same) {
      const previous = entry.choice;
      entry.choice = choice;
      send(payloadFor(entry.item, choice), false, false, { entry, previous });
      say(`Changed to ${describe(choice)}.`);
    }
    reviewIndex += 1;
    if (reviewIndex < history.length) render(history[reviewIndex].item, history[reviewIndex]);
    else returnToFront();
  }

  function payloadFor(item, choice) {
    const payload = { item: item.id, action: choice.action };
    if (choice.action === "label") payload.label = choice.label;
    if (choice.comment) payload.comment = choice.comment;
    return payload;
  }

  function advance() {
    const previous = current || (history.length ? history[history.length - 1].item : null);
    current = upcoming.shift() || null;
    if (current) {
      currentShownAt = performance.now();
      render(current, null);
      if (previous && previous.query !== current.query) refreshProgress(); // once per query
    } else if (outbox.busy) {
      showWaiting(); // the answer to the grade in flight brings the next items
    } else {
      fetchQueue();
    }
  }

  function goBack() {
    if (!history.length) {
      // Nothing judged in this session yet: the server's page for the last grade.
      if (el.back.getAttribute("href")) window.location.assign(el.back.getAttribute("href"));
      return;
    }
    if (reviewIndex === 0) {
      say("This is the first document of this session. Older grades are under “My grades”.");
      return;
    }
    reviewIndex = reviewIndex === null ? history.length - 1 : reviewIndex - 1;
    render(history[reviewIndex].item, history[reviewIndex]);
  }

  function canGoBack() {
    return reviewIndex === null ? history.length > 0 || el.back.hasAttribute("href") : reviewIndex > 0;
  }

  function returnToFront() {
    reviewIndex = null;
    if (current) render(current, null);
    else advance();
  }

  function skip() {
    if (reviewIndex !== null) {
      say("Only new documents can be skipped.", "warning");
      return;
    }
    choose({ action: "skip" });
  }

  function openCant() {
    if (el.cantOpen.disabled) return;
    el.cantForm.hidden = false;
    const entry = reviewIndex !== null ? history[reviewIndex] : null;
    el.cantReason.value = entry && entry.choice.action === "cant_judge" ? entry.choice.comment || "" : "";
    el.cantReason.focus();
  }

  function closeCant(refocus) {
    el.cantForm.hidden = true;
    if (refocus) el.doc.focus({ preventScroll: true });
  }

  // ---- Sending -------------------------------------------------------------------------
  function send(payload, isNew, counts, origin) {
    const entry = { payload, isNew, counts };
    pendingEntries.set(entry, origin);
    outbox.push(entry);
  }

  function taken(entry, data) {
    countConfirmed(entry, data.result);
    receive(data);
    afterAnswer();
  }

  function refused(entry, data) {
    // A refused change leaves the earlier grade in place; a refused new grade is not stored.
    const origin = pendingEntries.get(entry);
    if (origin && origin.previous) origin.entry.choice = origin.previous;
    else if (origin) origin.entry.refused = data.error;
    say(data.error, "error");
    receive(data);
    afterAnswer();
  }

  function afterAnswer() {
    if (outbox.busy) return;
    if (!current && reviewIndex === null) advance();
    else if (progressWanted) refreshProgress();
  }

  // Answers to grades leave the counting out (it is slow on a big campaign): the client adds
  // its own confirmed grades, and asks for the real counts once per query.
  function countConfirmed(entry, result) {
    confirmedCount += 1;
    if (!entry.isNew || (result !== "created" && result !== "skipped")) return;
    server.progress = { ...server.progress, done: server.progress.done + 1 };
    if (entry.counts && result === "created") {
      server.campaign = { ...server.campaign, counted: server.campaign.counted + 1 };
    }
  }

  function refreshProgress() {
    if (outbox.busy) {
      progressWanted = true; // asked again once the outbox is empty
      return;
    }
    progressWanted = false;
    const mark = confirmedCount;
    request(urls.progress, { method: "GET" })
      .then(({ response, data }) => {
        if (!response.ok || !data || !data.progress) return;
        // A grade sent meanwhile may or may not be in these counts: ask again later.
        if (confirmedCount !== mark || outbox.busy) {
          progressWanted = true;
          return;
        }
        server = { progress: data.progress, campaign: data.campaign };
        updateProgress();
      })
      .catch(() => (progressWanted = true));
  }

  async function fetchQueue() {
    showWaiting();
    try {
      const { response, data } = await request(urls.queue, { method: "GET" });
      if (!response.ok || !data) throw new Error(String(response.status));
      receive(data);
      if (!current && !upcoming.length && !outbox.busy) window.location.assign(urls.done);
    } catch (error) {
      say("Could not load the next document; trying again…", "warning");
      setTimeout(fetchQueue, 3000);
    }
  }

  // The server's list of held items is the truth about what comes next; items answered here
  // but not yet confirmed there are left out. (Answers cannot overtake each other: grades go
  // one at a time, and the queue is only fetched when none is waiting.)
  function receive(data) {
    if (data.progress) server = { progress: data.progress, campaign: data.campaign };
    if (!data.items) return;
    const pending = new Set(outbox.entries.map((entry) => entry.payload.item));
    upcoming = data.items.filter(
      (item) => !answered.has(item.id) && !pending.has(item.id) && (!current || item.id !== current.id),
    );
    if (!current && reviewIndex === null && upcoming.length) advance();
    else if (current && reviewIndex === null) updateQueryLeft(false);
  }

  // ---- Wiring --------------------------------------------------------------------------
  el.cantOpen.hidden = false;
  el.cantCancel.hidden = false;
  closeCant(false);

  el.gradeForm.addEventListener("submit", (event) => {
    event.preventDefault();
    const button = event.submitter;
    if (!button || button.disabled) return;
    if (button.name === "label") choose({ action: "label", label: Number(button.value) });
    else if (button.value === "skip") skip();
  });
  el.cantForm.addEventListener("submit", (event) => {
    event.preventDefault();
    choose({ action: "cant_judge", comment: el.cantReason.value.trim() });
  });
  el.cantOpen.addEventListener("click", openCant);
  el.cantCancel.addEventListener("click", () => closeCant(true));
  el.back.addEventListener("click", (event) => {
    event.preventDefault();
    goBack();
  });
  window.addEventListener("beforeunload", (event) => {
    if (!outbox.entries.length) return;
    event.preventDefault(); // kept in localStorage anyway; warn all the same
    event.returnValue = "";
  });

  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
    // Any other key between two presses (typing a reason, say) means it was no double tap.
    const pressed = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    if (pressed !== lastKey.key) lastKey = { key: "", at: 0 };
    if (el.help.open) {
      if (event.key === "?") toggleHelp();
      return; // Esc closes the dialog natively
    }
    if (isTyping(event.target)) {
      if (event.target === el.cantReason && event.key === "Escape") closeCant(true);
      return;
    }
    if (event.repeat) return;
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    if (key === "?") return toggleHelp();
    if (key === "Backspace") {
      event.preventDefault();
      return goBack();
    }
    if (key === "Escape") {
      if (reviewIndex !== null) returnToFront();
      return;
    }
    // A double tap of the same key must not grade the document that just appeared, unread.
    const now = performance.now();
    if (key === lastKey.key && now - lastKey.at < 150) return;
    lastKey = { key, at: now };
    const label = labelForKey(key);
    if (label) {
      event.preventDefault();
      if (!label.button.disabled) choose({ action: "label", label: label.id });
    } else if (key === "s") {
      event.preventDefault();
      if (!el.skip.disabled || reviewIndex !== null) skip();
    } else if (key === "x") {
      event.preventDefault();
      openCant();
    }
  });

  if (current) render(current, null);
  updateProgress();
  outbox.pump(); // grades kept from an earlier page, if any

  // ---- The page for one earlier item: keys press the form's buttons ----------------------
  function enhanceChangePage() {
    document.addEventListener("keydown", (event) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
      if (el.help.open || isTyping(event.target)) return;
      const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
      const label = labelForKey(key);
      const back = el.back.getAttribute("href");
      if (key === "?") toggleHelp();
      else if (label && !label.button.disabled) label.button.click();
      else if (key === "s" && el.skip && !el.skip.disabled) el.skip.click();
      else if (key === "x" && el.cantReason) {
        event.preventDefault();
        el.cantReason.focus();
      } else if ((key === "Backspace" || key === "Escape") && back) {
        event.preventDefault();
        window.location.assign(back);
      }
    });
  }
})();
