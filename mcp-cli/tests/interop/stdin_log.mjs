// Runs a stdio MCP server and appends every line its stdin receives to a log file, so a test
// sees exactly which requests reached the server.
// Usage: node stdin_log.mjs <log file> <command> [args...]
import { spawn } from "node:child_process";
import fs from "node:fs";

const [log, command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ["pipe", "inherit", "inherit"] });
const out = fs.createWriteStream(log, { flags: "a" });
process.stdin.on("data", (chunk) => {
  out.write(chunk);
  child.stdin.write(chunk);
});
process.stdin.on("end", () => child.stdin.end());
child.on("exit", (code) => process.exit(code ?? 0));
for (const signal of ["SIGTERM", "SIGINT"]) process.on(signal, () => child.kill(signal));
