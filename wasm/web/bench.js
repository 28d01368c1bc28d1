// bench.js measures add(1, 2) through every way JavaScript can reach the
// server (the exports of main.wasm, a loop inside Go, and Caddy over the
// network) and fills the results table.

const ADD = '{"jsonrpc":"2.0","method":"add","params":[1,2],"id":1}';
const ADD_ANSWER = '{"jsonrpc":"2.0","result":3,"id":1}';
const BATCH = "[" + Array(100).fill(ADD).join(",") + "]";
const BATCH_ANSWER = "[" + Array(100).fill(ADD_ANSWER).join(",") + "]";

// How long each row runs. A row first doubles its number of operations until
// one run takes warmMs, then times `rounds` runs of about roundMs each; the
// median is reported.
const MODES = {
	quick: { warmMs: 4, roundMs: 15, rounds: 1 },
	full: { warmMs: 200, roundMs: 300, rounds: 5 },
};

// NotAvailable marks a row that cannot run here; its message says why.
class NotAvailable extends Error {}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

// loop times n calls of op, in milliseconds.
function loop(op) {
	return (n) => {
		const t0 = performance.now();
		for (let i = 0; i < n; i++) op();
		return performance.now() - t0;
	};
}

// asyncLoop times n calls of op one after another, each awaited.
function asyncLoop(op) {
	return async (n) => {
		const t0 = performance.now();
		for (let i = 0; i < n; i++) await op();
		return performance.now() - t0;
	};
}

function expect(got, want) {
	if (got !== want) throw new Error(`wrong answer ${JSON.stringify(got).slice(0, 120)}`);
}

// rpcPost sends one document to Caddy's /rpc and returns the answer's text.
async function rpcPost(doc) {
	const res = await fetch("/rpc", { method: "POST", headers: { "Content-Type": "application/json" }, body: doc });
	if (!res.ok) throw new Error(`POST /rpc: status ${res.status}`);
	return res.text();
}

// openSocket connects to Caddy's /rpc over WebSocket, within 5 seconds.
function openSocket() {
	const url = (location.protocol === "https:" ? "wss://" : "ws://") + location.host + "/rpc";
	return new Promise((resolve, reject) => {
		const ws = new WebSocket(url);
		const timer = setTimeout(() => {
			ws.close();
			reject(new NotAvailable("n/a: no WebSocket connection within 5 s"));
		}, 5000);
		ws.onopen = () => {
			clearTimeout(timer);
			resolve(ws);
		};
		ws.onerror = () => {
			clearTimeout(timer);
			reject(new NotAvailable("n/a: the server refused the WebSocket upgrade"));
		};
	});
}

// socketBurst sends doc n times without waiting, then waits for the n
// answers and returns the last.
function socketBurst(ws, doc, n) {
	return new Promise((resolve, reject) => {
		let left = n;
		ws.onmessage = (e) => {
			if (--left === 0) resolve(e.data);
		};
		ws.onclose = (e) => reject(new Error(`WebSocket closed: ${e.code} ${e.reason}`));
		for (let i = 0; i < n; i++) ws.send(doc);
	});
}

// socketCall sends doc and waits for the next message.
function socketCall(ws, doc) {
	return new Promise((resolve, reject) => {
		ws.onmessage = (e) => resolve(e.data);
		ws.onclose = (e) => reject(new Error(`WebSocket closed: ${e.code} ${e.reason}`));
		ws.send(doc);
	});
}

