/* The side-by-side screen, keyboard first (DESIGN.md section 6): its rendering and its key
 * map. Left arrow or A: left better; Down arrow or S: about the same; Right arrow or D: right
 * better. 1 / 2 / 3 choose how much better (slightly, clearly, much) before the arrow, and the
 * same number again clears it; R writes a reason; X: can't judge; N: skip (U undoes it, on an
 * earlier skipped task); changing an answer clears the old reason. Backspace, Esc, ?, the queue, the history,
 * the progress and the outbox are the shared core's (judge-core.js, judge-outbox.js).
 * The client never knows which side is which: it sends only the side the rater preferred.
 * The page works without this file (every button posts the form). No framework, no build step.
 */
(function () {
  "use strict";
  // Messages in the page's language: the catalogue is /jsi18n/ (Django's JavaScriptCatalog,
  // loaded by base.html); without it the English text stands.
  const gettext = window.gettext || ((text) => text);
  const interpolate = (format, values) => format.replace(/%\((\w+)\)s/g, (_, name) => String(values[name]));

  const root = document.getElementById("sxs");
  if (!root) return;

  const $ = (id) => document.getElementById(id);
  const el = {
    sides: $("sides"),
    form: $("sxs-form"),
    taskField: $("task-field"),
    reason: $("reason"),
  };
  const buttons = {
    left: $("choose-left"),
    same: $("choose-same"),
    right: $("choose-right"),
    cant_judge: $("cant-judge-button"),
    skip: $("skip-button"),
  };
  const unskipButton = $("unskip-button"); // the page of an earlier, skipped task
  const CHOICE_KEYS = {
    ArrowLeft: "left",
    a: "left",
    ArrowDown: "same",
    s: "same",
    ArrowRight: "right",
    d: "right",
    x: "cant_judge",
    n: "skip",
  };
  const STRENGTH_KEYS = { 1: 1, 2: 2, 3: 3 };
  const WORDS = {
    left: gettext("Left better"),
    same: gettext("About the same"),
    right: gettext("Right better"),
    cant_judge: gettext("Can't judge"),
    skip: gettext("Skipped"),
  };
  const SIDES = ["left", "same", "right"];
  const STRENGTH_WORDS = { 1: gettext("slightly"), 2: gettext("clearly"), 3: gettext("much") };

  function describe(choice) {
    const sided = choice.chosen === "left" || choice.chosen === "right";
    const strength = sided && choice.strength ? ` (${STRENGTH_WORDS[choice.strength]})` : "";
    return WORDS[choice.chosen] + strength;
  }

  // ---- Strength -------------------------------------------------------------------------
  function strengthValue() {
    const checked = el.form.querySelector("input[name=strength]:checked");
    return checked && checked.value ? Number(checked.value) : null;
  }

  function setStrength(n) {
    const radio = $(`strength-${n || 0}`);
    if (radio) radio.checked = true;
  }

  function toggleStrength(n) {
    const next = strengthValue() === n ? null : n;
    setStrength(next);
    page.say(next ? interpolate(gettext("How much better: %(strength)s. Now choose a side."), { strength: STRENGTH_WORDS[next] })
        : gettext("Strength cleared."));
  }

  // ---- A document on both sides: hovering one lights up its twin -------------------------
  function pairHighlight(event, on) {
    const item = event.target.closest && event.target.closest(".sxs-result.is-shared");
    if (!item) return;
    el.sides
      .querySelectorAll(`.sxs-result[data-pair="${item.dataset.pair}"]`)
      .forEach((twin) => twin.classList.toggle("is-paired", on));
  }
  el.sides.addEventListener("mouseover", (event) => pairHighlight(event, true));
  el.sides.addEventListener("mouseout", (event) => pairHighlight(event, false));

  // ---- Keys, on both pages: the same map ------------------------------------------------
  function keyAction(key) {
    const chosen = CHOICE_KEYS[key];
    if (chosen) {
      // An answer: a double tap must not answer the task that just appeared, unread.
      return {
        guarded: true,
        run: () => {
          if (buttons[chosen] && !buttons[chosen].disabled) choose(chosen);
        },
      };
    }
    if (STRENGTH_KEYS[key]) return { run: () => toggleStrength(STRENGTH_KEYS[key]) };
    if (key === "r") return { run: () => el.reason.focus() };
    if (key === "u" && unskipButton) return { run: () => unskipButton.click() };
    return null;
  }

  const page = window.Judging.screen(root);
  let screen = null; // the queue, on the queue page; the change page posts its form instead
  if (root.dataset.mode === "change" || root.dataset.mode === "quiz") {
    page.changePage(keyAction);
    return;
  }

  screen = page.queue({
    stateId: "sxs-state",
    unit: "task", // the payload's key for what is answered
    units: "tasks", // the state's list of held tasks
    overall: "overall", // the state's counts over all raters
    word: gettext("task"),
    words: gettext("tasks"),
    nouns: gettext("answers"),
    firstInSession: gettext("This is the first task of this session."),
    scrollAnchor: root,
    focus: el.sides,
    render,
    banner: (review) =>
      review.choice.chosen === "skip"
        ? gettext("You skipped this task. Choose a side (or X) to answer it, U to undo the skip, or Esc to return.")
        : interpolate(gettext("Changing an earlier answer (now %(answer)s). Choose again to change it, or Esc to return."), {
            answer: describe(review.choice),
          }),
    describe,
    disable: () => Object.values(buttons).forEach((button) => button && (button.disabled = true)),
    payload: (task, choice) => {
      if (choice.chosen === "skip") return { task: task.id, action: "skip" };
      return { task: task.id, chosen: choice.chosen, strength: choice.strength, reason: choice.reason };
    },
    counts: (choice) => SIDES.includes(choice.chosen), // can't-judge and skips count toward nothing
    same: (a, b) => a.chosen === b.chosen && a.strength === b.strength && a.reason === b.reason,
    token: (choice) => (choice.strength && SIDES.includes(choice.chosen) ? `${choice.chosen}:${choice.strength}` : choice.chosen),
    fromStored: (stored) =>
      stored.skipped ? { chosen: "skip" } : { chosen: stored.chosen, strength: stored.strength || null, reason: "" },
    isSkip: (choice) => choice.chosen === "skip",
    unskip: (task) => ({ task: task.id, action: "unskip" }),
    keyAction,
    typingKey: (event) => {
      if (event.target === el.reason && (event.key === "Escape" || event.key === "Enter")) {
        event.preventDefault();
        el.sides.focus({ preventScroll: true });
      }
    },
  });
  if (!screen) return;

  // ---- Rendering -------------------------------------------------------------------------
  // Each result is a copy of the page's template (the campaign's card), filled by the core.
  const resultTemplate = $("result-template");

  function renderSide(side, docs, query) {
    const list = $(`results-${side}`);
    const other = side === "left" ? "right" : "left";
    list.replaceChildren(
      ...docs.map((doc, index) => {
        const item = resultTemplate.content.firstElementChild.cloneNode(true);
        window.Judging.fillCard(item, doc, query);
        if (doc.pair) {
          item.classList.add("is-shared");
          item.dataset.pair = String(doc.pair);
        }
        // Only a result that moved says where it is on the other side; one at the same place
        // lights up with its twin when pointed at, and needs no words.
        if (doc.pair && doc.twin !== index + 1) {
          const twin = document.createElement("span");
          twin.className = "sxs-twin";
          twin.textContent = interpolate(other === "right" ? gettext("#%(twin)s on the right") : gettext("#%(twin)s on the left"), { twin: doc.twin });
          item.prepend(twin);
        }
        return item;
      }),
    );
    $(`empty-${side}`).hidden = docs.length > 0;
  }

  function render(task, review) {
    renderSide("left", task.left, task.query);
    renderSide("right", task.right, task.query);
    el.taskField.value = task.id;
    const reviewing = Boolean(review);
    const locked = reviewing && Boolean(review.refused);
    setStrength(reviewing ? review.choice.strength : null);
    el.reason.value = reviewing ? review.choice.reason || "" : "";
    Object.entries(buttons).forEach(([chosen, button]) => {
      if (!button) return;
      button.disabled = locked || (chosen === "skip" && reviewing);
      button.classList.remove("is-chosen");
      if (reviewing) button.setAttribute("aria-pressed", String(review.choice.chosen === chosen));
      else button.removeAttribute("aria-pressed");
    });
  }

  // ---- Answering -------------------------------------------------------------------------
  function choose(chosen) {
    if (!screen) {
      buttons[chosen].click();
      return;
    }
    if (!screen.reviewing && screen.current) buttons[chosen].classList.add("is-chosen");
    if (chosen === "skip") {
      screen.choose({ chosen });
      return;
    }
    let reason = el.reason.value.trim();
    const review = screen.review;
    // A reason belongs to its answer: another answer starts without the old one, unless the
    // rater wrote a new one.
    const cleared = review && review.choice.chosen !== chosen && reason && reason === (review.choice.reason || "");
    if (cleared) reason = "";
    screen.choose({ chosen, strength: SIDES.includes(chosen) && chosen !== "same" ? strengthValue() : null, reason });
    if (cleared) {
      screen.say(interpolate(gettext("Changed to %(answer)s; the earlier reason was cleared: it was about the other answer."), { answer: WORDS[chosen] }), "warning");
    }
  }

  el.form.addEventListener("submit", (event) => {
    event.preventDefault();
    const button = event.submitter;
    if (!button || button.disabled) return;
    if (button.name === "chosen") choose(button.value);
    else if (button.value === "cant_judge" || button.value === "skip") choose(button.value);
  });

  screen.start();
})();
