// `pente serve` started for a test: on a free port, with the URL it prints
// (the token in it) taken apart.
import { spawn } from "node:child_process";

// Starts `BIN serve --port 0 ARGS...` and waits for the URL to open.
// Returns the process, that URL, the server's root without the token, and
// the token.
export async function startServer(bin, args) {
  const child = spawn(bin, ["serve", "--port", "0", ...args], { stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (chunk) => {
      out += chunk;
      const match = out.match(/open (http:\/\/\S+)/);
      if (match) resolve(match[1]);
    });
    child.on("exit", (code) => reject(new Error(`pente serve exited with ${code}: ${out}`)));
  });
  const parsed = new URL(url);
  return { child, url, address: parsed.origin + "/", token: parsed.searchParams.get("token") };
}
