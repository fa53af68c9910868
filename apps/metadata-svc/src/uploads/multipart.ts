import type { RequestHandler } from 'express';
import multer, { MulterError } from 'multer';
import { ProblemError } from '@nrp/validation';
import { problems } from '../problems';

/** Room for the text fields and multipart framing on top of the file itself. */
const FORM_OVERHEAD_BYTES = 64 * 1024;
const FIELD_MAX_BYTES = 16 * 1024;

function sizeText(bytes: number): string {
  return bytes % (1024 * 1024) === 0 ? `${bytes / (1024 * 1024)} MB` : `${bytes} bytes`;
}

/**
 * Parses a `multipart/form-data` upload with one file field named `field`, in memory, with every busboy limit
 * set: a streamed file (chunked, or under a false Content-Length) stops being buffered at `maxBytes` + 1
 * (413 FILE_TOO_LARGE). A missing or empty file, a second file, unknown or oversize
 * fields are 400s.
 */
function tooLarge(field: string, maxBytes: number): ProblemError {
  return new ProblemError(
    problems.FILE_TOO_LARGE,
    `The ${field} file exceeds the limit of ${sizeText(maxBytes)}.`,
    {
      headers: { Connection: 'close' },
    },
  );
}

/**
 * Runs before anything reads the body: not multipart → 400; a declared Content-Length over the limit → 413 at
 * once, without reading (the connection is closed).
 */
export function checkDeclaredUpload(field: string, maxBytes: number): RequestHandler {
  return (req, _res, next) => {
    if (!req.is('multipart/form-data')) {
      next(new ProblemError(problems.INVALID_MULTIPART, 'The body must be multipart/form-data.'));
      return;
    }
    const declared = Number(req.headers['content-length']);
    if (Number.isFinite(declared) && declared > maxBytes + FORM_OVERHEAD_BYTES) {
      // Stop reading the body: the connection is closed after the 413, the rest is never buffered.
      req.pause();
      next(tooLarge(field, maxBytes));
      return;
    }
    next();
  };
}

/** An upload form: one file, a few signed fields (the file's size is the route's). */
const FORM_LIMITS = {
  files: 1,
  fields: 6,
  parts: 8,
  fieldSize: FIELD_MAX_BYTES,
  fieldNameSize: 100,
  headerPairs: 50,
} as const;

/** The form limits (multer's codes) in our words. */
const PART_LIMITS: Partial<Record<MulterError['code'], string>> = {
  LIMIT_PART_COUNT: `at most ${FORM_LIMITS.parts} parts`,
  LIMIT_FILE_COUNT: 'exactly one file',
  LIMIT_FIELD_KEY: `field names of at most ${FORM_LIMITS.fieldNameSize} bytes`,
  LIMIT_FIELD_VALUE: `field values of at most ${FORM_LIMITS.fieldSize} bytes`,
  LIMIT_FIELD_COUNT: `at most ${FORM_LIMITS.fields} fields`,
  MISSING_FIELD_NAME: 'every part needs a name',
};

export function multipartUpload(field: string, maxBytes: number): RequestHandler {
  const parser = multer({
    storage: multer.memoryStorage(),
    limits: { ...FORM_LIMITS, fileSize: maxBytes },
  }).single(field);

  return (req, res, next) => {
    parser(req, res, (err: unknown) => {
      if (err instanceof MulterError) {
        if (err.code === 'LIMIT_FILE_SIZE') next(tooLarge(field, maxBytes));
        else if (err.code === 'LIMIT_UNEXPECTED_FILE') {
          next(
            new ProblemError(
              problems.INVALID_MULTIPART,
              `Unexpected file field "${err.field ?? ''}": send exactly one file, named "${field}".`,
            ),
          );
        } else {
          const limit = PART_LIMITS[err.code] ?? 'it breaks a limit of the form';
          next(
            new ProblemError(problems.INVALID_MULTIPART, `The multipart form is refused: ${limit}.`, {
              cause: err,
            }),
          );
        }
        return;
      }
      if (err) {
        // The parser's own words (where it stopped, what it expected) stay in the cause, for the logs.
        next(
          new ProblemError(
            problems.INVALID_MULTIPART,
            'The multipart body cannot be parsed: it is malformed or cut off.',
            { cause: err },
          ),
        );
        return;
      }
      if (!req.file) {
        next(
          new ProblemError(
            problems.MISSING_FILE,
            `The multipart field "${field}" with the image is missing.`,
          ),
        );
        return;
      }
      if (req.file.size === 0) {
        next(new ProblemError(problems.EMPTY_FILE, `The "${field}" file is empty.`));
        return;
      }
      // The body schema documents the file part; the bytes stay on req.file.
      (req.body as Record<string, unknown>)[field] = req.file.originalname;
      next();
    });
  };
}
