// Documents shown as the raters saw them outside the judging screens (the adjudication page,
// #21): the same card, long text shortened to a few lines with a "Show all" to open it
// (judge-card.js, loaded first).
(function () {
  "use strict";
  const judging = window.Judging;
  document.querySelectorAll("[data-cards]").forEach(function (root) {
    judging.clampable(root);
    judging.clampCheck(root);
  });
})();
