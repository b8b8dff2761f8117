/* The panel for an answer another tab or device stored first, used by judge-core.js (loaded
 * before it). No framework, no build step.
 */
(function () {
  "use strict";
  // Messages in the page's language: the catalogue is /jsi18n/ (Django's JavaScriptCatalog,
  // loaded by base.html); without it the English text stands.
  const gettext = window.gettext || ((text) => text);
  const interpolate = (format, values) => format.replace(/%\((\w+)\)s/g, (_, name) => String(values[name]));

  /* Conflicts with an answer stored elsewhere: the rater sees both answers and keeps one;
   * nothing is replaced without that choice. el, the screen's elements; kind, the screen's
   * own part; send(payload, isNew, counts, origin) sends through the outbox; settled() once
   * the rater has chosen. */
  function conflictPanel({ el, kind, say, send, settled }) {
    const conflicts = []; // [{origin, data}] waiting for the rater's choice, oldest first

    function show() {
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

    function settle(useMine) {
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
      show();
      settled();
    }

    return {
      add(origin, data) {
        conflicts.push({ origin, data });
        show();
      },
      settle,
    };
  }

  window.Judging = { ...window.Judging, conflictPanel };
})();
