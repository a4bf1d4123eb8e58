// Links the kernel plants in the workspace never redirect ipybox's own host-side writes: the
// spilled full output (.ipybox, .ipybox/outputs), plot images (images), generated packages
// (mcptools, mcptools/<server>) and install_package's target (.ipybox/site-packages). The kernel
// plants each link itself, once unsandboxed and once under --sandbox (the real srt); every
// attack has a control with a real directory that works, and nothing appears in or disappears
// from the folder the links point to.
import assert from "node:assert/strict";
import fs from "node:fs";
import path from "node:path";
import { after, before, describe, test } from "node:test";

import {
  NODE_MODULES, callTool, everythingParams, listTree, makeTempDir, removeDir, runOk, startServer, textOf,
} from "./support.mjs";

const SRT = path.join(NODE_MODULES, ".bin", "srt");
const PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==";

function variant(label, sandboxed) {
  describe(label, () => {
    const root = makeTempDir(`mcp-links-${sandboxed ? "sandbox" : "plain"}`);
    const workspace = path.join(root, "workspace");
    const outside = path.join(root, "outside");
    let server;
    let client;

    before(async () => {
      fs.mkdirSync(workspace);
      fs.mkdirSync(outside);
      fs.writeFileSync(path.join(outside, "precious.txt"), "precious\n");
      const args = ["mcp", "--workspace", workspace];
      if (sandboxed) {
        assert.ok(fs.existsSync(SRT), "install the npm test peers: npm install --prefix tests/node");
        args.push("--sandbox");
      }
      server = await startServer({ workspace, stateDir: root, cwd: root, env: { IPYBOX_SRT: SRT }, args });
      client = server.client;
    });

    after(async () => {
      await server?.close();
      removeDir(root);
    });

    const untouchedOutside = () => assert.deepEqual(listTree(outside), ["precious.txt"]);

    // The kernel replaces `relative` (moving a real folder there aside) with a link to `outside`.
    // True when planted. A sandbox that keeps the kernel from writing there closes the route as
    // well ("blocked"); only then may a planted link be missing.
    const plant = async (relative) => {
      const answer = await runOk(client, [
        "import os",
        `p = ${JSON.stringify(relative)}`,
        "try:",
        "    os.makedirs(os.path.dirname(p) or '.', exist_ok=True)",
        "    if os.path.isdir(p) and not os.path.islink(p): os.rename(p, p + '.aside')",
        `    os.symlink(${JSON.stringify(outside)}, p)`,
        "    print(os.path.islink(p))",
        "except OSError:",
        "    print('blocked')",
      ].join("\n"));
      assert.ok(answer === "True" || (sandboxed && answer === "blocked"), answer);
      return answer === "True";
    };
    // Back to a real folder (the host does this, as the user would).
    const unplant = (relative) => {
      const full = path.join(workspace, relative);
      fs.unlinkSync(full);
      if (fs.existsSync(full + ".aside")) fs.renameSync(full + ".aside", full);
      else fs.mkdirSync(full, { recursive: true });
    };

    const bigCell = (extra) => callTool(client, "execute_ipython_cell",
      { code: "print('x' * 3000)", max_output_chars: 200, ...extra });

    for (const planted of [".ipybox/outputs", ".ipybox"]) {
      test(`a link at ${planted}: the clipped output says the full output was not saved, naming it`, async () => {
        const control = textOf(await bigCell());
        const saved = control.match(/the full output is in (\S+\.txt)/);
        assert.ok(saved, control);
        assert.ok(saved[1].startsWith(path.join(workspace, ".ipybox", "outputs")), saved[1]);
        // The saved text is the cell's output as returned, trailing white space trimmed.
        assert.equal(fs.readFileSync(saved[1], "utf8"), "x".repeat(3000));

        if (!(await plant(planted))) return untouchedOutside();
        try {
          const text = textOf(await bigCell());
          assert.match(text, /the full output was not saved: refusing (\S+): it is a symbolic link/);
          assert.equal(text.match(/refusing (\S+):/)[1], path.join(workspace, planted));
          untouchedOutside();
        } finally {
          unplant(planted);
        }
      });
    }

    test("a link at images: the image is not saved and the output says why; control saves it", async () => {
      const code = `import base64\nfrom IPython.display import Image, display\ndisplay(Image(data=base64.b64decode(${JSON.stringify(PNG)})))`;
      const control = await callTool(client, "execute_ipython_cell", { code });
      assert.ok(!control.isError, textOf(control));
      assert.equal(control.content.filter((block) => block.type === "image").length, 1);
      assert.equal(fs.readdirSync(path.join(workspace, "images")).length, 1);

      if (!(await plant("images"))) return untouchedOutside();
      try {
        const result = await callTool(client, "execute_ipython_cell", { code });
        assert.match(textOf(result),
          new RegExp(`image not saved: refusing ${path.join(workspace, "images")}: it is a symbolic link`));
        assert.equal(result.content.filter((block) => block.type === "image").length, 0);
        untouchedOutside();
      } finally {
        unplant("images");
      }
    });

    const register = () => callTool(client, "register_mcp_server",
      { server_name: "everything", server_params: everythingParams() });

    test("a link at mcptools or mcptools/<server>: registration refuses, nothing is written or deleted outside", async () => {
      if (await plant("mcptools")) {
        try {
          const refused = await register();
          assert.ok(refused.isError, textOf(refused));
          assert.match(textOf(refused), new RegExp(`refusing ${path.join(workspace, "mcptools")}: it is a symbolic link`));
          untouchedOutside();
        } finally {
          unplant("mcptools");
        }
      }
      const control = await register();
      assert.ok(!control.isError, textOf(control));
      assert.ok(fs.existsSync(path.join(workspace, "mcptools", "everything", "echo.py")));

      // Regenerating must not delete through a link where the package was.
      if (!(await plant("mcptools/everything"))) return untouchedOutside();
      try {
        const again = await register();
        assert.ok(again.isError, textOf(again));
        assert.match(textOf(again),
          new RegExp(`refusing to replace ${path.join(workspace, "mcptools", "everything")}: it is a symlink`));
        untouchedOutside();
      } finally {
        fs.unlinkSync(path.join(workspace, "mcptools", "everything"));
        fs.renameSync(path.join(workspace, "mcptools", "everything.aside"), path.join(workspace, "mcptools", "everything"));
      }
    });

    test("a link at .ipybox/site-packages: install_package refuses and installs nothing outside", async () => {
      const source = path.join(root, "pkg_src");
      fs.mkdirSync(path.join(source, "ipybox_links_pkg"), { recursive: true });
      fs.writeFileSync(path.join(source, "setup.py"),
        'from setuptools import setup\nsetup(name="ipybox_links_pkg", version="0.1", packages=["ipybox_links_pkg"])\n');
      fs.writeFileSync(path.join(source, "ipybox_links_pkg", "__init__.py"), "VALUE = 'installed'\n");

      if (await plant(".ipybox/site-packages")) {
        try {
          const refused = await callTool(client, "install_package", { package_name: source });
          assert.ok(refused.isError, textOf(refused));
          assert.match(textOf(refused),
            new RegExp(`refusing ${path.join(workspace, ".ipybox", "site-packages")}: it is a symbolic link`));
          untouchedOutside();
        } finally {
          unplant(".ipybox/site-packages");
        }
      }
      // Under --sandbox local paths are refused by design (sandbox_integrity.test.mjs).
      if (sandboxed) return;
      const control = await callTool(client, "install_package", { package_name: source });
      assert.ok(!control.isError, textOf(control));
      assert.ok(fs.existsSync(path.join(workspace, ".ipybox", "site-packages", "ipybox_links_pkg", "__init__.py")));
      assert.equal(await runOk(client, "import ipybox_links_pkg\nprint(ipybox_links_pkg.VALUE)"), "installed");
    });
  });
}

variant("unsandboxed kernel", false);
variant("sandboxed kernel (--sandbox)", true);
