// Validates an OpenAPI document against the official 3.1 schema, for
// t/61_openapi.t: node validate_openapi.mjs <file>. Prints JSON.
import { Validator } from "@seriousme/openapi-schema-validator";
import { readFileSync } from "node:fs";

const doc = JSON.parse(readFileSync(process.argv[2], "utf8"));
const validator = new Validator();
const res = await validator.validate(doc);
console.log(JSON.stringify({ valid: res.valid, version: validator.version, errors: res.errors || null }));