// The rows: each has a setup that checks the path answers right and
// returns timeN(n), the milliseconds of n operations of `calls` calls each.
const rows = [
	{
		group: "Into main.wasm through syscall/js (js.FuncOf exports)",
		name: "typed add(1, 2)",
		crosses: "two numbers in, one out: no JSON (the interop floor)",
		calls: 1,
		setup() {
			expect(rpccore.add(1, 2), 3);
			return loop(() => rpccore.add(1, 2));
		},
	},
	{
		name: "string path",
		crosses: "process(string): the document as a JavaScript string, both ways",
		calls: 1,
		setup() {
			expect(rpccore.process(ADD), ADD_ANSWER);
			return loop(() => rpccore.process(ADD));
		},
	},
	{
		name: "bytes path",
		crosses: "processBytes(Uint8Array): UTF-8 bytes in, a new Uint8Array out",
		calls: 1,
		setup() {
			const req = encoder.encode(ADD);
			expect(decoder.decode(rpccore.processBytes(req)), ADD_ANSWER);
			return loop(() => rpccore.processBytes(req));
		},
	},
	{
		name: "batch of 100, string",
		crosses: "process(string): one document of 100 calls",
		calls: 100,
		setup() {
			expect(rpccore.process(BATCH), BATCH_ANSWER);
			return loop(() => rpccore.process(BATCH));
		},
	},
	{
		name: "batch of 100, bytes",
		crosses: "processBytes(Uint8Array): one document of 100 calls",
		calls: 100,
		setup() {
			const req = encoder.encode(BATCH);
			expect(decoder.decode(rpccore.processBytes(req)), BATCH_ANSWER);
			return loop(() => rpccore.processBytes(req));
		},
	},
	{
		group: "Into main.wasm directly (go:wasmexport, documents in the module's memory)",
		name: "typed add(1, 2), direct",
		crosses: "two numbers in, one out: a plain WebAssembly call",
		calls: 1,
		setup(_, direct) {
			expect(direct.add(1, 2), 3);
			return loop(() => direct.add(1, 2));
		},
	},
	{
		name: "bytes path, direct",
		crosses: "UTF-8 bytes copied into the module's memory, the answer copied out",
		calls: 1,
		setup(_, direct) {
			const req = encoder.encode(ADD);
			expect(decoder.decode(direct.processBytes(req)), ADD_ANSWER);
			return loop(() => direct.processBytes(req));
		},
	},
	{
		name: "bytes path, direct, caller's buffer",
		crosses: "as above, the answer copied into a buffer JavaScript keeps",
		calls: 1,
		setup(_, direct) {
			const req = encoder.encode(ADD);
			const out = new Uint8Array(1024);
			expect(decoder.decode(out.subarray(0, direct.processInto(req, out))), ADD_ANSWER);
			return loop(() => direct.processInto(req, out));
		},
	},
	{
		name: "batch of 100, bytes, direct",
		crosses: "one document of 100 calls through the module's memory",
		calls: 100,
		setup(_, direct) {
			const req = encoder.encode(BATCH);
			expect(decoder.decode(direct.processBytes(req)), BATCH_ANSWER);
			return loop(() => direct.processBytes(req));
		},
	},
	{
		group: "Inside Go, no interop",
		name: "Go loop",
		crosses: "nothing: Process called in a Go loop, timed by Go",
		calls: 1,
		setup() {
			if (rpccore.loop("single", 1) < 0) throw new Error("wrong answer");
			return (n) => rpccore.loop("single", n) / 1e6;
		},
	},
	{
		name: "Go loop, batch of 100",
		crosses: "nothing: batches of 100 in a Go loop",
		calls: 100,
		setup() {
			if (rpccore.loop("batch", 1) < 0) throw new Error("wrong answer");
			return (n) => rpccore.loop("batch", n) / 1e6;
		},
	},
	{
		group: "Over the network, to the Caddy server that served this page",
		name: "fetch POST /rpc",
		crosses: "an HTTPS request and its response, one call at a time",
		calls: 1,
		async setup() {
			expect(await rpcPost(ADD), ADD_ANSWER);
			return asyncLoop(() => rpcPost(ADD));
		},
	},
	{
		name: "fetch POST /rpc, batch of 100",
		crosses: "an HTTPS request holding a batch of 100 calls",
		calls: 100,
		async setup() {
			expect(await rpcPost(BATCH), BATCH_ANSWER);
			return asyncLoop(() => rpcPost(BATCH));
		},
	},
	{
		name: "WebSocket /rpc",
		crosses: "a text message each way, one call at a time",
		calls: 1,
		async setup(cleanup) {
			const ws = await openSocket();
			cleanup.push(() => ws.close());
			expect(await socketCall(ws, ADD), ADD_ANSWER);
			return asyncLoop(() => socketCall(ws, ADD));
		},
	},
	{
		name: "WebSocket /rpc, 100 in flight",
		crosses: "100 messages sent, then their 100 answers awaited",
		calls: 100,
		async setup(cleanup) {
			const ws = await openSocket();
			cleanup.push(() => ws.close());
			expect(await socketBurst(ws, ADD, 100), ADD_ANSWER);
			return asyncLoop(() => socketBurst(ws, ADD, 100));
		},
	},
];

