// The call history: each call with its outcome and time, and the `mcp call …` line that
// repeats it in a shell, with a button that copies it.

/** `s` quoted for a POSIX shell when it needs quoting. */
export function shellQuote(s) {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The command line that makes the same call. */
export function commandLine(name, args) {
  const json = JSON.stringify(args ?? {});
  return json === "{}" ? `mcp call ${shellQuote(name)}` : `mcp call ${shellQuote(name)} ${shellQuote(json)}`;
}

/** Adds a call to the list `list` (newest first); returns a function that records its end. */
export function recordCall(list, { name, args, by }) {
  const started = performance.now();
  const item = document.createElement("li");
  item.className = "call running";
  item.dataset.tool = name;
  const head = document.createElement("div");
  head.className = "head";
  const title = document.createElement("strong");
  title.textContent = name;
  const status = document.createElement("span");
  status.className = "status";
  status.textContent = by ? ` running (from the ${by} app)` : " running";
  head.append(title, status);
  const command = document.createElement("code");
  command.className = "command";
  command.textContent = commandLine(name, args);
  const copy = document.createElement("button");
  copy.type = "button";
  copy.className = "copy";
  copy.textContent = "Copy";
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(command.textContent);
      copy.textContent = "Copied";
    } catch {
      getSelection()?.selectAllChildren(command);
      copy.textContent = "Selected";
    }
  });
  item.append(head, command, copy);
  list.prepend(item);
  return (outcome) => {
    const ms = Math.round(performance.now() - started);
    item.classList.remove("running");
    item.classList.add(outcome);
    status.textContent = ` ${outcome} in ${ms} ms${by ? ` (from the ${by} app)` : ""}`;
  };
}
