/* vpath report: draws the data in #vpath-data.  No library, nothing loaded. */
(function () {
	'use strict';
	var errors = [];
	window.addEventListener('error', function (e) {
		errors.push(String(e.message || e));
		selfcheck();
	});

	var D = JSON.parse(document.getElementById('vpath-data').textContent);
	var SVGNS = 'http://www.w3.org/2000/svg';
	var patternByIndex = {};
	D.patterns.forEach(function (p) { patternByIndex[p.index] = p; });

	/* el('div', {class: 'x'}, child, 'text', ...) */
	function el(tag, attrs) {
		var e = document.createElement(tag);
		setAttrs(e, attrs);
		for (var i = 2; i < arguments.length; i++) add(e, arguments[i]);
		return e;
	}
	function sv(tag, attrs) {
		var e = document.createElementNS(SVGNS, tag);
		setAttrs(e, attrs);
		for (var i = 2; i < arguments.length; i++) add(e, arguments[i]);
		return e;
	}
	function setAttrs(e, attrs) {
		for (var k in attrs || {}) {
			if (attrs[k] === undefined || attrs[k] === null) continue;
			if (k === 'text') e.textContent = attrs[k];
			else if (k === 'onclick') e.addEventListener('click', attrs[k]);
			else e.setAttribute(k, attrs[k]);
		}
	}
	function add(e, c) {
		if (c === undefined || c === null || c === false) return;
		if (Array.isArray(c)) { c.forEach(function (x) { add(e, x); }); return; }
		e.appendChild(typeof c === 'object' ? c : document.createTextNode(String(c)));
	}

	function dur(ns) {
		var a = Math.abs(ns);
		if (a < 1e3) return Math.round(ns) + 'ns';
		if (a < 1e6) return (ns / 1e3).toFixed(a < 1e4 ? 1 : 0) + 'µs';
		if (a < 1e9) return (ns / 1e6).toFixed(a < 1e7 ? 2 : 1) + 'ms';
		return (ns / 1e9).toFixed(a < 1e10 ? 2 : 1) + 's';
	}
	function bytes(n) {
		if (n < 1e4) return n + 'B';
		if (n < 1e7) return (n / 1e3).toFixed(1) + 'kB';
		return (n / 1e6).toFixed(1) + 'MB';
	}
	function pct(a, b) { return b ? (100 * a / b).toFixed(a === b || a === 0 ? 0 : 1) + '%' : '–'; }
	function num(n) { return Number(n).toLocaleString('en-US'); }
	/* A round step for an axis of `span` with about n ticks. */
	function step(span, n) {
		var raw = span / n, p = Math.pow(10, Math.floor(Math.log10(raw || 1)));
		var m = raw / p;
		return (m < 1.5 ? 1 : m < 3.5 ? 2 : m < 7.5 ? 5 : 10) * p;
	}
	function bucketLow(b) { return Math.pow(2, b / D.meta.buckets_per_octave); }
	/* "web1 vapp :8080" -> host "web1", rest "vapp :8080"; an address stays whole. */
	function splitService(name) {
		var i = name.indexOf(' ');
		return i < 0 ? {host: '', rest: name} : {host: name.slice(0, i), rest: name.slice(i + 1)};
	}

	/* ---- header, navigation, summary ---- */
	var m = D.meta;
	var lost = D.hosts.reduce(function (s, h) { return s + h.lost; }, 0);
	var when = m.unix_t0_ms > 0 ? new Date(m.unix_t0_ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC') : '';
	document.body.appendChild(el('header', null,
		el('h1', {text: 'vpath — request paths'}),
		el('div', {class: 'sub', text: num(m.requests) + ' requests over ' + dur(Math.max(0, m.last - m.first)) +
			' on ' + D.hosts.length + ' hosts' + (when ? ', recorded from ' + when : '')})));
	document.body.appendChild(el('nav', null,
		el('a', {href: '#patterns', text: 'Patterns'}), el('a', {href: '#slowest', text: 'Slowest requests'}),
		el('a', {href: '#graph', text: 'Service graph'}), el('a', {href: '#hosts', text: 'Hosts & loss'})));
	var main = el('main');
	document.body.appendChild(main);
	function card(k, v, warn, title) {
		return el('div', {class: 'card' + (warn ? ' warn' : ''), title: title}, el('div', {class: 'v', text: v}),
			el('div', {class: 'k', text: k}));
	}
	main.appendChild(el('div', {class: 'cards'},
		card('requests', num(m.requests)),
		card('calls', num(m.calls)),
		card('patterns', num(m.patterns)),
		card('exact paths', pct(m.exact, m.requests), m.exact < m.requests,
			'requests whose every link rests on evidence that decides it'),
		card('incomplete', num(m.requests - m.complete), m.complete < m.requests,
			'requests with lost records, a cut recording or a missing end'),
		card('records lost', num(lost), lost > 0)));

	/* ---- latency histogram ---- */
	/* All patterns' sparklines share one latency axis, so that they compare at a glance. */
	var allLo = Infinity, allHi = -Infinity;
	D.patterns.forEach(function (p) {
		if (!p.hist.length) return;
		allLo = Math.min(allLo, p.hist[0][0]);
		allHi = Math.max(allHi, p.hist[p.hist.length - 1][0]);
	});
	function histogram(p, w, h, axis, range) {
		var hist = p.hist;
		var s = sv('svg', {width: w, height: h + (axis ? 16 : 0), class: 'hist', role: 'img',
			'aria-label': 'latency distribution'});
		if (!hist.length) return s;
		var lo = range ? range[0] : hist[0][0], hi = range ? range[1] : hist[hist.length - 1][0];
		if (hi - lo < 8) { lo = Math.max(0, lo - 4); hi = hi + 4; }
		var max = 0;
		hist.forEach(function (b) { max = Math.max(max, b[1]); });
		var bw = w / (hi - lo + 1);
		hist.forEach(function (b) {
			var bh = Math.max(1, Math.round((h - 2) * Math.sqrt(b[1] / max)));
			var r = sv('rect', {class: 'bar', x: ((b[0] - lo) * bw).toFixed(1), y: h - bh,
				width: Math.max(1, bw - 1).toFixed(1), height: bh});
			r.appendChild(sv('title', {text: dur(bucketLow(b[0])) + ' – ' + dur(bucketLow(b[0] + 1)) + ': ' +
				num(b[1]) + ' requests'}));
			s.appendChild(r);
		});
		if (axis) {
			s.appendChild(sv('line', {x1: 0, x2: w, y1: h + 0.5, y2: h + 0.5, stroke: '#c9d1dc'}));
			var n = Math.min(6, hi - lo + 1);
			for (var i = 0; i < n; i++) {
				var b = lo + Math.round(i * (hi - lo) / Math.max(1, n - 1));
				var x = (b - lo + 0.5) * bw;
				s.appendChild(sv('text', {x: x, y: h + 13, 'text-anchor': i === 0 ? 'start' : i === n - 1 ? 'end' : 'middle',
					text: dur(bucketLow(b))}));
			}
		}
		return s;
	}

	function shapeText(p) {
		var root = p.nodes[0].name, rest = [], seen = {};
		p.nodes.slice(1).forEach(function (n) {
			var k = splitService(n.name).rest + (n.name.indexOf(' ') < 0 ? '' : '@' + splitService(n.name).host);
			if (!seen[k]) { seen[k] = 1; rest.push(k); }
		});
		return el('span', null, el('b', {text: root}), rest.length ? ' → ' + rest.join(', ') : '');
	}

	/* ---- patterns ---- */
	var patSection = el('section', {id: 'patterns'},
		el('h2', null, 'Path patterns', el('span', {class: 'hint',
			text: 'requests that visit the same services in the same nesting, by total time; click one'})));
	main.appendChild(patSection);
	var ptable = el('table', null, el('thead', null, el('tr', null,
		el('th', {text: '#'}), el('th', {class: 'num', text: 'requests'}), el('th', {class: 'num', text: 'total'}),
		el('th', {class: 'num', text: 'mean'}), el('th', {class: 'num', text: 'p50'}), el('th', {class: 'num', text: 'p99'}),
		el('th', {text: 'latency distribution'}), el('th', {text: 'path'}))));
	var ptbody = el('tbody');
	ptable.appendChild(ptbody);
	patSection.appendChild(ptable);
	if (D.patterns.length < m.patterns)
		patSection.appendChild(el('p', {class: 'muted', text: 'The ' + D.patterns.length + ' patterns with the most total time of ' +
			num(m.patterns) + '.'}));

	var SHOWN = 12;
	D.patterns.forEach(function (p) {
		var root = p.nodes[0];
		var tr = el('tr', {class: 'pattern', id: 'pattern-' + p.rank, 'data-rank': p.rank},
			el('td', {text: p.rank}), el('td', {class: 'num', text: num(p.count)}), el('td', {class: 'num', text: dur(p.total)}),
			el('td', {class: 'num', text: dur(p.total / p.count)}), el('td', {class: 'num', text: dur(root.p50)}),
			el('td', {class: 'num', text: dur(root.p99)}), el('td', {title: 'requests by latency, ' + dur(bucketLow(allLo)) + ' .. ' + dur(bucketLow(allHi + 1)) +
				' (log scale, shared by all patterns)'}, histogram(p, 160, 26, false, [allLo, allHi])),
			el('td', {class: 'shape'}, shapeText(p),
				p.inexact ? el('span', {class: 'badge inferred', text: pct(p.inexact, p.count) + ' inferred'}) : null,
				p.incomplete ? el('span', {class: 'badge incomplete', text: num(p.incomplete) + ' incomplete'}) : null));
		var detail = null;
		tr.addEventListener('click', function () {
			if (detail) {
				detail.remove();
				detail = null;
				tr.classList.remove('open');
				return;
			}
			detail = el('tr', {class: 'detail'}, el('td', {colspan: 8}, patternDetail(p)));
			tr.after(detail);
			tr.classList.add('open');
		});
		if (p.rank > SHOWN) tr.hidden = true;
		ptbody.appendChild(tr);
	});
	if (D.patterns.length > SHOWN) {
		var more = el('button', {class: 'link', text: 'show all ' + D.patterns.length + ' patterns'});
		more.addEventListener('click', function () {
			Array.prototype.forEach.call(ptbody.querySelectorAll('tr.pattern'), function (t) { t.hidden = false; });
			more.remove();
		});
		patSection.appendChild(el('p', null, more));
	}

	function patternDetail(p) {
		var tree = el('table', {class: 'tree'}, el('thead', null, el('tr', null, el('th', {text: 'service'}),
			el('th', {class: 'num', text: 'start+'}), el('th', {class: 'num', text: 'mean'}),
			el('th', {class: 'num', text: 'p50'}), el('th', {class: 'num', text: 'p99'}))));
		p.nodes.forEach(function (n) {
			tree.appendChild(el('tr', null, el('td', {style: 'padding-left:' + (8 + n.d * 18) + 'px'},
				n.d ? '└ ' : '', n.name), el('td', {class: 'num', text: n.d ? '+' + dur(n.start) : ''}),
				el('td', {class: 'num', text: dur(n.mean)}), el('td', {class: 'num', text: dur(n.p50)}),
				el('td', {class: 'num', text: dur(n.p99)})));
		});
		var list = el('div');
		p.slowest.forEach(function (id) {
			var r = D.requests[id];
			list.appendChild(el('div', null, el('a', {class: 'req', href: '#request-' + id, 'data-request': id,
				onclick: function (e) { e.preventDefault(); e.stopPropagation(); openRequest(id); }},
				'request ' + id), ' ', r ? dur(r.dur) : '', r && !r.exact ? el('span', {class: 'badge inferred', text: 'inferred'}) : null,
				r && !r.complete ? el('span', {class: 'badge incomplete', text: 'incomplete'}) : null));
		});
		return el('div', {class: 'detailgrid'},
			el('div', null, el('h3', {text: 'Services (mean start after the caller, duration)'}), tree),
			el('div', null, el('h3', {text: 'Latency of ' + num(p.count) + ' requests'}), histogram(p, 520, 110, true),
				el('h3', {style: 'margin-top:12px', text: 'Slowest requests of this pattern'}), list));
	}

	/* ---- waterfalls ---- */
	var slowSection = el('section', {id: 'slowest'},
		el('h2', null, 'Slowest requests', el('span', {class: 'hint', text: 'each as a waterfall; click to open or close'})),
		el('div', {class: 'legend'}, el('span', null, el('i', {class: 'c'}), 'call, as the client saw it'),
			el('span', null, el('i', {class: 's'}), 'time in the server'),
			el('span', null, el('i', {class: 'x'}), '~ link inferred, not decided by evidence'),
			el('span', null, el('i', {class: 'b'}), 'incomplete (records lost, peer missing)'),
			el('span', null, el('i', {class: 'q'}), '⇢ asynchronous hop: the message\'s time in the queue, then the consumer\'s work'),
			el('span', null, el('b', {class: 'nlogs', text: '≡ N'}), 'log lines (vpath-record --logs): click the row')));
	var picked = el('div', {id: 'picked'});
	slowSection.appendChild(picked);
	main.appendChild(slowSection);
	var waterfalls = 0, hopsDrawn = 0;

	function requestDetails(id) {
		var r = D.requests[id];
		var p = patternByIndex[r.pattern];
		var root = r.calls[0];
		var nlines = r.calls.reduce(function (n, c) { return n + (c.logs ? c.logs.length + (c.logs_more || 0) : 0); }, 0);
		var d = el('details', {class: 'req', id: 'request-' + id, 'data-request': id},
			el('summary', null, el('span', {class: 'dur', text: dur(r.dur)}), el('span', {class: 'entry', text: root.service}),
				el('span', {class: 'meta', text: 'request ' + id + ' · ' + r.calls.length + ' calls · ' + r.hosts + ' hosts · at +' +
					dur(r.start + m.origin) + (nlines ? ' · ' + num(nlines) + ' log lines' : '')}),
				p ? el('a', {class: 'req', href: '#pattern-' + p.rank, onclick: function (e) {
					e.preventDefault(); openPattern(p.rank);
				}}, 'pattern ' + p.rank) : null,
				r.exact ? el('span', {class: 'badge exact', text: 'exact'}) : el('span', {class: 'badge inferred', text: 'inferred links'}),
				r.complete ? null : el('span', {class: 'badge incomplete', text: 'incomplete'})));
		var drawn = false;
		/* Drawn when first opened: by hand (toggle), or at once by show(). */
		d.show = function () {
			if (!drawn) {
				d.appendChild(waterfall(r));
				drawn = true;
			}
			d.open = true;
		};
		d.addEventListener('toggle', function () {
			if (d.open) d.show();
		});
		return d;
	}

	function waterfall(r) {
		var total = Math.max(1, r.dur);
		r.calls.forEach(function (c) { total = Math.max(total, c.e, c.se || 0); });
		var wf = el('div', {class: 'wf'});
		var ticks = el('div', {class: 'ticks'});
		var st = step(total, 6);
		var lines = [];
		for (var t = 0; t <= total * 1.0001; t += st) {
			var x = (100 * t / total).toFixed(3) + '%';
			ticks.appendChild(el('span', {class: t === 0 ? 'first' : '', style: 'left:' + x, text: t === 0 ? '0' : '+' + dur(t)}));
			lines.push(x);
		}
		wf.appendChild(el('div', {class: 'axis'}, el('div', {text: 'call (client → server)'}), ticks));
		var delivered = {}; /* the first call of each hop under a push: the delivery */
		r.calls.forEach(function (c) {
			var inferred = !c.exact && c.basis !== 'root';
			var hop = c.q !== undefined, delivery = hop && !delivered[c.p];
			if (hop) delivered[c.p] = true;
			var incomplete = c.outcome === 'incomplete';
			var why = 'linked by ' + c.basis + (c.cand > 1 ? ' among ' + c.cand + ' candidates' : '') +
				(inferred ? ' (inferred)' : ' (exact)') +
				(c.handoff ? '\nmay hand off: its server was seen handing work to another client; what it started may go on unlinked' : '');
			var label = el('div', {class: 'label', style: 'padding-left:' + (c.d * 16) + 'px',
				title: c.client + ' → ' + c.server + '\n' + why + '\n' + bytes(c.rq) + ' request, ' + bytes(c.rp) + ' reply'},
				inferred ? el('span', {class: 'tilde', text: '~'}) : null,
				hop ? el('span', {class: 'async', title: 'asynchronous: works on the message its parent queued', text: '⇢ '}) : null,
				c.service,
				c.w ? el('span', {class: 'what', text: c.w}) : null,
				c.logs ? el('span', {class: 'nlogs', title: 'log lines its server wrote for it; click the row',
					text: '≡ ' + (c.logs.length + (c.logs_more || 0))}) : null,
				el('span', {class: 'who', text: c.server.split(' ').slice(1).join(' ').replace(/^\S+ /, '')}));
			var lane = el('div', {class: 'lane'});
			lines.forEach(function (x) { lane.appendChild(el('div', {class: 'gridline', style: 'left:' + x})); });
			var left = 100 * c.s / total, width = 100 * Math.max(0, c.e - c.s) / total;
			var bar = el('div', {class: 'bar' + (inferred ? ' inferred' : '') + (incomplete ? ' incomplete' : ''),
				style: 'left:' + left.toFixed(3) + '%;width:' + width.toFixed(3) + '%',
				title: c.service + (c.w ? ' ' + c.w : '') + ': ' + dur(c.e - c.s) + (c.ss !== undefined ? ', server ' + dur(c.se - c.ss) : '') +
					'\n' + why + '\noutcome: ' + c.outcome + (c.setup ? '\nconnection setup ' + dur(c.setup) : '')});
			if (c.ss !== undefined && c.e > c.s) {
				var sl = 100 * (c.ss - c.s) / (c.e - c.s), sw = 100 * Math.max(0, c.se - c.ss) / (c.e - c.s);
				bar.appendChild(el('div', {class: 'srv', style: 'left:' + Math.max(0, sl).toFixed(2) + '%;width:' +
					Math.min(100, sw).toFixed(2) + '%'}));
			}
			if (delivery) {
				/* The message's wait: from its push (on the broker's clock) to the delivery's reply. */
				var qs = Math.max(0, c.e - c.q);
				lane.appendChild(el('div', {class: 'qwait', style: 'left:' + (100 * qs / total).toFixed(3) + '%;width:' +
					(100 * (c.e - qs) / total).toFixed(3) + '%', title: 'in the queue ' + dur(c.q)}));
			}
			if (hop) {
				bar.classList.add('async');
				hopsDrawn++;
			}
			lane.appendChild(bar);
			var txt = dur(c.e - c.s) + (c.outcome !== 'complete' ? ' · ' + c.outcome : '') + (inferred ? ' · ' + c.basis : '') +
				(delivery ? ' · queued ' + dur(c.q) : '') + (c.handoff ? ' · may hand off' : '');
			/* After the bar; near the right edge inside a wide bar, else before it. */
			var where = left + width <= 82 ? 'after' : width >= 25 ? 'inside' : 'before';
			lane.appendChild(el('span', {class: 'btext' + (where === 'inside' ? ' inside' : ''), text: txt,
				style: where === 'after' ? 'left:' + (left + width + 0.6).toFixed(3) + '%'
					: where === 'inside' ? 'right:' + (100 - left - width + 0.6).toFixed(3) + '%'
					: 'right:' + (100 - left + 0.6).toFixed(3) + '%'}));
			var row = el('div', {class: 'row' + (inferred ? ' inferred' : '') + (c.logs ? ' haslogs' : '')}, label, lane);
			wf.appendChild(row);
			if (c.logs) row.addEventListener('click', function () { toggleLogs(row, c); });
		});
		waterfalls++;
		return wf;
	}

	/*
	 * A call's log lines, under its row: time after the request's start,
	 * thread, how the line was linked, the text.  The text is the
	 * application's: only ever set as text (el's text / text nodes).
	 */
	var logLinesShown = 0;
	function toggleLogs(row, c) {
		var next = row.nextSibling;
		if (next && next.classList.contains('logs')) {
			next.remove();
			row.classList.remove('open');
			return;
		}
		var box = el('div', {class: 'logs'});
		c.logs.forEach(function (l) {
			box.appendChild(el('div', {class: 'logline' + (l.exact ? '' : ' inferred'),
				title: l.exact ? 'exact: the evidence decides this line is this call\'s' : 'inferred (' + l.basis + ')'},
				el('span', {class: 't', text: '+' + dur(l.t)}), el('span', {class: 'tid', text: 'tid ' + l.tid}),
				el('span', {class: 'how', text: l.exact ? 'exact' : '~ ' + l.basis}),
				el('span', {class: 'text', text: l.text + (l.cut ? ' [cut]' : '')})));
			logLinesShown++;
		});
		if (c.logs_more)
			box.appendChild(el('div', {class: 'muted', text: num(c.logs_more) + ' more lines: vpath-analyze paths --logs'}));
		row.after(box);
		row.classList.add('open');
		if (check) selfcheck();
	}

	var slowList = el('div');
	slowSection.appendChild(slowList);
	D.slowest.forEach(function (id, i) {
		var d = requestDetails(id);
		slowList.appendChild(d);
		if (i < 3) d.show();
	});

	function openRequest(id) {
		var d = document.getElementById('request-' + id);
		if (!d) {
			d = requestDetails(id);
			picked.insertBefore(d, picked.firstChild);
		}
		d.show();
		d.classList.remove('flash');
		void d.offsetWidth;
		d.classList.add('flash');
		d.scrollIntoView({block: 'start'});
	}
	function openPattern(rank) {
		var tr = document.getElementById('pattern-' + rank);
		if (!tr) return;
		tr.hidden = false;
		if (!tr.classList.contains('open')) tr.click();
		tr.scrollIntoView({block: 'center'});
	}

	/* ---- service graph ---- */
	var graphSection = el('section', {id: 'graph'},
		el('h2', null, 'Service graph', el('span', {class: 'hint',
			text: 'who calls whom: calls and mean duration; dashed: some links inferred'})));
	main.appendChild(graphSection);
	graphSection.appendChild(serviceGraph());

	function serviceGraph() {
		var nodes = {}, order = [];
		function node(name, layer, client) {
			var n = nodes[name];
			if (!n) {
				n = nodes[name] = {name: name, layer: layer, client: client, calls: 0, y: 0, ins: []};
				order.push(n);
			}
			n.layer = Math.min(n.layer, layer);
			return n;
		}
		D.edges.forEach(function (e) {
			var f = node(e.from, e.d, e.d === 0), t = node(e.to, e.d + 1, false);
			t.calls += e.count;
			t.ins.push(f);
		});
		var layers = [];
		order.forEach(function (n) { (layers[n.layer] = layers[n.layer] || []).push(n); });
		var NW = 200, NH = 46, GX = 200, GY = 28;
		var height = 0;
		layers.forEach(function (l, li) {
			if (!l) return;
			if (li > 0) {
				l.forEach(function (n) {
					var ys = n.ins.filter(function (f) { return f.layer < li; }).map(function (f) { return f.y; });
					n.key = ys.length ? ys.reduce(function (a, b) { return a + b; }, 0) / ys.length : 0;
				});
				l.sort(function (a, b) { return a.key - b.key || (a.name < b.name ? -1 : 1); });
			}
			l.forEach(function (n, i) { n.y = i * (NH + GY); n.x = li * (NW + GX); });
			height = Math.max(height, l.length * (NH + GY));
		});
		/* Center each layer vertically. */
		layers.forEach(function (l) {
			if (!l) return;
			var off = (height - l.length * (NH + GY)) / 2;
			l.forEach(function (n) { n.y += off; });
		});
		var width = layers.length * (NW + GX) - GX;
		var s = sv('svg', {viewBox: '-4 -4 ' + (width + 8) + ' ' + (height + 8), width: width + 8, role: 'img',
			'aria-label': 'service graph'});
		var maxc = 1;
		D.edges.forEach(function (e) { maxc = Math.max(maxc, e.count); });
		D.edges.forEach(function (e) {
			var f = nodes[e.from], t = nodes[e.to];
			var x1 = f.x + NW, y1 = f.y + NH / 2, x2 = t.x, y2 = t.y + NH / 2;
			var back = x2 <= f.x;
			var dpath = back ? 'M' + (f.x + NW / 2) + ',' + (f.y + NH) + ' C' + (f.x + NW / 2) + ',' + (f.y + NH + 40) + ' ' +
				(t.x + NW / 2) + ',' + (t.y + NH + 40) + ' ' + (t.x + NW / 2) + ',' + (t.y + NH)
				: 'M' + x1 + ',' + y1 + ' C' + (x1 + GX / 2) + ',' + y1 + ' ' + (x2 - GX / 2) + ',' + y2 + ' ' + x2 + ',' + y2;
			var path = sv('path', {class: 'edge' + (e.inferred ? ' inferred' : ''), d: dpath,
				'stroke-width': (1 + 3 * Math.log(1 + e.count) / Math.log(1 + maxc)).toFixed(2), 'marker-end': 'url(#arrow)'});
			path.appendChild(sv('title', {text: e.from + ' → ' + e.to + '\n' + num(e.count) + ' calls, mean ' + dur(e.mean) +
				', max ' + dur(e.max) + (e.inferred ? '\n' + num(e.inferred) + ' linked by inference' : '') +
				(e.incomplete ? '\n' + num(e.incomplete) + ' incomplete' : '')}));
			s.appendChild(path);
			/* Labels sit at 70% of the way, where edges into one node have parted from edges out of another. */
			var u = 0.7, a = Math.pow(1 - u, 3), b = 3 * Math.pow(1 - u, 2) * u, c = 3 * (1 - u) * u * u, dd = u * u * u;
			var lx = back ? (f.x + t.x + NW) / 2 : a * x1 + b * (x1 + GX / 2) + c * (x2 - GX / 2) + dd * x2;
			var ly = back ? Math.max(f.y, t.y) + NH + 34 : a * y1 + b * y1 + c * y2 + dd * y2 - 4;
			s.appendChild(sv('text', {class: 'el', x: lx, y: ly, 'text-anchor': 'middle',
				text: num(e.count) + ' · ' + dur(e.mean)}));
		});
		s.insertBefore(sv('defs', null, sv('marker', {id: 'arrow', viewBox: '0 0 10 10', refX: 9, refY: 5,
			markerWidth: 9, markerHeight: 9, markerUnits: 'userSpaceOnUse', orient: 'auto-start-reverse'}, sv('path', {d: 'M0,0 L10,5 L0,10 z', fill: '#8796ad'}))),
		s.firstChild);
		order.forEach(function (n) {
			var parts = splitService(n.name);
			var g = sv('g', {class: 'node' + (n.client ? ' client' : ''), transform: 'translate(' + n.x + ',' + n.y + ')'},
				sv('rect', {width: NW, height: NH, rx: 6}),
				sv('text', {class: 'h', x: 10, y: 14, text: parts.host || (n.client ? 'client' : 'not recorded')}),
				sv('text', {class: 'n', x: 10, y: 30, text: parts.rest.length > 26 ? parts.rest.slice(0, 25) + '…' : parts.rest}),
				n.calls ? sv('text', {class: 's', x: NW - 8, y: 14, 'text-anchor': 'end', text: num(n.calls) + ' calls'}) : null,
				sv('title', {text: n.name}));
			s.appendChild(g);
		});
		return s;
	}

	/* ---- hosts and loss ---- */
	var hostSection = el('section', {id: 'hosts'},
		el('h2', null, 'Hosts and loss', el('span', {class: 'hint',
			text: 'what each recording covers; red: records the recorder lost'})));
	main.appendChild(hostSection);
	var span0 = Math.min(0, m.first), span1 = m.last;
	D.hosts.forEach(function (h) {
		if (h.first !== undefined) { span0 = Math.min(span0, h.first); span1 = Math.max(span1, h.last); }
	});
	var htable = el('table', null, el('thead', null, el('tr', null, el('th', {text: 'host'}),
		el('th', {class: 'num', text: 'records'}), el('th', {class: 'num', text: 'lost'}),
		el('th', {class: 'num', text: 'loss windows'}), el('th', {text: 'clock'}),
		el('th', {text: 'recording (' + dur(span1 - span0) + ')'}), el('th', {text: 'state'}))));
	D.hosts.forEach(function (h) {
		var W = 320, H = 14;
		var line = sv('svg', {width: W, height: H, class: 'hostline'});
		var sx = function (t) { return Math.max(0, Math.min(W, W * (t - span0) / Math.max(1, span1 - span0))); };
		if (h.first !== undefined)
			line.appendChild(sv('rect', {class: 'span', x: sx(h.first), y: 3, height: H - 6,
				width: Math.max(1, sx(h.last) - sx(h.first)), rx: 2}));
		h.losses.forEach(function (l) {
			var r = sv('rect', {class: 'loss', x: sx(l.from), y: 0, height: H, width: Math.max(2, sx(l.to) - sx(l.from))});
			r.appendChild(sv('title', {text: num(l.lost) + ' records lost between +' + dur(l.from) + ' and +' + dur(l.to)}));
			line.appendChild(r);
		});
		var state = h.damage ? el('span', {class: 'warntext', text: h.damage}) :
			h.truncated ? el('span', {class: 'warntext', text: 'truncated'}) : el('span', {class: 'muted', text: 'intact'});
		htable.appendChild(el('tr', null, el('td', {title: h.files.join('\n'), text: h.name}),
			el('td', {class: 'num', text: num(h.records)}),
			el('td', {class: 'num' + (h.lost ? ' warntext' : ''), text: num(h.lost)}),
			el('td', {class: 'num', text: num(h.nlosses)}),
			el('td', {text: (h.offset ? (h.offset > 0 ? '+' : '') + dur(h.offset) + ', ' : '') + h.clock}),
			el('td', null, line), el('td', null, state)));
	});
	hostSection.appendChild(htable);

	/* Deep links: #request-ID opens that request, #pattern-N that pattern. */
	function follow() {
		var h = location.hash, mm;
		if ((mm = /^#request-(\d+)$/.exec(h)) && D.requests[mm[1]]) openRequest(mm[1]);
		else if ((mm = /^#pattern-(\d+)$/.exec(h))) openPattern(+mm[1]);
	}
	window.addEventListener('hashchange', follow);
	follow();

	/* For tests and the curious: what was drawn, and whether anything failed. */
	var check = el('div', {id: 'selfcheck'});
	main.appendChild(check);
	function selfcheck() {
		check.setAttribute('data-status', errors.length ? 'error' : 'ok');
		check.textContent = (errors.length ? 'errors: ' + errors.join('; ') : 'ok') + ' · patterns=' +
			ptbody.children.length + ' slowest=' + slowList.children.length + ' waterfalls=' + waterfalls +
			 ' hops=' + hopsDrawn + ' edges=' + D.edges.length + ' hosts=' + D.hosts.length + ' loglines=' + logLinesShown;
	}
	selfcheck();
})();
