// direct.js wraps the functions main.wasm exports itself (go:wasmexport):
// JavaScript calls them on the instance with numbers, and documents pass
// through buffers in the module's memory, with no js.Func in between.

// directHost returns {processBytes, processInto, add} for an instance of
// main.wasm that runs (go.run has been called).
export function directHost(instance) {
	const x = instance.exports;
	let memory = new Uint8Array(x.mem.buffer);
	// The module's memory grows by replacing its buffer, which empties the
	// old views: make a new one then.
	const mem = () => (memory.byteLength ? memory : (memory = new Uint8Array(x.mem.buffer)));

	// process runs the UTF-8 document req and returns the answer's address
	// and length, valid until the next call.
	function process(req) {
		const at = x.requestBuffer(req.length);
		mem().set(req, at);
		const n = x.processBuffer(req.length);
		return [x.answerBuffer(), n];
	}

	return {
		// processBytes: UTF-8 bytes in, a new Uint8Array out.
		processBytes(req) {
			const [at, n] = process(req);
			return mem().slice(at, at + n);
		},
		// processInto writes the answer into out and returns its length, or
		// minus that length when out is too small.
		processInto(req, out) {
			const [at, n] = process(req);
			if (n > out.length) return -n;
			out.set(mem().subarray(at, at + n));
			return n;
		},
		// add is the demo's add with numbers in and out.
		add: x.addNumbers,
	};
}
