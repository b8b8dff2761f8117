/* The document card of the judging screens, used by judge-core.js, judge.js and sxs.js (loaded
 * after judge-outbox.js, before judge-core.js): a document put into the campaign's card, the
 * query's words marked, long text shortened with a "Show all". No framework, no build step.
 */
(function () {
  "use strict";
  const gettext = window.gettext || ((text) => text);

  /* ---- Documents as the campaign's card shows them (templates/annotate/_doc_card.html) ----
   * The page holds the card's parts in the campaign's order; fillCard puts one document in
   * them, the same on both screens and both sides. The query's words are marked in titles
   * and snippets when the campaign wants it (data-highlight on the screen): whole words in
   * Latin and other spaced scripts, substrings in Chinese, Japanese and Korean text, which
   * have no spaces to tell words by (runs longer than two characters are matched by their
   * overlapping pairs, as a CJK bigram index would). */
  const CJK_RUN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/u;
  const RUNS = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+|[^\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]+/gu;
  const escapeRegExp = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  const byLength = (a, b) => b.length - a.length;
  let patternFor = { query: null, pattern: null }; // the last query's, reused for its items

  function queryPattern(query) {
    if (patternFor.query === query) return patternFor.pattern;
    const words = new Set();
    const pieces = new Set();
    for (const token of query.toLowerCase().split(/[^\p{L}\p{N}\p{M}]+/u)) {
      for (const run of token.match(RUNS) || []) {
        if (!CJK_RUN.test(run)) {
          if (run.length > 1 || /\p{N}/u.test(run)) words.add(run); // not a lone letter
        } else if (run.length <= 2) {
          pieces.add(run);
        } else {
          for (let i = 0; i + 2 <= run.length; i += 1) pieces.add(run.slice(i, i + 2));
        }
      }
    }
    const parts = [];
    if (words.size) {
      const alternatives = [...words].sort(byLength).map(escapeRegExp).join("|");
      parts.push(`(?<![\\p{L}\\p{N}\\p{M}])(?:${alternatives})(?![\\p{L}\\p{N}\\p{M}])`);
    }
    if (pieces.size) parts.push([...pieces].sort(byLength).map(escapeRegExp).join("|"));
    const pattern = parts.length ? new RegExp(parts.join("|"), "giu") : null;
    patternFor = { query, pattern };
    return pattern;
  }

  // The text in element, with each match of pattern in a <mark> (text nodes only: never HTML).
  function markText(element, text, pattern) {
    if (!pattern) {
      element.textContent = text;
      return;
    }
    const nodes = [];
    let last = 0;
    for (const match of text.matchAll(pattern)) {
      if (!match[0]) continue;
      nodes.push(text.slice(last, match.index));
      const mark = document.createElement("mark");
      mark.className = "term";
      mark.textContent = match[0];
      nodes.push(mark);
      last = match.index + match[0].length;
    }
    nodes.push(text.slice(last));
    element.replaceChildren(...nodes);
  }

  function highlighting(box, query) {
    // A result's copy is filled before it joins the page: then the page's screen decides.
    const screenRoot = box.closest("[data-mode]") || document.querySelector("[data-mode]");
    return screenRoot && screenRoot.dataset.highlight === "on" ? queryPattern(query || "") : null;
  }

  function fillCard(box, doc, query) {
    const pattern = highlighting(box, query);
    const part = (name) => box.querySelector(`[data-part="${name}"]`);
    const title = part("title");
    if (title) {
      const link = title.querySelector("a");
      markText(link, doc.title, pattern);
      if (doc.url) link.href = doc.url;
      else link.removeAttribute("href");
    }
    const url = part("url");
    if (url) {
      url.textContent = doc.url || "";
      url.hidden = !doc.url;
    }
    const text = part("snippet");
    if (text) {
      markText(text.querySelector(".card-clamp"), doc.snippet || "", pattern);
      text.hidden = !doc.snippet;
    }
    const image = part("image");
    if (image) {
      // Only an address the server let through (this site or the campaign's image hosts).
      if (doc.image) image.src = doc.image;
      else image.removeAttribute("src");
      image.hidden = !doc.image;
    }
    const table = part("fields");
    if (table) {
      const rows = (doc.fields || []).map(([name, value]) => {
        const row = document.createElement("tr");
        const head = document.createElement("th");
        head.scope = "row";
        head.textContent = name;
        const cell = document.createElement("td");
        cell.textContent = value;
        row.append(head, cell);
        return row;
      });
      table.tBodies[0].replaceChildren(...rows);
      table.hidden = !rows.length;
    }
  }

  // A page drawn by the server (an earlier answer's page): mark the query's words in place.
  function markPage(scope, query) {
    const pattern = highlighting(scope, query);
    if (!pattern) return;
    scope.querySelectorAll('[data-part="title"] a, .card-clamp').forEach((element) => {
      markText(element, element.textContent, pattern);
    });
  }

  /* Long text is shortened to a few lines (CSS, once this file runs: without JavaScript it
   * shows whole); "Show all" under it, or the . key for every one on the screen, opens it. */
  function setOpen(text, open) {
    text.classList.toggle("is-open", open);
    const button = text.querySelector(".card-more");
    button.setAttribute("aria-expanded", String(open));
    button.textContent = open ? gettext("Show less") : gettext("Show all");
  }

  function clampCheck(scope) {
    const texts = Array.from(scope.querySelectorAll(".card-text"));
    texts.forEach((text) => setOpen(text, false));
    // All the writes above, then all the reads: one layout for the whole screen.
    const long = texts.map((text) => {
      const shown = text.querySelector(".card-clamp");
      return !text.hidden && shown.scrollHeight > shown.clientHeight + 1;
    });
    texts.forEach((text, i) => (text.querySelector(".card-more").hidden = !long[i]));
  }

  function toggleLongText(scope) {
    const long = Array.from(scope.querySelectorAll(".card-text")).filter((text) => !text.querySelector(".card-more").hidden);
    const open = long.some((text) => !text.classList.contains("is-open"));
    long.forEach((text) => setOpen(text, open));
  }

  function clampable(root) {
    root.classList.add("js-clamp");
    root.addEventListener("click", (event) => {
      const button = event.target.closest && event.target.closest(".card-more");
      if (!button) return;
      const text = button.closest(".card-text");
      setOpen(text, !text.classList.contains("is-open"));
    });
    // A picture that does not load leaves no broken-image box.
    root.addEventListener("error", (event) => {
      if (event.target.classList && event.target.classList.contains("card-image")) event.target.hidden = true;
    }, true);
  }

  window.Judging = {
    ...window.Judging,
    fillCard,
    queryPattern,
    markPage,
    clampCheck,
    toggleLongText,
    clampable,
  };
})();
