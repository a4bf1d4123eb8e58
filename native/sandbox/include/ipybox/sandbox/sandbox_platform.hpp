#pragma once
// Which of srt's two back ends a kernel's settings are written for: bubblewrap (linux) or
// Seatbelt's sandbox-exec (darwin). A runtime value, so that both variants are built and tested
// in every build; host_sandbox_platform() is the one srt will use here.
//
// What srt (@anthropic-ai/sandbox-runtime 0.0.83, dist/sandbox/macos-sandbox-utils.js,
// sandbox-manager.js, sandbox-utils.js, sandbox-config.js) does with the same settings on macOS:
//   - One Seatbelt profile per command, passed inline: `sandbox-exec -p <profile> <shell> -c
//     <command>`, starting from `(deny default)`. Rules are path filters on the kernel's canonical
//     path, last match wins; nothing is mounted, so a rule on a path that does not exist holds
//     when the path is made later. No placeholder is needed there (placeholder_hold.hpp).
//   - denyWrite: `(deny file-write* (subpath P))` after the `(allow file-write* ...)` of
//     allowWrite (and srt's own /dev/stdout, /dev/null, /tmp/claude, /private/tmp/claude, ...),
//     plus `(deny file-write-unlink file-write-create)` of P and a `literal` filter on each of
//     its ancestors: a kernel can neither make, move nor delete a folder on the way to P (a
//     missing .claude for .claude/settings.json cannot be made). A glob becomes a `regex` that
//     also covers what lies below each match.
//   - denyRead: `(allow file-read*)`, then `(deny file-read* (subpath P))`, then the allowRead
//     exceptions, then the denies those would reopen again (a deny nested in an allow); the
//     directories stay stat-able for realpath. A denied read fails with EPERM (Linux shows an
//     empty folder instead). Moving a read-denied path or its ancestors is denied too.
//   - Paths: `~` expanded, relative ones taken from srt's working directory, links resolved with
//     realpath where the path exists (/tmp is /private/tmp there); a path that does not exist is
//     kept as spelled, so its existing folders must already be spelled canonically (ipybox
//     passes each path also with its links resolved, kernel_sandboxing.cpp).
//   - srt's own write denies (.gitconfig, .gitmodules, shell rc files, .ripgreprc, .mcp.json,
//     .vscode, .idea, .claude/commands, .claude/agents, .git/hooks, .git/config) are regexes that
//     match at any depth below the working directory: no search depth and no ripgrep.
//   - Network: srt runs an HTTP and a SOCKS proxy on the host that filter by allowedDomains; the
//     profile allows only outbound connections to localhost on those ports and sets HTTP_PROXY,
//     HTTPS_PROXY, ALL_PROXY for the command (Linux: a network namespace whose only way out is a
//     socat bridge to the same proxies). Unix sockets: `allowAllUnixSockets` allows creating
//     AF_UNIX sockets and binding and connecting to any path (the host's launchd, Docker or
//     mDNSResponder sockets among them: a kernel could resolve names, a channel out);
//     `allowUnixSockets` (macOS only) allows them under the paths listed. `allowLocalBinding`
//     on macOS lets the command bind any local port and connect to every service on the host's
//     localhost (on Linux it is ignored: the sandbox has a loopback of its own).
//   - Settings only bubblewrap reads: bwrapPath, socatPath, seccomp, ripgrep,
//     mandatoryDenySearchDepth, enableWeakerNestedSandbox, allowNestedUserNamespaces. Settings
//     only Seatbelt reads: allowUnixSockets, allowMachLookup, allowPty, allowAppleEvents,
//     enableWeakerNetworkIsolation (ipybox sets none of them but allowUnixSockets, and its
//     settings floor refuses them from a config).
//
// So for darwin srt_settings() allows Unix sockets only where the kernel's own channels and the
// tool server's socket lie, and the executor makes no placeholders and denies credential
// locations whether or not they exist yet. The portable build (Darwin's logic on Linux) still
// starts its kernels under bubblewrap, so its host_sandbox_platform() is linux; its tests check
// the darwin settings by value like every build's.
namespace ipybox::sandbox {

enum class sandbox_platform { linux, darwin };

// darwin where IPYBOX_PLATFORM is darwin, else linux (linux and portable builds).
sandbox_platform host_sandbox_platform();

}  // namespace ipybox::sandbox
