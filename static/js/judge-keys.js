/* Keys on the judging screens, used by judge-core.js (loaded after judge-card.js, before
 * judge-core.js): a key's name, whether the rater is typing, the guard against double taps,
 * and the queue page's key dispatch (? help, . long text, Backspace back, Esc return, u undo
 * a skip, then the screen's own keys). No framework, no build step.
 */
(function () {
  "use strict";
  const { toggleLongText } = window.Judging;
  const DOUBLE_TAP_MS = 150;

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

  /* The keydown handler of a queue page. page holds what the keys act on:
   *  - root, el (the screen's elements), kind (the screen's own part: keyAction, typingKey,
   *    isSkip) and toggleHelp;
   *  - elsewhere() whether another tab judges this queue (then no key acts);
   *  - goBack(), returnToFront() and undoSkip(), and review(), the earlier answer under
   *    review or null. */
  function queueKeys(page) {
    const { root, el, kind, toggleHelp } = page;
    const guard = doubleTapGuard();
    return function onKey(event) {
      if (event.defaultPrevented || event.ctrlKey || event.metaKey || event.altKey) return;
      if (page.elsewhere()) return;
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
      if (key === ".") return toggleLongText(root);
      if (key === "Backspace") {
        event.preventDefault();
        return page.goBack();
      }
      if (key === "Escape") {
        if (page.review() !== null) page.returnToFront();
        return;
      }
      const review = page.review();
      if (key === "u" && review !== null && kind.isSkip(review.choice)) {
        event.preventDefault();
        return page.undoSkip();
      }
      const action = kind.keyAction(key);
      if (!action) return;
      event.preventDefault(); // arrows would also scroll the page or move a radio choice
      if (action.guarded && !guard.allows(key)) return;
      action.run();
      if (action.guarded) guard.handled(key);
    };
  }

  window.Judging = { ...window.Judging, keyName, isTyping, queueKeys };
})();
