// The suite's touches to Locust's own page (run/webpages.py adds this file to it): Locust's
// React front end draws a tab's cells as text and a custom parameter's label from its name
// split at every digit. This makes a cell that is one of the suite's addresses a link, and
// gives a label its field's name as written. It sets text and attributes only, never HTML.
(() => {
  "use strict";
  const ADDRESS = /\/suite\/[A-Za-z0-9._\/-]*[A-Za-z0-9_\/-](\?[A-Za-z0-9=&._-]*)?/g;
  // What Locust's page makes of a name: a space wherever a lower-case letter or a digit meets an
  // upper-case letter or a digit, and its first letter in capitals.
  const drawn = (name) =>
    name.replace(/([a-z0-9])([A-Z0-9])/g, "$1 $2").replace(/^./, (c) => c.toUpperCase());

  // A cell's text with each of the suite's addresses in it a link.
  function linkCells(root) {
    for (const cell of root.querySelectorAll("td")) {
      const text = cell.textContent;
      if (cell.querySelector("a") || !text.includes("/suite/")) continue;
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
      if (parts.length) cell.replaceChildren(...parts, text.slice(last));
    }
  }

  function nameLabels(root) {
    for (const input of root.querySelectorAll("input[name][id]")) {
      const label = root.querySelector(`label[for="${CSS.escape(input.id)}"]`);
      const shown = drawn(input.name);
      if (!label || shown === input.name) continue;
      const first = label.firstChild;
      if (first && first.nodeType === Node.TEXT_NODE && first.data.startsWith(shown)) {
        first.data = input.name + first.data.slice(shown.length);
      }
    }
  }

  function touch() {
    linkCells(document);
    nameLabels(document);
  }

  new MutationObserver(touch).observe(document.documentElement, {
    childList: true,
    subtree: true,
    characterData: true,
  });
  touch();
})();
