/* The progress meters of the judging screens and the line saying what is saved, used by
 * judge-core.js (loaded before it). No framework, no build step.
 */
(function () {
  "use strict";
  // Messages in the page's language: the catalogue is /jsi18n/ (Django's JavaScriptCatalog,
  // loaded by base.html); without it the English text stands.
  const gettext = window.gettext || ((text) => text);
  const interpolate = (format, values) => format.replace(/%\((\w+)\)s/g, (_, name) => String(values[name]));

  const { request } = window.Judging;

  /* The rater's and the campaign's meters: the server's last counts plus the new answers
   * still in the outbox. el, the screen's elements; kind, the screen's own part (nouns, and
   * overall, the state's key for the counts over all raters); url, where fresh counts come
   * from (none: this kind's answers carry them); initial, the page's state. */
  function progressMeters({ el, kind, outbox, url, initial }) {
    let server = serverState(initial);
    let confirmedCount = 0; // answers to sent entries so far, to tell a stale progress count
    let wanted = false; // fresh counts are asked for once the outbox is empty

    function serverState(data) {
      return { progress: data.progress, overall: data[kind.overall] };
    }

    function update() {
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

    function refresh() {
      if (!url) return; // this kind's answers carry the counts
      if (outbox.busy) {
        wanted = true; // asked again once the outbox is empty
        return;
      }
      wanted = false;
      const mark = confirmedCount;
      request(url, { method: "GET" })
        .then(({ response, data }) => {
          if (!response.ok || !data || !data.progress) return;
          // An answer sent meanwhile may or may not be in these counts: ask again later.
          if (confirmedCount !== mark || outbox.busy) {
            wanted = true;
            return;
          }
          server = serverState(data);
          update();
        })
        .catch(() => (wanted = true));
    }

    return {
      update,
      countConfirmed,
      refresh,
      want() {
        wanted = true;
      },
      get wanted() {
        return wanted;
      },
      // The counts an answer's reply or the queue brings replace those kept here.
      received(data) {
        if (data.progress) server = serverState(data);
      },
    };
  }

  window.Judging = { ...window.Judging, progressMeters };
})();
