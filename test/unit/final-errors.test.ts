/** Errors no retry can mend become non-retryable failures of their own type (worker/final-errors.ts). */
import { ApplicationFailure } from '@temporalio/common';
import { InputError, StorageError, storageErrorOf } from '../../core/errors';
import { asNonRetryable } from '../../worker/final-errors';

const errno = (code: string) => Object.assign(new Error(`${code}: something`), { code });

test("the disk's errnos become a StorageError naming the file and the directory; other errors pass through", () => {
  for (const [code, meaning] of [
    ['ENOSPC', 'the disk holding /r is full'],
    ['EDQUOT', 'the disk quota for /r is used up'],
    ['EIO', 'the disk holding /r reported an I/O error'],
    ['EROFS', 'the file system holding /r is read-only'],
  ]) {
    const err = storageErrorOf(errno(code), '/r/x/run.json', '/r');
    expect(err).toBeInstanceOf(StorageError);
    expect((err as Error).message).toMatch(
      new RegExp(`^${meaning} \\(${code}\\): could not write /r/x/run\\.json\\. Nothing stored before this write was lost`),
    );
  }
  const other = errno('ENOENT');
  expect(storageErrorOf(other, '/r/x', '/r')).toBe(other);
  expect(storageErrorOf('not an error', '/r/x', '/r')).toBe('not an error');
});

test('StorageError and InputError become non-retryable ApplicationFailures of their type; anything else is left to the retry policy', () => {
  const disk = asNonRetryable(new StorageError('/r/run.json', 'ENOSPC', '/r')) as ApplicationFailure;
  expect(disk).toBeInstanceOf(ApplicationFailure);
  expect(disk).toMatchObject({ type: 'StorageError', nonRetryable: true, details: [{ file: '/r/run.json', code: 'ENOSPC' }] });
  expect(disk.message).toMatch(/^the disk holding \/r is full/);
  expect(asNonRetryable(new InputError('runId', 'bad'))).toMatchObject({ type: 'InputError', nonRetryable: true, details: [{ fields: ['runId'] }] });
  const crash = new Error('connection reset');
  expect(asNonRetryable(crash)).toBe(crash);
});
