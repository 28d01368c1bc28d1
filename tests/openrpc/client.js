// client.js is a generic OpenRPC client: given the URL of a JSON-RPC
// endpoint, it asks rpc.discover for the endpoint's OpenRPC document,
// validates it with @open-rpc/schema-utils-js, then calls every method the
// document lists (but those of subscriptions, marked x-subscription, which
// need a connection that stays open) with params made from their schemas:
// by name and, when the method takes them so, by position. It prints a
// JSON report and exits with 1 when the document is invalid or a call is
// answered -32601 (method not found) or -32602 (invalid params).
//
//	node client.js https://localhost:8443/rpc
//
// Caddy's internal CA is trusted nowhere, so certificates are not checked.
"use strict";

const https = require("node:https");
const { validateOpenRPCDocument } = require("@open-rpc/schema-utils-js");

const endpoint = new URL(process.argv[2]);
let nextID = 1;

// call POSTs one call and resolves to its answer.
function call(method, params) {
  const request = { jsonrpc: "2.0", method, id: nextID++ };
  if (params !== undefined) {
    request.params = params;
  }
  const body = JSON.stringify(request);
  return new Promise((resolve, reject) => {
    const req = https.request(endpoint, {
      method: "POST",
      rejectUnauthorized: false,
      headers: { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) },
    }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (chunk) => { text += chunk; });
      res.on("end", () => {
        try {
          resolve(JSON.parse(text));
        } catch (e) {
          reject(new Error(`${method}: status ${res.statusCode}, not JSON: ${text}`));
        }
      });
    });
    req.on("error", reject);
    req.end(body);
  });
}

// valueFor makes a value that schema accepts, resolving references into
// the document's components.
function valueFor(schema, doc, depth = 0) {
  if (schema === undefined || schema === true || depth > 8) {
    return null;
  }
  if (schema.$ref !== undefined) {
    const prefix = "#/components/schemas/";
    if (!schema.$ref.startsWith(prefix)) {
      throw new Error(`cannot resolve $ref ${schema.$ref}`);
    }
    return valueFor(doc.components.schemas[schema.$ref.slice(prefix.length)], doc, depth + 1);
  }
  if ("default" in schema) {
    return schema.default;
  }
  if (schema.enum !== undefined) {
    return schema.enum[0];
  }
  if (schema.anyOf !== undefined) {
    return valueFor(schema.anyOf.find((s) => s.type !== "null") ?? schema.anyOf[0], doc, depth + 1);
  }
  switch (schema.type) {
    case "boolean":
      return true;
    case "integer":
      return Math.min(Math.max(1, schema.minimum ?? 1), schema.maximum ?? 1);
    case "number":
      return 1.5;
    case "string":
      return schema.contentEncoding === "base64" ? "aGk=" : "x";
    case "array": {
      const n = schema.minItems ?? (schema.items === undefined ? 0 : 1);
      return Array.from({ length: n }, () => valueFor(schema.items, doc, depth + 1));
    }
    case "object": {
      const value = {};
      for (const name of schema.required ?? []) {
        value[name] = valueFor(schema.properties?.[name], doc, depth + 1);
      }
      return value;
    }
    default:
      return null; // "null", or any value
  }
}

async function main() {
  const discovered = await call("rpc.discover");
  if (discovered.error !== undefined) {
    throw new Error(`rpc.discover: ${JSON.stringify(discovered.error)}`);
  }
  const doc = discovered.result;
  const valid = validateOpenRPCDocument(doc);
  if (valid !== true) {
    console.log(JSON.stringify({ invalid: valid.message }));
    process.exit(1);
  }
  const report = { methods: doc.methods.map((m) => m.name), called: [], skipped: [], failures: [] };
  for (const m of doc.methods) {
    if (m["x-subscription"] !== undefined) {
      report.skipped.push(m.name);
      continue;
    }
    const structure = m.paramStructure ?? "either";
    const forms = [];
    if (structure !== "by-position") {
      forms.push(Object.fromEntries(m.params.map((p) => [p.name, valueFor(p.schema, doc)])));
    }
    if (structure !== "by-name") {
      forms.push(m.params.map((p) => valueFor(p.schema, doc)));
    }
    for (const params of forms) {
      const answer = await call(m.name, params);
      if (answer.error !== undefined && (answer.error.code === -32601 || answer.error.code === -32602)) {
        report.failures.push({ method: m.name, params, error: answer.error });
      }
    }
    report.called.push(m.name);
  }
  console.log(JSON.stringify(report));
  process.exit(report.failures.length > 0 ? 1 : 0);
}

main().catch((e) => {
  console.log(JSON.stringify({ error: String(e && e.stack ? e.stack : e) }));
  process.exit(1);
});
