// The jobs page, kept current without a reload: poll status.json and rewrite each row's
// cells (as text, never markup). New jobs reload the page once so they get their forms.
(function () {
  "use strict";
  // Messages in the page's language: the catalogue is /jsi18n/ (Django's JavaScriptCatalog,
  // loaded by base.html); without it the English text stands.
  const gettext = window.gettext || ((text) => text);
  const ngettext = window.ngettext || ((one, many, n) => (n === 1 ? one : many));
  const interpolate = (format, values) => format.replace(/%\((\w+)\)s/g, (_, name) => String(values[name]));
  const table = document.getElementById("jobs");
  if (!table) return;
  const url = table.dataset.statusUrl;
  const number = new Intl.NumberFormat();

  function left(seconds) {
    if (seconds === null || seconds === undefined) return "";
    if (seconds < 60) return interpolate(gettext("%(s)s s"), { s: Math.ceil(seconds) });
    return interpolate(gettext("%(m)s min %(s)s s"), { m: Math.floor(seconds / 60), s: Math.ceil(seconds % 60) });
  }

  function update(row, job) {
    const set = (name, text) => {
      const cell = row.querySelector('[data-field="' + name + '"]');
      if (cell) cell.textContent = text;
    };
    const stopping = job.cancel_requested && !job.finished;
    set("state", stopping ? interpolate(gettext("%(state)s (stopping)"), { state: job.state_label }) : job.state_label);
    set("count", number.format(job.done) + " / " + number.format(job.total) + " " + job.unit_label);
    set("rate", job.rate ? interpolate(gettext("%(n)s %(unit)s/s"), { n: number.format(job.rate), unit: job.unit_label }) : "");
    set("left", left(job.seconds_left));
    const warnings = job.warnings && job.warnings.length ? " " + job.warnings.join(" ") : "";
    set("outcome", job.error || (job.outcome ? job.outcome + warnings : ""));
    const bar = row.querySelector('[data-field="bar"]');
    if (bar) {
      bar.max = Math.max(job.total, 1);
      bar.value = job.finished && job.state === "succeeded" ? bar.max : job.done;
    }
    const cancel = row.querySelector('[data-field="cancel"]');
    if (cancel && job.finished) cancel.remove();
  }

  async function poll() {
    try {
      const response = await fetch(url, { headers: { Accept: "application/json" } });
      if (response.ok) {
        const data = await response.json();
        const workers = document.getElementById("workers");
        if (workers) workers.textContent = interpolate(ngettext("%(n)s worker running.", "%(n)s workers running.", data.workers), { n: data.workers });
        for (const job of data.jobs) {
          const row = table.querySelector('tr[data-job="' + job.id + '"]');
          if (row) update(row, job);
          else { window.location.reload(); return; }
        }
      }
    } catch (error) {
      // A failed poll (server restarting) is retried at the next tick.
    }
    window.setTimeout(poll, busy() ? 500 : 2000);
  }

  // While a job waits or runs, twice a second: a fast import reads its lines in a few seconds,
  // and its bar should be seen moving; otherwise every two seconds.
  // (an unfinished job's row is the one with a cancel button).
  function busy() {
    return table.querySelector('[data-field="cancel"]') !== null;
  }
  window.setTimeout(poll, 500);
})();