// measure returns the median microseconds per call of timeN.
async function measure(timeN, calls, mode) {
	let n = 1;
	let ms = await timeN(n);
	while (ms < mode.warmMs && n < 2 ** 30) {
		n *= 2;
		ms = await timeN(n);
	}
	n = Math.max(1, Math.round((n * mode.roundMs) / Math.max(ms, 0.001)));
	const perCall = [];
	for (let r = 0; r < mode.rounds; r++) {
		// A round the browser's coarse clock saw take no time says nothing:
		// it runs again, twice as long.
		let ms = await timeN(n);
		while (!(ms > 0) && n < 2 ** 30) {
			n *= 2;
			ms = await timeN(n);
		}
		perCall.push(ms / (n * calls));
	}
	perCall.sort((a, b) => a - b);
	return perCall[perCall.length >> 1] * 1000;
}

function formatMicros(us) {
	return us.toFixed(us < 1 ? 3 : us < 10 ? 2 : us < 100 ? 1 : 0);
}

function cell(tr, text, className) {
	const td = tr.insertCell();
	td.textContent = text;
	if (className) td.className = className;
	return td;
}

// yieldToPage lets the browser draw the table between rows.
const yieldToPage = () => new Promise((resolve) => setTimeout(resolve, 0));

// runBenchmark runs every row, filling table (a tbody) as it goes, and
// returns {date, mode, userAgent, rows: [{name, us_per_call, rpc_per_s,
// note}]}; us_per_call and rpc_per_s are null for a row that could not run.
export async function runBenchmark({ direct, quick, table, progress, about }) {
	const mode = quick ? MODES.quick : MODES.full;
	const results = [];
	table.replaceChildren();
	progress.className = "";
	for (const [i, row] of rows.entries()) {
		progress.textContent = `Running ${i + 1} of ${rows.length}: ${row.name}…`;
		await yieldToPage();
		if (row.group) {
			const tr = table.insertRow();
			tr.className = "group";
			cell(tr, row.group).colSpan = 4;
		}
		const result = { name: row.name, us_per_call: null, rpc_per_s: null };
		const cleanup = [];
		try {
			const us = await measure(await row.setup(cleanup, direct), row.calls, mode);
			result.us_per_call = us;
			result.rpc_per_s = 1e6 / us;
		} catch (e) {
			result.note = e instanceof NotAvailable ? e.message : `error: ${e.message}`;
		} finally {
			for (const f of cleanup) f();
		}
		results.push(result);
		const tr = table.insertRow();
		cell(tr, row.name);
		cell(tr, row.crosses);
		if (result.us_per_call === null) {
			cell(tr, result.note, "na").colSpan = 2;
		} else {
			cell(tr, formatMicros(result.us_per_call), "num");
			cell(tr, Math.round(result.rpc_per_s).toLocaleString("en-US"), "num");
		}
	}
	const date = new Date().toISOString();
	progress.textContent = `Done in ${quick ? "quick" : "full"} mode.`;
	about.textContent =
		(quick
			? "Quick mode: one short run per row; the numbers are rough."
			: `Each row: the median of ${mode.rounds} runs of about ${mode.roundMs} ms, after a warm-up.`) +
		` ${navigator.userAgent}, ${date}.`;
	return { date, mode: quick ? "quick" : "full", userAgent: navigator.userAgent, rows: results };
}
