// claudeops dashboard: the few behaviours htmx does not give by itself, for every page.
//
// Each is switched on by a data attribute in a template, so a plugin's page gets it by writing
// the attribute; nothing here knows about memories or any other feature.
//
//   Flash messages (#flash, and [data-flash] anywhere): a close button; they go by themselves,
//     notices after FLASH_NOTICE_MS, errors after FLASH_ERROR_MS, held while hovered or focused.
//   Focus survives htmx swaps: the focused element is found again by its id after the swap; an
//     element with data-refocus="#id" sends focus there instead, and data-refocus="next-row"
//     to the same control of the next (or previous) table row when its own row goes away.
//   [data-escape="#id"]: Escape inside it clicks #id (Cancel of an inline editor).
//   [data-needs-selection="selector"]: disabled until a checkbox matching selector is checked;
//     with data-confirm-one / data-confirm-many ("… {count} …") it asks with the count.
//   [data-select-all="selector"]: a checkbox that checks or clears every box matching selector.
//   [data-unsent]: becomes data-unsent="yes" once the control's value changed; the swap that
//     sends it replaces the control (a poll of its table waits for it meanwhile).
//   form[data-sync-url]: after Back or Forward its fields show the URL's query, not the
//     choices of the page htmx restored from its history cache.
//   [data-focus-on-load]: focused when the page loads (the row just added).
(function () {
  "use strict";

  const FLASH_NOTICE_MS = 8000;
  const FLASH_ERROR_MS = 20000;
  const FADE_MS = 300;
  const reducedMotion = window.matchMedia("(prefers-reduced-motion: reduce)");

  // ------------------------------------------------------------------ flash messages

  function dismiss(message) {
    if (!message.isConnected) return;
    const focusWasInside = message.contains(document.activeElement);
    const remove = () => {
      message.remove();
      if (focusWasInside) document.getElementById("main")?.focus();
    };
    if (reducedMotion.matches) {
      remove();
    } else {
      message.classList.add("leaving");
      setTimeout(remove, FADE_MS);
    }
  }

  function armFlash(message) {
    if (message.dataset.armed) return;
    message.dataset.armed = "yes";
    const close = document.createElement("button");
    close.type = "button";
    close.className = "close";
    close.setAttribute("aria-label", "Close this message");
    close.textContent = "×";
    close.addEventListener("click", () => dismiss(message));
    message.appendChild(close);
    const lifetime = message.matches(".error, [role=alert]") ? FLASH_ERROR_MS : FLASH_NOTICE_MS;
    let timer = null;
    const start = () => { timer = setTimeout(() => dismiss(message), lifetime); };
    const hold = () => { clearTimeout(timer); };
    message.addEventListener("mouseenter", hold);
    message.addEventListener("focusin", hold);
    message.addEventListener("mouseleave", () => { if (!message.contains(document.activeElement)) start(); });
    message.addEventListener("focusout", (event) => { if (!message.contains(event.relatedTarget)) start(); });
    start();
  }

  function armFlashes(root) {
    root.querySelectorAll("#flash > *, [data-flash]").forEach(armFlash);
  }

  // ------------------------------------------------------------------ focus across swaps

  let wantedFocus = null;

  function rowNeighbourId(element) {
    const row = element.closest("tr");
    const name = element.dataset.rowControl;
    if (!row || !name) return null;
    for (const neighbour of [row.nextElementSibling, row.previousElementSibling]) {
      const control = neighbour?.querySelector(`[data-row-control="${name}"]`);
      if (control?.id) return control.id;
    }
    return null;
  }

  document.addEventListener("htmx:beforeRequest", (event) => {
    const source = event.detail.elt;
    const refocus = source.dataset?.refocus;
    if (refocus === "next-row") wantedFocus = rowNeighbourId(source) || wantedFocus;
    else if (refocus) wantedFocus = refocus.replace(/^#/, "");
  });

  document.addEventListener("htmx:beforeSwap", (event) => {
    const active = document.activeElement;
    if (!wantedFocus && active && active.id && event.detail.target?.contains(active)) wantedFocus = active.id;
  });

  document.addEventListener("htmx:afterRequest", (event) => {
    if (!event.detail.successful) wantedFocus = null; // an error lands in #flash; focus stays where it is
  });

  function focusLost() {
    const active = document.activeElement;
    return !active || active === document.body || !active.isConnected || active.disabled;
  }

  function restoreFocus() {
    if (!wantedFocus) return;
    if (!focusLost()) {
      if (document.activeElement.id === wantedFocus) wantedFocus = null;
      return; // the user has moved on: never pull focus away from them
    }
    const target = document.getElementById(wantedFocus);
    if (target && !target.disabled) {
      target.focus();
      wantedFocus = null;
    }
  }

  // ------------------------------------------------------------------ Escape cancels

  document.addEventListener("keydown", (event) => {
    if (event.key !== "Escape") return;
    const scope = event.target.closest?.("[data-escape]");
    if (!scope) return;
    const cancel = document.querySelector(scope.dataset.escape);
    if (cancel) {
      event.preventDefault();
      cancel.click();
    }
  });

  // ------------------------------------------------------------------ selections

  function updateSelectionButtons() {
    document.querySelectorAll("[data-needs-selection]").forEach((button) => {
      const count = document.querySelectorAll(`${button.dataset.needsSelection}:checked`).length;
      button.disabled = count === 0;
      const template = count === 1 ? button.dataset.confirmOne : button.dataset.confirmMany;
      if (template) button.setAttribute("hx-confirm", template.replace("{count}", String(count)));
    });
    document.querySelectorAll("[data-select-all]").forEach((box) => {
      const boxes = document.querySelectorAll(box.dataset.selectAll);
      const checked = document.querySelectorAll(`${box.dataset.selectAll}:checked`).length;
      box.checked = boxes.length > 0 && checked === boxes.length;
      box.indeterminate = checked > 0 && checked < boxes.length;
    });
  }

  document.addEventListener("change", (event) => {
    const box = event.target;
    if (box.matches?.("[data-select-all]")) {
      document.querySelectorAll(box.dataset.selectAll).forEach((each) => { each.checked = box.checked; });
    }
    if (box.matches?.("input[type=checkbox]")) updateSelectionButtons();
  });

  // ------------------------------------------------------------------ unsent changes

  document.addEventListener("input", (event) => {
    if (event.target.matches?.("[data-unsent]")) event.target.dataset.unsent = "yes";
  });

  // ------------------------------------------------------------------ filters after Back

  function syncFormsWithUrl() {
    const query = new URLSearchParams(location.search);
    document.querySelectorAll("form[data-sync-url]").forEach((form) => {
      form.querySelectorAll("select[name], input[name]:not([type=hidden])").forEach((field) => {
        const value = query.get(field.name);
        if (field.tagName === "SELECT") {
          const option = value === null ? null : [...field.options].find((each) => each.value === value);
          field.selectedIndex = option ? option.index : 0;
        } else {
          field.value = value ?? "";
        }
      });
    });
  }

  document.addEventListener("htmx:historyRestore", syncFormsWithUrl);
  window.addEventListener("pageshow", (event) => { if (event.persisted) syncFormsWithUrl(); });

  // ------------------------------------------------------------------ start

  document.addEventListener("htmx:afterSettle", (event) => {
    armFlashes(document);
    if (event.detail.target?.id !== "flash") updateSelectionButtons();
    restoreFocus();
  });

  function start() {
    armFlashes(document);
    updateSelectionButtons();
  }

  // After "load": the browser's jump to the URL's #fragment happens before it and takes the focus away.
  window.addEventListener("load", () => { document.querySelector("[data-focus-on-load]")?.focus(); });

  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", start);
  else start();
})();
