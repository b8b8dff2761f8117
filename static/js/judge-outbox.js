/* The judging screens' outbox, used by judge-core.js on both kinds of screen: answers
 * (grades, side-by-side verdicts) wait here, kept in localStorage, until the server has
 * answered them.
 *
 * One request at a time, in the order given. A network error, a 5xx, an ended sign-in or a
 * stale CSRF token keep the answer and send it again later with the same payload (the server
 * stores an answer once, however often it arrives). A 4xx refusal is final: the answer is
 * dropped and the screen says why. The stored entries ({payload, isNew, counts}, oldest first,
 * under the key the page gives) keep their format: answers waiting in a rater's browser from
 * an earlier version of the page are sent all the same, and those under the key pages used
 * before handles (legacyKey, given only while the rater holds such answers' leases) are moved
 * under the new key. No framework, no build step.
 */
(function () {
  "use strict";
  // Messages in the page's language: the catalogue is /jsi18n/ (Django's JavaScriptCatalog,
  // loaded by base.html); without it the English text stands.
  const gettext = window.gettext || ((text) => text);
  const interpolate = (format, values) => format.replace(/%\((\w+)\)s/g, (_, name) => String(values[name]));

  function csrfToken() {
    // The cookie follows a token rotation (signing in again in another tab); the form's copy
    // is the fallback.
    const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    if (match) return decodeURIComponent(match[1]);
    const field = document.querySelector("input[name=csrfmiddlewaretoken]");
    return field ? field.value : "";
  }

  /* fetch, answering {response, data}; data is null unless the answer is JSON (a CSRF
   * failure or a proxy's error page is not). */
  async function request(url, options) {
    const response = await fetch(url, {
      credentials: "same-origin",
      headers: {
        Accept: "application/json",
        "Content-Type": "application/json",
        "X-CSRFToken": csrfToken(),
      },
      ...options,
    });
    const type = response.headers.get("Content-Type") || "";
    const data = type.includes("application/json") ? await response.json() : null;
    return { response, data };
  }

  /* onSend(entry) as each attempt starts, onAnswer(entry, data) when the server took an entry,
   * onRefusal(entry, data) when it refused it for good, onChange() whenever what is waiting
   * (or why) changed. */
  function createOutbox({ url, storageKey, legacyKey, onSend, onAnswer, onRefusal, onChange }) {
    // Answers saved before handles replaced ids wait under the old key (which named the
    // rater); they are older than anything under the new one, so they go first, once.
    const entries = [...load(legacyKey), ...load(storageKey)];
    if (legacyKey) {
      try {
        window.localStorage.removeItem(legacyKey);
      } catch (error) {
        /* private mode */
      }
      if (entries.length) save();
    }
    let sending = false;
    let retryDelay = 0;
    let retryTimer = null;
    let trouble = "";

    function load(key) {
      if (!key) return [];
      try {
        const saved = JSON.parse(window.localStorage.getItem(key) || "[]");
        return Array.isArray(saved) ? saved.filter((entry) => entry && entry.payload) : [];
      } catch (error) {
        return [];
      }
    }

    function save() {
      try {
        if (entries.length) window.localStorage.setItem(storageKey, JSON.stringify(entries));
        else window.localStorage.removeItem(storageKey);
      } catch (error) {
        /* private mode: the outbox lives in memory only */
      }
    }

    function push(entry) {
      entries.push(entry);
      save();
      onChange();
      pump();
    }

    async function pump() {
      if (sending || !entries.length) return;
      sending = true;
      clearTimeout(retryTimer);
      const entry = entries[0];
      let settled = null; // [handler, data] once the server has decided
      try {
        // onSend may add fields of the moment (what the page holds now), never stored.
        const extra = onSend ? onSend(entry) : null;
        const body = JSON.stringify(extra ? { ...entry.payload, ...extra } : entry.payload);
        const { response, data } = await request(url, { method: "POST", body });
        const status = response.status;
        if (response.ok && data) settled = [onAnswer, data];
        else if (data && status >= 400 && status < 500 && status !== 401) settled = [onRefusal, data];
        else if (status === 401 || status === 403) {
          retryLater(gettext("Your sign-in ended: sign in again in another tab."), 10000);
        } else retryLater(gettext("The server had a problem."));
      } catch (networkError) {
        retryLater(gettext("Connection lost."));
      }
      if (settled) {
        entries.shift();
        retryDelay = 0;
        trouble = "";
      }
      save();
      sending = false;
      try {
        if (settled) settled[0](entry, settled[1]);
        onChange();
      } finally {
        if (settled) pump(); // a fault in the screen must not stall the answers behind
      }
    }

    function retryLater(why, delay) {
      trouble = why;
      retryDelay = delay || Math.min(retryDelay ? retryDelay * 2 : 1000, 15000);
      retryTimer = setTimeout(pump, retryDelay);
    }

    window.addEventListener("online", pump);
    return {
      entries,
      push,
      pump,
      get busy() {
        return sending || entries.length > 0;
      },
      get trouble() {
        return entries.length ? trouble : "";
      },
    };
  }

  window.Judging = { ...window.Judging, request, createOutbox };
})();
