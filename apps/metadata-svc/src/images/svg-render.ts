import { spawn } from 'node:child_process';
import type { TRANSFORM_FITS } from '@nrp/api';
import { ImageTimeoutError, type ImageBudget } from './work';

/** How long the render process may take to start (load Node and libvips) before its render's budget begins. */
const STARTUP_LIMIT_MS = 30_000;

export interface SvgRenderSize {
  width?: number;
  height?: number;
  fit: (typeof TRANSFORM_FITS)[number];
  /** Scale up a smaller document to the size (the token image); transforms never enlarge. */
  enlarge?: boolean;
}

/**
 * The render process: the SVG on stdin, the PNG on stdout, the reason of a failure on stderr. Plain JavaScript
 * given to `node -e`, so it runs the same from the TypeScript sources and from the service's bundle.
 */
const RENDER_SCRIPT = `
const sharp = require(process.argv[1]);
const { maxPixels, width, height, fit, enlarge } = JSON.parse(process.argv[2]);
sharp.cache(false);
sharp.concurrency(1);
require('node:fs').writeSync(3, 'ready');
const chunks = [];
process.stdin.on('data', (chunk) => chunks.push(chunk));
process.stdin.on('end', () => {
  let pipeline = sharp(Buffer.concat(chunks), { limitInputPixels: maxPixels, failOn: 'error' });
  if (width !== undefined || height !== undefined)
    pipeline = pipeline.resize({ width, height, fit, withoutEnlargement: !enlarge });
  pipeline.png().toBuffer().then(
    (png) => process.stdout.write(png),
    (err) => { process.stderr.write(String(err && err.message)); process.exitCode = 1; },
  );
});
`;

/**
 * Rasterises a (sanitised) SVG to PNG, resized like a transform, in a child process that is killed
 * when the budget's time is up. librsvg cannot be interrupted mid-render and sharp's own timeout is only checked
 * between tiles, so a document whose cost no filter removal bounds (tens of thousands of paths, many large blurs)
 * would otherwise hold a CPU and an image slot for minutes; killed, it frees both at once.
 */
export function renderSvg(svg: Buffer, size: SvgRenderSize, budget: ImageBudget): Promise<Buffer> {
  const options = JSON.stringify({ maxPixels: budget.maxPixels, ...size });
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', RENDER_SCRIPT, require.resolve('sharp'), options], {
      stdio: ['pipe', 'pipe', 'pipe', 'pipe'],
    });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    let timedOut = false;
    const kill = () => {
      timedOut = true;
      child.kill('SIGKILL');
    };
    // The budget is the render's: it starts once the process has loaded libvips (fd 3), which on a busy machine
    // can take a while; a process that does not even start is killed after STARTUP_LIMIT_MS.
    let timer = setTimeout(kill, STARTUP_LIMIT_MS);
    child.stdio[3]?.once('data', () => {
      clearTimeout(timer);
      timer = setTimeout(kill, budget.timeoutMs);
    });
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    // The child may be gone before it read all of its input (killed, or a spawn failure): not an error of its own.
    child.stdin.on('error', () => undefined);
    child.once('error', (cause) => {
      clearTimeout(timer);
      reject(cause);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      if (timedOut) reject(new ImageTimeoutError(budget.timeoutMs));
      else if (code === 0) resolve(Buffer.concat(out));
      else reject(new Error(`SVG render failed: ${Buffer.concat(err).toString('utf8').slice(0, 500)}`));
    });
    child.stdin.end(svg);
  });
}
