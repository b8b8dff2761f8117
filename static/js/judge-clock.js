/* The time a rater spends on each answer, used by judge-core.js (loaded before it). No
 * framework, no build step.
 */
(function () {
  "use strict";
  // Seconds per answer (DESIGN.md section 6): from the moment the item is shown (not when it
  // was prefetched) to the answer, leaving out the time the tab was hidden, at most ten
  // minutes (the server caps it the same way).
  const MAX_SECONDS = 600;

  /* A clock for the item on show: shown() when it appears, seconds() when it is answered;
   * listen() from when the page takes answers, to leave out the time the tab is hidden. */
  function answerClock() {
    let shownAt = performance.now();
    let hiddenMs = 0; // time the tab was hidden since the current item was shown
    let hiddenAt = document.hidden ? performance.now() : null;
    return {
      shown() {
        shownAt = performance.now();
        hiddenMs = 0;
        hiddenAt = document.hidden ? shownAt : null;
      },
      seconds() {
        const now = performance.now();
        const hidden = hiddenMs + (hiddenAt === null ? 0 : now - hiddenAt);
        const seconds = Math.max(0, now - shownAt - hidden) / 1000;
        return Math.min(MAX_SECONDS, Math.round(seconds * 10) / 10);
      },
      listen() {
        document.addEventListener("visibilitychange", () => {
          const now = performance.now();
          if (document.hidden) hiddenAt = now;
          else if (hiddenAt !== null) {
            hiddenMs += now - hiddenAt;
            hiddenAt = null;
          }
        });
      },
    };
  }

  window.Judging = { ...window.Judging, answerClock };
})();
