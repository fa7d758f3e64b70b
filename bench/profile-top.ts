// `node --import tsx bench/profile-top.ts <dir-or-.cpuprofile> [count]`: the functions a CPU profile
// spent most time in, by self time. Profile a row's work first, e.g.
//   node --cpu-prof --cpu-prof-dir=.bench/prof bin/rxstore.js inspect <session dir> --json > /dev/null
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { repoRoot } from './support/paths.js';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** A directory may hold several profiles (one per thread, tsx's loader among them): take the largest. */
function pickProfile(path: string): string {
  if (!statSync(path).isDirectory()) return path;
  const files = readdirSync(path)
    .filter((name) => name.endsWith('.cpuprofile'))
    .map((name) => join(path, name));
  const largest = files.sort((a, b) => statSync(b).size - statSync(a).size)[0];
  if (!largest) throw new Error(`no .cpuprofile in ${path}`);
  return largest;
}

function where(frame: ProfileNode['callFrame']): string {
  const file = frame.url.startsWith('file://') ? relative(repoRoot, new URL(frame.url).pathname) : frame.url;
  return `${frame.functionName || '(anonymous)'} ${file}${file ? `:${frame.lineNumber + 1}` : ''}`;
}

const [path, count = '25'] = process.argv.slice(2);
if (!path) throw new Error('usage: bench/profile-top.ts <dir-or-.cpuprofile> [count]');
const file = pickProfile(path);
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
const self = new Map<string, number>();
let total = 0;
profile.samples.forEach((id, index) => {
  const micros = profile.timeDeltas[index] ?? 0;
  const key = where(nodes.get(id)!.callFrame);
  self.set(key, (self.get(key) ?? 0) + micros);
  total += micros;
});
process.stdout.write(`${file}: ${(total / 1e6).toFixed(2)} s sampled\n`);
for (const [key, micros] of [...self].sort((a, b) => b[1] - a[1]).slice(0, Number(count))) {
  process.stdout.write(
    `${((micros / total) * 100).toFixed(1).padStart(5)}%  ${(micros / 1000).toFixed(0).padStart(6)} ms  ${key}\n`,
  );
}
