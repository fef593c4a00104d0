// mockd console: the page's only script (no library, no build step).
//
// Pages are rendered by the server and work as plain links and GET forms.
// This script adds what needs the control plane: a form of class "action"
// is sent to the control plane as JSON through fetch (data-method and
// data-path, relative to the control plane's base), never as a browser
// form, so it meets the control plane's protection (JSON content type,
// same origin). After a change, and while requests come in on the pages
// that follow the journal, the regions marked data-refresh are fetched
// again and swapped in place; focus and open details are kept.
(() => {
  'use strict';

  const body = document.body;
  const controlBase = new URL(body.dataset.control, location.href);
  const rootBase = new URL(body.dataset.root, location.href);
  const status = document.getElementById('status');
  let statusTimer = 0;

  // announce shows a message in the status region (read by screen
  // readers) for a while.
  function announce(text, failed) {
    status.textContent = text;
    status.classList.toggle('failed', Boolean(failed));
    clearTimeout(statusTimer);
    statusTimer = setTimeout(() => { status.textContent = ''; }, failed ? 15000 : 8000);
  }

  class CallError extends Error {
    constructor(message, status, data) {
      super(message);
      this.status = status;
      this.data = data;
    }
  }

  // call sends one control-plane request and returns its JSON answer.
  async function call(method, path, payload, type) {
    const init = { method, credentials: 'same-origin', headers: { Accept: 'application/json' } };
    if (method !== 'GET' && method !== 'DELETE') {
      init.headers['Content-Type'] = type || 'application/json';
      init.body = payload === undefined ? '{}' : payload;
    }
    const res = await fetch(new URL(path, controlBase), init);
    const text = await res.text();
    let data = null;
    try { data = text ? JSON.parse(text) : null; } catch { data = null; }
    if (!res.ok) {
      const msg = (data && data.error) || `${res.status} ${res.statusText}`;
      throw new CallError(msg, res.status, data);
    }
    return data;
  }

  // fill replaces {name} in a message with the answer's field.
  function fill(template, data) {
    return template.replace(/\{(\w+)\}/g, (_, k) => (data && data[k] !== undefined && data[k] !== null ? String(data[k]) : ''));
  }

  // formObject reads a form's named fields into an object: "a.b" nests,
  // data-type="int|float|bool" converts, empty fields are left out
  // (unless data-keep-empty), the submitting button adds its name=value.
  function formObject(form, submitter) {
    const obj = {};
    const set = (name, value) => {
      const keys = name.split('.');
      let o = obj;
      for (const k of keys.slice(0, -1)) o = (o[k] ??= {});
      o[keys[keys.length - 1]] = value;
    };
    for (const el of form.elements) {
      if (!el.name || el.disabled || ['submit', 'button', 'file', 'reset'].includes(el.type)) continue;
      const t = el.dataset.type;
      if (el.type === 'checkbox') {
        if (el.checked) set(el.name, t === 'bool' ? true : el.value);
        continue;
      }
      let v = el.value;
      if (v.trim() === '' && !('keepEmpty' in el.dataset)) continue;
      if (t === 'int') v = Number.parseInt(v, 10);
      else if (t === 'float') v = Number.parseFloat(v);
      set(el.name, v);
    }
    if (submitter && submitter.name) set(submitter.name, submitter.value);
    return obj;
  }

  // composers turn the fields of a form into the body its call takes.
  const composers = {
    // A preset rule: the family comes with the preset, the argument
    // follows its name after a colon.
    preset(obj, form) {
      const opt = form.elements.preset.selectedOptions[0];
      const arg = (obj.arg || '').trim();
      const rule = { match: { ...(obj.match || {}), family: opt.dataset.family }, action: { preset: opt.value + (arg ? `:${arg}` : '') } };
      if (obj.times !== undefined) rule.times = obj.times;
      return rule;
    },
    // An "account/project" choice split in two.
    scope(obj) {
      const [account, project] = String(obj.scope || '').split('/');
      const out = { ...obj, account, project };
      delete out.scope;
      return out;
    },
  };

  function setBusy(el, busy) {
    if (!el) return;
    if (busy) el.setAttribute('aria-busy', 'true'); else el.removeAttribute('aria-busy');
    el.disabled = busy;
  }

  document.addEventListener('submit', async (ev) => {
    const form = ev.target;
    if (!(form instanceof HTMLFormElement) || !form.classList.contains('action')) return; // GET filters: a plain form
    ev.preventDefault();
    if (form.dataset.confirm && !window.confirm(form.dataset.confirm)) return;
    const submitter = ev.submitter || form.querySelector('button[type="submit"], button:not([type])');
    const errBox = form.querySelector('[data-error]');
    if (errBox) { errBox.hidden = true; errBox.textContent = ''; }
    let payload;
    if (form.dataset.body === 'raw') {
      payload = form.elements.body.value;
    } else {
      let obj = formObject(form, submitter);
      const compose = composers[form.dataset.compose];
      if (compose) obj = compose(obj, form);
      payload = JSON.stringify(obj);
    }
    setBusy(submitter, true);
    try {
      const data = await call(form.dataset.method, form.dataset.path, payload);
      setBusy(submitter, false);
      await refresh(); // the message comes once the page shows the change
      announce(fill(form.dataset.done || 'Done.', data));
    } catch (e) {
      setBusy(submitter, false);
      const msg = e instanceof CallError ? e.message : `The call failed: ${e.message}`;
      if (errBox) { errBox.textContent = msg; errBox.hidden = false; }
      announce(`Failed: ${msg}`, true);
    }
  });

  // refresh fetches the page again and swaps its data-refresh regions.
  // Calls while one runs are folded into one more run.
  let running = null;
  let again = false;
  function refresh() {
    if (running) { again = true; return running; }
    running = (async () => {
      do {
        again = false;
        try {
          const res = await fetch(location.href, { credentials: 'same-origin', headers: { Accept: 'text/html' } });
          swap(new DOMParser().parseFromString(await res.text(), 'text/html'));
        } catch (e) {
          announce(`Could not refresh the page: ${e.message}`, true);
        }
      } while (again);
    })().finally(() => { running = null; });
    return running;
  }

  function swap(doc) {
    if (doc.body && doc.body.dataset.journal !== undefined) body.dataset.journal = doc.body.dataset.journal;
    const active = document.activeElement;
    let focusId = active && active.id;
    let focusSummary = false;
    if (!focusId && active && active.tagName === 'SUMMARY' && active.parentElement.id) {
      focusId = active.parentElement.id;
      focusSummary = true;
    }
    let focusRegion = null;
    for (const el of document.querySelectorAll('[data-refresh][id]')) {
      const fresh = doc.getElementById(el.id);
      if (!fresh) continue;
      const open = [...el.querySelectorAll('details[open][id]')].map((d) => d.id);
      if (active && el.contains(active)) focusRegion = el.id;
      el.replaceWith(fresh);
      for (const id of open) {
        const d = document.getElementById(id);
        if (d) d.open = true;
      }
    }
    if (focusRegion === null || document.activeElement === active) return;
    const target = focusId && document.getElementById(focusId);
    if (target) {
      (focusSummary ? target.querySelector('summary') : target).focus();
      return;
    }
    const region = document.getElementById(focusRegion);
    if (region) {
      region.tabIndex = -1;
      region.focus();
    }
  }

  // Pages that follow the journal listen to the console's event stream.
  if (body.dataset.live) {
    const toggle = document.getElementById('live');
    let source = null;
    const start = () => {
      if (source) return;
      source = new EventSource(new URL(body.dataset.live, rootBase));
      // Each event names the newest journal entry; the page knows the one
      // it shows (data-journal), so the first event after a load does not
      // fetch the page again for nothing.
      source.addEventListener('journal', (ev) => {
        if (ev.data !== body.dataset.journal) refresh();
      });
    };
    const stop = () => { if (source) { source.close(); source = null; } };
    if (toggle) {
      toggle.addEventListener('change', () => {
        if (toggle.checked) { start(); announce('Following new requests.'); } else { stop(); announce('Stopped following new requests.'); }
      });
    }
    if (!toggle || toggle.checked) start();
    window.addEventListener('pagehide', stop);
  }

  // The scenario editor: open a file, validate (every problem at its line
  // and column, each a button that selects the place), load.
  const scenarioForm = document.querySelector('form[data-scenario]');
  if (scenarioForm) {
    const text = scenarioForm.elements.yaml;
    const file = document.getElementById('scenario-file');
    const result = document.getElementById('scenario-result');
    const heading = document.getElementById('scenario-problems-h');
    const list = document.getElementById('scenario-problems');

    const goTo = (line, column) => {
      const lines = text.value.split('\n');
      const n = Math.min(Math.max(line, 1), lines.length);
      let start = 0;
      for (let i = 0; i < n - 1; i++) start += lines[i].length + 1;
      text.focus();
      text.setSelectionRange(start + Math.max(0, Math.min(column - 1, lines[n - 1].length)), start + lines[n - 1].length);
      const lineHeight = Number.parseFloat(getComputedStyle(text).lineHeight) || 20;
      text.scrollTop = Math.max(0, (n - 3) * lineHeight);
    };

    const show = (ok, title, problems) => {
      result.hidden = false;
      result.classList.toggle('ok', ok);
      result.classList.toggle('bad', !ok);
      heading.textContent = title;
      list.replaceChildren();
      for (const p of problems || []) {
        const li = document.createElement('li');
        if (p.line > 0) {
          const b = document.createElement('button');
          b.type = 'button';
          b.textContent = `Line ${p.line}, column ${p.column}`;
          b.addEventListener('click', () => goTo(p.line, p.column));
          li.append(b, `: ${p.message}`);
        } else {
          li.textContent = p.message;
        }
        list.append(li);
      }
      text.setAttribute('aria-invalid', ok ? 'false' : 'true');
    };

    const validate = async () => {
      const data = await call('POST', 'scenario/validate', text.value, 'application/yaml');
      if (data.valid) {
        show(true, `Valid: scenario “${data.name || '(unnamed)'}”.`, []);
      } else {
        const n = data.problems.length;
        show(false, `${n} problem${n === 1 ? '' : 's'}: the scenario cannot be loaded.`, data.problems);
      }
      return data.valid;
    };

    const guarded = (fn) => async (ev) => {
      const button = ev.currentTarget;
      setBusy(button, true);
      try {
        await fn();
      } catch (e) {
        show(false, `Failed: ${e.message}`, []);
        announce(`Failed: ${e.message}`, true);
      } finally {
        setBusy(button, false);
        result.focus();
      }
    };

    file.addEventListener('change', async () => {
      const f = file.files[0];
      if (!f) return;
      text.value = await f.text();
      result.hidden = true;
      announce(`Opened ${f.name}: validate or load it.`);
    });
    scenarioForm.querySelector('[data-scenario-validate]').addEventListener('click', guarded(async () => {
      const ok = await validate();
      announce(heading.textContent, !ok);
    }));
    scenarioForm.querySelector('[data-scenario-load]').addEventListener('click', guarded(async () => {
      if (!(await validate())) {
        announce(heading.textContent, true);
        return;
      }
      const data = await call('POST', 'scenario', text.value, 'application/yaml');
      await refresh();
      show(true, `Loaded scenario “${data.name || '(unnamed)'}”: the platform was reset to its initial state.`, []);
      announce(heading.textContent);
    }));
  }
})();
