// The game viewer: draws the game chosen in the list (or in the address: #game=N&ply=K|end)
// on an SVG board. Games are embedded as one JSON text each and parsed only when opened;
// forbidden points were computed by the referee when the report was built. Every text from the
// journal is put in the page with textContent, never as markup.
// Errors of the page's scripts are shown on the page (and found by the browser test).
window.addEventListener('error', function (e) {
  var errors = document.getElementById('js-errors');
  errors.hidden = false;
  errors.textContent += (e.message || 'error') + '\n';
});
var REPORT_DATA = JSON.parse(document.getElementById('report-data').textContent);

(function () {
  'use strict';
  var data = REPORT_DATA;
  var ALPHABET = 'abcdefghijklmnopqrstuvwxyzABCDEF';
  var SVG = 'http://www.w3.org/2000/svg';
  var N = data.size;
  var board = document.getElementById('board');
  var status = document.getElementById('viewer-status');
  var title = document.getElementById('viewer-title');
  var list = document.getElementById('viewer-moves');
  var messages = document.getElementById('viewer-messages');
  var evalGraph = document.getElementById('eval-graph');
  var posText = document.getElementById('pos-text');
  var index = null;
  var cur = null;

  function el(name, attrs, parent) {
    var e = document.createElementNS(SVG, name);
    for (var k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  }
  function decode(s) {
    var out = [];
    for (var i = 0; i + 1 < s.length; i += 2) out.push([ALPHABET.indexOf(s[i]), ALPHABET.indexOf(s[i + 1])]);
    return out;
  }
  function pos(p) {
    return N <= 26 ? ALPHABET[p[0]] + (p[1] + 1) : p[0] + ',' + p[1];
  }
  function find(n) {
    if (!index) {
      index = new Map();
      for (var i = 0; i < data.numbers.length; i++) index.set(data.numbers[i], i);
    }
    return index.get(n);
  }
  function name(i) {
    return data.engines[i] === undefined ? '?' : data.engines[i];
  }

  function open(n, ply) {
    var i = find(n);
    if (i === undefined) return false;
    var g = JSON.parse(data.games[i]);
    var opening = decode(g[6]);
    var moves = decode(g[7]);
    var forbidden = new Map();
    g[10].forEach(function (f) { forbidden.set(f[0], decode(f[1])); });
    cur = {
      n: g[0], black: g[1], white: g[2], result: g[3], term: g[4], reason: g[5],
      opening: opening.length, stones: opening.concat(moves), times: g[8],
      lostOn: g[9] ? decode(g[9])[0] : null, forbidden: forbidden, messages: g[11],
      reports: g[12] || null
    };
    title.textContent = 'Game ' + cur.n + ': ' + name(cur.black) + ' (black) vs ' + name(cur.white) + ' (white), ' + cur.result;
    posText.value = cur.stones.map(pos).join('') + (cur.lostOn ? pos(cur.lostOn) : '');
    list.textContent = '';
    list.classList.toggle('reports', !!cur.reports);
    cur.stones.forEach(function (p, k) {
      var s = document.createElement('span');
      var t = k >= cur.opening ? ' ' + cur.times[k - cur.opening] + ' ms' : ' opening';
      var r = report(k);
      s.textContent = (k + 1) + '. ' + pos(p) + t + (r ? ' · ' + said(r) : '');
      s.addEventListener('click', function () { show(k + 1); });
      list.appendChild(s);
    });
    messages.textContent = '';
    cur.messages.forEach(function (m) {
      var li = document.createElement('li');
      li.textContent = name(m[0] === 'black' ? cur.black : cur.white) + ': ' + m[1];
      messages.appendChild(li);
    });
    drawEvals();
    show(ply === 'end' ? cur.stones.length : ply);
    return true;
  }

  // What the engine said before stone k (0-based), when it reported: [eval, depth, seldepth,
  // nodes, own ms, pv].
  function report(k) {
    return cur.reports && k >= cur.opening ? cur.reports[k - cur.opening] || null : null;
  }
  function human(n) {
    var units = [[1e9, 'G'], [1e6, 'M'], [1e3, 'k']];
    for (var i = 0; i < units.length; i++) if (n >= units[i][0]) return (n / units[i][0]).toFixed(1) + units[i][1];
    return String(n);
  }
  function said(r) {
    var parts = [];
    if (r[0] !== null) parts.push(r[0]);
    if (r[1] !== null) parts.push('depth ' + r[1] + (r[2] !== null ? '-' + r[2] : ''));
    if (r[3] !== null) parts.push(human(r[3]) + ' nodes');
    if (r[3] !== null && r[4]) parts.push(human(Math.round(r[3] * 1000 / r[4])) + ' nodes/s');
    if (r[4] !== null) parts.push('own ' + r[4] + ' ms');
    return parts.join(', ');
  }

  // The evaluation graph: every reported evaluation in black's view (white's reports turned
  // over), ordinary scores clipped to a band of at most ±2000, mates drawn beyond it.
  var GW = 300, GH = 50;
  function drawEvals() {
    evalGraph.textContent = '';
    if (!cur.reports) {
      evalGraph.setAttribute('hidden', '');
      return;
    }
    evalGraph.removeAttribute('hidden');
    var total = cur.stones.length;
    var band = 100;
    var pts = [];
    cur.reports.forEach(function (r, i) {
      if (!r || r[0] === null) return;
      var k = cur.opening + i;
      var sign = k % 2 === 0 ? 1 : -1;
      var mate = /^([+-])M/.exec(r[0]);
      var v = mate ? null : Number(r[0]) * sign;
      if (!mate) band = Math.max(band, Math.min(2000, Math.abs(v)));
      pts.push({ k: k, v: v, mate: mate ? (mate[1] === '+' ? sign : -sign) : 0 });
    });
    var x = function (k) { return (k + 1) / Math.max(1, total) * GW; };
    var y = function (p) {
      var v = p.mate ? p.mate * 1.2 : Math.max(-1, Math.min(1, p.v / band));
      return -v * GH / 1.25;
    };
    evalGraph.setAttribute('viewBox', '0 ' + (-GH - 2) + ' ' + GW + ' ' + (2 * GH + 4));
    evalGraph.setAttribute('data-points', String(pts.length));
    el('rect', { x: 0, y: -GH, width: GW, height: 2 * GH, 'class': 'eval-bg' }, evalGraph);
    el('line', { x1: 0, y1: 0, x2: GW, y2: 0, 'class': 'eval-zero' }, evalGraph);
    [1, -1].forEach(function (s) {
      el('line', { x1: 0, y1: -s * GH / 1.25, x2: GW, y2: -s * GH / 1.25, 'class': 'eval-band' }, evalGraph);
    });
    ['b', 'w'].forEach(function (c, parity) {
      var mine = pts.filter(function (p) { return p.k % 2 === parity; });
      el('polyline', { points: mine.map(function (p) { return x(p.k) + ',' + y(p); }).join(' '), 'class': 'eval-line ' + c }, evalGraph);
      mine.forEach(function (p) {
        el('circle', { cx: x(p.k), cy: y(p), r: p.mate ? 2 : 1.2, 'class': 'eval-dot ' + c }, evalGraph);
      });
    });
    var label = el('text', { x: 3, y: -GH + 8, 'class': 'eval-label' }, evalGraph);
    label.textContent = "black's view, ±" + band + ' (mates beyond the dashed lines); dark: ' + name(cur.black) + ', light: ' + name(cur.white);
    el('line', { x1: 0, y1: -GH, x2: 0, y2: GH, 'class': 'eval-now', id: 'eval-now' }, evalGraph);
    evalGraph.onclick = function (e) {
      var box = evalGraph.getBoundingClientRect();
      show(Math.round((e.clientX - box.left) / box.width * Math.max(1, total)));
    };
  }

  function grid() {
    board.textContent = '';
    board.setAttribute('viewBox', '-1.2 -1.2 ' + (N + 1.4) + ' ' + (N + 1.4));
    var g = el('g', { 'class': 'grid' }, board);
    for (var i = 0; i < N; i++) {
      el('line', { x1: 0, y1: i, x2: N - 1, y2: i }, g);
      el('line', { x1: i, y1: 0, x2: i, y2: N - 1 }, g);
      var c = el('text', { x: i, y: -0.75, 'class': 'coord' }, board);
      c.textContent = N <= 26 ? ALPHABET[i] : String(i);
      var r = el('text', { x: -0.8, y: i, 'class': 'coord' }, board);
      r.textContent = String(i + 1);
    }
  }

  function show(ply) {
    if (!cur) return;
    var total = cur.stones.length;
    ply = Math.max(0, Math.min(total, ply));
    cur.ply = ply;
    grid();
    for (var k = 0; k < ply; k++) {
      var p = cur.stones[k];
      var colour = k % 2 === 0 ? 'b' : 'w';
      var s = el('g', { 'class': 'stone ' + colour + (k < cur.opening ? ' opening' : ''), 'data-pos': pos(p), 'data-color': colour }, board);
      el('circle', { cx: p[0], cy: p[1], r: 0.46 }, s);
      var t = el('text', { x: p[0], y: p[1] }, s);
      t.textContent = String(k + 1);
    }
    if (ply > 0) {
      var last = cur.stones[ply - 1];
      el('circle', { cx: last[0], cy: last[1], r: 0.52, 'class': 'last' }, board);
    }
    (cur.forbidden.get(ply) || []).forEach(function (f) {
      var x = el('g', { 'class': 'forbidden', 'data-pos': pos(f) }, board);
      el('line', { x1: f[0] - 0.2, y1: f[1] - 0.2, x2: f[0] + 0.2, y2: f[1] + 0.2 }, x);
      el('line', { x1: f[0] - 0.2, y1: f[1] + 0.2, x2: f[0] + 0.2, y2: f[1] - 0.2 }, x);
    });
    var text;
    if (ply === total) {
      if (cur.lostOn) {
        el('circle', { cx: cur.lostOn[0], cy: cur.lostOn[1], r: 0.4, 'class': 'lost-on', 'data-pos': pos(cur.lostOn) }, board);
      }
      text = 'End: ' + cur.result + ' (' + (data.terms[cur.term] || cur.term) + '): ' + cur.reason;
    } else if (ply === 0) {
      text = 'Empty board: ' + total + ' stones to come (' + cur.opening + ' of the opening).';
    } else {
      var who = (ply - 1) % 2 === 0 ? cur.black : cur.white;
      var k = ply - 1;
      text = 'Stone ' + ply + ' of ' + total + ': ' + pos(cur.stones[k]) + ' by ' + name(who) +
        (k < cur.opening ? ' (opening)' : ', ' + cur.times[k - cur.opening] + ' ms');
      var r = report(k);
      if (r) text += ' · ' + said(r) + (r[5] ? ', pv ' + r[5] : '');
    }
    if (cur.forbidden.has(ply)) text += ' · forbidden for black: ' + cur.forbidden.get(ply).map(pos).join(' ');
    status.textContent = text;
    var now = document.getElementById('eval-now');
    if (now) {
      var gx = ply / Math.max(1, total) * GW;
      now.setAttribute('x1', gx);
      now.setAttribute('x2', gx);
    }
    board.setAttribute('data-game', String(cur.n));
    board.setAttribute('data-ply', String(ply));
    Array.prototype.forEach.call(list.children, function (s, i) { s.className = i === ply - 1 ? 'now' : ''; });
    if (history.replaceState) history.replaceState(null, '', '#game=' + cur.n + '&ply=' + (ply === total ? 'end' : ply));
  }

  function fromHash() {
    var m = /game=(\d+)(?:&ply=(end|\d+))?/.exec(location.hash);
    if (!m) return false;
    var ply = m[2] === undefined || m[2] === 'end' ? 'end' : Number(m[2]);
    return open(Number(m[1]), ply);
  }

  document.getElementById('first').addEventListener('click', function () { show(0); });
  document.getElementById('back').addEventListener('click', function () { show(cur.ply - 1); });
  document.getElementById('forward').addEventListener('click', function () { show(cur.ply + 1); });
  document.getElementById('last').addEventListener('click', function () { show(cur.stones.length); });
  document.getElementById('copy-pos').addEventListener('click', function (e) {
    e.preventDefault();
    posText.select();
    if (navigator.clipboard) navigator.clipboard.writeText(posText.value).catch(function () {});
  });
  document.addEventListener('keydown', function (e) {
    if (!cur || e.target.tagName === 'INPUT') return;
    var k = { ArrowLeft: cur.ply - 1, ArrowRight: cur.ply + 1, Home: 0, End: cur.stones.length }[e.key];
    if (k === undefined) return;
    e.preventDefault();
    show(k);
  });
  window.addEventListener('hashchange', fromHash);
  document.getElementById('viewer-ui').hidden = false;
  if (!fromHash() && data.numbers.length > 0) open(data.numbers[0], 'end');
  document.body.setAttribute('data-viewer', 'ready');
})();

// The game list of a run larger than the page's own list: pages of the filtered games, built
// from the embedded columns (names and reasons as text), with the page's filter buttons.
(function () {
  'use strict';
  var data = REPORT_DATA;
  var cols = data.list;
  if (!cols) return;
  var PAGE = 500;
  var tbody = document.querySelector('#game-table tbody');
  var info = document.getElementById('page-info');
  var pager = document.getElementById('list-pager');
  var note = document.getElementById('list-note');
  var order = data.numbers.map(function (_, i) { return i; });
  order.sort(function (a, b) { return data.numbers[a] - data.numbers[b]; });
  var page = 0;
  var shown = order;
  function checked(name) {
    var r = document.querySelector('input[name="' + name + '"]:checked');
    return r ? r.id.slice(3) : 'all';
  }
  function keep(i) {
    var e = checked('fe'), r = checked('fr'), t = checked('ft');
    if (e !== 'all' && String(cols.black[i]) !== e && String(cols.white[i]) !== e) return false;
    var res = cols.result[i] === '1-0' ? 'b' : cols.result[i] === '0-1' ? 'w' : 'd';
    if (r !== 'all' && r !== res) return false;
    return t === 'all' || t === cols.termination[i];
  }
  function cell(tr, text, cls) {
    var td = document.createElement('td');
    if (cls) td.className = cls;
    td.textContent = text;
    tr.appendChild(td);
    return td;
  }
  function render() {
    var pages = Math.max(1, Math.ceil(shown.length / PAGE));
    page = Math.max(0, Math.min(page, pages - 1));
    tbody.textContent = '';
    shown.slice(page * PAGE, (page + 1) * PAGE).forEach(function (i) {
      var n = data.numbers[i];
      var res = cols.result[i] === '1-0' ? 'b' : cols.result[i] === '0-1' ? 'w' : 'd';
      var tr = document.createElement('tr');
      tr.className = 'e' + cols.black[i] + ' e' + cols.white[i] + ' r' + res + ' t-' + cols.termination[i];
      tr.setAttribute('data-game', String(n));
      tr.title = cols.reason[i];
      var a = document.createElement('a');
      a.href = '#game=' + n;
      a.textContent = String(n);
      cell(tr, '', 'num').appendChild(a);
      cell(tr, data.engines[cols.black[i]]);
      cell(tr, data.engines[cols.white[i]]);
      cell(tr, cols.result[i]);
      cell(tr, data.terms[cols.termination[i]] || cols.termination[i]);
      cell(tr, String(cols.moves[i]), 'num');
      cell(tr, cols.opening[i], 'mono');
      tbody.appendChild(tr);
    });
    info.textContent = 'games ' + (shown.length ? page * PAGE + 1 : 0) + '–' + Math.min(shown.length, (page + 1) * PAGE) +
      ' of ' + shown.length + (shown.length < order.length ? ' shown by the filters (' + order.length + ' in all)' : '');
  }
  function refilter() {
    shown = order.filter(keep);
    page = 0;
    render();
  }
  document.querySelectorAll('.filters input').forEach(function (r) { r.addEventListener('change', refilter); });
  document.getElementById('page-back').addEventListener('click', function () { page -= 1; render(); });
  document.getElementById('page-forward').addEventListener('click', function () { page += 1; render(); });
  pager.hidden = false;
  note.hidden = true;
  render();
})();
