// app.js starts the WebAssembly host (main.wasm, through Go's wasm_exec.js)
// and wires the page's buttons to it.
import { runBenchmark } from "./bench.js";
import { directHost } from "./direct.js";

const $ = (id) => document.getElementById(id);

// ?quick=1 runs the benchmark briefly: every row, few calls (for tests).
const quick = ["1", "true", "yes"].includes(new URLSearchParams(location.search).get("quick"));

// The batch example of the JSON-RPC 2.0 specification (section 7), one
// document per item: rpccore.batch sends them as one batch.
const sampleBatch = [
	'{"jsonrpc":"2.0","method":"sum","params":[1,2,4],"id":"1"}',
	'{"jsonrpc":"2.0","method":"notify_hello","params":[7]}',
	'{"jsonrpc":"2.0","method":"subtract","params":[42,23],"id":"2"}',
	'{"foo":"boo"}',
	'{"jsonrpc":"2.0","method":"foo.get","params":{"name":"myself"},"id":"5"}',
	'{"jsonrpc":"2.0","method":"get_data","id":"9"}',
];

const whereami = '{"jsonrpc":"2.0","method":"whereami","id":1}';

const buttons = ["send", "sample", "where", "run"].map($);

function enable(on) {
	for (const b of buttons) b.disabled = !on;
}

// show puts an answer in the answer box: "" means the document held only
// notifications.
function show(answer) {
	$("answer").textContent = answer === "" ? "(no answer: the request held only notifications)" : answer;
}

function fail(message) {
	$("status").textContent = message;
	$("status").className = "error";
	document.body.dataset.ready = "error";
	enable(false);
}

// direct calls main.wasm's own exports (see direct.js), once it runs.
let direct;

async function start() {
	const go = new Go();
	const t0 = performance.now();
	// instantiateStreaming needs the server to send application/wasm.
	const { instance } = await WebAssembly.instantiateStreaming(fetch("main.wasm"), go.importObject);
	go.run(instance).then(() => fail("The Go program exited: reload the page."));
	direct = directHost(instance);
	const ms = Math.round(performance.now() - t0);
	$("status").textContent = `Ready: main.wasm (${rpccore.go}) loaded and started in ${ms} ms.`;
	document.body.dataset.ready = "1";
	enable(true);
}

$("send").onclick = () => show(rpccore.process($("request").value));

$("sample").onclick = () => {
	$("request").value = "[\n" + sampleBatch.join(",\n") + "\n]";
	show(rpccore.batch(sampleBatch));
};

$("where").onclick = () => {
	$("request").value = whereami;
	show(rpccore.process(whereami));
};

$("run").onclick = async () => {
	enable(false);
	document.body.dataset.bench = "running";
	try {
		window.benchResults = await runBenchmark({
			direct,
			quick,
			table: $("results").tBodies[0],
			progress: $("progress"),
			about: $("about"),
		});
		document.body.dataset.bench = "done";
	} catch (e) {
		$("progress").textContent = "Benchmark failed: " + e;
		$("progress").className = "error";
		document.body.dataset.bench = "error";
	} finally {
		enable(true);
	}
};

start().catch((e) => fail("Could not start main.wasm: " + e));
