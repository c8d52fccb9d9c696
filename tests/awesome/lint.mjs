// awesome-lint on one README, with every rule but the one that queries the GitHub API.
// Prints one JSON line per message and exits 1 when any is an error (spell-check only warns).
import path from 'node:path';
import process from 'node:process';
import {remark} from 'remark';
import {readSync} from 'to-vfile';
import {createConfig} from 'awesome-lint/config.js';
import {createRules} from 'awesome-lint/rules/index.js';

const OFFLINE_EXCLUDED = new Set(['remark-lint:awesome-github']);
const WARN_ONLY = new Set(['awesome-spell-check']);

const rules = createRules().filter(([plugin]) => !OFFLINE_EXCLUDED.has(plugin?.name));
const file = readSync(path.resolve(process.argv[2] ?? 'README.md'));
const result = await remark().use(createConfig(rules)).process(file);
let errors = 0;
for (const message of result.messages) {
	const warn = WARN_ONLY.has(message.ruleId);
	if (!warn) {
		errors += 1;
	}

	console.log(JSON.stringify({
		line: message.line, column: message.column, rule: message.ruleId,
		severity: warn ? 'warning' : 'error', message: message.reason,
	}));
}

process.exitCode = errors ? 1 : 0;
