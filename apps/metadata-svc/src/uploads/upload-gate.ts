import { AsyncResource } from 'node:async_hooks';
import type { RequestHandler } from 'express';
import { commonProblems, ProblemError } from '@nrp/validation';

/**
 * Bounds how many uploads are read and processed at once (bodies of the others stay in the kernel's socket
 * buffers, unread), so peak memory is about `concurrency` × the size limit whatever the number of clients. More
 * than `queueMax` waiting uploads are refused with 503 and `Retry-After`.
 */
export function uploadGate(concurrency: number, queueMax: number): RequestHandler {
  let active = 0;
  const waiting: Array<() => void> = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else active--;
  };
  return (req, res, next) => {
    let released = false;
    const admit = () => {
      res.once('close', () => {
        if (!released) {
          released = true;
          release();
        }
      });
      next();
    };
    if (active < concurrency) {
      active++;
      admit();
      return;
    }
    if (waiting.length >= queueMax) {
      next(
        new ProblemError(commonProblems.SERVICE_UNAVAILABLE, 'Too many uploads in progress; retry shortly.', {
          headers: { 'Retry-After': '1' },
        }),
      );
      return;
    }
    // Admitted from another request's 'close': bound, so it runs in its own request's scope (log lines, request id).
    const entry = AsyncResource.bind(() => {
      // The client may have gone away while waiting: hand the slot on.
      if (req.destroyed || res.writableEnded) {
        release();
        return;
      }
      admit();
    });
    waiting.push(entry);
    res.once('close', () => {
      const at = waiting.indexOf(entry);
      if (at >= 0) waiting.splice(at, 1);
    });
  };
}
