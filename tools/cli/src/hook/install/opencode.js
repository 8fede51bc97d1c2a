// docsuggest: companion-file notes for OpenCode. Written by `docsuggest install-hooks --harness
// opencode`; `docsuggest uninstall-hooks --harness opencode` removes this file.
//
// Each file tool call is passed to the docsuggest hook, which answers like a Claude Code hook:
// a note is appended to the tool's output, which the model reads next. When the session goes
// idle, the hook checks the change (the change boundary); a missing companion re-prompts the
// session once, and the idle after that settles what was done about it.
import { spawn } from "node:child_process";

const COMMAND = __DOCSUGGEST_COMMAND__;

// Runs the hook with one event on stdin; resolves to its JSON answer, or null. Never rejects:
// the hook fails open, and so does this plugin.
function hook(event) {
  return new Promise((resolve) => {
    let out = "";
    let child;
    try {
      child = spawn(COMMAND, { shell: true, stdio: ["pipe", "pipe", "ignore"] });
    } catch {
      resolve(null);
      return;
    }
    child.on("error", () => resolve(null));
    child.stdout.on("data", (chunk) => {
      out += chunk;
    });
    child.on("close", () => {
      try {
        resolve(out.trim() ? JSON.parse(out) : null);
      } catch {
        resolve(null);
      }
    });
    child.stdin.on("error", () => {});
    child.stdin.end(JSON.stringify(event));
  });
}

export const DocSuggest = async ({ client, directory }) => {
  const argsByCall = new Map();
  const reminded = new Set();
  return {
    "tool.execute.before": async (input, output) => {
      argsByCall.set(input.callID, output?.args);
    },
    "tool.execute.after": async (input, output) => {
      const toolInput = input.args ?? argsByCall.get(input.callID) ?? {};
      argsByCall.delete(input.callID);
      const answer = await hook({
        hook_event_name: "PostToolUse",
        session_id: input.sessionID,
        cwd: directory,
        tool_name: input.tool,
        tool_input: toolInput,
      });
      const note = answer?.hookSpecificOutput?.additionalContext;
      if (note && output && typeof output.output === "string") {
        output.output += "\n\n" + note;
      }
    },
    "chat.message": async (input) => {
      // The re-prompt below is the same turn going on, not a new one.
      if (reminded.has(input.sessionID)) return;
      await hook({ hook_event_name: "UserPromptSubmit", session_id: input.sessionID, cwd: directory });
    },
    event: async ({ event }) => {
      if (event?.type !== "session.idle") return;
      const id = event.properties?.sessionID;
      if (!id) return;
      const active = reminded.delete(id);
      const answer = await hook({
        hook_event_name: "Stop",
        session_id: id,
        cwd: directory,
        stop_hook_active: active,
      });
      if (answer?.decision === "block" && answer.reason) {
        reminded.add(id);
        client.session
          .prompt({ path: { id }, body: { parts: [{ type: "text", text: answer.reason }] } })
          .catch(() => reminded.delete(id));
      }
    },
  };
};
