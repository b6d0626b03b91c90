// This machine's npm registry serves only the Linux builds of packages that ship
// one binary per platform, so `npm install` writes a lockfile without the other
// platforms' optional entries, and `npm ci` then refuses it as out of sync.
// This adds those entries, marked optional and limited to their platform, so
// `npm ci` accepts the lockfile and skips them where they do not apply.
// Run it after any `npm install` that changes package-lock.json.
const fs = require('node:fs');
const path = require('node:path');

const lockPath = path.join(__dirname, '..', 'package-lock.json');
const lock = JSON.parse(fs.readFileSync(lockPath, 'utf8'));
const OS = ['darwin', 'linux', 'win32', 'android', 'freebsd', 'openharmony'];
const CPU = ['arm64', 'x64', 'ia32', 'arm', 'ppc64', 'ppc64le', 's390x', 'loong64', 'riscv64'];

function platformOf(name) {
  const parts = name.split('/').pop().split('-');
  const os = parts.find((p) => OS.includes(p));
  const cpu = parts.find((p) => CPU.includes(p));
  return os && cpu ? { os: [os], cpu: [cpu] } : undefined;
}

let added = 0;
for (const [location, entry] of Object.entries(lock.packages)) {
  for (const [name, version] of Object.entries(entry.optionalDependencies ?? {})) {
    const key = `node_modules/${name}`;
    const platform = platformOf(name);
    if (lock.packages[key] || !platform || !/^\d+\.\d+\.\d+/.test(version)) continue;
    lock.packages[key] = { version, optional: true, ...platform };
    added += 1;
    void location;
  }
}
fs.writeFileSync(lockPath, `${JSON.stringify(lock, null, 2)}\n`);
process.stdout.write(`complete-lockfile: ${added} platform entries added\n`);
