// A server's whole process tree as /proc shows it: its processes (by parent PID) and their memory.
// RSS counts a page once per process that maps it; PSS divides shared pages among their sharers,
// so forked kernels, which share the template's pages, are not counted twice.
import fs from "node:fs";

function childrenByParent() {
  const children = new Map();
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    let stat;
    try {
      stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
    } catch {
      continue;  // it ended while we listed
    }
    // The command name is in parentheses and may hold spaces or parentheses itself.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    const parent = Number(fields[1]);
    if (!children.has(parent)) children.set(parent, []);
    children.get(parent).push(Number(name));
  }
  return children;
}

// The PIDs of `root` and all its descendants.
export function treePids(root) {
  const children = childrenByParent();
  const found = [];
  const pending = [root];
  while (pending.length > 0) {
    const pid = pending.pop();
    found.push(pid);
    pending.push(...(children.get(pid) ?? []));
  }
  return found;
}

// A process's name as a reader knows it: the program, or for an interpreter the script or module
// it runs ("ipykernel_launcher", "index.js", or for `python -c "from m.kernel_main import main"`,
// "kernel_main").
function commandName(pid) {
  let argv;
  try {
    argv = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").filter(Boolean);
  } catch {
    return "?";
  }
  const base = (file) => file.split("/").pop();
  const program = base(argv[0] ?? "?");
  if (!/^(python|node)/.test(program)) return program;
  const code = argv.indexOf("-c");
  if (code >= 0) return argv[code + 1]?.match(/from ([\w.]+) import/)?.[1].split(".").pop() ?? `${program} -c`;
  const target = argv.slice(1).find((arg) => !arg.startsWith("-"));
  return target ? base(target) : program;
}

// RSS and PSS summed over the tree (MiB), with the processes counted in it.
export function treeMemory(root) {
  let rssKib = 0;
  let pssKib = 0;
  const processes = [];
  for (const pid of treePids(root)) {
    let rollup;
    try {
      rollup = fs.readFileSync(`/proc/${pid}/smaps_rollup`, "utf8");
    } catch {
      continue;
    }
    rssKib += Number(rollup.match(/^Rss:\s+(\d+) kB/m)?.[1] ?? 0);
    pssKib += Number(rollup.match(/^Pss:\s+(\d+) kB/m)?.[1] ?? 0);
    processes.push(commandName(pid));
  }
  return { rss_mib: rssKib / 1024, pss_mib: pssKib / 1024, processes };
}

// Waits until none of `pids` is alive, then SIGKILLs what is left after `deadlineMs`: a server
// still shutting down would otherwise take CPU from the next measurement.
export async function awaitExit(pids, deadlineMs = 15_000) {
  const running = (pid) => {
    try {
      return !/\) Z /.test(fs.readFileSync(`/proc/${pid}/stat`, "utf8"));  // a zombie has ended
    } catch {
      return false;
    }
  };
  const alive = () => pids.filter(running);
  const end = Date.now() + deadlineMs;
  while (alive().length > 0 && Date.now() < end) await new Promise((resolve) => setTimeout(resolve, 50));
  for (const pid of alive()) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone meanwhile
    }
  }
}
