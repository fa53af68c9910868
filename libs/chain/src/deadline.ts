/**
 * `work`, or the error `onTimeout` makes when it has not settled within `ms`; the timer never outlives the race.
 * The one deadline of the platform: RPC gateway lookups, whole resolutions, readiness checks.
 */
export function withDeadline<T>(work: Promise<T>, ms: number, onTimeout: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(onTimeout()), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
