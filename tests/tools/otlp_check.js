#!/usr/bin/env node
// SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause)
/*
 * otlp_check.js PROTO_DIR FILE...: checks OTLP/JSON ExportTraceServiceRequest
 * documents against the official opentelemetry-proto schema (the .proto
 * files under PROTO_DIR, loaded with protobufjs), then the trace structure.
 *
 * Schema: every key must be a field of its message (lowerCamelCase JSON
 * name, as the OTLP/JSON encoding requires), every value of the field's
 * type: trace and span ids hex of 16 and 8 bytes (OTLP/JSON's exception to
 * proto3 JSON), enums as numbers in the enum, 64-bit integers as decimal
 * strings; then the document must survive protobufjs's verify, a binary
 * encode and a decode with every span intact.
 * Structure: span ids unique, each trace has one root, every parent is in
 * its trace, server spans (kind 2) hang under client spans (kind 3) or are
 * roots, start <= end.
 * Prints one JSON line of counts; exits 1 with the first problems.
 */
'use strict';
const fs = require('fs');
const path = require('path');
const protobuf = require('protobufjs');

const [protoDir, ...files] = process.argv.slice(2);
const root = new protobuf.Root();
root.resolvePath = (origin, target) => {
	const p = path.join(protoDir, target);
	return fs.existsSync(p) ? p : protobuf.util.path.resolve(origin, target);
};
root.loadSync('opentelemetry/proto/collector/trace/v1/trace_service.proto', {keepCase: false});
root.resolveAll();
const Export = root.lookupType('opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest');

const problems = [];
function problem(where, what) {
	if (problems.length < 20) problems.push(where + ': ' + what);
}

const INT64 = new Set(['int64', 'uint64', 'fixed64', 'sfixed64', 'sint64']);
const INT32 = new Set(['int32', 'uint32', 'fixed32', 'sfixed32', 'sint32']);
const HEX_IDS = {traceId: 16, spanId: 8, parentSpanId: 8};

/* Strict walk of a JSON value against a message type. */
function walk(type, obj, where) {
	if (typeof obj !== 'object' || obj === null || Array.isArray(obj)) {
		problem(where, 'expected an object for ' + type.fullName);
		return;
	}
	const byJson = {};
	for (const f of type.fieldsArray) byJson[f.name] = f; /* keepCase false: names are camelCase */
	for (const [k, v] of Object.entries(obj)) {
		const f = byJson[k];
		if (!f) {
			problem(where, 'unknown field ' + JSON.stringify(k) + ' in ' + type.fullName);
			continue;
		}
		if (f.repeated) {
			if (!Array.isArray(v)) problem(where + '.' + k, 'expected an array');
			else v.forEach((x, i) => value(f, x, where + '.' + k + '[' + i + ']'));
		} else {
			value(f, v, where + '.' + k);
		}
	}
}

function value(f, v, where) {
	f.resolve();
	if (f.resolvedType instanceof protobuf.Type) return walk(f.resolvedType, v, where);
	if (f.resolvedType instanceof protobuf.Enum) {
		if (!Number.isInteger(v) || !Object.values(f.resolvedType.values).includes(v))
			problem(where, 'enum ' + f.resolvedType.name + ' wants one of its numbers, got ' + JSON.stringify(v));
		return;
	}
	if (f.type === 'bytes') {
		const n = HEX_IDS[f.name];
		if (n === undefined) problem(where, 'bytes field outside ids');
		else if (typeof v !== 'string' || !new RegExp('^[0-9a-f]{' + 2 * n + '}$').test(v) || /^0+$/.test(v))
			problem(where, f.name + ' wants ' + 2 * n + ' lowercase hex digits, not all zero: ' + JSON.stringify(v));
		return;
	}
	if (INT64.has(f.type)) {
		if (!(typeof v === 'string' && /^-?\d+$/.test(v)) && !Number.isSafeInteger(v))
			problem(where, f.type + ' wants a decimal string: ' + JSON.stringify(v));
		return;
	}
	if (INT32.has(f.type)) {
		if (!Number.isInteger(v)) problem(where, f.type + ' wants an integer: ' + JSON.stringify(v));
		return;
	}
	const want = {string: 'string', bool: 'boolean', double: 'number', float: 'number'}[f.type];
	if (want && typeof v !== want) problem(where, f.type + ' wants a ' + want + ': ' + JSON.stringify(v));
}

/* protobufjs reads bytes from base64: turn the hex ids into it. */
function hexToBase64(obj) {
	if (Array.isArray(obj)) return obj.map(hexToBase64);
	if (typeof obj !== 'object' || obj === null) return obj;
	const out = {};
	for (const [k, v] of Object.entries(obj))
		out[k] = k in HEX_IDS && typeof v === 'string' ? Buffer.from(v, 'hex').toString('base64') : hexToBase64(v);
	return out;
}

const counts = {documents: 0, resources: 0, spans: 0, traces: 0, client: 0, server: 0, roots: 0, events: 0,
	attributes: {}};
const traces = new Map();
for (const file of files) {
	const doc = JSON.parse(fs.readFileSync(file, 'utf8'));
	counts.documents++;
	walk(Export, doc, path.basename(file));
	const msg = Export.fromObject(hexToBase64(doc));
	const err = Export.verify(msg);
	if (err) problem(file, 'verify: ' + err);
	const back = Export.decode(Export.encode(msg).finish());
	let decodedSpans = 0;
	for (const rs of back.resourceSpans) for (const ss of rs.scopeSpans) decodedSpans += ss.spans.length;
	for (const rs of doc.resourceSpans || []) {
		counts.resources++;
		for (const ss of rs.scopeSpans || []) {
			for (const s of ss.spans || []) {
				counts.spans++;
				if (s.kind === 3) counts.client++;
				if (s.kind === 2) counts.server++;
				counts.events += (s.events || []).length;
				for (const a of s.attributes || []) counts.attributes[a.key] = (counts.attributes[a.key] || 0) + 1;
				if (!traces.has(s.traceId)) traces.set(s.traceId, []);
				traces.get(s.traceId).push(s);
			}
		}
	}
	let jsonSpans = 0;
	for (const rs of doc.resourceSpans || []) for (const ss of rs.scopeSpans || []) jsonSpans += (ss.spans || []).length;
	if (decodedSpans !== jsonSpans) problem(file, 'binary round trip kept ' + decodedSpans + ' of ' + jsonSpans + ' spans');
}
for (const [id, spans] of traces) {
	counts.traces++;
	const byId = new Map();
	for (const s of spans) {
		if (byId.has(s.spanId)) problem('trace ' + id, 'span id ' + s.spanId + ' twice');
		byId.set(s.spanId, s);
		if (BigInt(s.startTimeUnixNano) > BigInt(s.endTimeUnixNano)) problem('span ' + s.spanId, 'ends before it starts');
	}
	let roots = 0;
	for (const s of spans) {
		if (!s.parentSpanId) {
			roots++;
			continue;
		}
		const p = byId.get(s.parentSpanId);
		if (!p) problem('span ' + s.spanId, 'parent ' + s.parentSpanId + ' not in trace ' + id);
		else if (s.kind === 2 && p.kind !== 3) problem('span ' + s.spanId, 'a server span under a non-client span');
		else if (s.kind === 3 && p.kind !== 2) problem('span ' + s.spanId, 'a client span under a non-server span');
	}
	counts.roots += roots;
	if (roots !== 1) problem('trace ' + id, roots + ' roots');
}
console.log(JSON.stringify(counts));
if (problems.length) {
	problems.forEach((p) => console.error('otlp_check: ' + p));
	process.exit(1);
}
