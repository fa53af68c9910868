import { AsyncResource } from 'node:async_hooks';
import { commonProblems, ProblemError } from '@nrp/validation';

/** What one image may cost: decoded pixels (all frames together) and the time of one decode, transform or render. */
export interface ImageBudget {
  maxPixels: number;
  /** Whole seconds (libvips' own timeout), at least 1. */
  timeoutSeconds: number;
}

export function imageBudget(maxPixels: number, timeoutMs: number): ImageBudget {
  return { maxPixels, timeoutSeconds: Math.max(1, Math.ceil(timeoutMs / 1000)) };
}

/** Whether a sharp error is its timeout firing (`timeout: 6% complete`). */
export function isImageTimeout(err: unknown): boolean {
  return err instanceof Error && /^timeout: \d+% complete/.test(err.message);
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
