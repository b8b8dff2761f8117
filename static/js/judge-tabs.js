/* The lock that keeps a queue to one tab of this browser (tabLock), used by judge-core.js
 * (loaded before it). No framework, no build step.
 */
(function () {
  "use strict";
  const TAB_BEAT_MS = 1000;
  const TAB_STALE_MS = 3500;

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

  window.Judging = { ...window.Judging, tabLock };
})();
