/**
 * What `work` settles with, or what `late()` returns (or throws) if `ms` passes first; no deadline
 * when `ms` is undefined. The timer never outlives the race, and `work` itself is not stopped:
 * the caller decides what becomes of it (drop the socket, let it finish unobserved).
 */
export async function beforeDeadline<T, L>(work: Promise<T>, ms: number | undefined, late: () => L): Promise<T | L> {
  if (ms === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<L>((resolve, reject) => {
    timer = setTimeout(() => {
      try {
        resolve(late());
      } catch (err) {
        reject(err);
      }
    }, Math.max(0, ms));
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}
