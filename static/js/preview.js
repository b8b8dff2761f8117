// The rater preview (#21) is read only: every answer control is disabled. Without this script
// the forms post to a GET-only page, which refuses them (nothing is stored either way).
(function () {
  "use strict";
  document.querySelectorAll(".judge form button, .judge form input, .judge form textarea, .judge form select")
    .forEach(function (control) { control.disabled = true; });
  document.querySelector(".judge").dataset.ready = "1";
})();
