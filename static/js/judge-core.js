/* The core both judging screens share (DESIGN.md section 6): graded judging (judge.js) and
 * side-by-side judging (sxs.js) each keep only their own rendering and key map, and hand
 * them to this file, which owns the rest:
 *  - the key dispatch: ? help, Backspace back, Esc return, then the screen's own keys, with
 *    a guard against double taps;
 *  - the queue on the client (the server leases ahead, so an answer shows the next item at
 *    once), the history of this session and going back to change an earlier answer;
 *  - sending through the outbox (judge-outbox.js, loaded first) and the progress meters.
 * The pages work without JavaScript (every button posts a form); this re-renders the same
 * elements in place. No framework, no build step.
 */
(function () {
  "use strict";
  // Messages in the page's language: the catalogue is /jsi18n/ (Django's JavaScriptCatalog,
  // loaded by base.html); without it the English text stands.
  const gettext = window.gettext || ((text) => text);
  const interpolate = (format, values) => format.replace(/%\((\w+)\)s/g, (_, name) => String(values[name]));

  const { request, createOutbox } = window.Judging;
  const DOUBLE_TAP_MS = 150;
  const HISTORY_LIMIT = 100;
  // Seconds per answer (DESIGN.md section 6): from the moment the item is shown (not when it
  // was prefetched) to the answer, leaving out the time the tab was hidden, at most ten
  // minutes (the server caps it the same way).
  const MAX_SECONDS = 600;
  const TAB_BEAT_MS = 1000;
  const TAB_STALE_MS = 3500;

  function keyName(event) {
    return event.key.length === 1 ? event.key.toLowerCase() : event.key;
  }

  function isTyping(target) {
    if (!target) return false;
    if (target.tagName === "INPUT") return !["radio", "checkbox", "button", "submit"].includes(target.type);
    return target.isContentEditable || /^(TEXTAREA|SELECT)$/.test(target.tagName);
  }

  /* A double tap of one key must not answer the item that just appeared, unread. Any other
   * key between the two presses (typing a reason, say) means it was no double tap. The time
   * counts from the moment the first press was handled, that is from when the next item was
   * on the page: on a loaded machine drawing it can take longer than the window itself, and
   * a second press queued meanwhile would otherwise pass as a new one. */
  function doubleTapGuard() {
    let last = { key: "", at: 0 };
    return {
      saw(key) {
        if (key !== last.key) last = { key: "", at: 0 };
      },
      allows(key) {
        return !(key === last.key && performance.now() - last.at < DOUBLE_TAP_MS);
      },
      handled(key) {
        last = { key, at: performance.now() };
      },
    };
  }

  /* One tab of this browser judges a queue at a time: the one judging writes a heartbeat
   * under `key`; a tab opened beside it finds the heartbeat fresh and waits, offering to
   * take over (claim). The tab that loses the queue is told at once (the storage event) and
   * stops taking keys; its outbox still sends what it holds. */
  function tabLock(key, onElsewhere) {
    const id = Math.random().toString(36).slice(2);
    let mine = false;
    let timer = null;
    const read = () => {
      try {
        return JSON.parse(window.localStorage.getItem(key) || "null");
      } catch (error) {
        return null;
      }
    };
    const write = () => {
      try {
        window.localStorage.setItem(key, JSON.stringify({ id, at: Date.now() }));
      } catch (error) {
        /* private mode: every tab judges on its own */
      }
    };
    const othersHold = () => {
      const owner = read();
      return Boolean(owner && owner.id !== id);
    };
    function lose() {
      mine = false;
      clearInterval(timer);
      onElsewhere();
    }
    function claim() {
      mine = true;
      write();
      clearInterval(timer);
      timer = setInterval(() => (othersHold() ? lose() : write()), TAB_BEAT_MS);
    }
    window.addEventListener("storage", (event) => {
      if (event.key === key && mine && othersHold()) lose();
    });
    window.addEventListener("pagehide", () => {
      if (mine && !othersHold()) window.localStorage.removeItem(key);
    });
    const owner = read();
    const elsewhere = Boolean(owner && owner.id !== id && Date.now() - owner.at < TAB_STALE_MS);
    if (!elsewhere) claim();
    return { elsewhere, claim };
  }

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
        else if ((key === "Backspace" || key === "Escape") && back) {
          event.preventDefault();
          window.location.assign(back);
        } else if (action) {
          event.preventDefault();
          action.run();
        }
      });
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
      onSend: (entry) => tickets.set(entry, ++latestRequest),
      onAnswer: taken,
      onRefusal: refused,
      onChange: updateProgress,
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
    let currentShownAt = performance.now();
    const history = []; // [{unit, choice, refused}] of this session, oldest first
    let reviewIndex = null; // index into history while the rater changes an earlier answer
    let server = serverState(initial);
    let confirmedCount = 0; // answers to sent entries so far, to tell a stale progress count
    let progressWanted = false;
    const pendingEntries = new WeakMap(); // outbox entry -> {entry, previous} in the history
    const guard = doubleTapGuard();
    const conflicts = []; // [{origin, data}] waiting for the rater's choice, oldest first
    let elsewhere = false; // this queue is judged in another tab of this browser
    let hiddenMs = 0; // time the tab was hidden since the current item was shown
    let hiddenAt = document.hidden ? performance.now() : null;

    function serverState(data) {
      return { progress: data.progress, overall: data[kind.overall] };
    }

    // ---- Rendering -----------------------------------------------------------------------
    function render(unit, review) {
      el.queryText.textContent = unit.query;
      el.queryDescText.textContent = unit.description || "";
      el.queryDesc.hidden = !unit.description;
      kind.render(unit, review || null);
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

    function showWaiting() {
      root.classList.add("is-waiting");
      kind.disable();
      say(loading);
    }

    function updateProgress() {
      const fresh = outbox.entries.filter((entry) => entry.isNew);
      // Entries kept by an earlier side-by-side page have no `counts`: each of them counted.
      const counting = fresh.filter((entry) => entry.counts !== false);
      const p = server.progress;
      const done = Math.min(p.done + fresh.length, p.assigned);
      meter(el.raterProgress, done, p.assigned);
      el.raterCount.textContent = interpolate(gettext("%(done)s of %(assigned)s done · %(left)s left"), {
        done,
        assigned: p.assigned,
        left: p.assigned - done,
      });
      const o = server.overall;
      const counted = Math.min(o.counted + counting.length, o.needed);
      meter(el.overallProgress, counted, o.needed);
      el.overallCount.textContent = interpolate(gettext("%(counted)s of %(needed)s %(nouns)s"), { counted, needed: o.needed, nouns: kind.nouns });
      showSaveStatus();
    }

    function meter(progress, value, max) {
      progress.max = Math.max(max, 1);
      progress.value = value;
      progress.textContent = interpolate(gettext("%(value)s of %(max)s"), { value, max });
    }

    function showSaveStatus() {
      const waiting = outbox.entries.length;
      const trouble = outbox.trouble;
      let text = waiting ? interpolate(gettext("Saving %(waiting)s…"), { waiting }) : interpolate(gettext("All %(nouns)s saved"), { nouns: kind.nouns });
      if (trouble) text = interpolate(gettext("%(trouble)s %(waiting)s %(nouns)s kept, sending again…"), { trouble, waiting, nouns: kind.nouns });
      el.saveStatus.textContent = text;
      el.saveStatus.classList.toggle("is-trouble", Boolean(trouble));
    }

    // ---- Answering -----------------------------------------------------------------------
    function choose(choice) {
      if (reviewIndex !== null) return change(choice);
      if (!current) return;
      const seconds = secondsOnCurrent();
      const entry = { unit: current, choice, refused: null };
      history.push(entry);
      if (history.length > HISTORY_LIMIT) history.shift();
      answered.add(current.id);
      send({ ...kind.payload(current, choice), seconds }, true, kind.counts(choice), { entry });
      say(interpolate(gettext("Previous %(word)s: %(answer)s."), { word: kind.word, answer: kind.describe(choice) }));
      advance();
    }

    function secondsOnCurrent() {
      const now = performance.now();
      const hidden = hiddenMs + (hiddenAt === null ? 0 : now - hiddenAt);
      const seconds = Math.max(0, now - currentShownAt - hidden) / 1000;
      return Math.min(MAX_SECONDS, Math.round(seconds * 10) / 10);
    }

    function shown() {
      currentShownAt = performance.now();
      hiddenMs = 0;
      hiddenAt = document.hidden ? currentShownAt : null;
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
        shown();
        render(current, null);
        if (previous && previous.query !== current.query) refreshProgress(); // once per query
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
      countConfirmed(entry, data.result);
      const origin = pendingEntries.get(entry);
      if (origin && origin.unskip) forget(origin.entry);
      // An answer that replaced a skip, or a skip undone, moves the counts the page keeps.
      if (!entry.isNew && data.result !== "changed" && data.result !== "unchanged") {
        progressWanted = true;
      }
      receive(data, tickets.get(entry));
      afterAnswer();
    }

    function refused(entry, data) {
      const origin = pendingEntries.get(entry);
      if (data.conflict && origin) {
        conflicts.push({ origin, data });
        showConflict();
      } else if (origin && origin.previous) {
        origin.entry.choice = origin.previous; // a refused change leaves the earlier answer
      } else if (origin && !origin.unskip) {
        origin.entry.refused = data.error; // a refused new answer is not stored
      }
      say(data.error, "error");
      receive(data, tickets.get(entry));
      afterAnswer();
    }

    // ---- Conflicts with an answer stored elsewhere -----------------------------------------
    // The rater sees both answers and keeps one; nothing is replaced without that choice.
    function showConflict() {
      if (!el.conflict || !conflicts.length || !el.conflict.hidden) return;
      const { origin, data } = conflicts[0];
      const stored = data.conflict.stored ? kind.fromStored(data.conflict.stored) : null;
      const mine = origin.entry.choice;
      const theirs = stored ? kind.describe(stored) : gettext("nothing");
      el.conflictText.textContent =
        interpolate(
          gettext(
            "You already answered this %(word)s (“%(query)s”) elsewhere, in another tab or on " +
              "another device: %(theirs)s. This tab sent: %(mine)s."
          ),
          { word: kind.word, query: origin.entry.unit.query, theirs, mine: kind.describe(mine) }
        );
      el.conflictKeep.textContent = interpolate(gettext("Keep %(answer)s"), { answer: theirs });
      el.conflictKeep.hidden = !stored;
      el.conflictMine.textContent = interpolate(gettext("Use %(answer)s"), { answer: kind.describe(mine) });
      el.conflict.hidden = false;
    }

    function settleConflict(useMine) {
      const { origin, data } = conflicts.shift();
      const stored = data.conflict.stored ? kind.fromStored(data.conflict.stored) : null;
      const mine = origin.entry.choice;
      origin.entry.refused = null;
      if (useMine) {
        const payload = { ...kind.payload(origin.entry.unit, mine) };
        if (data.conflict.replaces) payload.replaces = data.conflict.replaces;
        send(payload, false, false, { entry: origin.entry, previous: stored });
        say(interpolate(gettext("Using %(answer)s."), { answer: kind.describe(mine) }));
      } else {
        origin.entry.choice = stored;
        say(interpolate(gettext("Kept %(answer)s."), { answer: kind.describe(stored) }));
      }
      el.conflict.hidden = true;
      showConflict();
      if (reviewIndex !== null) render(history[reviewIndex].unit, history[reviewIndex]);
      else kind.focus.focus({ preventScroll: true });
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
      else if (progressWanted) refreshProgress();
    }

    // An answer that leaves the counting out (it is slow on a big campaign) is counted here
    // until the real counts come, once per query; an answer that carries them replaces these.
    function countConfirmed(entry, result) {
      confirmedCount += 1;
      if (!entry.isNew || (result !== "created" && result !== "skipped")) return;
      server.progress = { ...server.progress, done: server.progress.done + 1 };
      if (entry.counts !== false && result === "created") {
        server.overall = { ...server.overall, counted: server.overall.counted + 1 };
      }
    }

    function refreshProgress() {
      if (!urls.progress) return; // this kind's answers carry the counts
      if (outbox.busy) {
        progressWanted = true; // asked again once the outbox is empty
        return;
      }
      progressWanted = false;
      const mark = confirmedCount;
      request(urls.progress, { method: "GET" })
        .then(({ response, data }) => {
          if (!response.ok || !data || !data.progress) return;
          // An answer sent meanwhile may or may not be in these counts: ask again later.
          if (confirmedCount !== mark || outbox.busy) {
            progressWanted = true;
            return;
          }
          server = serverState(data);
          updateProgress();
        })
        .catch(() => (progressWanted = true));
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
      if (data.progress) server = serverState(data);
      if (!data[kind.units] || ticket !== latestRequest) return;
      const pending = new Set(outbox.entries.map(unitOf));
      upcoming = data[kind.units].filter(
        (unit) => !answered.has(unit.id) && !pending.has(unit.id) && (!current || unit.id !== current.id),
      );
      if (!current && reviewIndex === null && upcoming.length) advance();
      else if (current && reviewIndex === null && kind.upcomingChanged) kind.upcomingChanged();
    }

    // ---- Keys ----------------------------------------------------------------------------
    function onKey(event) {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      if (elsewhere) return;
      const key = keyName(event);
      guard.saw(key);
      if (el.help.open) {
        if (event.key === "?") toggleHelp();
        return; // Esc closes the dialog natively
      }
      if (isTyping(event.target)) {
        if (kind.typingKey) kind.typingKey(event);
        return;
      }
      if (event.repeat) return;
      if (key === "?") return toggleHelp();
      if (key === "Backspace") {
        event.preventDefault();
        return goBack();
      }
      if (key === "Escape") {
        if (reviewIndex !== null) returnToFront();
        return;
      }
      if (key === "u" && reviewIndex !== null && kind.isSkip(history[reviewIndex].choice)) {
        event.preventDefault();
        return undoSkip();
      }
      const action = kind.keyAction(key);
      if (!action) return;
      event.preventDefault(); // arrows would also scroll the page or move a radio choice
      if (action.guarded && !guard.allows(key)) return;
      action.run();
      if (action.guarded) guard.handled(key);
    }

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
      document.addEventListener("visibilitychange", () => {
        const now = performance.now();
        if (document.hidden) hiddenAt = now;
        else if (hiddenAt !== null) {
          hiddenMs += now - hiddenAt;
          hiddenAt = null;
        }
      });
      if (el.conflict) {
        el.conflictKeep.addEventListener("click", () => settleConflict(false));
        el.conflictMine.addEventListener("click", () => settleConflict(true));
      }
      watchOtherTabs();
      if (current) {
        shown();
        render(current, null);
      }
      updateProgress();
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
