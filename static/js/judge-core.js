/* The core both judging screens share (DESIGN.md section 6): graded judging (judge.js) and
 * side-by-side judging (sxs.js) each keep only their own rendering and key map, and hand
 * them to this file, which owns the rest:
 *  - the queue on the client (the server leases ahead, so an answer shows the next item at
 *    once), the history of this session and going back to change an earlier answer;
 *  - sending through the outbox (judge-outbox.js) and what its answers change.
 * Its parts, each loaded before it in this order:
 *  - judge-outbox.js, the outbox; judge-card.js, the document card;
 *  - judge-keys.js, the key dispatch (? help, Backspace back, Esc return, then the screen's
 *    own keys) with a guard against double taps;
 *  - judge-tabs.js, one tab at a time; judge-clock.js, the time spent on each answer;
 *  - judge-progress.js, the progress meters and the save status; judge-conflicts.js, an
 *    answer stored first in another tab or device.
 * The pages work without JavaScript (every button posts a form); this re-renders the same
 * elements in place. No framework, no build step.
 */
(function () {
  "use strict";
  // Messages in the page's language: the catalogue is /jsi18n/ (Django's JavaScriptCatalog,
  // loaded by base.html); without it the English text stands.
  const gettext = window.gettext || ((text) => text);
  const interpolate = (format, values) => format.replace(/%\((\w+)\)s/g, (_, name) => String(values[name]));

  const { request, createOutbox, markPage, clampCheck, toggleLongText, clampable } = window.Judging;
  const { keyName, isTyping, queueKeys, tabLock, answerClock, progressMeters, conflictPanel } = window.Judging;
  const HISTORY_LIMIT = 100;
  const MAX_KNOWN = 500; // the server's limit on an answer's "known" list

  /* What both kinds of page have, in both modes: the notice line, the keys help and the
   * elements the shared partials render. */
  function screen(root) {
    const $ = (id) => document.getElementById(id);
    const el = {
      notice: $("notice"),
      saveStatus: $("save-status"),
      banner: $("change-banner"),
      queryText: $("query-text"),
      queryDesc: $("query-desc"),
      queryDescText: $("query-desc-text"),
      queryNew: $("query-new"),
      queryCard: root.querySelector(".query-card"),
      back: $("back-button"),
      helpOpen: $("help-open"),
      help: $("help-dialog"),
      raterProgress: $("rater-progress"),
      raterCount: $("rater-count"),
      overallProgress: $("campaign-progress"),
      overallCount: $("campaign-count"),
      conflict: $("conflict"),
      conflictText: $("conflict-text"),
      conflictKeep: $("conflict-keep"),
      conflictMine: $("conflict-mine"),
      elsewhere: $("elsewhere"),
      elsewhereTake: $("elsewhere-take"),
    };

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

    function toggleHelp() {
      if (el.help.open) el.help.close();
      else el.help.showModal();
    }
    el.helpOpen.hidden = false;
    el.helpOpen.addEventListener("click", toggleHelp);
    clampable(root);

    /* The page for one earlier answer: keys press the form's buttons. keyAction(key) answers
     * {run} for the screen's own keys. */
    function changePage(keyAction) {
      document.addEventListener("keydown", (event) => {
        if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey || event.repeat) return;
        const key = keyName(event);
        if (el.help.open) {
          if (key === "?") toggleHelp();
          return; // Esc closes the dialog natively
        }
        if (isTyping(event.target)) return;
        const back = el.back.getAttribute("href");
        const action = keyAction(key);
        if (key === "?") toggleHelp();
        else if (key === ".") toggleLongText(root);
        else if ((key === "Backspace" || key === "Escape") && back) {
          event.preventDefault();
          window.location.assign(back);
        } else if (action) {
          event.preventDefault();
          action.run();
        }
      });
      markPage(root, el.queryText.textContent);
      clampCheck(root);
      root.dataset.ready = "true";
    }

    return { say, changePage, queue: (kind) => queueScreen(root, el, say, toggleHelp, kind) };
  }

  /* The queue page; null when the page carries no state (nothing to judge). kind is the
   * screen's own part:
   *  - stateId, the json_script with the page's state; unit / units, the payload's key for
   *    what is answered and the state's list of them ("item" / "items"); overall, the
   *    state's key for the counts over all raters;
   *  - word ("document") and noun ("grade") for the notices, firstInSession, what Backspace
   *    says on the first item; scrollAnchor and focus, elements of the page;
   *  - render(unit, review) draws an item, or an earlier answer under review; banner(review)
   *    explains the review; describe(choice) names a choice; disable() while waiting;
   *    upcomingChanged() (optional) when the list behind the current item changed;
   *  - payload(unit, choice) is the JSON sent; counts(choice) whether a new answer counts
   *    toward the overall meter; same(a, b) whether a change changes nothing; token(choice)
   *    the stored answer's token a change sends as `replaces`; fromStored(stored) a choice
   *    from a conflict's stored answer; isSkip(choice); unskip(unit), the JSON that undoes a
   *    skip;
   *  - keyAction(key) answers {run, guarded} for the screen's own keys (guarded: a double tap
   *    does not repeat it); typingKey(event) (optional) for a key pressed in a text box. */
  function queueScreen(root, el, say, toggleHelp, kind) {
    const stateNode = document.getElementById(kind.stateId);
    if (!stateNode) return null;
    const initial = JSON.parse(stateNode.textContent);
    const urls = initial.urls;
    const unitOf = (entry) => entry.payload[kind.unit];
    const loading = interpolate(gettext("Loading the next %(word)s…"), { word: kind.word });

    // ---- State ---------------------------------------------------------------------------
    let latestRequest = 0; // the newest request's ticket: an older answer's list is stale
    const tickets = new WeakMap(); // outbox entry -> ticket of its latest attempt
    const outbox = createOutbox({
      url: urls.api,
      storageKey: initial.storageKey, // per rater and campaign: survives a reload or a closed tab
      legacyKey: initial.legacyStorageKey,
      onSend: (entry) => {
        tickets.set(entry, ++latestRequest);
        return { known: held().map((unit) => unit.id).slice(0, MAX_KNOWN) };
      },
      onAnswer: taken,
      onRefusal: refused,
      onChange: () => progress.update(),
    });
    // Answers kept by a page from before handles name their item by its old id: they are
    // sent under the handle the server gave for it (legacyIds), so they match this queue.
    const renamed = initial.legacyIds || {};
    outbox.entries.forEach((entry) => {
      const handle = renamed[String(unitOf(entry))];
      if (handle) entry.payload[kind.unit] = handle;
    });
    const answered = new Set(outbox.entries.map(unitOf));
    let upcoming = initial[kind.units].filter((unit) => !answered.has(unit.id));
    let current = upcoming.shift() || null; // the front item, not yet answered
    const clock = answerClock(); // runs for the front item from now
    const history = []; // [{unit, choice, refused}] of this session, oldest first
    let reviewIndex = null; // index into history while the rater changes an earlier answer
    const progress = progressMeters({ el, kind, outbox, url: urls.progress, initial });
    const pendingEntries = new WeakMap(); // outbox entry -> {entry, previous} in the history
    const conflicts = conflictPanel({ el, kind, say, send, settled: showReviewOrFocus });
    let elsewhere = false; // this queue is judged in another tab of this browser

    // ---- Rendering -----------------------------------------------------------------------
    function render(unit, review) {
      el.queryText.textContent = unit.query;
      el.queryDescText.textContent = unit.description || "";
      el.queryDesc.hidden = !unit.description;
      kind.render(unit, review || null);
      clampCheck(root);
      showQueryChange(unit, review);
      el.banner.hidden = !review;
      if (review) el.banner.textContent = review.refused ? interpolate(gettext("Not stored: %(why)s"), { why: review.refused }) : kind.banner(review);
      root.classList.remove("is-waiting");
      if (el.notice.textContent === loading) el.notice.textContent = "";
      // Back is a link to the last answer's page, or (nothing answered yet) a button.
      if (el.back.tagName === "BUTTON") el.back.disabled = !canGoBack();
      else el.back.setAttribute("aria-disabled", String(!canGoBack()));
      if (kind.scrollAnchor.getBoundingClientRect().top < 0) root.scrollIntoView({ block: "start" });
      // Focus leaves the button that was clicked, so Enter or Space cannot answer the next
      // item by accident.
      kind.focus.focus({ preventScroll: true });
    }

    /* The first item of another query says so (a word by the query and a brief glow), so
     * the rater rereads the query; nothing waits for it. */
    let shownQuery = null;
    function showQueryChange(unit, review) {
      const query = `${unit.query}\n${unit.description || ""}`;
      const fresh = !review && shownQuery !== null && query !== shownQuery;
      if (!review) shownQuery = query;
      el.queryNew.hidden = !fresh;
      const still = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
      if (fresh && !still && el.queryCard.animate) {
        el.queryCard.animate([{ backgroundColor: "rgba(255, 214, 102, .45)" }, { backgroundColor: "rgba(255, 214, 102, 0)" }], {
          duration: 900,
          easing: "ease-out",
        });
      }
    }

    function showWaiting() {
      root.classList.add("is-waiting");
      kind.disable();
      say(loading);
    }

    // ---- Answering -----------------------------------------------------------------------
    function choose(choice) {
      if (reviewIndex !== null) return change(choice);
      if (!current) return;
      const seconds = clock.seconds();
      const entry = { unit: current, choice, refused: null };
      history.push(entry);
      if (history.length > HISTORY_LIMIT) history.shift();
      answered.add(current.id);
      send({ ...kind.payload(current, choice), seconds }, true, kind.counts(choice), { entry });
      say(interpolate(gettext("Previous %(word)s: %(answer)s."), { word: kind.word, answer: kind.describe(choice) }));
      advance();
    }

    function change(choice) {
      const entry = history[reviewIndex];
      if (entry.refused) return;
      if (kind.isSkip(choice) && !kind.isSkip(entry.choice)) {
        say(interpolate(gettext("Only new %(words)s can be skipped."), { words: kind.words }), "warning");
        return;
      }
      if (!kind.same(entry.choice, choice)) {
        const previous = entry.choice;
        entry.choice = choice;
        // The stored answer this page shows: the server refuses to replace any other.
        const payload = { ...kind.payload(entry.unit, choice), replaces: kind.token(previous) };
        send(payload, false, false, { entry, previous });
        say(interpolate(gettext("Changed to %(answer)s."), { answer: kind.describe(choice) }));
      }
      reviewIndex += 1;
      if (reviewIndex < history.length) render(history[reviewIndex].unit, history[reviewIndex]);
      else returnToFront();
    }

    function advance() {
      const previous = current || (history.length ? history[history.length - 1].unit : null);
      current = upcoming.shift() || null;
      if (current) {
        clock.shown();
        render(current, null);
        if (previous && previous.query !== current.query) progress.refresh(); // once per query
      } else if (outbox.busy) {
        showWaiting(); // the answer to the entry in flight brings the next items
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
        say(kind.firstInSession);
        return;
      }
      reviewIndex = reviewIndex === null ? history.length - 1 : reviewIndex - 1;
      render(history[reviewIndex].unit, history[reviewIndex]);
    }

    function canGoBack() {
      return reviewIndex === null ? history.length > 0 || el.back.hasAttribute("href") : reviewIndex > 0;
    }

    // After the rater settled a conflict: the answer under review, redrawn, or the focus back.
    function showReviewOrFocus() {
      if (reviewIndex !== null) render(history[reviewIndex].unit, history[reviewIndex]);
      else kind.focus.focus({ preventScroll: true });
    }

    function returnToFront() {
      reviewIndex = null;
      if (current) render(current, null);
      else advance();
    }

    // ---- Sending -------------------------------------------------------------------------
    function send(payload, isNew, counts, origin) {
      const entry = { payload, isNew, counts };
      pendingEntries.set(entry, origin);
      outbox.push(entry);
    }

    function taken(entry, data) {
      progress.countConfirmed(entry, data.result);
      const origin = pendingEntries.get(entry);
      if (origin && origin.unskip) forget(origin.entry);
      // An answer that replaced a skip, or a skip undone, moves the counts the page keeps.
      if (!entry.isNew && data.result !== "changed" && data.result !== "unchanged") {
        progress.want();
      }
      receive(data, tickets.get(entry));
      afterAnswer();
    }

    function refused(entry, data) {
      const origin = pendingEntries.get(entry);
      if (data.result) {
        // Stored, and a rule paused the rater on it (the reply names the result): the answer
        // stands and counts; only what would have followed is refused.
        progress.countConfirmed(entry, data.result);
      } else if (data.conflict && origin) {
        conflicts.add(origin, data);
      } else if (origin && origin.previous) {
        origin.entry.choice = origin.previous; // a refused change leaves the earlier answer
      } else if (origin && !origin.unskip) {
        origin.entry.refused = data.error; // a refused new answer is not stored
      }
      say(data.error, "error");
      receive(data, tickets.get(entry));
      afterAnswer();
    }

    // ---- Skips ---------------------------------------------------------------------------
    function undoSkip() {
      const entry = history[reviewIndex];
      send(kind.unskip(entry.unit), false, false, { entry, unskip: true });
      say(interpolate(gettext("Skip undone: the %(word)s comes back in your queue while it still needs answers."), { word: kind.word }));
      forget(entry);
    }

    // A skip undone leaves the history; the server's list brings the item back.
    function forget(entry) {
      const index = history.indexOf(entry);
      if (index < 0) return;
      history.splice(index, 1);
      answered.delete(entry.unit.id);
      if (reviewIndex !== null) {
        reviewIndex = null;
        returnToFront();
      }
    }

    function afterAnswer() {
      if (outbox.busy) return;
      if (!current && reviewIndex === null) advance();
      else if (progress.wanted) progress.refresh();
    }

    // The units on this page still to answer: the one shown and those after it.
    function held() {
      return current ? [current, ...upcoming] : upcoming;
    }

    // The whole list again, while the rater goes on with the unit shown.
    async function refreshQueue() {
      const ticket = ++latestRequest;
      try {
        const { response, data } = await request(urls.queue, { method: "GET" });
        if (response.ok && data) receive(data, ticket);
      } catch (error) {
        /* the next answer's reply brings the list */
      }
    }

    async function fetchQueue() {
      showWaiting();
      const ticket = ++latestRequest;
      try {
        const { response, data } = await request(urls.queue, { method: "GET" });
        if (!response.ok || !data) throw new Error(String(response.status));
        receive(data, ticket);
        if (!current && !upcoming.length && !outbox.busy) window.location.assign(urls.done);
      } catch (error) {
        say(interpolate(gettext("Could not load the next %(word)s; trying again…"), { word: kind.word }), "warning");
        setTimeout(fetchQueue, 3000);
      }
    }

    // The server's list of held items is the truth about what comes next; items answered here
    // but not yet confirmed there are left out, and so is a list older than the newest request.
    function receive(data, ticket) {
      progress.received(data);
      if (!data[kind.units] || ticket !== latestRequest) return;
      // An answer's reply names the units this page said it holds ("known") and sends only
      // the others whole; one it no longer has (a list from before a reload) means asking
      // for the whole queue.
      const have = new Map([...held(), ...history.map((entry) => entry.unit)].map((unit) => [unit.id, unit]));
      const units = data[kind.units].map((unit) => (unit.known ? have.get(unit.id) : unit));
      if (units.includes(undefined)) {
        if (current) refreshQueue();
        else fetchQueue();
        return;
      }
      const pending = new Set(outbox.entries.map(unitOf));
      upcoming = units.filter(
        (unit) => !answered.has(unit.id) && !pending.has(unit.id) && (!current || unit.id !== current.id),
      );
      if (!current && reviewIndex === null && upcoming.length) advance();
      else if (current && reviewIndex === null && kind.upcomingChanged) kind.upcomingChanged();
    }

    // ---- Keys ----------------------------------------------------------------------------
    const onKey = queueKeys({
      root,
      el,
      kind,
      toggleHelp,
      elsewhere: () => elsewhere,
      goBack,
      returnToFront,
      undoSkip,
      review: () => (reviewIndex === null ? null : history[reviewIndex]),
    });

    function start() {
      el.back.addEventListener("click", (event) => {
        event.preventDefault();
        goBack();
      });
      window.addEventListener("beforeunload", (event) => {
        if (!outbox.entries.length) return;
        event.preventDefault(); // kept in localStorage anyway; warn all the same
        event.returnValue = "";
      });
      document.addEventListener("keydown", onKey);
      clock.listen();
      if (el.conflict) {
        el.conflictKeep.addEventListener("click", () => conflicts.settle(false));
        el.conflictMine.addEventListener("click", () => conflicts.settle(true));
      }
      watchOtherTabs();
      if (current) {
        clock.shown();
        render(current, null);
      }
      progress.update();
      outbox.pump(); // answers kept from an earlier page, if any
      root.dataset.ready = "true"; // the keys work from now on (tests wait for it)
    }

    function watchOtherTabs() {
      if (!el.elsewhere) return;
      const lock = tabLock(`${initial.storageKey}:tab`, () => setElsewhere(true));
      el.elsewhereTake.addEventListener("click", () => {
        lock.claim();
        // The other tab may have answered meanwhile: start from the server's list.
        window.location.reload();
      });
      if (lock.elsewhere) setElsewhere(true);
    }

    function setElsewhere(on) {
      elsewhere = on;
      root.classList.toggle("is-elsewhere", on);
      el.elsewhere.hidden = !on;
      if (on) el.elsewhereTake.focus({ preventScroll: true });
    }

    return {
      start,
      choose,
      say,
      get current() {
        return current;
      },
      get upcoming() {
        return upcoming;
      },
      get reviewing() {
        return reviewIndex !== null;
      },
      get review() {
        return reviewIndex === null ? null : history[reviewIndex];
      },
    };
  }

  window.Judging = { ...window.Judging, screen };
})();
