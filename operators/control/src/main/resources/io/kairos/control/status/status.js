// Renders /api/status into <main id="status"> every REFRESH_MS, the sections the server renders
// (StatusPage.java). Every value is set as text or as an attribute, never parsed as markup: names
// come from control decisions and results, that is from users.
(function () {
  'use strict';

  // An element with attributes and children; a string child becomes a text node.
  function el(tag, attrs, ...children) {
    const e = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  }
  function td(text) { return el('td', {}, String(text)); }
  function num(text) { return el('td', {class: 'n'}, String(text)); }
  function fixed(v, digits) { return v === null || v === undefined ? '-' : v.toFixed(digits); }
  function time(micros) { return new Date(Math.floor(micros / 1000)).toISOString().substring(11, 23); }
  function sortedKeys(o) { return Object.keys(o).sort((a, b) => a < b ? -1 : a > b ? 1 : 0); }
  // As Java's TreeMap prints it: {a=1, b=2}
  function params(o) { return '{' + sortedKeys(o).map(k => k + '=' + o[k]).join(', ') + '}'; }
  function table(cls, headers, rows) {
    const t = el('table', cls ? {class: cls} : {}, el('thead', {}, el('tr', {}, ...headers.map(h => el('th', {}, h)))));
    t.append(el('tbody', {}, ...rows));
    return t;
  }

  function routedTo(plan, group) {
    const models = sortedKeys(plan.routing).filter(m => plan.routing[m] === group);
    if (group === plan.defaultGroup) models.push(Object.keys(plan.routing).length === 0 ? 'every model' : 'every other model');
    return models.length === 0 ? 'none routed here' : models.join(', ');
  }

  function groups(s) {
    const loads = new Map(s.devices.map(l => [l.device, l]));
    const section = el('section', {id: 'groups'}, el('h2', {}, 'Serving groups'));
    for (const g of s.plan.groups) {
      const div = el('div', {class: 'group', 'data-group': g.name}, el('h3', {}, 'group ' + g.name),
        el('p', {class: 'policy'}, 'policy ', el('b', {}, g.policy), ' ' + params(g.params)));
      for (const model of sortedKeys(g.modelParams)) div.append(el('p', {class: 'override'}, 'for ' + model + ': ' + params(g.modelParams[model])));
      for (const model of sortedKeys(g.tables)) div.append(el('p', {class: 'table'}, 'batching table of ' + model + ': ' + g.tables[model]));
      div.append(el('p', {class: 'routed'}, 'models: ' + routedTo(s.plan, g.name)));
      const rows = g.devices.map(d => {
        const l = loads.get(d.slot);
        return el('tr', {'data-device': d.slot}, num(d.slot), d.everyModel ? el('td', {}, el('i', {}, 'every model')) : td(d.models.join(', ')),
          num(l ? l.batches : 0), num(l ? l.requests : 0), num(l ? (100 * l.busyFraction).toFixed(0) + '%' : '0%'),
          num(l ? l.coldStarts : 0), num(l ? l.preempted : 0));
      });
      div.append(table('devices', ['device', 'models', 'batches', 'requests', 'busy', 'cold starts', 'preempted'], rows));
      section.append(div);
    }
    section.append(el('p', {class: 'muted'}, 'Device figures: the last ' + s.deviceWindowSeconds
      + ' s of telemetry; a device in several groups is one device.'));
    return section;
  }

  function routing(plan) {
    const rows = sortedKeys(plan.routing).map(m => el('tr', {}, td(m), td(plan.routing[m])));
    rows.push(el('tr', {}, el('td', {}, el('i', {}, Object.keys(plan.routing).length === 0 ? 'every model' : 'every other model')), td(plan.defaultGroup)));
    return el('section', {id: 'routing'}, el('h2', {}, 'Routing'), table(null, ['model', 'group'], rows));
  }

  function rateRow(r, attrs) {
    return el('tr', attrs, td(r.model), num(r.total), num(r.ok), num(r.late), num(r.dropped), num(r.rejected), num(r.failed),
      num(r.sloAttainment === null ? '-' : (100 * r.sloAttainment).toFixed(2) + '%'),
      num(r.goodputPerSecond.toFixed(1)), num(r.throughputPerSecond.toFixed(1)),
      num(fixed(r.p50Ms, 2)), num(fixed(r.p99Ms, 2)), num(fixed(r.meanBatchSize, 2)));
  }

  function rates(windows) {
    const section = el('section', {id: 'rates'}, el('h2', {}, 'Serving, per model'));
    for (const w of windows) {
      section.append(el('h3', {}, w.name + ' ', el('span', {class: 'muted'}, '(' + w.seconds.toFixed(1) + ' s)')));
      if (w.models.length === 0) {
        section.append(el('p', {class: 'muted'}, 'no results'));
        continue;
      }
      const rows = w.models.map(r => rateRow(r, {}));
      if (w.models.length > 1) rows.push(rateRow(w.all, {class: 'all'}));
      section.append(table('rates', ['model', 'results', 'ok', 'late', 'dropped', 'rejected', 'failed', 'SLO attainment',
        'goodput/s', 'throughput/s', 'p50 ms', 'p99 ms', 'mean batch'], rows));
    }
    section.append(el('p', {class: 'muted'}, 'SLO attainment: OK of all results (dropped and rejected count against it); '
      + 'goodput: OK per second; latency from the client\'s send to the result; mean batch: the batch size the average executed request saw.'));
    return section;
  }

  function decisions(rows) {
    const section = el('section', {id: 'decisions'}, el('h2', {}, 'Last decisions'));
    if (rows.length === 0) {
      section.append(el('p', {class: 'muted'}, 'no decision decided yet'));
      return section;
    }
    section.append(table(null, ['decided (UTC)', 'writer', 'version', 'key', 'outcome', 'reason', 'decision'], rows.map(r =>
      el('tr', {class: r.status}, td(time(r.decidedAtMicros)), td(r.writer), num(r.version), td(r.key),
        el('td', {class: 'status'}, r.status), el('td', {class: 'reason'}, r.reason === null ? '' : r.reason),
        r.action === null ? el('td', {}, el('i', {class: 'muted'}, 'not on the control topic')) : td(r.action)))));
    return section;
  }

  function render(s) {
    const main = el('main', {id: 'status'});
    if (s.warnings.length > 0) main.append(el('section', {id: 'warnings', class: 'warnings'}, el('ul', {}, ...s.warnings.map(w => el('li', {}, w)))));
    main.append(groups(s), routing(s.plan), rates(s.rates), decisions(s.decisions));
    const sources = el('ul', {}, ...s.sources.map(src => el('li', {}, src.role + ' from ' + src.topic + ': ' + src.records + ' records'
      + (src.skipped === 0 ? '' : ', ' + src.skipped + ' skipped')
      + (src.lastReadAtMicros === null ? '' : ', the last at ' + time(src.lastReadAtMicros) + ' UTC'))));
    main.append(el('section', {id: 'sources'}, el('h2', {}, 'Read'), sources,
      el('p', {class: 'muted'}, 'Started at ' + time(s.startedAtMicros) + ' UTC; results and telemetry are counted from then on.')));
    document.getElementById('status').replaceWith(main);
    const refreshed = document.getElementById('refreshed');
    refreshed.className = 'muted';
    refreshed.textContent = 'as of ' + time(s.takenAtMicros) + ' UTC, plan version ' + s.plan.version
      + '; refreshed from /api/status every ' + REFRESH_MS + ' ms';
    document.body.setAttribute('data-rendered-by', 'script');
  }

  async function refresh() {
    try {
      const response = await fetch('/api/status', {cache: 'no-store'});
      if (!response.ok) throw new Error('HTTP ' + response.status);
      render(await response.json());
    } catch (e) {
      const refreshed = document.getElementById('refreshed');
      refreshed.className = 'lost';
      refreshed.textContent = 'the status server does not answer (' + e.message + '); showing what it last sent';
    } finally {
      setTimeout(refresh, REFRESH_MS);
    }
  }
  refresh();
})();
