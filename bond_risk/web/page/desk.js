/* bond_risk desk — read-only browser page served by the gateway.
 *
 * Model: one EventSource on `stream?ladder=<selected>` delivers JSON messages.
 * State is kept in a Map keyed by book id (plus totals, the ladder and the
 * last 50 events); every message is merged into that state and rendered at once.
 *  - A `full` message replaces the state: rows it lacks are dropped.
 *  - Otherwise only the listed rows are touched: their cells are rewritten in
 *    place (Map id -> <tr>) and flash when the shown text changes. The table is
 *    re-sorted only when the sort column changed or rows came or went.
 *  - Missing fields mean "no change"; a bad message is skipped, never thrown.
 *  - `positions` (the selected outright book's largest trades by |pv01|, as
 *    the engine's top-positions replies them) replaces the positions table
 *    whole; its rows are kept by trade id so that changed cells flash.
 *  - `pnl_explain` (the selected book's and the total's P&L explain by cause)
 *    redraws the two waterfalls: each cause's move from the day's start,
 *    then day_pnl.
 *  - `risk_limits` (the worst limits and the count in each state) redraws the
 *    limits panel: a utilization bar per limit, breaches in red; `alerts`
 *    (limits' changes of state) join the event feed, in red, after their event.
 * Selecting a book closes the stream and opens a new one for that book.
 */
