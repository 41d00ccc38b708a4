/**
 * Bad input is reported as an InputError: it names the field (a JSON-path-like string such as
 * `phases[1].events[0].cut`) and says how to fix it. Nothing may have been started when one is
 * thrown. The Temporal layer turns it into a non-retryable ApplicationFailure of type
 * `InputError` so a scenario with bad input fails at once instead of retrying.
 */
export class InputError extends Error {
  readonly field: string;
  readonly problem: string;

  constructor(field: string, problem: string) {
    super(`${field}: ${problem}`);
    this.name = 'InputError';
    this.field = field;
    this.problem = problem;
  }
}

/** Several problems found in one pass over an input, reported together. */
export class InputErrors extends Error {
  readonly errors: InputError[];

  constructor(errors: InputError[]) {
    super(errors.map((e) => e.message).join('\n'));
    this.name = 'InputError';
    this.errors = errors;
  }
}

/** Throws all collected problems at once, or nothing when there are none. */
export function throwIfAny(errors: InputError[]): void {
  if (errors.length === 1) throw errors[0];
  if (errors.length > 1) throw new InputErrors(errors);
}

/** What a failed write's errno says of the disk, for the errnos no retry can mend, and what to do. */
const DISK_FAILURES: Record<string, { meaning: (dir: string) => string; remedy: string }> = {
  ENOSPC: { meaning: (dir) => `the disk holding ${dir} is full`, remedy: 'free space on it' },
  EDQUOT: { meaning: (dir) => `the disk quota for ${dir} is used up`, remedy: 'raise the quota or free space' },
  EIO: { meaning: (dir) => `the disk holding ${dir} reported an I/O error`, remedy: 'check the disk (the kernel log says more)' },
  EROFS: {
    meaning: (dir) => `the file system holding ${dir} is read-only`,
    remedy: 'make it writable, or point FRAGBENCH_RESULTS_DIR at another disk',
  },
};

/**
 * A run's records could not be written because of the disk (full, read-only, failing): retrying
 * cannot mend that, so the Temporal layer makes it a non-retryable failure of type
 * `StorageError` and the run stops. What was stored before is intact: every record is replaced
 * atomically or appended as whole lines (a line cut short is cut off).
 */
export class StorageError extends Error {
  readonly file: string;
  /** The errno's code: ENOSPC, EDQUOT, EIO or EROFS. */
  readonly code: string;

  constructor(file: string, code: string, dir: string) {
    const { meaning, remedy } = DISK_FAILURES[code];
    super(
      `${meaning(dir)} (${code}): could not write ${file}. Nothing stored before this write was lost ` +
        `(\`fragbench results verify <run>\` checks it); ${remedy}, then run the scenario again ` +
        `(\`fragbench reproduce <experiment> --resume <dir>\` skips what a campaign finished).`,
    );
    this.name = 'StorageError';
    this.file = file;
    this.code = code;
  }
}

/** A failed write as a StorageError when its errno is the disk's (see DISK_FAILURES), otherwise unchanged. */
export function storageErrorOf(err: unknown, file: string, dir: string): unknown {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' && code in DISK_FAILURES ? new StorageError(file, code, dir) : err;
}
