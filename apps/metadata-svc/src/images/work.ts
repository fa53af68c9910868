import { AsyncResource } from 'node:async_hooks';
import { commonProblems, ProblemError } from '@nrp/validation';

/** What one image may cost: decoded pixels (all frames together) and the time of one decode, transform or render. */
export interface ImageBudget {
  maxPixels: number;
  /** Whole seconds (libvips' own timeout, checked between tiles), at least 1. */
  timeoutSeconds: number;
  /** The same time in ms: an SVG render process is killed when it is up. */
  timeoutMs: number;
}

export function imageBudget(maxPixels: number, timeoutMs: number): ImageBudget {
  return { maxPixels, timeoutSeconds: Math.max(1, Math.ceil(timeoutMs / 1000)), timeoutMs };
}

/** An SVG render cut off at the budget's time. */
export class ImageTimeoutError extends Error {
  constructor(timeoutMs: number) {
    super(`SVG render killed after ${timeoutMs} ms`);
  }
}

/** Whether an image job ran out of time: sharp's timeout firing (`timeout: 6% complete`) or a killed SVG render. */
export function isImageTimeout(err: unknown): boolean {
  return (
    err instanceof ImageTimeoutError || (err instanceof Error && /^timeout: \d+% complete/.test(err.message))
  );
}

/**
 * The concurrency limit of image work that is not an upload (uploads have their own gate): decoding a fetched
 * avatar, a transform, the render of a token image. At most `concurrency` run at once and `queueMax` wait; when the
 * queue is full the request is answered at once with 503 SERVICE_UNAVAILABLE and `Retry-After`. One per service
 * instance (it lives in the context), so a flood of expensive images delays only image work, and not for long.
 */
export class ImageWork {
  private active = 0;
  private readonly waiting: Array<() => void> = [];

  constructor(
    private readonly concurrency: number,
    private readonly queueMax: number,
  ) {}

  async run<T>(work: () => Promise<T>): Promise<T> {
    if (this.active >= this.concurrency) {
      if (this.waiting.length >= this.queueMax) {
        throw new ProblemError(
          commonProblems.SERVICE_UNAVAILABLE,
          'Too many images are being decoded or transformed; retry shortly.',
          { headers: { 'Retry-After': '1' } },
        );
      }
      await new Promise<void>((resolve) => this.waiting.push(AsyncResource.bind(resolve)));
    } else {
      this.active++;
    }
    try {
      return await work();
    } finally {
      const next = this.waiting.shift();
      if (next) next();
      else this.active--;
    }
  }
}
