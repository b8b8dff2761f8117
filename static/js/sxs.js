/* The side-by-side screen, keyboard first (DESIGN.md section 6).
 *
 * The page works without this file (every button posts the form). With it:
 *  - Left arrow or A: left better; Down arrow or S: about the same; Right arrow or D: right
 *    better. 1 / 2 / 3 choose how much better (slightly, clearly, much) before the arrow, and
 *    the same number again clears it. R writes a reason, Backspace goes back to change an
 *    earlier answer, Esc returns, ? shows the keys;
 *  - the next task is already on the client (the server leases ahead), so an answer shows it
 *    at once while the verdict is sent in the background;
 *  - verdicts wait in an outbox kept in localStorage until the server has answered. Network
 *    errors and 5xx answers are retried with the same payload (the server stores it once); a
 *    4xx refusal is shown and the rater moves on.
 * The client never knows which side is which: it sends only the side the rater preferred.
 * Modelled on judge.js (same behaviour and look); no framework, no build step.
 */
(function () {
  "use strict";

  const root = document.getElementById("sxs");
  if (!root) return;

  const $ = (id) => document.getElementById(id);
  const el = {
    notice: $("notice"),
    saveStatus: $("save-status"),
    banner: $("change-banner"),
    queryText: $("query-text"),
    queryDesc: $("query-desc"),
    queryDescText: $("query-desc-text"),
    sides: $("sides"),
    form: $("sxs-form"),
    taskField: $("task-field"),
    reason: $("reason"),
    back: $("back-button"),
    helpOpen: $("help-open"),
    help: $("help-dialog"),
    raterProgress: $("rater-progress"),
    raterCount: $("rater-count"),
    overallProgress: $("campaign-progress"),
    overallCount: $("campaign-count"),
  };
  const buttons = {
    left: $("choose-left"),
    same: $("choose-same"),
    right: $("choose-right"),
  };
  const CHOICE_KEYS = { ArrowLeft: "left", a: "left", ArrowDown: "same", s: "same", ArrowRight: "right", d: "right" };
  const WORDS = { left: "Left better", same: "About the same", right: "Right better" };
  const STRENGTH_WORDS = { 1: "slightly", 2: "clearly", 3: "much" };

  function isTyping(target) {
    if (!target) return false;
    if (target.tagName === "INPUT") return !["radio", "checkbox", "button", "submit"].includes(target.type);
    return target.isContentEditable || /^(TEXTAREA|SELECT)$/.test(target.tagName);
  }

  // A refusal stays readable for a while even as the rater keeps going.
  let stickyUntil = 0;
  function say(text, tone) {
    const now = performance.now();
    if (!tone && now < stickyUntil) return;
    stickyUntil = tone === "error" ? now + 8000 : 0;
    el.notice.textContent = text;
    el.notice.classList.toggle("is-error", tone === "error");
    el.notice.classList.toggle("is-warning", tone === "warning");
  }

  function describe(choice) {
    const strength = choice.chosen !== "same" && choice.strength ? ` (${STRENGTH_WORDS[choice.strength]})` : "";
    return WORDS[choice.chosen] + strength;
  }

  // ---- Strength -------------------------------------------------------------------------
  function strengthValue() {
    const checked = el.form.querySelector("input[name=strength]:checked");
    return checked && checked.value ? Number(checked.value) : null;
  }

  function setStrength(n) {
    const radio = $(`strength-${n || 0}`);
    if (radio) radio.checked = true;
  }

  function toggleStrength(n) {
    const next = strengthValue() === n ? null : n;
    setStrength(next);
    say(next ? `How much better: ${STRENGTH_WORDS[next]}. Now choose a side.` : "Strength cleared.");
  }

  // ---- A document on both sides: hovering one lights up its twin -------------------------
  function pairHighlight(event, on) {
    const item = event.target.closest && event.target.closest(".sxs-result.is-shared");
    if (!item) return;
    el.sides
      .querySelectorAll(`.sxs-result[data-pair="${item.dataset.pair}"]`)
      .forEach((twin) => twin.classList.toggle("is-paired", on));
  }
  el.sides.addEventListener("mouseover", (event) => pairHighlight(event, true));
  el.sides.addEventListener("mouseout", (event) => pairHighlight(event, false));

  // ---- Help ------------------------------------------------------------------------------
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
  const stateNode = $("sxs-state");
  if (!stateNode) return;
  const initial = JSON.parse(stateNode.textContent);
  const urls = initial.urls;

  // ---- State -----------------------------------------------------------------------------
  let outbox = loadOutbox(); // [{payload, isNew}] in the order given
  const answered = new Set(outbox.map((entry) => entry.payload.task));
  let upcoming = initial.tasks.filter((task) => !answered.has(task.id));
  let current = upcoming.shift() || null; // the front task, not yet answered
  let currentShownAt = performance.now();
  const history = []; // [{task, choice, refused}] of this session, oldest first
  let reviewIndex = null; // index into history while the rater changes an earlier answer
  let server = { progress: initial.progress, overall: initial.overall };
  let sending = false;
  let retryDelay = 0;
  let retryTimer = null;
  let latestRequest = 0;
  let lastKey = { key: "", at: 0 };
  let sendTrouble = "";
  const pendingEntries = new WeakMap(); // outbox entry -> {entry, previous} in the history

  // ---- Rendering -------------------------------------------------------------------------
  function renderSide(side, docs) {
    const list = $(`results-${side}`);
    const other = side === "left" ? "right" : "left";
    list.replaceChildren(
      ...docs.map((doc, index) => {
        const item = document.createElement("li");
        item.className = "sxs-result" + (doc.pair ? " is-shared" : "");
        if (doc.pair) item.dataset.pair = String(doc.pair);
        const title = document.createElement("h3");
        title.className = "sxs-title";
        const link = document.createElement("a");
        link.textContent = doc.title;
        if (doc.url) link.href = doc.url;
        link.target = "_blank";
        link.rel = "noopener noreferrer";
        title.append(link);
        item.append(title);
        if (doc.url) item.append(paragraph("sxs-url", doc.url));
        if (doc.snippet) item.append(paragraph("sxs-snippet", doc.snippet));
        if (doc.pair) {
          const both = paragraph("sxs-both", "");
          const badge = document.createElement("span");
          badge.className = "badge";
          badge.textContent = "on both sides";
          const twin = document.createElement("span");
          twin.className = "sxs-twin";
          twin.textContent = doc.twin === index + 1 ? "same place" : `#${doc.twin} on the ${other}`;
          both.append(badge, " ", twin);
          item.append(both);
        }
        return item;
      }),
    );
    $(`empty-${side}`).hidden = docs.length > 0;
  }

  function paragraph(className, text) {
    const p = document.createElement("p");
    p.className = className;
    p.textContent = text;
    return p;
  }

  function render(task, review) {
    el.queryText.textContent = task.query;
    el.queryDescText.textContent = task.description || "";
    el.queryDesc.hidden = !task.description;
    renderSide("left", task.left);
    renderSide("right", task.right);
    el.taskField.value = task.id;
    const reviewing = Boolean(review);
    const locked = reviewing && Boolean(review.refused);
    setStrength(reviewing ? review.choice.strength : null);
    el.reason.value = reviewing ? review.choice.reason || "" : "";
    Object.entries(buttons).forEach(([chosen, button]) => {
      button.disabled = locked;
      button.classList.remove("is-chosen");
      if (reviewing) button.setAttribute("aria-pressed", String(review.choice.chosen === chosen));
      else button.removeAttribute("aria-pressed");
    });
    el.banner.hidden = !reviewing;
    if (reviewing) {
      el.banner.textContent = review.refused
        ? `Not stored: ${review.refused}`
        : `Changing an earlier answer (now ${describe(review.choice)}). Choose again to change it, or Esc to return.`;
    }
    root.classList.remove("is-waiting");
    if (el.notice.textContent === LOADING) el.notice.textContent = "";
    el.back.setAttribute("aria-disabled", String(!canGoBack()));
    if (root.getBoundingClientRect().top < 0) root.scrollIntoView({ block: "start" });
    // Focus leaves the button that was clicked, so Enter or Space cannot answer the next task.
    el.sides.focus({ preventScroll: true });
  }

  const LOADING = "Loading the next task…";
  function showWaiting() {
    root.classList.add("is-waiting");
    Object.values(buttons).forEach((button) => (button.disabled = true));
    say(LOADING);
  }

  function updateProgress() {
    const pendingNew = outbox.filter((entry) => entry.isNew).length;
    const p = server.progress;
    const done = Math.min(p.done + pendingNew, p.assigned);
    el.raterProgress.max = Math.max(p.assigned, 1);
    el.raterProgress.value = done;
    el.raterProgress.textContent = `${done} of ${p.assigned}`;
    el.raterCount.textContent = `${done} of ${p.assigned} done · ${p.assigned - done} left`;
    const o = server.overall;
    const counted = Math.min(o.counted + pendingNew, o.needed);
    el.overallProgress.max = Math.max(o.needed, 1);
    el.overallProgress.value = counted;
    el.overallProgress.textContent = `${counted} of ${o.needed}`;
    el.overallCount.textContent = `${counted} of ${o.needed} answers`;
    const waiting = outbox.length;
    let text = waiting ? `Saving ${waiting}…` : "All answers saved";
    if (waiting && sendTrouble) text = `${sendTrouble} ${waiting} answer(s) kept, sending again…`;
    el.saveStatus.textContent = text;
    el.saveStatus.classList.toggle("is-trouble", Boolean(waiting && sendTrouble));
  }

  // ---- Answering -------------------------------------------------------------------------
  function choiceFor(chosen) {
    return {
      chosen,
      strength: chosen === "same" ? null : strengthValue(),
      reason: el.reason.value.trim(),
    };
  }

  function choose(chosen) {
    const choice = choiceFor(chosen);
    if (reviewIndex !== null) return change(choice);
    if (!current) return;
    buttons[chosen].classList.add("is-chosen");
    const seconds = Math.round((performance.now() - currentShownAt) / 100) / 10;
    const entry = { task: current, choice, refused: null };
    history.push(entry);
    if (history.length > 100) history.shift();
    answered.add(current.id);
    send({ ...payloadFor(current, choice), seconds }, true, { entry });
    say(`Previous task: ${describe(choice)}.`);
    advance();
  }

  function change(choice) {
    const entry = history[reviewIndex];
    if (entry.refused) return;
    const old = entry.choice;
    const same = old.chosen === choice.chosen && old.strength === choice.strength && old.reason === choice.reason;
    if (!same) {
      entry.choice = choice;
      send(payloadFor(entry.task, choice), false, { entry, previous: old });
      say(`Changed to ${describe(choice)}.`);
    }
    reviewIndex += 1;
    if (reviewIndex < history.length) render(history[reviewIndex].task, history[reviewIndex]);
    else returnToFront();
  }

  function payloadFor(task, choice) {
    return { task: task.id, chosen: choice.chosen, strength: choice.strength, reason: choice.reason };
  }

  function advance() {
    current = upcoming.shift() || null;
    if (current) {
      currentShownAt = performance.now();
      render(current, null);
    } else if (outbox.length) {
      showWaiting(); // the answer to the verdict in flight brings the next tasks
    } else {
      fetchQueue();
    }
  }

  function goBack() {
    if (!history.length) {
      // Nothing answered in this session yet: the server's page for the last answer.
      if (el.back.getAttribute("href")) window.location.assign(el.back.getAttribute("href"));
      return;
    }
    if (reviewIndex === 0) {
      say("This is the first task of this session.");
      return;
    }
    reviewIndex = reviewIndex === null ? history.length - 1 : reviewIndex - 1;
    render(history[reviewIndex].task, history[reviewIndex]);
  }

  function canGoBack() {
    return reviewIndex === null ? history.length > 0 || el.back.hasAttribute("href") : reviewIndex > 0;
  }

  function returnToFront() {
    reviewIndex = null;
    if (current) render(current, null);
    else advance();
  }

  // ---- Sending ---------------------------------------------------------------------------
  function send(payload, isNew, origin) {
    const entry = { payload, isNew };
    outbox.push(entry);
    pendingEntries.set(entry, origin);
    saveOutbox();
    updateProgress();
    pump();
  }

  function csrfToken() {
    const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    if (match) return decodeURIComponent(match[1]);
    const field = document.querySelector("input[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }

  async function request(url, options) {
    const response = await fetch(url, {
      credentials: "same-origin",
      headers: { Accept: "application/json", "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
      ...options,
    });
    const type = response.headers.get("Content-Type") || "";
    const data = type.includes("application/json") ? await response.json() : null;
    return { response, data };
  }

  async function pump() {
    if (sending || !outbox.length) return;
    sending = true;
    clearTimeout(retryTimer);
    const entry = outbox[0];
    const ticket = ++latestRequest;
    let again = false;
    try {
      const { response, data } = await request(urls.api, { method: "POST", body: JSON.stringify(entry.payload) });
      if (response.ok && data) {
        outbox.shift();
        retryDelay = 0;
        sendTrouble = "";
        again = true;
        receive(data, ticket);
      } else if (data && response.status >= 400 && response.status < 500 && response.status !== 401) {
        // Refused for good (time ran out, not assigned, …): sending it again cannot help.
        outbox.shift();
        sendTrouble = "";
        again = true;
        const origin = pendingEntries.get(entry);
        if (origin && origin.previous) origin.entry.choice = origin.previous;
        else if (origin) origin.entry.refused = data.error;
        say(data.error, "error");
        receive(data, ticket);
      } else if (response.status === 401 || response.status === 403) {
        sendTrouble = "Your sign-in ended: sign in again in another tab.";
        retryLater(10000);
      } else {
        sendTrouble = "The server had a problem.";
        retryLater();
      }
    } catch (networkError) {
      sendTrouble = "Connection lost.";
      retryLater();
    } finally {
      saveOutbox();
      sending = false;
    }
    updateProgress();
    if (again) {
      if (outbox.length) pump();
      else if (!current && reviewIndex === null) advance();
    }
  }

  function retryLater(delay) {
    retryDelay = delay || Math.min(retryDelay ? retryDelay * 2 : 1000, 15000);
    retryTimer = setTimeout(pump, retryDelay);
  }

  async function fetchQueue() {
    showWaiting();
    const ticket = ++latestRequest;
    try {
      const { response, data } = await request(urls.queue, { method: "GET" });
      if (!response.ok || !data) throw new Error(String(response.status));
      receive(data, ticket);
      if (!current && !upcoming.length && !outbox.length) window.location.assign(urls.done);
    } catch (error) {
      say("Could not load the next task; trying again…", "warning");
      setTimeout(fetchQueue, 3000);
    }
  }

  // The server's list of held tasks is the truth about what comes next; tasks answered here
  // but not yet confirmed there are left out.
  function receive(data, ticket) {
    if (data.progress) server = { progress: data.progress, overall: data.overall };
    if (!data.tasks || ticket !== latestRequest) return;
    const pending = new Set(outbox.map((entry) => entry.payload.task));
    upcoming = data.tasks.filter(
      (task) => !answered.has(task.id) && !pending.has(task.id) && (!current || task.id !== current.id),
    );
    if (!current && reviewIndex === null && upcoming.length) advance();
  }

  function loadOutbox() {
    try {
      const saved = JSON.parse(window.localStorage.getItem(initial.storageKey) || "[]");
      return Array.isArray(saved) ? saved.filter((entry) => entry && entry.payload) : [];
    } catch (error) {
      return [];
    }
  }

  function saveOutbox() {
    try {
      if (outbox.length) window.localStorage.setItem(initial.storageKey, JSON.stringify(outbox));
      else window.localStorage.removeItem(initial.storageKey);
    } catch (error) {
      /* private mode: the outbox lives in memory only */
    }
  }

  // ---- Wiring ----------------------------------------------------------------------------
  el.form.addEventListener("submit", (event) => {
    event.preventDefault();
    const button = event.submitter;
    if (!button || button.disabled || button.name !== "chosen") return;
    choose(button.value);
  });
  el.back.addEventListener("click", (event) => {
    event.preventDefault();
    goBack();
  });
  window.addEventListener("online", pump);
  window.addEventListener("beforeunload", (event) => {
    if (!outbox.length) return;
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
      if (event.target === el.reason && (event.key === "Escape" || event.key === "Enter")) {
        event.preventDefault();
        el.sides.focus({ preventScroll: true });
      }
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
    if (key === "r") {
      event.preventDefault();
      el.reason.focus();
      return;
    }
    if (key === "1" || key === "2" || key === "3") {
      event.preventDefault();
      toggleStrength(Number(key));
      return;
    }
    const chosen = CHOICE_KEYS[key];
    if (!chosen) return;
    event.preventDefault(); // the arrows would also scroll the page or move a radio choice
    // A double tap of the same key must not answer the task that just appeared, unread.
    const now = performance.now();
    if (key === lastKey.key && now - lastKey.at < 150) return;
    lastKey = { key, at: now };
    if (!buttons[chosen].disabled) choose(chosen);
  });

  if (current) render(current, null);
  updateProgress();
  if (outbox.length) pump();

  // ---- The page for one earlier task: keys press the form's buttons ----------------------
  function enhanceChangePage() {
    document.addEventListener("keydown", (event) => {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
      if (el.help.open || isTyping(event.target)) return;
      const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
      const chosen = CHOICE_KEYS[key];
      const back = el.back.getAttribute("href");
      if (key === "?") toggleHelp();
      else if (chosen && !buttons[chosen].disabled) {
        event.preventDefault();
        buttons[chosen].click();
      } else if (key === "1" || key === "2" || key === "3") toggleStrength(Number(key));
      else if (key === "r") {
        event.preventDefault();
        el.reason.focus();
      } else if ((key === "Backspace" || key === "Escape") && back) {
        event.preventDefault();
        window.location.assign(back);
      }
    });
  }
})();