'use strict';
(function () {
  const params = new URLSearchParams(location.search);
  const token = params.get('token');
  const tokenSuffix = token ? '&token=' + encodeURIComponent(token) : '';

  const FIELDS = ['name', 'type', 'status', 'pv', 'pv01', 'cs01', 'pnl', 'margin', 'mtm_pnl', 'day_pnl', 'members'];
  const NUMERIC = new Set(['pv', 'pv01', 'cs01', 'pnl', 'margin', 'mtm_pnl', 'day_pnl', 'members']);
  // The positions table's cells: [field, its value in a top-positions entry].
  const POSITION_FIELDS = [
    ['trade', (p) => p.trade.id], ['bond', (p) => p.bond.id], ['settlement_date', (p) => p.bond.settlement_date],
    ['pv01', (p) => p.trade.pv01], ['cs01', (p) => p.trade.cs01],
    ['clean_price', (p) => p.bond.clean_price], ['yield', (p) => p.bond.yield], ['quote_yield', (p) => p.bond.quote_yield],
    ['modified_duration', (p) => p.bond.modified_duration], ['z_spread', (p) => p.bond.z_spread],
  ];
  const fmt2 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  const fmt3 = new Intl.NumberFormat('en-US', { minimumFractionDigits: 3, maximumFractionDigits: 3 });
  const fmtBp = new Intl.NumberFormat('en-US', { minimumFractionDigits: 1, maximumFractionDigits: 1 });
  const fmt0 = new Intl.NumberFormat('en-US', { maximumFractionDigits: 0 });
  const fmt1 = new Intl.NumberFormat('en-US', { maximumFractionDigits: 1 });
  // An axis tick: millions and up compact (60M: a narrow chart keeps its labels), whole numbers as such,
  // a fraction (an axis spanning less than a few units) to two places.
  const fmtCompact = new Intl.NumberFormat('en-US', { notation: 'compact', maximumFractionDigits: 1 });
  const tick = (v) => (Math.abs(v) >= 1e6 ? fmtCompact : Number.isInteger(v) ? fmt0 : fmt2).format(v);
  const MAX_EVENTS = 50;

  const books = new Map();   // id -> latest row object from the stream
  const rowEls = new Map();  // id -> <tr>
  const positionEls = new Map();  // trade id -> <tr> of the positions table
  let selected = params.get('book') || '';
  let sortKey = 'name', sortDir = 1;
  let es = null, reopenTimer = null;
  let events = [];
  let chart = null, chartKey = '';
  const waterfalls = new Map();  // canvas id -> its Chart

  const $ = (id) => document.getElementById(id);
  const tbody = $('books-body');
  const positionsBody = $('positions-body');
  const banner = $('banner');

  // ---- formatting -------------------------------------------------------
  const pad = (n, w) => String(n).padStart(w || 2, '0');
  function clock(d, withMs) {
    let s = pad(d.getHours()) + ':' + pad(d.getMinutes()) + ':' + pad(d.getSeconds());
    return withMs ? s + '.' + pad(d.getMilliseconds(), 3) : s;
  }
  const isNum = (v) => typeof v === 'number' && isFinite(v);
  // Quote analytics: per 100 nominal; yields and z_spread are rates (0.0123 = 1.23% = 123bp). A bond
  // without a market convention settles today and has no settlement_date (an empty cell).
  const FORMAT = {
    clean_price: (v) => fmt3.format(v),
    yield: (v) => fmt3.format(v * 100) + '%',
    quote_yield: (v) => fmt3.format(v * 100) + '%',
    modified_duration: (v) => fmt2.format(v),
    z_spread: (v) => fmtBp.format(v * 1e4) + 'bp',
  };
  function fmtValue(field, v) {
    if (v === undefined || v === null) return '';
    if (FORMAT[field] && isNum(v)) return FORMAT[field](v);
    // Books run to hundreds of millions: whole units (the tooltip of a ladder bar has the cents).
    if (NUMERIC.has(field) && isNum(v)) return fmt0.format(v);
    if (field === 'type') return String(v).replace(/_book$/, '');  // outright, repo
    return String(v);
  }
  // days_forward -> "0D", "1M", "3M", "1Y", "18M", "10Y", ...
  function tenor(days) {
    const d = Number(days);
    if (!isFinite(d)) return '?';
    if (d < 28) return Math.round(d) + 'D';
    const m = Math.round(d / 30.4375);
    if (m < 12) return m + 'M';
    if (m % 12 === 0) return (m / 12) + 'Y';
    if (m < 36) return m + 'M';
    return Math.round(d / 365.25) + 'Y';
  }
  function safe(fn) {
    try { fn(); } catch (e) { console.error('desk: render step failed', e); }
  }

  // ---- cells --------------------------------------------------------------
  // Write a cell; if its text changed and it showed a number before, flash it.
  // Toggling `alt` swaps to an identical keyframe set, which restarts the animation.
  function setCell(td, field, v, flash) {
    const text = fmtValue(field, v);
    if (td.textContent === text) return;
    const old = td._v;
    td.textContent = text;
    td._v = v;
    if (flash && isNum(old) && isNum(v) && v !== old) {
      td.classList.remove('up', 'down');
      td.classList.add(v > old ? 'up' : 'down');
      td.classList.toggle('alt');
    }
  }

  // ---- books table --------------------------------------------------------
  function makeRow(id) {
    const tr = document.createElement('tr');
    tr.dataset.id = id;
    for (const f of FIELDS) {
      const td = document.createElement('td');
      td.dataset.field = f;
      if (NUMERIC.has(f)) td.className = 'num';
      tr.appendChild(td);
    }
    return tr;
  }

  function updateRow(tr, b, flash) {
    tr.dataset.book = b.name == null ? '' : b.name;
    const cells = tr.children;
    for (let i = 0; i < FIELDS.length; i++) setCell(cells[i], FIELDS[i], b[FIELDS[i]], flash);
    const bad = b.status != null && b.status !== 'OK';
    tr.classList.toggle('bad', bad);
    cells[FIELDS.indexOf('name')].title = b.name == null ? '' : b.name;  // whole, where the column cuts it
    cells[FIELDS.indexOf('status')].title = bad && b.reason ? b.reason : '';
    cells[FIELDS.indexOf('cs01')].title = b.unquoted ? b.unquoted + ' OK trades on unquoted bonds (no cs01)' : '';
    cells[FIELDS.indexOf('members')].title = b.excluded ? 'excluded: ' + b.excluded : '';
    tr.classList.toggle('selected', tr.dataset.book === selected && selected !== '');
  }

  function removeBook(id) {
    if (rowEls.has(id)) rowEls.get(id).remove();
    rowEls.delete(id);
    books.delete(id);
  }

  // Returns true when the table needs re-sorting.
  function applyRows(rows, full) {
    let resort = !!full;
    const seen = new Set();
    for (const r of Array.isArray(rows) ? rows : []) {
      if (!r || typeof r !== 'object' || r.id === undefined || r.id === null) continue;
      const prev = books.get(r.id);
      const b = full || !prev ? r : Object.assign({}, prev, r);
      books.set(r.id, b);
      seen.add(r.id);
      let tr = rowEls.get(r.id);
      if (!tr) {
        rowEls.set(r.id, tr = tbody.appendChild(makeRow(r.id)));
        resort = true;
      } else if (!prev || prev[sortKey] !== b[sortKey]) {
        resort = true;
      }
      updateRow(tr, b, !!prev);
    }
    if (full) {
      for (const id of Array.from(books.keys())) if (!seen.has(id)) removeBook(id);
    }
    return resort;
  }

  // Names with numbers in them sort as people read them: BOOK_2 before BOOK_10.
  function byText(a, b) { return String(a).localeCompare(String(b), 'en', { numeric: true }); }

  function compare(a, b) {
    const va = a[sortKey], vb = b[sortKey];
    const ma = va === undefined || va === null || va === '';
    const mb = vb === undefined || vb === null || vb === '';
    let c = 0;
    if (ma || mb) c = ma && mb ? 0 : (ma ? 1 : -1);   // blanks always last
    else if (isNum(va) && isNum(vb)) c = (va - vb) * sortDir;
    else c = byText(va, vb) * sortDir;
    return c || byText(a.name || '', b.name || '');
  }

  function sortRows() {
    const frag = document.createDocumentFragment();
    for (const b of Array.from(books.values()).sort(compare)) {
      const tr = rowEls.get(b.id);
      if (tr) frag.appendChild(tr);
    }
    tbody.appendChild(frag);
    for (const th of document.querySelectorAll('#books thead th[data-sort]')) {
      const on = th.dataset.sort === sortKey;
      th.classList.toggle('asc', on && sortDir > 0);
      th.classList.toggle('desc', on && sortDir < 0);
      th.setAttribute('aria-sort', on ? (sortDir > 0 ? 'ascending' : 'descending') : 'none');
    }
  }

  function renderTotals(t) {
    if (!t || typeof t !== 'object') return;
    const o = t.outright || {}, r = t.repo || {};
    const cell = (f) => document.querySelector('#totals td[data-field="' + f + '"]');
    // Sums over the OK books: how many went in, and how many were left out.
    cell('name').textContent = 'Total';
    const ok = (o.books || 0) + (r.books || 0);
    cell('status').textContent = ok + ' OK' + (t.not_ok ? ' · ' + t.not_ok + ' left out' : '') +
      (t.complete === false ? ' · ' + t.missing + ' without values: incomplete' : '');
    cell('status').title = (o.books || 0) + ' outright and ' + (r.books || 0) + ' repo books summed';
    for (const f of ['pv', 'pv01', 'cs01', 'pnl']) if (f in o) setCell(cell(f), f, o[f], true);
    for (const f of ['margin', 'mtm_pnl']) if (f in r) setCell(cell(f), f, r[f], true);
    if (isNum(o.day_pnl) || isNum(r.day_pnl)) setCell(cell('day_pnl'), 'day_pnl', (o.day_pnl || 0) + (r.day_pnl || 0), true);
  }

  // ---- selection and stream ---------------------------------------------
  function selectBook(name) {
    if (!name || name === selected) return;
    selected = name;
    for (const tr of rowEls.values()) tr.classList.toggle('selected', tr.dataset.book === selected);
    try {
      const p = new URLSearchParams(location.search);
      p.set('book', selected);
      history.replaceState(null, '', '?' + p.toString() + location.hash);
    } catch (e) { /* ignore: URL bookkeeping only */ }
    if (chart) { chart.destroy(); chart = null; chartKey = ''; }
    note('loading ' + selected + '…');
    clearPositions();
    openStream();
  }

  function openStream() {
    clearTimeout(reopenTimer);
    if (es) { es.close(); es = null; }
    const src = new EventSource('stream?ladder=' + encodeURIComponent(selected) + tokenSuffix);
    es = src;
    src.onmessage = (e) => { if (src === es) onMessage(e.data); };
    src.onerror = () => {
      if (src !== es) return;
      showBanner('Gateway unreachable — retrying');
      // The browser retries by itself unless the stream was closed for good.
      if (src.readyState === EventSource.CLOSED) reopenTimer = setTimeout(openStream, 3000);
    };
  }

  function showBanner(text) { banner.textContent = text; banner.hidden = false; }

  // ---- message handling --------------------------------------------------
  function onMessage(data) {
    let msg;
    try { msg = JSON.parse(data); } catch (e) { return; }
    if (!msg || typeof msg !== 'object') return;
    const full = msg.full === true;

    safe(() => renderHeader(msg));
    safe(() => {
      let resort = applyRows(msg.rows, full);
      if (Array.isArray(msg.removed)) {
        for (const id of msg.removed) if (books.has(id)) { removeBook(id); resort = true; }
      }
      if (resort) sortRows();
    });
    safe(() => renderTotals(msg.totals));
    safe(() => renderLadder(msg.ladder));
    safe(() => renderPositions(msg.positions));
    safe(() => renderExplain(msg.pnl_explain));
    safe(() => notePositions());
    safe(() => renderEvents(msg.events, msg.alerts, full));
    safe(() => renderLimits(msg.risk_limits));
    safe(() => renderFigures(msg.figures));
    if (msg.as_of_event !== undefined) document.body.dataset.event = msg.as_of_event;

    if (full && !selected && books.size) {
      const first = Array.from(books.values())
        .sort((a, b) => byText(a.name || '', b.name || ''))[0];
      if (first && first.name) selectBook(first.name);
    } else if (full && selected && !Array.from(books.values()).some((b) => b.name === selected)) {
      note('book ' + selected + ' not found');
    }
  }

  function renderHeader(msg) {
    if (msg.as_of_event !== undefined) $('as-of-event').textContent = msg.as_of_event;
    $('updated').textContent = clock(new Date());
    const eng = msg.engine || {};
    if (eng.socket) $('socket').textContent = eng.socket;
    if (eng.connected === false) {
      showBanner('Engine unreachable: ' + (eng.error || 'no detail') +
        ' — the gateway is reconnecting; values below are as of event ' + $('as-of-event').textContent);
    } else if (msg.error) {
      showBanner(msg.error);
    } else {
      banner.hidden = true;
    }
  }

  // ---- ladder -------------------------------------------------------------
  function note(text) {
    const n = $('ladder-note');
    n.textContent = text || '';
    n.hidden = !text;
  }

  function renderLadder(l) {
    if (!l || typeof l !== 'object' || !Array.isArray(l.points)) return;
    const repo = l.type === 'repo_book';
    const pts = l.points.filter((p) => p && typeof p === 'object').sort((a, b) =>
      (a.ir_curve_id - b.ir_curve_id) || (a.days_forward - b.days_forward) || (a.idx - b.idx));
    const multi = new Set(pts.map((p) => p.ir_curve_id)).size > 1;
    const labels = pts.map((p) => (multi ? 'curve ' + p.ir_curve_id + ' · ' : '') + tenor(p.days_forward));
    const series = repo
      ? [{ key: 'margin_kr01', label: 'margin kr01', color: '#3b6ea8' },
         { key: 'mtm_pnl_kr01', label: 'mtm_pnl kr01', color: '#c07a1c' }]
      : [{ key: 'kr01', label: 'kr01' }];
    const values = series.map((s) => pts.map((p) => (isNum(p[s.key]) ? p[s.key] : null)));
    const colors = series.map((s, i) => s.color || values[i].map((v) => (v < 0 ? '#c0504d' : '#3b6ea8')));
    const title = 'Key-rate ladder: ' + (l.name || selected) + ' (kr01 per 1bp)';

    if (typeof Chart === 'undefined') { note('chart.js not loaded — ' + title); return; }
    note(pts.length ? '' : 'no ladder points for ' + (l.name || selected));
    const key = l.id + '|' + l.type + '|' + pts.length;
    if (chart && key === chartKey) {
      chart.data.labels = labels;
      chart.data.datasets.forEach((ds, i) => { ds.data = values[i]; ds.backgroundColor = colors[i]; });
      chart.options.plugins.title.text = title;
      chart.update('none');
      return;
    }
    if (chart) chart.destroy();
    chartKey = key;
    chart = new Chart($('ladder'), {
      type: 'bar',
      data: { labels: labels, datasets: series.map((s, i) => ({ label: s.label, data: values[i], backgroundColor: colors[i] })) },
      options: {
        animation: false, responsive: true, maintainAspectRatio: false,
        plugins: {
          title: { display: true, text: title, font: { size: 13 } },
          legend: { display: repo },
          tooltip: { callbacks: { label: (c) => c.dataset.label + ': ' + fmt2.format(c.parsed.y) } },
        },
        scales: { x: { ticks: { maxRotation: 60 } }, y: { ticks: { callback: tick } } },
      },
    });
  }

  // ---- P&L explain --------------------------------------------------------
  // A waterfall: a floating bar per cause from the running sum before it to
  // after it (green up, red down), then day_pnl from 0 (grey).
  function drawWaterfall(canvasId, e, title) {
    if (!e || typeof e !== 'object' || !Array.isArray(e.causes) || typeof Chart === 'undefined') return;
    const labels = [], bars = [], colors = [];
    let at = 0;
    for (const c of e.causes) {
      if (!c || !isNum(c.actual)) continue;
      labels.push(String(c.cause));
      bars.push([at, at + c.actual]);
      colors.push(c.actual < 0 ? '#c0504d' : '#4f9a5a');
      at += c.actual;
    }
    labels.push('day_pnl');
    bars.push([0, isNum(e.day_pnl) ? e.day_pnl : at]);
    colors.push('#777');
    const text = title + ': day_pnl ' + fmt0.format(isNum(e.day_pnl) ? e.day_pnl : at);
    let c = waterfalls.get(canvasId);
    if (c) {
      c.data.labels = labels;
      c.data.datasets[0].data = bars;
      c.data.datasets[0].backgroundColor = colors;
      c.options.plugins.title.text = text;
      c.update('none');
      return;
    }
    c = new Chart($(canvasId), {
      type: 'bar',
      data: { labels: labels, datasets: [{ label: 'move', data: bars, backgroundColor: colors }] },
      options: {
        animation: false, responsive: true, maintainAspectRatio: false,
        plugins: {
          title: { display: true, text: text, font: { size: 12 } },
          legend: { display: false },
          tooltip: { callbacks: { label: (ctx) => fmt2.format(ctx.raw[1] - ctx.raw[0]) } },
        },
        // Every cause named (Chart.js would skip labels that crowd).
        // An empty day (no cause, day_pnl 0) spans -1..1, not a range of rounded fractions.
        scales: { x: { ticks: { maxRotation: 60, autoSkip: false, font: { size: 10 } } },
                  y: { suggestedMin: -1, suggestedMax: 1, ticks: { callback: tick } } },
      },
    });
    waterfalls.set(canvasId, c);
  }

  function renderExplain(x) {
    if (!x || typeof x !== 'object') return;
    if (x.book && x.book.name === selected) drawWaterfall('explain-book', x.book, 'P&L explain of ' + selected);
    drawWaterfall('explain-total', x.total, 'P&L explain of the total');
  }

  // ---- positions ------------------------------------------------------------
  function clearPositions() {
    positionsBody.replaceChildren();
    positionEls.clear();
  }

  // What the positions table stands for: the selected book's largest trades,
  // or why there are none.
  function notePositions() {
    const b = Array.from(books.values()).find((x) => x.name === selected);
    let title = 'largest positions', why = '';
    if (!b) {
      clearPositions();
      why = selected ? 'book ' + selected + ' not found' : '';
    } else if (b.type !== 'outright_book') {
      clearPositions();
      why = 'positions are listed for outright books';
    } else {
      title = 'largest positions of ' + b.name + ' by |pv01|';
      const listed = positionEls.size || b.members === 0;
      why = listed ? positionEls.size + ' of ' + fmt0.format(b.members) + ' trades' : 'loading…';
    }
    $('positions-title').textContent = title;
    $('positions-note').textContent = why;
  }

  function renderPositions(p) {
    if (!p || typeof p !== 'object' || p.name !== selected || !Array.isArray(p.positions)) return;
    const frag = document.createDocumentFragment();
    const seen = new Set();
    for (const pos of p.positions) {
      if (!pos || typeof pos !== 'object' || !pos.trade || !pos.bond) continue;
      const id = pos.trade.id;
      let tr = positionEls.get(id);
      const fresh = !tr;
      if (fresh) {
        tr = document.createElement('tr');
        tr.dataset.trade = id;
        for (const [f] of POSITION_FIELDS) {
          const td = document.createElement('td');
          td.dataset.field = f;
          if (f !== 'trade' && f !== 'bond' && f !== 'settlement_date') td.className = 'num';
          tr.appendChild(td);
        }
        positionEls.set(id, tr);
      }
      POSITION_FIELDS.forEach(([f, value], i) => setCell(tr.children[i], f, value(pos), !fresh));
      const bad = pos.trade.status !== 'OK' || pos.bond.status !== 'OK';
      tr.classList.toggle('bad', bad);
      tr.title = bad ? [pos.trade.reason, pos.bond.reason].filter(Boolean).join('; ') : '';
      seen.add(id);
      frag.appendChild(tr);
    }
    for (const id of Array.from(positionEls.keys())) if (!seen.has(id)) positionEls.delete(id);
    positionsBody.replaceChildren(frag);
  }

  // ---- events and figures -------------------------------------------------
  // An alert as a line of the event feed.
  function alertText(a) {
    const value = isNum(a.value) ? ' ' + fmt0.format(a.value) : '';
    const bound = isNum(a.bound) ? ' (bound ' + fmt0.format(a.bound) + ')' : '';
    return 'ALERT ' + (a.book_name || '') + ' ' + (a.measure || '') + ' ' + a.from + ' \u2192 ' + a.to + value + bound;
  }

  function renderEvents(list, alerts, full) {
    const fresh = (Array.isArray(list) ? list : []).filter((e) => e && typeof e === 'object');
    const raised = (Array.isArray(alerts) ? alerts : []).filter((a) => a && typeof a === 'object')
      .map((a) => ({ seq: a.seq, time: a.time, alert: a }));
    if (!full && !fresh.length && !raised.length) return;
    // Each alert after its event; the last MAX_EVENTS lines.
    events = (full ? [] : events).concat(fresh, raised)
      .sort((a, b) => (a.seq - b.seq) || ((a.alert ? 1 : 0) - (b.alert ? 1 : 0)))
      .slice(-MAX_EVENTS);
    const frag = document.createDocumentFragment();
    for (let i = events.length - 1; i >= 0; i--) {
      const ev = events[i];
      const d = new Date(ev.time);
      const li = document.createElement('li');
      li.dataset.seq = ev.seq;
      if (ev.alert) li.className = ev.alert.to === 'BREACHED' ? 'alert breached' : 'alert';
      const cols = [
        ['seq', ev.seq == null ? '' : String(ev.seq)],
        ['time', isNaN(d) ? String(ev.time || '') : clock(d, true)],
        ['command', ev.alert ? alertText(ev.alert) : String(ev.command || '')],
        ['nodes', ev.nodes == null ? '' : String(ev.nodes)],
        ['engine_us', isNum(ev.engine_us) ? (ev.engine_us / 1000).toFixed(2) + ' ms' : ''],
      ];
      for (const [f, text] of cols) {
        const span = document.createElement('span');
        span.dataset.field = f;
        span.textContent = text;
        if (f === 'command') span.title = text;
        li.appendChild(span);
      }
      frag.appendChild(li);
    }
    $('events').replaceChildren(frag);
  }

  // ---- limits -------------------------------------------------------------
  // The worst limits, each with a bar of its utilization (full at 100%: the bound), and the count per state.
  function renderLimits(l) {
    if (!l || typeof l !== 'object') return;
    const states = l.states || {};
    const counts = ['BREACHED', 'UNKNOWN', 'OK', 'FAILED']
      .filter((k) => states[k]).map((k) => fmt0.format(states[k]) + ' ' + k.toLowerCase());
    $('limits-states').textContent = counts.length ? counts.join(' \u00b7 ') : 'no limits';
    const frag = document.createDocumentFragment();
    for (const limit of Array.isArray(l.shown) ? l.shown : []) {
      const tr = document.createElement('tr');
      tr.className = String(limit.state || '').toLowerCase();
      tr.title = limit.state === 'FAILED' ? String(limit.reason || '') :
        'value ' + fmtValue('pv', limit.value) + ', lower ' + fmtValue('pv', limit.lower) + ', upper ' + fmtValue('pv', limit.upper);
      const point = limit.measure === 'kr01' && limit.idx != null ? ' #' + limit.idx : '';
      const u = isNum(limit.utilization) ? limit.utilization : null;
      const cells = [String(limit.book_name || ''), String(limit.measure || '') + point, null,
        u === null ? '' : fmt0.format(u * 100) + '%', String(limit.state || '')];
      cells.forEach((text, k) => {
        const td = document.createElement('td');
        if (text === null) {
          const bar = document.createElement('div');
          bar.className = 'bar';
          const fill = document.createElement('div');
          fill.style.width = (u === null ? 0 : Math.min(Math.abs(u), 1) * 100) + '%';
          bar.appendChild(fill);
          td.appendChild(bar);
        } else {
          td.textContent = text;
          if (k === 3) td.className = 'num';
        }
        tr.appendChild(td);
      });
      frag.appendChild(tr);
    }
    $('limits-body').replaceChildren(frag);
  }

  function renderFigures(f) {
    if (!f || typeof f !== 'object') return;
    const us = (v) => (isNum(v) ? fmt1.format(v) + ' µs' : '—');
    if ('events_per_s' in f) $('fig-eps').textContent = isNum(f.events_per_s) ? f.events_per_s.toFixed(1) : '—';
    if ('recalc_us' in f) {
      const r = f.recalc_us || {};
      $('fig-p50').textContent = us(r.p50);
      $('fig-p99').textContent = us(r.p99);
      $('fig-p999').textContent = us(r['p99.9']);
      $('fig-max').textContent = us(r.max);
    }
    if (isNum(f.results_lag)) {
      const lag = $('fig-lag');
      lag.textContent = f.results_lag > 0
        ? 'persisted results are ' + f.results_lag + ' event' + (f.results_lag === 1 ? '' : 's') + ' behind'
        : 'up to date';
      lag.classList.toggle('behind', f.results_lag > 0);
      lag.title = f.results_as_of != null ? 'results as of event ' + f.results_as_of : '';
    }
  }

  // ---- wiring -------------------------------------------------------------
  tbody.addEventListener('click', (e) => {
    const tr = e.target.closest('tr[data-book]');
    if (tr) selectBook(tr.dataset.book);
  });
  document.querySelector('#books thead').addEventListener('click', (e) => {
    const th = e.target.closest('th[data-sort]');
    if (!th) return;
    if (th.dataset.sort === sortKey) sortDir = -sortDir;
    else { sortKey = th.dataset.sort; sortDir = 1; }
    sortRows();
  });

  sortRows();
  openStream();
})();
