// The rater preview (#21) is read only: every answer control is disabled. Without this script
// the forms post to a GET-only page, which refuses them (nothing is stored either way).
// The documents look as raters see them (judge-card.js, loaded first): the query's words
// marked, long text shortened with its "Show all", and the . key that opens it.
(function () {
  "use strict";
  const root = document.querySelector(".judge");
  const { markPage, clampable, clampCheck, toggleLongText } = window.Judging;
  // "Show all" sits inside the side-by-side form: it only opens text, so it stays usable.
  root.querySelectorAll("form button:not(.card-more), form input, form textarea, form select")
    .forEach(function (control) { control.disabled = true; });
  clampable(root);
  markPage(root, document.getElementById("query-text").textContent);
  clampCheck(root);
  document.addEventListener("keydown", function (event) {
    if (event.key === "." && !event.ctrlKey && !event.metaKey && !event.altKey) toggleLongText(root);
  });
  root.dataset.ready = "1";
})();
