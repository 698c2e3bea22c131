// The suite's touches to Locust's own page (run/webpages.py adds this file to it). Locust's
// React front end draws a tab's cells as text, a custom parameter's label as its name split at
// every digit with its help after it (cut to one line), and every custom parameter whatever the
// profile. Here: each of the suite's addresses in a cell is a link; a field's label is its name
// as written, with its help whole below it; make run's form shows the picked profile's fields
// only (templateArgs.suite_fields, core/start_form.read_by), Users and Ramp-up for manual
// only, not Locust's own "profile", and keeps the profile picked last when NEW (or a reload)
// draws the form again; a refusal marks the field it names. It sets text, attributes and styles
// only, never HTML, and never moves or removes a node React made.
(() => {
  "use strict";
  const ADDRESS = /\/suite\/[A-Za-z0-9._\/-]*[A-Za-z0-9_\/-](\?[A-Za-z0-9=&._-]*)?/g;
  const FIELDS = (window.templateArgs || {}).suite_fields || null;
  const NAMES = new Set(FIELDS ? Object.values(FIELDS).flat() : []);
  // The custom parameters: Locust's own fields (Host, Profile, ...) keep Locust's labels.
  const CUSTOM = new Set(Object.keys((window.templateArgs || {}).extra_options || {}));
  const LOCUSTS = ["userCount", "spawnRate"]; // what only the manual profile reads
  const KEPT = "suite-profile";
  // Locust's "profile" (--profile, a label grouping its test runs): a field its form always has.
  const LOCUST_PROFILE = "profile";
  // What Locust's page makes of a name: a space wherever a lower-case letter or a digit meets an
  // upper-case letter or a digit, and its first letter in capitals.
  const drawn = (name) =>
    name.replace(/([a-z0-9])([A-Z0-9])/g, "$1 $2").replace(/^./, (c) => c.toUpperCase());

  // A cell's text with each of the suite's addresses in it a link. React keeps the cell's text
  // node and writes to it again: that node stays where it is, emptied, and the text is shown in
  // a span of ours beside it (moving or removing React's node breaks its next update).
  const standsFor = new WeakMap(); // our span -> the text nodes of React's it was made from

  function linkCells(root) {
    for (const cell of root.querySelectorAll("td")) {
      const own = [...cell.childNodes].filter((node) => node.nodeType === Node.TEXT_NODE);
      const text = own.map((node) => node.data).join("");
      const kept = cell.querySelector(":scope > span.suite-links");
      // React wrote the cell again (its rows are keyed by place, so a row's cells may be
      // another row's now): what was shown goes. A new text is written into React's node; an
      // empty one removes that node (the † row's value, where "every run" was a poll before).
      if (kept && (text || !standsFor.get(kept).every((node) => node.parentNode === cell))) kept.remove();
      if (!text.includes("/suite/")) continue;
      const parts = [];
      let last = 0;
      for (const found of text.matchAll(ADDRESS)) {
        parts.push(text.slice(last, found.index));
        const link = document.createElement("a");
        link.href = found[0];
        link.textContent = found[0];
        parts.push(link);
        last = found.index + found[0].length;
      }
      if (!parts.length) continue;
      const shown = document.createElement("span");
      shown.className = "suite-links";
      shown.replaceChildren(...parts, text.slice(last));
      cell.append(shown);
      standsFor.set(shown, own);
      for (const node of own) node.data = "";
    }
  }

  // "EDX2 01 5_WAIT_SCALE (help)" becomes the label EDX2015_WAIT_SCALE, its help below the field.
  function nameLabels(root) {
    for (const field of root.querySelectorAll("input[name][id], select[name][id]")) {
      if (!CUSTOM.has(field.name)) continue;
      const label = root.querySelector(`label[for="${CSS.escape(field.id)}"]`);
      const first = label && label.firstChild;
      const shown = drawn(field.name);
      if (!first || first.nodeType !== Node.TEXT_NODE) continue;
      // Written once: setting a text, even to what it was, wakes the observer again.
      if (first.data === field.name || !first.data.startsWith(shown)) continue;
      if (!NAMES.has(field.name)) {
        if (shown !== field.name) first.data = field.name + first.data.slice(shown.length);
        continue;
      }
      const help = first.data.slice(shown.length).trim().replace(/^\((.*)\)$/s, "$1");
      first.data = field.name;
      const box = field.closest(".MuiFormControl-root");
      const notch = box && box.querySelector("fieldset legend > span"); // the border's gap
      if (notch && notch.firstChild && notch.firstChild.nodeType === Node.TEXT_NODE) {
        notch.firstChild.data = field.name;
      }
      if (!help || !box || box.querySelector(".suite-hint")) continue;
      const hint = document.createElement("p");
      hint.className = "suite-hint";
      hint.textContent = help;
      hint.style.cssText = "margin:4px 14px 0;font-size:0.8rem;opacity:0.75;line-height:1.4";
      box.append(hint);
    }
  }

  function boxOf(form, name) {
    const field = form.querySelector(`[name="${CSS.escape(name)}"]`);
    return field && field.closest(".MuiFormControl-root");
  }

  // The picked profile's fields only; Locust's users and ramp-up for manual only.
  function showPicked(select) {
    const wanted = FIELDS[select.value];
    if (!wanted || !select.form) return;
    for (const name of NAMES) {
      const box = boxOf(select.form, name);
      if (box) box.style.display = wanted.includes(name) ? "" : "none";
    }
    for (const name of LOCUSTS) {
      const box = boxOf(select.form, name);
      if (box) box.style.display = select.value === "manual" ? "" : "none";
    }
  }

  // Locust's own "profile" sits in Advanced options right above the suite's PROFILE, which is
  // what picks a run's profile here: it is hidden.
  function hideLocustsProfile(root) {
    for (const field of root.querySelectorAll(`input[name="${LOCUST_PROFILE}"]`)) {
      const box = field.closest(".MuiAutocomplete-root") || field.closest(".MuiFormControl-root");
      if (box) box.style.display = "none";
    }
  }

  // Nor posted (/swarm refuses it here: run/control.py). Locust's form posts every field with a
  // name, read when it is submitted; React sets the name again whenever it draws the field, so
  // the name goes as the form is submitted, before React's own handler (on its root) reads it.
  document.addEventListener(
    "submit",
    (event) => {
      if (!FIELDS || !(event.target instanceof HTMLFormElement)) return;
      for (const field of event.target.querySelectorAll(`input[name="${LOCUST_PROFILE}"]`)) {
        field.removeAttribute("name");
      }
    },
    true,
  );

  function profileForms(root) {
    if (!FIELDS) return;
    hideLocustsProfile(root);
    for (const select of root.querySelectorAll("select[name=PROFILE]")) {
      if (!select.dataset.suiteKept) {
        select.dataset.suiteKept = "1";
        const kept = sessionStorage.getItem(KEPT);
        if (kept && [...select.options].some((o) => o.value === kept)) select.value = kept;
      }
      showPicked(select);
    }
  }

  document.addEventListener("change", (event) => {
    const target = event.target;
    if (!FIELDS || !(target instanceof HTMLSelectElement) || target.name !== "PROFILE") return;
    sessionStorage.setItem(KEPT, target.value);
    showPicked(target);
  });

  // A refusal names its field first ("DURATION: expects ..."), and Locust shows it at the foot
  // of its form, below the fold of a long one. The field it names is marked invalid, the words
  // repeated under it, and it is scrolled to and focused; typing in it clears the mark.
  const NAMED = /^([A-Z][A-Z0-9_]*): /;
  const shownFor = new WeakMap(); // Locust's alert -> the refusal marked for it

  function markRefusals(root) {
    const select = root.querySelector("select[name=PROFILE]");
    if (!FIELDS || !select || !select.form) return;
    for (const alert of root.querySelectorAll("[role=alert]")) {
      const text = alert.textContent.trim();
      const named = NAMED.exec(text);
      if (shownFor.get(alert) === text || !named) continue;
      shownFor.set(alert, text);
      const box = boxOf(select.form, named[1]);
      const field = box && box.querySelector(`[name="${CSS.escape(named[1])}"]`);
      if (!field || box.style.display === "none") continue;
      let note = box.querySelector(":scope > .suite-error");
      if (!note) {
        note = document.createElement("p");
        note.className = "suite-error";
        note.setAttribute("role", "status");
        note.style.cssText = "margin:4px 14px 0;font-size:0.85rem;color:#d32f2f;line-height:1.4";
        box.append(note);
      }
      note.textContent = text;
      field.setAttribute("aria-invalid", "true");
      field.scrollIntoView({ block: "center" });
      field.focus();
    }
  }

  document.addEventListener("input", (event) => {
    const field = event.target;
    if (!(field instanceof HTMLInputElement) || field.getAttribute("aria-invalid") !== "true") return;
    const box = field.closest(".MuiFormControl-root");
    const note = box && box.querySelector(":scope > .suite-error");
    if (!note) return; // Locust's own mark, not the suite's
    field.removeAttribute("aria-invalid");
    note.remove();
  });

  function touch() {
    linkCells(document);
    nameLabels(document);
    profileForms(document);
    markRefusals(document);
  }

  new MutationObserver(touch).observe(document.documentElement, {
    childList: true,
    subtree: true,
    characterData: true,
  });
  touch();
})();
