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

  // As DeviceLoads.Load#coldStartsText: 3 (mlp 2, resnet 1), or 0.
  function coldStarts(l) {
    if (!l || l.coldStarts === 0) return '0';
    const byModel = l.coldStartsByModel || {};
    return l.coldStarts + ' (' + sortedKeys(byModel).map(m => m + ' ' + byModel[m]).join(', ') + ')';
  }

  // As DeviceLoads.Load#loadsText: 2 (resnet 2), with ", 1 failed" where some failed.
  function loadsText(l) {
    if (!l) return '0';
    const byModel = l.loadsByModel || {};
    const all = Object.values(byModel).reduce((a, b) => a + b, 0);
    const text = all === 0 ? '0' : all + ' (' + sortedKeys(byModel).map(m => m + ' ' + byModel[m]).join(', ') + ')';
    return l.loadsFailed === 0 ? text : text + ', ' + l.loadsFailed + ' failed';
  }

  function groups(s) {
    const loads = new Map(s.devices.map(l => [l.device, l]));
    const section = el('section', {id: 'groups'}, el('h2', {}, 'Serving groups'));
    for (const g of s.plan.groups) {
      const div = el('div', {class: 'group', 'data-group': g.name}, el('h3', {}, 'group ' + g.name),
        el('p', {class: 'policy'}, 'policy ', el('b', {}, g.policy), ' ' + params(g.params)));
      for (const model of sortedKeys(g.modelParams)) div.append(el('p', {class: 'override'}, 'for ' + model + ': ' + params(g.modelParams[model])));
      for (const model of sortedKeys(g.tables)) div.append(el('p', {class: 'table'}, 'batching table of ' + model + ': ' + g.tables[model]));
      if (g.network) div.append(el('p', {class: 'network'}, 'rl network: ' + g.network));
      div.append(el('p', {class: 'routed'}, 'models: ' + routedTo(s.plan, g.name)));
      const rows = g.devices.map(d => {
        const l = loads.get(d.slot);
        return el('tr', {'data-device': d.slot}, num(d.slot), d.everyModel ? el('td', {}, el('i', {}, 'every model')) : td(d.models.join(', ')),
          num(l ? l.batches : 0), num(l ? l.requests : 0), num(l ? (100 * l.busyFraction).toFixed(0) + '%' : '0%'),
          num(coldStarts(l)), num(loadsText(l)), num(l ? l.unloads : 0), num(l ? l.preempted : 0));
      });
      div.append(table('devices', ['device', 'models', 'batches', 'requests', 'busy', 'cold starts', 'loads', 'unloads', 'preempted'], rows));
      section.append(div);
    }
    const released = s.plan.released || [];
    section.append(el('p', {id: 'released'}, released.length === 0 ? 'Released devices: none (every device holds a model).'
      : 'Released devices (holding nothing, no cost): ' + released.map(d => d.hardwareType == null ? String(d.slot) : d.slot + ' (' + d.hardwareType + ')').join(', ') + '.'));
    section.append(el('p', {class: 'muted'}, 'Device figures: the last ' + s.deviceWindowSeconds
      + ' s of telemetry; a device in several groups is one device.'));
    return section;
  }

  function routing(plan) {
    const rows = sortedKeys(plan.routing).map(m => el('tr', {}, td(m), td(plan.routing[m])));
    rows.push(el('tr', {}, el('td', {}, el('i', {}, Object.keys(plan.routing).length === 0 ? 'every model' : 'every other model')), td(plan.defaultGroup)));
    return el('section', {id: 'routing'}, el('h2', {}, 'Routing'), table(null, ['model', 'group'], rows));
  }
  function pipelines(plan) {
    const list = plan.pipelines || [];
    if (list.length === 0) return el('section', {id: 'pipelines'}, el('h2', {}, 'Pipelines'), el('p', {class: 'muted'}, 'none'));
    const rows = list.map(p => el('tr', {'data-pipeline': p.id}, td(p.id), num(String(p.sloP99Ms)), td(p.stages.join(', ')),
      p.edges.length === 0 ? el('td', {}, el('i', {}, 'none')) : td(p.edges.join(', '))));
    return el('section', {id: 'pipelines'}, el('h2', {}, 'Pipelines'), table(null, ['pipeline', 'SLO p99 ms', 'stages', 'edges'], rows));
  }

  // The charts, as SvgChart.java and StatusPage.charts draw them on the server.
  const SVG = 'http://www.w3.org/2000/svg';
  const COLOURS = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac'];
  const C = {width: 440, left: 50, right: 14, top: 26, plotHeight: 140, row: 15, legendName: 40, reach: 4};
  const MINUTE_MICROS = 60000000;
  function svg(tag, attrs, ...children) {
    const e = document.createElementNS(SVG, tag);
    for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
    for (const c of children) if (c !== null && c !== undefined) e.append(c);
    return e;
  }
  function niceStep(raw) {
    const e = Math.floor(Math.log10(raw));
    const f = raw / Math.pow(10, e);
    const m = f <= 1 ? 1 : f <= 2 ? 2 : f <= 2.5 ? 2.5 : f <= 5 ? 5 : 10;
    return m * Math.pow(10, e);
  }
  function decimals(step) {
    const e = Math.floor(Math.log10(step) + 1e-9);
    const m = step / Math.pow(10, e);
    return Math.max(0, -e + (Math.abs(m - 2.5) < 1e-9 ? 1 : 0));
  }
  function shortName(name) { return name.length <= C.legendName ? name : name.substring(0, C.legendName - 1) + '\u2026'; }
  function number(v) { return Number.isInteger(v) ? String(v) : v.toFixed(1); }
  function latest(values, unit) {
    for (let i = values.length - 1; i >= 0; i--) if (values[i] !== null) return values[i].toFixed(1) + unit;
    return '-';
  }

  // axis: {floorAtMost, fixedMax (null: from the values)}; lines: {name, colour, values, latest}; references: {label, colour, value}
  function chart(id, title, axis, from, to, xs, lines, references, empty, rows) {
    let dataMin = Infinity, dataMax = -Infinity;
    for (const l of lines) for (const v of l.values) if (v !== null) { dataMin = Math.min(dataMin, v); dataMax = Math.max(dataMax, v); }
    const hasData = dataMax >= dataMin;
    let lo = hasData ? Math.min(axis.floorAtMost, dataMin) : axis.floorAtMost;
    let hi = hasData ? dataMax : lo;
    if (axis.fixedMax !== null) hi = axis.fixedMax;
    else for (const r of references) if (hasData && r.value <= C.reach * dataMax) hi = Math.max(hi, r.value);
    if (hi <= lo) hi = lo + 1;
    const step = niceStep((hi - lo) / 4);
    lo = Math.floor(lo / step + 1e-9) * step;
    hi = Math.ceil(hi / step - 1e-9) * step;
    const plotWidth = C.width - C.left - C.right;
    const height = C.top + C.plotHeight + 24 + Math.max(1, rows, lines.length + references.length) * C.row + 4;
    const x = t => (C.left + (to <= from ? 1 : (t - from) / (to - from)) * plotWidth).toFixed(1);
    const y = v => (C.top + C.plotHeight - (v - lo) / (hi - lo) * C.plotHeight).toFixed(1);

    const root = svg('svg', {class: 'chart', id: id, width: C.width, height: height, viewBox: '0 0 ' + C.width + ' ' + height,
      role: 'img', 'aria-label': title, 'font-size': 11});
    root.append(svg('text', {class: 'title', x: C.left, y: 16, 'font-size': 13, 'font-weight': 'bold', fill: '#222'}, title));
    const yAxis = svg('g', {class: 'y-axis', fill: '#555', 'text-anchor': 'end'});
    const places = decimals(step);
    for (let i = 0; lo + i * step <= hi + step * 1e-9; i++) {
      const v = lo + i * step;
      yAxis.append(svg('line', {x1: C.left, x2: C.left + plotWidth, y1: y(v), y2: y(v), stroke: '#e6e6e6'}),
        svg('text', {x: C.left - 6, y: y(v), dy: 4}, v.toFixed(places)));
    }
    const xAxis = svg('g', {class: 'x-axis', fill: '#555', 'text-anchor': 'middle'});
    for (let t = Math.floor(from / MINUTE_MICROS) * MINUTE_MICROS + MINUTE_MICROS; t <= to; t += MINUTE_MICROS) {
      xAxis.append(svg('line', {x1: x(t), x2: x(t), y1: C.top, y2: C.top + C.plotHeight, stroke: '#e6e6e6'}),
        svg('text', {x: x(t), y: C.top + C.plotHeight + 14}, new Date(t / 1000).toISOString().substring(11, 16)));
    }
    root.append(yAxis, xAxis, svg('rect', {x: C.left, y: C.top, width: plotWidth, height: C.plotHeight, fill: 'none', stroke: '#bbb'}));
    if (!hasData) {
      root.append(svg('text', {class: 'empty', x: C.left + Math.floor(plotWidth / 2), y: C.top + C.plotHeight / 2, 'text-anchor': 'middle',
        fill: '#777'}, empty));
    }
    for (const r of references) {
      if (!hasData || r.value > hi) continue;
      root.append(svg('line', {class: 'reference', x1: C.left, x2: C.left + plotWidth, y1: y(r.value), y2: y(r.value), stroke: r.colour,
        'stroke-width': 1.5, 'stroke-dasharray': '6 4'}));
    }
    for (const l of lines) {
      const g = svg('g', {class: 'series', 'data-model': l.name, stroke: l.colour, fill: l.colour});
      const points = [], dots = [];
      for (let i = 0; i < l.values.length && i < xs.length; i++) {
        if (l.values[i] === null) continue;
        points.push(x(xs[i]) + ',' + y(l.values[i]));
        dots.push(svg('circle', {cx: x(xs[i]), cy: y(l.values[i]), r: 1.8, stroke: 'none'}));
      }
      g.append(svg('polyline', {points: points.join(' '), fill: 'none', 'stroke-width': 2, 'stroke-linejoin': 'round'}), ...dots);
      root.append(g);
    }
    const legend = svg('g', {class: 'legend', 'font-size': 12, fill: '#222'});
    let row = C.top + C.plotHeight + 24 + 10;
    function entry(colour, dashes, name, note) {
      const line = svg('line', {x1: C.left, x2: C.left + 18, y1: row - 4, y2: row - 4, stroke: colour, 'stroke-width': dashes === null ? 3 : 1.5});
      if (dashes !== null) line.setAttribute('stroke-dasharray', dashes);
      const text = svg('text', {x: C.left + 24, y: row});
      if (name.length > C.legendName) text.append(svg('title', {}, name));
      text.append(shortName(name));
      if (note !== null) text.append(svg('tspan', {fill: '#777'}, '  ' + note));
      legend.append(svg('g', {class: 'entry'}, line, text));
      row += C.row;
    }
    for (const l of lines) entry(l.colour, null, l.name, l.latest);
    for (const r of references) entry(r.colour, '6 4', r.label, hasData && r.value > hi ? 'above the chart' : null);
    root.append(legend);
    return root;
  }

  function span(series) {
    const seconds = series.buckets * series.bucketSeconds;
    return seconds % 60 === 0 ? seconds / 60 + (seconds === 60 ? ' minute' : ' minutes') : seconds + ' s';
  }

  function charts(s) {
    const series = s.series, ends = series.endsAtMicros;
    const to = ends.length === 0 ? s.takenAtMicros : ends[ends.length - 1];
    const from = to - series.buckets * series.bucketSeconds * 1000000;
    const noBucket = 'the first ' + series.bucketSeconds + ' s are not over yet';
    const attainment = [], goodput = [], p99 = [];
    const bySlo = new Map();
    series.models.forEach((m, i) => {
      const colour = COLOURS[i % COLOURS.length];
      const percent = m.sloAttainment.map(v => v === null ? null : 100 * v);
      attainment.push({name: m.model, colour: colour, values: percent, latest: latest(percent, '%')});
      goodput.push({name: m.model, colour: colour, values: m.goodputPerSecond, latest: latest(m.goodputPerSecond, '/s')});
      p99.push({name: m.model, colour: colour, values: m.p99Ms, latest: latest(m.p99Ms, ' ms')});
      if (m.sloMs !== null) {
        if (!bySlo.has(m.sloMs)) bySlo.set(m.sloMs, []);
        bySlo.get(m.sloMs).push(i);
      }
    });
    const slos = [...bySlo.keys()].sort((a, b) => a - b).map(slo => {
      const models = bySlo.get(slo);
      const label = 'SLO ' + number(slo) + ' ms';
      if (bySlo.size === 1 && models.length === series.models.length) return {label: label, colour: '#555', value: slo};
      return {label: label + ': ' + models.map(i => series.models[i].model).join(', '),
        colour: models.length === 1 ? COLOURS[models[0] % COLOURS.length] : '#555', value: slo};
    });
    const rows = series.models.length + slos.length;
    return el('section', {id: 'charts'}, el('h2', {}, 'Last ' + span(series) + ', per model'),
      el('div', {class: 'charts'},
        chart('chart-attainment', 'SLO attainment, %', {floorAtMost: 90, fixedMax: 100}, from, to, ends, attainment, [],
          ends.length === 0 ? noBucket : 'no results', rows),
        chart('chart-goodput', 'Goodput, requests/s within their SLO', {floorAtMost: 0, fixedMax: null}, from, to, ends, goodput, [],
          ends.length === 0 ? noBucket : 'no results', rows),
        chart('chart-p99', 'p99 latency, ms', {floorAtMost: 0, fixedMax: null}, from, to, ends, p99, slos,
          ends.length === 0 ? noBucket : 'no request served', rows)),
      el('p', {class: 'muted'}, 'Each point is one ' + series.bucketSeconds + ' s of results, drawn at its end (UTC) once it is over; '
        + 'a model without results in it has no point there. SLO attainment: OK of all results; goodput: OK per second; '
        + 'p99: of the served requests.'));
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

  // As StatusPage#modelActions: the latest loads and unloads, newest first, with why.
  function modelActions(rows) {
    const section = el('section', {id: 'loads'}, el('h2', {}, 'Last model loads'));
    if (rows.length === 0) {
      section.append(el('p', {class: 'muted'}, 'no model loaded or unloaded by the scheduler yet (a model\'s first batch loads it)'));
      return section;
    }
    section.append(table(null, ['done (UTC)', 'group', 'device', 'model', 'action', 'why'], rows.map(r => {
      let why = r.why === null ? '' : r.why;
      if (r.error !== null) why = why === '' ? r.error : why + '; ' + r.error;
      return el('tr', {class: r.error === null ? 'ok' : 'failed'}, td(time(r.endedAtMicros)), td(r.group), num(r.device), td(r.model),
        el('td', {class: 'status'}, !r.load ? 'unload' : r.error === null ? 'load' : 'load failed'), el('td', {class: 'reason'}, why));
    })));
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
    main.append(charts(s), groups(s), modelActions(s.modelActions), routing(s.plan), pipelines(s.plan), rates(s.rates), decisions(s.decisions));
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
